"""Self-healing: every kind of broken entry is detected before anything is loaded, moved to the cache's
quarantine folder and rebuilt, with ONE warning and the kernel counted as "repaired"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from opbuild.cache import fsio
from tests.cache import _net
from tests.cache._util import copy_cache, env_for, kernel_meta, run_worker, statuses, verify_cache

pytestmark = pytest.mark.slow

NET = _net.branches([3, 4])  # 10 kernels
PARTS = (".json", ".info", ".so")


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
    """A complete cache of NET, never modified: each test corrupts a copy."""
    root = tmp_path_factory.mktemp("golden")
    res = run_worker({"net": NET}, env_for(root))
    assert res["report"]["built"] == 10
    return root, sorted(statuses(res))


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def stray_tmp(km: Path, final_name: str, data: bytes) -> Path:
    """A temporary exactly as fsio names and places them (kernel_meta/.tmp/), owned by a dead process of this
    host."""
    (km / ".tmp").mkdir(exist_ok=True)
    path = km / ".tmp" / f"{fsio.TMP_PREFIX}{fsio._HOST}.{dead_pid()}.0badc0de.{final_name}"
    path.write_bytes(data)
    return path


def _flip(p: Path) -> None:
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x10
    p.write_bytes(bytes(data))


def _other_info(km: Path, name: str, others: list[str]) -> None:
    other = next(o for o in others if o != name and o.split("_")[0] == name.split("_")[0])
    (km / f"{name}.info").write_bytes((km / f"{other}.info").read_bytes())


def _make_dir(p: Path) -> None:
    p.unlink()
    p.mkdir()
    (p / "x").write_text("odd")


def _interrupted_json(km: Path, name: str, others: list[str]) -> None:
    js = km / f"{name}.json"
    data = js.read_bytes()
    js.unlink()
    stray_tmp(km, js.name, data[: len(data) // 2])


CORRUPTIONS: dict[str, Callable[[Path, str, list[str]], None]] = {
    "truncated binary": lambda km, n, o: (km / f"{n}.so").write_bytes((km / f"{n}.so").read_bytes()[:1000]),
    "bit-flipped binary": lambda km, n, o: _flip(km / f"{n}.so"),
    "empty binary": lambda km, n, o: (km / f"{n}.so").write_bytes(b""),
    "missing binary": lambda km, n, o: (km / f"{n}.so").unlink(),
    "missing json": lambda km, n, o: (km / f"{n}.json").unlink(),
    "garbage json": lambda km, n, o: (km / f"{n}.json").write_bytes(os.urandom(300)),
    "truncated json": lambda km, n, o: (km / f"{n}.json").write_bytes((km / f"{n}.json").read_bytes()[:40]),
    "json not an object": lambda km, n, o: (km / f"{n}.json").write_text("[1, 2, 3]\n"),
    "json with wrong types": lambda km, n, o: (km / f"{n}.json").write_text(
        json.dumps(dict(json.loads((km / f"{n}.json").read_text()), size="big"))),
    "missing info": lambda km, n, o: (km / f"{n}.info").unlink(),
    "garbage info": lambda km, n, o: (km / f"{n}.info").write_bytes(os.urandom(200)),
    "info of another kernel": _other_info,
    "stray temporary of an interrupted .json write": _interrupted_json,
    "info is a directory": lambda km, n, o: _make_dir(km / f"{n}.info"),
    "json is a directory": lambda km, n, o: _make_dir(km / f"{n}.json"),
    "binary is a directory": lambda km, n, o: _make_dir(km / f"{n}.so"),
}


def _content(p: Path) -> bytes | list[str]:
    return sorted(c.name for c in p.iterdir()) if p.is_dir() else p.read_bytes()


def _quarantined(km: Path) -> list[str]:
    q = km / "quarantine"
    return sorted(p.name for p in q.iterdir()) if q.is_dir() else []


@pytest.mark.parametrize("kind", list(CORRUPTIONS))
def test_broken_entry_is_quarantined_rebuilt_and_reported(golden, tmp_path, kind):
    root, names = golden
    km = copy_cache(root, tmp_path / "root")
    victim = names[3]
    CORRUPTIONS[kind](km, victim, names)
    present = {s: _content(km / f"{victim}{s}") for s in PARTS if (km / f"{victim}{s}").exists()}
    strays = [p.name for p in (km / ".tmp").iterdir()] if (km / ".tmp").is_dir() else []

    res = run_worker({"net": NET}, env_for(tmp_path / "root"))  # also checks the outputs against NumPy

    st = statuses(res)
    assert st.pop(victim) == "repaired"
    assert set(st.values()) == {"reused"} and len(st) == 9
    assert res["report"]["repaired"] == 1 and res["report"]["built"] == 0
    assert len(res["warnings"]) == 1, res["warnings"]
    assert victim in res["warnings"][0] and "quarantine" in res["warnings"][0]
    # Every part the broken entry had is in quarantine, byte for byte, plus the stray temporaries.
    quarantined = _quarantined(km)
    for suffix, data in present.items():
        (moved,) = [q for q in quarantined if q.startswith(victim + suffix + ".")]
        assert _content(km / "quarantine" / moved) == data
    assert all(any(q.startswith(t + ".") for q in quarantined) for t in strays)  # cache/quarantine.py names
    assert verify_cache(km) == [] and (km / f"{victim}.json").exists()
    # Healed for good: the next run reuses everything and says nothing.
    again = run_worker({"net": NET}, env_for(tmp_path / "root"))
    assert again["report"]["reused"] == 10 and again["warnings"] == []


def test_stray_temporary_beside_a_complete_entry(golden, tmp_path):
    """A temporary left by a killed process next to an entry another process completed: the temporary is
    quarantined, the (verified) entry is used, one warning, and the kernel is reported as repaired."""
    root, names = golden
    km = copy_cache(root, tmp_path / "root")
    victim = names[5]
    tmp = stray_tmp(km, f"{victim}.so", (km / f"{victim}.so").read_bytes()[:500])
    res = run_worker({"net": NET}, env_for(tmp_path / "root"))
    assert statuses(res)[victim] == "repaired" and res["report"]["repaired"] == 1
    assert res["report"]["built"] == 0
    assert len(res["warnings"]) == 1 and "quarantine" in res["warnings"][0]
    assert not tmp.exists() and any(q.startswith(tmp.name + ".") for q in _quarantined(km))
    assert verify_cache(km) == []


def test_temporary_of_a_live_process_is_left_alone(golden, tmp_path):
    """Another process's temporary in flight must not be touched (it may be renamed any moment)."""
    root, names = golden
    km = copy_cache(root, tmp_path / "root")
    (km / ".tmp").mkdir(exist_ok=True)
    live = km / ".tmp" / f"{fsio.TMP_PREFIX}{fsio._HOST}.{os.getpid()}.0badc0de.{names[0]}.so"
    live.write_bytes(b"partial")
    res = run_worker({"net": NET}, env_for(tmp_path / "root"))
    assert res["report"]["reused"] == 10 and res["warnings"] == []
    assert live.read_bytes() == b"partial"
    live.unlink()


