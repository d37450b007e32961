"""Signed local entries under OPBUILD_CACHE_SECRET (issue 23, the last point): every entry published to
kernel_meta carries a MAC over its name, ``.info`` and ``.json`` (which records the binary's sha256), and every
reader refuses, quarantines and rebuilds one whose MAC is missing, of another secret or wrong. Without the
secret, a library planted with a recomputed ``.json`` runs (the documented threat); with it, it never loads.

Planted libraries write a marker file from their constructor, so "never loaded" is observed directly.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from opbuild.builder import Builder
from opbuild.cache import entry, manifest, signing
from opbuild.cache.admin import transfer
from opbuild.cache.admin.verify import verify
from opbuild.cache.local import KernelStore
from opbuild.cli.info import codegen_hash, machine_identity
from opbuild.core import config
from opbuild.core.errors import ConfigError
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from tests.cache._util import kernel_meta, verify_cache
from tests.cache.test_hostile_manifest import _evil_library, _square
from tests.conftest import run_python

SECRET = "the signed-entry tests' secret"
OTHER = "another team's secret, 32 bytes"
SPECS = [REGISTRY["Square"].spec({}, [TensorType((n,), "float32")]) for n in (3, 5, 7)] + [
    REGISTRY["MatMul"].spec({}, [TensorType((4, 4), "float32")] * 2),
]
VICTIM = 2  # the Square of 7 elements


def _build(monkeypatch, root: Path, secret: str | None):
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(root))
    monkeypatch.delenv("RANK_ID", raising=False)
    monkeypatch.delenv("OPBUILD_REMOTE_CACHE", raising=False)
    if secret is None:
        monkeypatch.delenv("OPBUILD_CACHE_SECRET", raising=False)
    else:
        monkeypatch.setenv("OPBUILD_CACHE_SECRET", secret)
    return Builder().build(SPECS)


@pytest.fixture(scope="module")
def signed_root(tmp_path_factory) -> Path:
    """A cache of SPECS built under SECRET (read-only for tests: :func:`_copy` it)."""
    root = tmp_path_factory.mktemp("signed") / "cache"
    with pytest.MonkeyPatch.context() as mp:
        _, report = _build(mp, root, SECRET)
    assert report.built == len(SPECS)
    return root


def _copy(root: Path, tmp_path: Path) -> tuple[Path, Path]:
    dest = tmp_path / "cache"
    shutil.copytree(root, dest, symlinks=True)
    return dest, kernel_meta(dest)


def _names(km: Path) -> list[str]:
    return sorted(p.stem for p in km.glob("*.info"))


def _victim(km: Path) -> str:
    return next(n for n in _names(km) if n.startswith("square_") and
                json.loads((km / f"{n}.info").read_text())["inputs"][0]["shape"] == [7])


def _quarantine_notes(km: Path, name: str) -> list[str]:
    qdir = km / "quarantine"
    return [p.read_text() for p in qdir.glob(f"{name}.*.reason")] if qdir.is_dir() else []


def _plant(km: Path, name: str, marker: Path, tmp_path: Path, keep_mac: bool) -> None:
    """Replace ``name``'s binary with a library whose constructor creates ``marker`` (exporting the kernel's
    symbol, so it passes the ELF check) and recompute the .json's size and sha256, as anyone with write access
    to kernel_meta can; ``keep_mac``: edit the numbers in place, leaving the MAC's field as it was."""
    evil = _evil_library(tmp_path, marker, "ob_" + name.rsplit("_", 1)[1]).read_bytes()
    js = km / f"{name}.json"
    raw = js.read_bytes()
    meta = json.loads(raw)
    if keep_mac:
        raw = raw.replace(meta["sha256"].encode(), hashlib.sha256(evil).hexdigest().encode())
        raw = raw.replace(f'"size": {meta["size"]}'.encode(), f'"size": {len(evil)}'.encode())
        js.write_bytes(raw)
    else:
        meta.pop("mac")
        meta.update(sha256=hashlib.sha256(evil).hexdigest(), size=len(evil))
        js.write_bytes(entry.encode_result(meta))
    (km / f"{name}.so").unlink()  # the batch's other entries keep their hard link of the real binary
    (km / f"{name}.so").write_bytes(evil)


