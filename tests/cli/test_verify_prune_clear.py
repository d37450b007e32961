"""`opbuild cache verify [--repair]`, `cache prune`, `cache clear` and the OPBUILD_CACHE_MAX_SIZE bound."""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import child_env, kernel_meta, names, run_cli, run_json, run_net

pytestmark = pytest.mark.slow


def _by_op(root: Path, op: str, shape: int | None = None) -> list[str]:
    out = []
    for n in sorted(names(root)):
        info = json.loads((kernel_meta(root) / f"{n}.info").read_text())
        if info["op"] == op and (shape is None or info["inputs"][0]["shape"] == [shape]):
            out.append(n)
    return out


def _manifests(root: Path) -> list[Path]:
    return sorted((kernel_meta(root) / ".graphs").glob("*.json"))


def _drop_manifests(root: Path) -> None:
    """Remove the graph manifests (an index the next warm start writes again): for the tests whose size
    arithmetic is over entries; how prune and verify treat manifests is tested in tests/cache/test_manifest.py."""
    for m in _manifests(root):
        m.unlink()


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _assert_no_half_entries(root: Path) -> None:
    """Every entry in kernel_meta has all three files or none."""
    km = kernel_meta(root)
    stems: dict[str, set[str]] = {}
    for p in km.iterdir():
        if p.is_file() and not p.name.startswith("."):
            stems.setdefault(p.name.rsplit(".", 1)[0], set()).add(p.suffix)
    half = {n: s for n, s in stems.items() if s != {".info", ".json", ".so"}}
    assert not half, half