def test_damaged_batch_binary_repairs_every_entry_sharing_it(golden, tmp_path):
    """Entries compiled in one batch are hard links of one binary: damage to it (a bit flipped in place)
    breaks all of them. Every one is quarantined and rebuilt, the others reused, still ONE warning."""
    root, names = golden
    subprocess.run(["cp", "-a", str(root), str(tmp_path / "root")], check=True)  # keeps the hard links
    km = kernel_meta(tmp_path / "root")
    inode = {n: (km / f"{n}.so").stat().st_ino for n in names}
    victim = names[0]
    shared = sorted(n for n in names if inode[n] == inode[victim])
    assert len(shared) > 1, "the golden cache was expected to hold batched (hard-linked) entries"
    with open(km / f"{victim}.so", "r+b") as f:
        f.seek(300)
        byte = f.read(1)
        f.seek(300)
        f.write(bytes([byte[0] ^ 0x01]))

    res = run_worker({"net": NET}, env_for(tmp_path / "root"))  # outputs checked against NumPy

    st = statuses(res)
    assert sorted(n for n, s in st.items() if s == "repaired") == shared
    assert all(s == "reused" for n, s in st.items() if n not in shared)
    (warning,) = res["warnings"]
    assert all(n in warning for n in shared) and "quarantine" in warning
    assert verify_cache(km) == []


def _specs_from_infos(km: Path) -> list:
    """The kernel specs of a cache's entries, read back from their descriptors."""
    from opbuild.core.ir import KernelSpec, TensorType

    def tensors(ts):
        return tuple(TensorType(tuple(t["shape"]), t["dtype"]) for t in ts)

    descs = [json.loads(p.read_text()) for p in sorted(km.glob("*.info")) if not p.name.startswith(".")]
    return [KernelSpec(d["op"], d["attrs"], tensors(d["inputs"]), tensors(d["outputs"])) for d in descs]


def test_warm_build_never_lists_the_whole_cache(golden, tmp_path, monkeypatch):
    """The sweep of stray temporaries lists kernel_meta/.tmp/ only, so a warm start costs the same with 10 or
    10,000 entries in the cache; temporaries that earlier versions left beside the entries are ignored by
    builds and cleared by ``cache verify --repair``."""
    from opbuild.builder import Builder
    from opbuild.cache import local

    root, names = golden
    km = copy_cache(root, tmp_path / "root")
    legacy = km / f"{fsio.TMP_PREFIX}{fsio._HOST}.{dead_pid()}.0badc0de.{names[0]}.info"
    legacy.write_bytes(b"old layout")
    stray = stray_tmp(km, f"{names[1]}.json", b"{")
    listed: list[str] = []
    real = os.scandir
    specs = _specs_from_infos(km)
    monkeypatch.setattr(local.os, "scandir", lambda p=".": (listed.append(os.fspath(p)), real(p))[1])
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "root"))
    monkeypatch.delenv("RANK_ID", raising=False)
    _, report = Builder().build(specs)
    assert report.reused + report.repaired == len(specs) == len(names) and report.built == 0
    assert listed == [str(km / ".tmp")]  # not the kernel_meta directory itself
    # the dead process's temporary: swept (quarantined under its name and a stamp)
    assert not stray.exists() and any(q.startswith(stray.name + ".") for q in _quarantined(km))
    assert legacy.exists()