# ---- the MAC itself ----------------------------------------------------------------------------------------
def test_the_mac_covers_the_name_the_info_and_every_byte_of_the_json():
    signer = signing.EntrySigner(SECRET.encode())
    info, body = b'{"op":"Square"}\n', entry.encode_result({"binary": "square_ab.so", "sha256": "0" * 64, "size": 1})
    signed = signer.sign("square_ab", info, body)
    assert json.loads(signed)["mac"].startswith(signer.key_id + ":") and json.loads(signed)["size"] == 1
    assert signer.problem("square_ab", info, signed) is None
    assert signing.signed_key(signed) == signer.key_id == signing.key_id(SECRET.encode())
    assert "moved from another kernel's name" in signer.problem("square_cd", info, signed)
    assert "bad MAC" in signer.problem("square_ab", info + b" ", signed)
    for at in range(signing.FIELD_BYTES, len(signed)):  # any byte of the .json after the MAC's field
        tampered = signed[:at] + bytes([signed[at] ^ 1]) + signed[at + 1:]
        assert signer.problem("square_ab", info, tampered) is not None, at
    assert signer.problem("square_ab", info, body).startswith("unsigned")
    assert signer.problem("square_ab", info, b'{"mac":"zz' + signed[10:]).startswith("unsigned")  # malformed
    other = signing.EntrySigner(OTHER.encode()).sign("square_ab", info, body)
    assert f"another OPBUILD_CACHE_SECRET (key id {signing.key_id(OTHER.encode())}" in \
        signer.problem("square_ab", info, other)
    assert entry.meta_of(json.loads(signed)) == {}  # a copy never carries the MAC: its publisher signs it


@pytest.mark.parametrize("value", ["", "short secret"], ids=["empty", "too-short"])
def test_empty_or_short_secrets_are_refused_naming_the_variable_never_the_value(monkeypatch, tmp_path, value):
    monkeypatch.setenv("OPBUILD_CACHE_SECRET", value)
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    with pytest.raises(ConfigError) as e:
        config.validate_environment()
    message = str(e.value)
    assert message.startswith("OPBUILD_CACHE_SECRET=") and "at least 16 bytes" in message
    assert "unset the variable to run without signing" in message
    assert ("set but empty" if not value else "12 bytes long, too short") in message
    assert not value or value not in message
    with pytest.raises(ConfigError):  # a build stops before it opens the cache
        Builder().build(SPECS[:1])
    assert not (tmp_path / "rank_0").exists()


# ---- what a build does -------------------------------------------------------------------------------------
def test_entries_are_published_signed_and_reused(signed_root, monkeypatch, tmp_path):
    root, km = _copy(signed_root, tmp_path)
    key = signing.key_id(SECRET.encode())
    assert all(signing.signed_key((km / f"{n}.json").read_bytes()) == key for n in _names(km))
    assert verify(km, secret=SECRET.encode()).problems == []
    _, report = _build(monkeypatch, root, SECRET)
    assert report.reused == len(SPECS) and report.built == 0 and report.repaired == 0


@pytest.mark.parametrize("keep_mac", [False, True], ids=["mac-dropped", "mac-kept"])
def test_a_planted_library_with_a_recomputed_json_never_loads_under_the_secret(signed_root, monkeypatch, tmp_path,
                                                                               keep_mac):
    root, km = _copy(signed_root, tmp_path)
    name, marker = _victim(km), tmp_path / "planted-library-ran"
    _plant(km, name, marker, tmp_path, keep_mac)
    # checksums alone cannot tell (only the graph manifest, which recorded the old .json, differs): only the MAC can
    assert [p.kind for p in verify(km, secret=None).problems] == ["manifest"]

    kernels, report = _build(monkeypatch, root, SECRET)
    assert not marker.exists(), "the planted library was loaded"
    assert report.repaired == 1 and report.built == 0 and report.reused == len(SPECS) - 1
    assert {k.name: k.status for k in report.kernels}[name] == "repaired"
    np.testing.assert_allclose(_square(kernels[VICTIM], 7), np.arange(1, 8, dtype=np.float32) ** 2)
    (note,) = _quarantine_notes(km, name)
    assert note.startswith("bad MAC" if keep_mac else "unsigned")
    assert (km / "quarantine").glob(f"{name}.so.*")  # moved aside, never deleted
    assert signing.signed_key((km / f"{name}.json").read_bytes()) == signing.key_id(SECRET.encode())
    assert verify(km, secret=SECRET.encode()).problems == [] and verify_cache(km) == []