def test_verify_clean_cache(warm_root):
    proc = run_cli("cache", "verify", root=warm_root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "checked 9 entries" in proc.stdout and "no problems found" in proc.stdout


def test_verify_reports_each_problem_and_repair_fixes_them(cache):
    km = kernel_meta(cache)
    sq3 = _by_op(cache, "Square", 3)[0]
    add3 = _by_op(cache, "Add", 3)[0]
    exp3 = _by_op(cache, "Exp", 3)[0]
    sq4 = _by_op(cache, "Square", 4)[0]
    add4 = _by_op(cache, "Add", 4)[0]
    # 1. flipped byte in a binary (size unchanged): checksum
    blob = bytearray((km / f"{sq3}.so").read_bytes())
    blob[200] ^= 0xFF
    (km / f"{sq3}.so").write_bytes(bytes(blob))
    # 2. another entry's descriptor under this name: .info vs name
    (km / f"{add3}.info").write_bytes((km / f"{add4}.info").read_bytes())
    # 3. torn .json
    (km / f"{exp3}.json").write_text('{"binary": ')
    # 4. .json deleted: uncommitted entry
    (km / f"{sq4}.json").unlink()
    # 5. temporary of a dead process, 6. orphan file, 7. orphan folder
    tmp_name = f".tmp.{socket.gethostname().replace('.', '_')}.{_dead_pid()}.0badc0de.{sq3}.so"
    (km / tmp_name).write_bytes(b"partial")
    (km / "notes.txt").write_text("mine")
    (km / "stray_dir").mkdir()

    report = run_json("cache", "verify", root=cache, expect=1)
    found = {(p["kind"], p["path"]): p["detail"] for p in report["problems"] if p["kind"] != "manifest"}
    # The float32 (3,) and (4,) graphs' manifests name damaged entries: reported, removed by the repair.
    stale = sorted(p["path"] for p in report["problems"] if p["kind"] == "manifest")
    assert len(_manifests(cache)) == 3 and len(stale) == 2
    assert found[("entry", sq3)] == "binary sha256 does not match .json"
    assert found[("entry", add3)] == ".info does not hash to the entry's name"
    assert "unparsable .json" in found[("entry", exp3)]
    assert "has no .json" in found[("uncommitted", sq4)]
    assert ("temporary", tmp_name) in found
    assert ("orphan", "notes.txt") in found and ("orphan", "stray_dir") in found
    assert len(found) == 7 and report["checked"] == 9

    human = run_cli("cache", "verify", root=cache)
    assert human.returncode == 1
    assert "9 problems found" in human.stdout and "binary sha256 does not match .json" in human.stdout

    repaired = run_json("cache", "verify", "--repair", root=cache)  # everything fixed: exit 0
    actions = {p["path"]: p["action"] for p in repaired["problems"]}
    assert actions[tmp_name] == "removed" and [actions[m] for m in stale] == ["removed"] * 2
    assert len(_manifests(cache)) == 1  # the float64 graph's, whose entries are sound
    assert {actions[n] for n in (sq3, add3, exp3, sq4, "notes.txt", "stray_dir")} == {"quarantined"}
    quarantined = {p.name for p in (km / "quarantine").iterdir()}
    assert any(q.startswith(f"{sq3}.so.") for q in quarantined)
    assert any(q.startswith("notes.txt.") for q in quarantined)
    assert not (km / tmp_name).exists() and not (km / "notes.txt").exists()
    _assert_no_half_entries(cache)

    clean = run_cli("cache", "verify", root=cache)
    assert clean.returncode == 0 and "no problems found" in clean.stdout
    # the quarantined kernels are simply rebuilt by the next run
    run_net(cache, 3)
    run_net(cache, 4)
    assert run_cli("cache", "verify", root=cache).returncode == 0
    assert len(names(cache)) == 9


def test_verify_leaves_an_entry_being_built_alone(cache):
    """An uncommitted entry whose lock is held (a build in progress) is neither a problem nor repaired."""
    km = kernel_meta(cache)
    victim = _by_op(cache, "Exp", 4)[0]
    (km / f"{victim}.json").unlink()
    holder = _hold(km, victim, "exclusive")
    try:
        report = run_json("cache", "verify", "--repair", root=cache)
        assert report["in_progress"] == [victim] and (km / f"{victim}.so").exists()
        # The entry is left alone; the manifest that recorded its old .json can serve no warm start: removed.
        assert [(p["kind"], p["action"]) for p in report["problems"]] == [("manifest", "removed")]
        assert victim in report["problems"][0]["detail"]
    finally:
        holder.communicate("", timeout=30)
    assert run_json("cache", "verify", "--repair", root=cache)["problems"][0]["action"] == "quarantined"


def _hold(km: Path, name: str, mode: str) -> subprocess.Popen:
    """A process holding entry ``name``'s lock ("shared": a loader's pin, "exclusive": a builder) until its
    stdin closes."""
    code = ("import sys\nfrom pathlib import Path\nimport filelock\nfrom opbuild.cache import locks\n"
            "from opbuild.cache.local import KernelStore\n"
            "store = KernelStore(Path(sys.argv[1]), create=False)\n"
            "if sys.argv[3] == 'shared':\n"
            "    ctx = locks.pinned(store, sys.argv[2], timeout=5)\n"
            "else:\n"
            "    store.lock_path(sys.argv[2]).parent.mkdir(exist_ok=True)\n"
            "    ctx = filelock.FileLock(str(store.lock_path(sys.argv[2])))\n"
            "with ctx:\n"
            "    print('ready', flush=True)\n"
            "    sys.stdin.read()\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(km), name, mode], env=child_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _set_last_used(root: Path, order: list[str], base: float) -> None:
    for i, n in enumerate(order):
        os.utime(kernel_meta(root) / f"{n}.json", (base + i, base + i))


def _size(root: Path, n: str) -> int:
    return sum((kernel_meta(root) / (n + s)).stat().st_size for s in (".info", ".json", ".so"))


def test_prune_max_size_evicts_least_recently_used_first(cache):
    _drop_manifests(cache)
    order = sorted(names(cache))  # order[0] is the least recently used
    _set_last_used(cache, order, time.time() - 3600)
    total = sum(_size(cache, n) for n in order)
    bound = total - _size(cache, order[0]) - _size(cache, order[1])

    dry = run_json("cache", "prune", "--max-size", str(bound), "--dry-run", root=cache)
    assert [r["name"] for r in dry["removed"]] == order[:2]
    assert names(cache) == set(order)  # nothing removed by a dry run

    done = run_json("cache", "prune", "--max-size", str(bound), root=cache)
    assert [r["name"] for r in done["removed"]] == order[:2]
    assert done["bytes_after"] <= bound
    assert names(cache) == set(order[2:])
    _assert_no_half_entries(cache)
    assert run_json("cache", "stats", root=cache)["counters"]["evictions"] == 2

    # size suffixes: 1K = 1024 bytes; everything goes but the most recently used entry
    keep_k = math.ceil(_size(cache, order[-1]) / 1024)  # + less than 1 KiB: no room for another entry
    run_json("cache", "prune", "--max-size", f"{keep_k}K", root=cache)
    assert names(cache) == {order[-1]}


def test_prune_older_than_uses_last_use_not_build_time(cache):
    old = _by_op(cache, "Add")
    _set_last_used(cache, old, time.time() - 40 * 86400)
    proc = run_cli("cache", "prune", "--older-than", "30d", root=cache)
    assert proc.returncode == 0, proc.stderr
    assert "removed 3 entries" in proc.stdout
    assert names(cache) == set(_by_op(cache, "Square") + _by_op(cache, "Exp")) and not _by_op(cache, "Add")
    # a run that reuses an entry refreshes its last-use time (built long ago, used now: it stays)
    sq3 = _by_op(cache, "Square", 3)[0]
    os.utime(kernel_meta(cache) / f"{sq3}.json", (time.time() - 40 * 86400,) * 2)
    run_net(cache, 3)
    assert time.time() - (kernel_meta(cache) / f"{sq3}.json").stat().st_mtime < 600
    run_json("cache", "prune", "--older-than", "30d", root=cache)
    assert sq3 in names(cache)


def test_prune_skips_entries_another_process_is_loading_or_building(cache):
    km = kernel_meta(cache)
    order = sorted(names(cache))
    _set_last_used(cache, order, time.time() - 3600)
    loader = _hold(km, order[0], "shared")
    builder = _hold(km, order[1], "exclusive")
    try:
        result = run_json("cache", "prune", "--max-size", "0", root=cache)
        assert sorted(result["in_use"]) == sorted(order[:2])
        assert names(cache) == set(order[:2])
        _assert_no_half_entries(cache)
        human = run_cli("cache", "prune", "--max-size", "0", root=cache)
        assert "kept 2 entries in use by another process" in human.stdout
    finally:
        loader.communicate("", timeout=30)
        builder.communicate("", timeout=30)
    run_json("cache", "prune", "--max-size", "0", root=cache)
    assert names(cache) == set()


def test_prune_needs_a_bound(cache):
    _drop_manifests(cache)
    proc = run_cli("cache", "prune", root=cache)
    assert proc.returncode == 2 and "--max-size" in proc.stderr
    order = sorted(names(cache))
    _set_last_used(cache, order, time.time() - 3600)
    # OPBUILD_CACHE_MAX_SIZE is the default bound
    keep = sum(_size(cache, n) for n in order[-4:])
    run_json("cache", "prune", root=cache, env={"OPBUILD_CACHE_MAX_SIZE": str(keep)})
    assert names(cache) == set(order[-4:])


def test_cache_max_size_bounds_the_cache_after_a_build(cache):
    """A run that compiles evicts least recently used entries but never the kernels it uses."""
    # The run writes its graph's manifest, of the size of the float32 (3,) graph's (same kernels, one digit).
    manifest_bytes = max(m.stat().st_size for m in _manifests(cache))
    _drop_manifests(cache)
    order = sorted(names(cache))
    _set_last_used(cache, order, time.time() - 3600)
    f32 = [n for n in order
           if json.loads((kernel_meta(cache) / f"{n}.info").read_text())["inputs"][0]["dtype"] == "float32"]
    bound = _size(cache, order[-1]) + 3 * max(_size(cache, n) for n in f32) + manifest_bytes + 2048
    proc = run_net(cache, 7, env={"OPBUILD_CACHE_MAX_SIZE": str(bound)})
    assert "OPBUILD_CACHE_MAX_SIZE" not in proc.stderr  # the bound could be met: no warning
    left = names(cache)
    new = left - set(order)
    assert len(new) == 3  # this run's kernels stay
    assert left - new == {order[-1]}  # of the old ones only the most recently used one
    assert sum(_size(cache, n) for n in left) + sum(m.stat().st_size for m in _manifests(cache)) <= bound
    _assert_no_half_entries(cache)

    # a bound smaller than the run's own kernels: they stay, one warning says so
    proc = run_net(cache, 8, env={"OPBUILD_CACHE_MAX_SIZE": "1K"})
    assert proc.stderr.count("over OPBUILD_CACHE_MAX_SIZE") == 1
    assert len(names(cache)) == 3
    bad = run_net(cache, 8, env={"OPBUILD_CACHE_MAX_SIZE": "huge"}, check=False)
    assert bad.returncode != 0 and "OPBUILD_CACHE_MAX_SIZE" in bad.stderr


def test_clear_asks_first(cache):
    before = names(cache)
    no = run_cli("cache", "clear", root=cache, input="n\n")
    assert no.returncode == 1 and "Remove 9 cache entries" in no.stderr and "aborted" in no.stderr
    assert names(cache) == before
    eof = run_cli("cache", "clear", root=cache, input="")
    assert eof.returncode == 1 and names(cache) == before
    yes = run_cli("cache", "clear", root=cache, input="y\n")
    assert yes.returncode == 0, yes.stderr
    assert names(cache) == set() and not [p for p in kernel_meta(cache).glob("*.so")]
    assert (kernel_meta(cache) / ".stats.json").exists()  # statistics survive a clear, as with ccache -C
    again = run_cli("cache", "clear", "--yes", root=cache)
    assert again.returncode == 0 and "nothing to clear" in again.stdout


def test_clear_all_ranks(cache):
    import shutil

    shutil.copytree(kernel_meta(cache), kernel_meta(cache, 1))
    shutil.copytree(kernel_meta(cache), kernel_meta(cache, 3))
    one = run_json("cache", "clear", "--yes", "--rank", "1", root=cache)
    assert one["removed"] == 9 and names(cache, 1) == set() and len(names(cache, 3)) == 9
    assert len(names(cache, 0)) == 9
    everything = run_cli("cache", "clear", "--all-ranks", root=cache, input="yes\n")
    assert everything.returncode == 0, everything.stderr
    assert "18 cache entries" in everything.stderr and "3 kernel_meta directories" in everything.stderr
    assert names(cache, 0) == names(cache, 3) == set()


def test_clear_keeps_entries_in_use(cache):
    km = kernel_meta(cache)
    victim = sorted(names(cache))[0]
    loader = _hold(km, victim, "shared")
    try:
        proc = run_cli("cache", "clear", "--yes", root=cache)
        assert proc.returncode == 1 and "kept 1 entry in use" in proc.stdout
        assert names(cache) == {victim}
    finally:
        loader.communicate("", timeout=30)


@pytest.mark.timeout(240)
def test_loading_while_another_process_evicts_never_fails(cache, tmp_path):
    """A process reloading kernels from disk in a loop while another evicts everything in a loop: every
    load either finds a sound entry (pinned while it loads) or rebuilds; nothing crashes, no half-entry."""
    stop = tmp_path / "stop"
    loader_code = (
        "import os, sys\nfrom opbuild.builder import Builder\nfrom opbuild.core.ir import TensorType\n"
        "from opbuild.ops import REGISTRY\nimport opbuild.ops\n"
        "specs = [REGISTRY[op].spec({}, [TensorType((4,), 'float32')] * k) for op, k in (('Square', 1), "
        "('Add', 2))]\n"
        "loads = 0\n"
        "while not os.path.exists(sys.argv[1]) or loads < 20:\n"
        "    Builder().build(specs)\n"
        "    loads += 1\n"
        "print('loads', loads)\n")
    loader = subprocess.Popen([sys.executable, "-c", loader_code, str(stop)], env=child_env(cache),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(5):
            proc = run_cli("cache", "prune", "--max-size", "0", root=cache)
            assert proc.returncode == 0, proc.stderr
            assert loader.poll() is None, loader.communicate()
    finally:
        stop.touch()
        out, err = loader.communicate(timeout=120)
    assert loader.returncode == 0, err
    assert int(out.split()[-1]) >= 20
    _assert_no_half_entries(cache)
    assert run_cli("cache", "verify", root=cache).returncode == 0


def test_hard_linked_batches_are_counted_once_and_freed_with_their_last_link(tmp_path):
    """OPBUILD_BUILD_JOBS=1 compiles the network's 3 kernels in one batch: their .so files are hard links
    of one shared object. Sizes are disk usage, and evicting an entry frees the binary only with its last
    link."""
    root = tmp_path / "batched"
    run_net(root, 3, env={"OPBUILD_BUILD_JOBS": "1"})
    _drop_manifests(root)
    km = kernel_meta(root)
    sos = [km / f"{n}.so" for n in sorted(names(root))]
    assert len(sos) == 3 and len({p.stat().st_ino for p in sos}) == 1 and sos[0].stat().st_nlink == 3
    binary = sos[0].stat().st_size
    small = {n: _size(root, n) - binary for n in names(root)}  # .info + .json of each entry
    on_disk = binary + sum(small.values())

    listed = run_json("cache", "ls", root=root)
    assert listed["disk_bytes"] == on_disk and listed["bytes"] == on_disk + 2 * binary
    assert {e["binary_links"] for e in listed["entries"]} == {3}
    assert "on disk: batched builds share binaries" in run_cli("cache", "ls", root=root).stdout
    assert run_json("cache", "stats", root=root)["bytes"] == on_disk
    assert run_cli("cache", "verify", root=root).returncode == 0

    order = sorted(names(root))
    _set_last_used(root, order, time.time() - 3600)
    first = run_json("cache", "prune", "--max-size", str(on_disk - 1), root=root)
    # the least recently used entry goes, but its binary stays (2 links left): only .info + .json are freed
    assert [(r["name"], r["bytes"]) for r in first["removed"]] == [(order[0], small[order[0]])]
    bound = on_disk - small[order[0]] - small[order[1]] - 1  # needs a third removal: the last link
    second = run_json("cache", "prune", "--max-size", str(bound), root=root)
    assert [r["name"] for r in second["removed"]] == order[1:]
    assert [r["bytes"] for r in second["removed"]] == [small[order[1]], small[order[2]] + binary]
    assert second["bytes_after"] == 0 and names(root) == set()