def test_without_the_secret_the_same_plant_runs(signed_root, monkeypatch, tmp_path):
    """The threat the docs state: without a secret, write access to kernel_meta is code execution."""
    root, km = _copy(signed_root, tmp_path)
    name, marker = _victim(km), tmp_path / "planted-library-ran"
    _plant(km, name, marker, tmp_path, keep_mac=False)
    _, report = _build(monkeypatch, root, None)
    assert marker.exists() and report.repaired == 0 and report.built == 0


def test_a_planted_entry_with_a_rewritten_graph_manifest_never_loads(signed_root, monkeypatch, tmp_path):
    """The manifest's warm start checks recorded digests, which the planter rewrites too: the MAC still holds."""
    root, km = _copy(signed_root, tmp_path)
    name, marker = _victim(km), tmp_path / "planted-library-ran"
    _plant(km, name, marker, tmp_path, keep_mac=True)
    (path,) = (km / manifest.MANIFEST_DIR).iterdir()
    data = json.loads(path.read_text())
    row = next(r for r in data["kernels"] if r[1] == name)
    binary = (km / f"{name}.so").read_bytes()
    row[3] = hashlib.sha256((km / f"{name}.json").read_bytes()).hexdigest()
    row[4], row[5] = hashlib.sha256(binary).hexdigest(), len(binary)
    path.write_text(json.dumps(data))
    store = KernelStore(km, create=False, secret=SECRET.encode())
    assert store.check(name, row[2], row[3], row[4], row[5]).reason.startswith("bad MAC")
    assert KernelStore(km, create=False, secret=None).check(name, row[2], row[3], row[4], row[5]).status == "hit"

    _, report = _build(monkeypatch, root, SECRET)
    assert not marker.exists() and report.repaired == 1 and report.reused == len(SPECS) - 1


@pytest.mark.parametrize("swap", ["info", "json", "whole entry renamed"])
def test_swapping_files_between_entries_or_renaming_an_entry_is_refused(signed_root, tmp_path, swap):
    _, km = _copy(signed_root, tmp_path)
    a, b = sorted(n for n in _names(km) if n.startswith("square_"))[:2]
    store = KernelStore(km, create=False, secret=SECRET.encode())
    info_b = (km / f"{b}.info").read_bytes()
    if swap == "whole entry renamed":
        for suffix in (".info", ".json", ".so"):
            (km / f"{b}{suffix}").unlink()
            shutil.copyfile(km / f"{a}{suffix}", km / f"{b}{suffix}")
    else:
        suffix = {"info": ".info", "json": ".json"}[swap]  # (a replaced binary: the plants above)
        (km / f"{b}{suffix}").unlink()
        shutil.copyfile(km / f"{a}{suffix}", km / f"{b}{suffix}")
    found = store.lookup(b, info_b)
    assert found.status == "corrupt" and found.reason.startswith("bad MAC"), found.reason
    problems = {p.path: p.detail for p in verify(km, secret=SECRET.encode()).problems if p.kind == "entry"}
    assert problems.keys() == {b} and problems[b].startswith("bad MAC")


def test_unsigned_entries_written_before_the_secret_are_quarantined_and_rebuilt_signed(monkeypatch, tmp_path,
                                                                                      caplog):
    root = tmp_path / "cache"
    km = kernel_meta(root)
    _build(monkeypatch, root, None)
    assert all(signing.signed_key((km / f"{n}.json").read_bytes()) is None for n in _names(km))
    problems = [p for p in verify(km, secret=SECRET.encode()).problems if p.kind == "entry"]
    assert len(problems) == len(SPECS) and all(p.detail.startswith("unsigned") for p in problems)

    with caplog.at_level(logging.WARNING, logger="opbuild"):
        _, report = _build(monkeypatch, root, SECRET)
    assert report.repaired == len(SPECS) and report.reused == 0
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert f"{len(SPECS)} broken entries moved to quarantine and rebuilt: " in warning
    assert warning.count("unsigned: ") == 1 and all(n in warning for n in _names(km))  # one reason, said once
    assert all(_quarantine_notes(km, n)[0].startswith("unsigned") for n in _names(km))
    key = signing.key_id(SECRET.encode())
    assert all(signing.signed_key((km / f"{n}.json").read_bytes()) == key for n in _names(km))
    _, report = _build(monkeypatch, root, SECRET)
    assert report.reused == len(SPECS) and report.built == 0


def test_a_process_without_the_secret_reads_signed_entries_by_checksum(signed_root, monkeypatch, tmp_path):
    root, km = _copy(signed_root, tmp_path)
    before = {n: (km / f"{n}.json").read_bytes() for n in _names(km)}
    _, report = _build(monkeypatch, root, None)
    assert report.reused == len(SPECS) and report.built == 0 and report.repaired == 0
    assert {n: (km / f"{n}.json").read_bytes() for n in _names(km)} == before  # still signed, untouched
    # another secret: every entry is refused (signed with another key) and rebuilt under it
    _, report = _build(monkeypatch, root, OTHER)
    assert report.repaired == len(SPECS)
    assert "another OPBUILD_CACHE_SECRET" in _quarantine_notes(km, _names(km)[0])[0]


def test_verify_reports_and_repair_quarantines_what_the_secret_refuses(signed_root, monkeypatch, tmp_path):
    root, km = _copy(signed_root, tmp_path)
    victim, names = _victim(km), _names(km)
    _plant(km, victim, tmp_path / "planted-library-ran", tmp_path, keep_mac=True)
    unsigned = next(n for n in names if n != victim)
    meta = json.loads((km / f"{unsigned}.json").read_bytes())
    meta.pop("mac")
    (km / f"{unsigned}.json").write_bytes(entry.encode_result(meta))

    report = verify(km, secret=SECRET.encode())
    details = {p.path: p.detail for p in report.problems if p.kind == "entry"}
    assert details.keys() == {victim, unsigned} and report.key_id == signing.key_id(SECRET.encode())
    assert details[victim].startswith("bad MAC") and details[unsigned].startswith("unsigned")
    # without the secret there is nothing to check them with (only the manifest recorded the old .json files)
    assert {p.kind for p in verify(km, secret=None).problems} == {"manifest"}

    repaired = verify(km, repair=True, secret=SECRET.encode())
    assert sorted(p.action for p in repaired.problems if p.kind == "entry") == ["quarantined"] * 2
    assert _quarantine_notes(km, victim)[0].startswith("bad MAC")
    assert verify(km, secret=SECRET.encode()).problems == []
    _, report = _build(monkeypatch, root, SECRET)
    assert report.built == 2 and report.reused == len(SPECS) - 2 and report.repaired == 0


# ---- archives ----------------------------------------------------------------------------------------------
def test_export_under_the_secret_leaves_out_entries_it_did_not_sign(signed_root, tmp_path):
    _, km = _copy(signed_root, tmp_path)
    victim = _victim(km)
    _plant(km, victim, tmp_path / "planted-library-ran", tmp_path, keep_mac=True)
    result = transfer.export(km, tmp_path / "a.tar.gz", secret=SECRET.encode())
    assert [n for n, _ in result.skipped] == [victim] and result.skipped[0][1].startswith("bad MAC")
    assert len(result.entries) == len(SPECS) - 1


def test_import_re_signs_under_this_machines_secret(signed_root, monkeypatch, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(signed_root, src)
    archive = tmp_path / "a.tar.gz"
    assert len(transfer.export(kernel_meta(src), archive).entries) == len(SPECS)  # unsigned archive
    dest = tmp_path / "dest"
    result = transfer.import_archive(archive, kernel_meta(dest), machine_identity(), codegen_hash,
                                     secret=OTHER.encode(), trust=True)
    assert result.ok and len(result.imported) == len(SPECS)
    key = signing.key_id(OTHER.encode())
    assert all(signing.signed_key((kernel_meta(dest) / f"{n}.json").read_bytes()) == key
               for n in result.imported)
    assert verify(kernel_meta(dest), secret=OTHER.encode()).problems == []
    _, report = _build(monkeypatch, dest, OTHER)
    assert report.reused == len(SPECS) and report.built == 0


# ---- the shared tier ---------------------------------------------------------------------------------------
def test_entries_fetched_from_the_shared_tier_are_re_signed_locally(monkeypatch, tmp_path):
    monkeypatch.setenv("OPBUILD_REMOTE_CACHE", (tmp_path / "tier").as_uri())
    monkeypatch.setenv("OPBUILD_CACHE_SECRET", SECRET)
    monkeypatch.delenv("RANK_ID", raising=False)
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "first"))
    _, report = Builder().build(SPECS)
    assert report.built == len(SPECS)
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "second"))  # an empty local tier: all fetched
    _, report = Builder().build(SPECS)
    assert report.built == 0 and report.fetched == len(SPECS)
    km = kernel_meta(tmp_path / "second")
    key = signing.key_id(SECRET.encode())
    assert all(signing.signed_key((km / f"{n}.json").read_bytes()) == key for n in _names(km))
    assert all("fetched_from" in json.loads((km / f"{n}.json").read_bytes()) for n in _names(km))
    assert verify(km, secret=SECRET.encode()).problems == []
    monkeypatch.delenv("OPBUILD_REMOTE_CACHE")
    _, report = Builder().build(SPECS)  # and the local tier serves them from now on
    assert report.reused == len(SPECS) and report.fetched == 0


# ---- what the commands say ---------------------------------------------------------------------------------
CLI = "import sys; from opbuild.cli import main; sys.exit(main())"  # `opbuild ...` in a fresh interpreter


def test_verify_and_explain_say_why_an_entry_is_refused(signed_root, monkeypatch, tmp_path):
    root, km = _copy(signed_root, tmp_path)
    victim = _victim(km)
    _plant(km, victim, tmp_path / "planted-library-ran", tmp_path, keep_mac=True)
    env = {"OPBUILD_CACHE_PATH": str(root), "RANK_ID": "0", "OPBUILD_CACHE_SECRET": SECRET}

    proc = run_python(CLI, "cache", "verify", env=env, check=False)
    assert proc.returncode == 1 and victim in proc.stdout and "bad MAC" in proc.stdout, proc.stdout
    assert f"entries must be signed with OPBUILD_CACHE_SECRET (key id {signing.key_id(SECRET.encode())})" \
        in proc.stdout
    text = run_python(CLI, "cache", "explain", victim, env=env).stdout
    assert "entry    refused: bad MAC" in text and "a build quarantines it and rebuilds" in text, text
    sound = next(n for n in _names(km) if n != victim)
    text = run_python(CLI, "cache", "explain", sound, env=env).stdout
    assert "entry    sound: a build loads it (signed with this OPBUILD_CACHE_SECRET (key id " in text, text

    _build(monkeypatch, root, SECRET)  # quarantines and rebuilds the victim
    data = json.loads(run_python(CLI, "cache", "explain", victim, "--json", env=env).stdout)
    assert data["entry"]["state"] == "sound" and data["entry"]["quarantined"][0]["reason"].startswith("bad MAC")
    text = run_python(CLI, "cache", "explain", victim, env={**env, "OPBUILD_CACHE_SECRET": ""}, check=False)
    assert text.returncode != 0 and "OPBUILD_CACHE_SECRET='***' is set but empty" in text.stderr
    assert "Traceback" not in text.stderr
