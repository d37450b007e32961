"""Cache archives are signed and verified before anything is written (issue 23, point 2): an archive whose
``.so`` was replaced (and its ``.json`` checksum, and even the index's sums, recomputed) is refused whole, so
the foreign library's constructor never runs; an unsigned archive, or one whose signature cannot be checked
here, is imported only on ``trust``; totals are bounded and members streamed (a 3 MB tar.gz of three 1 GiB
members peaked ``cache import`` at 3.1 GB before)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import textwrap
from pathlib import Path

import pytest

from opbuild.builder import Builder
from opbuild.cache.admin import sealing, transfer
from opbuild.cli.info import codegen_hash, machine_identity
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from tests.cache._util import kernel_meta, verify_cache
from tests.cache.test_hostile_manifest import _evil_library
from tests.conftest import run_python
from tests.helpers import PEAK_RSS_SRC

SECRET = b"the team's secret"
SPECS = [REGISTRY["Square"].spec({}, [TensorType((n,), "float32")]) for n in (3, 5, 7)]


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path, Path]:
    """A cache of three entries, its archive signed with SECRET and one exported without a secret."""
    root = tmp_path_factory.mktemp("archives")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPBUILD_CACHE_PATH", str(root / "cache"))
        mp.delenv("RANK_ID", raising=False)
        mp.setenv("OPBUILD_CACHE_SECRET", SECRET.decode())  # export under a secret takes only entries it signed
        _, report = Builder().build(SPECS)
    assert report.built == 3
    km = kernel_meta(root / "cache")
    signed, unsigned = root / "signed.tar.gz", root / "unsigned.tar.gz"
    assert transfer.export(km, signed, secret=SECRET).signed
    assert not transfer.export(km, unsigned).signed
    return km, signed, unsigned


def _import(archive: Path, dest: Path, secret: bytes | None = SECRET, trust: bool = False) -> transfer.ImportResult:
    return transfer.import_archive(archive, dest, machine_identity(), codegen_hash, secret=secret, trust=trust)


def _members(archive: Path) -> list[tuple[tarfile.TarInfo, bytes]]:
    with tarfile.open(archive) as tar:
        return [(m, tar.extractfile(m).read()) for m in tar.getmembers()]


def _write(archive: Path, members: list[tuple[str, bytes]]) -> None:
    with tarfile.open(archive, "w:gz") as tar:
        for name, data in members:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            tar.addfile(ti, io.BytesIO(data))


def test_a_signed_archive_imports_and_verifies(exported, tmp_path):
    km, signed, _ = exported
    result = _import(signed, tmp_path / "km")
    assert result.ok and result.signed and sorted(result.imported) == sorted(p.stem for p in km.glob("*.info"))
    assert verify_cache(tmp_path / "km") == []


def _poison(members, evil: bytes, fix_index: bool) -> list[tuple[str, bytes]]:
    """The archive with its first binary replaced by ``evil`` and the .json's checksum recomputed; with
    ``fix_index``, the index's sums too (all an attacker without the secret can do)."""
    out = [(m.name, data) for m, data in members]
    so = next(i for i, (n, _) in enumerate(out) if n.endswith(".so"))
    name = out[so][0][len("kernel_meta/"):-3]
    out[so] = (out[so][0], evil)
    js = next(i for i, (n, _) in enumerate(out) if n == f"kernel_meta/{name}.json")
    meta = json.loads(out[js][1])
    meta.update(sha256=hashlib.sha256(evil).hexdigest(), size=len(evil))
    out[js] = (out[js][0], json.dumps(meta).encode())
    if fix_index:
        index = json.loads(out[-1][1])
        sums = {n: [n, len(d), hashlib.sha256(d).hexdigest()] for n, d in out[:-1]}
        index["members"] = [sums[row[0]] for row in index["members"]]
        out[-1] = (out[-1][0], json.dumps(index).encode())
    return out


@pytest.mark.parametrize("fix_index", [False, True], ids=["index-kept", "index-recomputed"])
def test_a_poisoned_archive_is_refused_and_nothing_runs(exported, tmp_path, fix_index):
    _, signed, _ = exported
    members = _members(signed)
    name = next(m.name for m, _ in members if m.name.endswith(".so"))[len("kernel_meta/"):-3]
    marker = tmp_path / "constructor-ran"
    evil = _evil_library(tmp_path, marker, "ob_" + name.rsplit("_", 1)[1]).read_bytes()
    poisoned = tmp_path / "poisoned.tar.gz"
    _write(poisoned, _poison(members, evil, fix_index))
    dest = tmp_path / "km"
    for trust in (False, True):  # a signature that is checked and wrong is refused even on trust
        result = _import(poisoned, dest, trust=trust)
        assert result.refused and not result.ok and result.imported == []
        why = "differs from its index" if not fix_index else "signature does not match"
        assert why in result.error, result.error
    assert not dest.exists() or not list(dest.glob("*.so"))  # nothing written
    assert not marker.exists()


def test_unsigned_archives_need_trust(exported, tmp_path):
    _, _, unsigned = exported
    refused = _import(unsigned, tmp_path / "a")
    assert refused.refused and "not signed" in refused.error and "--trust" in refused.error
    assert not (tmp_path / "a").exists()
    trusted = _import(unsigned, tmp_path / "a", trust=True)
    assert trusted.ok and len(trusted.imported) == 3 and not trusted.signed


def test_signed_archives_need_the_secret_or_trust(exported, tmp_path):
    _, signed, _ = exported
    no_secret = _import(signed, tmp_path / "a", secret=None)
    assert no_secret.refused and "OPBUILD_CACHE_SECRET is unset" in no_secret.error
    assert _import(signed, tmp_path / "a", secret=None, trust=True).ok
    other = _import(signed, tmp_path / "b", secret=b"another secret", trust=True)
    assert other.refused and "signed with another secret" in other.error
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("edit", ["appended", "dropped", "after-index", "twice", "link"])
def test_members_must_be_exactly_those_of_the_index(exported, tmp_path, edit):
    _, signed, _ = exported
    members = [(m.name, data) for m, data in _members(signed)]
    archive = tmp_path / "edited.tar.gz"
    if edit == "appended":
        members.insert(-1, ("kernel_meta/extra_" + "0" * 32 + ".info", b"{}"))
    elif edit == "dropped":
        members.pop(1)
    elif edit == "after-index":
        members.append(("kernel_meta/README", b"hi"))
    elif edit == "twice":
        members.insert(-1, members[1])
    if edit == "link":
        with tarfile.open(archive, "w:gz") as tar:
            for name, data in members[:-1]:
                ti = tarfile.TarInfo(name)
                ti.size = len(data)
                tar.addfile(ti, io.BytesIO(data))
            ti = tarfile.TarInfo("kernel_meta/x.so")
            ti.type, ti.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(ti)
            ti = tarfile.TarInfo(members[-1][0])
            ti.size = len(members[-1][1])
            tar.addfile(ti, io.BytesIO(members[-1][1]))
    else:
        _write(archive, members)
    result = _import(archive, tmp_path / "km", trust=True)
    assert result.refused and result.imported == [], result.error
    assert not (tmp_path / "km").exists()


def test_archive_totals_are_bounded(exported, tmp_path, monkeypatch):
    _, signed, _ = exported
    monkeypatch.setattr(sealing, "MAX_MEMBERS", 5)
    assert "more than 5 members" in _import(signed, tmp_path / "a").error
    monkeypatch.setattr(sealing, "MAX_MEMBERS", 10 ** 6)
    monkeypatch.setattr(sealing, "MAX_TOTAL_BYTES", 1000)
    assert "more than 1000 bytes" in _import(signed, tmp_path / "a").error
    assert not (tmp_path / "a").exists()


def test_the_index_is_a_bounded_hostile_file(exported, tmp_path):
    _, signed, _ = exported
    members = [(m.name, data) for m, data in _members(signed)]
    for bad in (b"[" * 100000, b"\xff", json.dumps({"format": 1, "key_id": "x", "members": [["a", -1]],
                                                    "mac": None}).encode()):
        _write(tmp_path / "bad.tar.gz", members[:-1] + [(sealing.INDEX, bad)])
        result = _import(tmp_path / "bad.tar.gz", tmp_path / "km", trust=True)
        assert result.refused and sealing.INDEX in result.error


@pytest.mark.slow
def test_three_1gib_members_in_a_small_archive_never_fill_memory(tmp_path):
    """Made in a child process (writing 3 GiB of zeros through gzip), imported in another whose peak RSS is
    measured: refused at the first member's header, before a byte of it is inflated into memory."""
    archive = tmp_path / "bomb.tar.gz"
    run_python(textwrap.dedent(f"""
        import tarfile
        class Zeros:
            def __init__(self, n): self.n = n
            def read(self, k=-1):
                k = self.n if k < 0 else min(k, self.n); self.n -= k; return bytes(k)
        with tarfile.open({str(archive)!r}, "w:gz", compresslevel=1) as tar:
            for i in range(3):
                ti = tarfile.TarInfo(f"kernel_meta/square_{{i:032x}}.so"); ti.size = 1 << 30
                tar.addfile(ti, Zeros(1 << 30))
    """), timeout=600)
    assert archive.stat().st_size < 32 << 20
    code = PEAK_RSS_SRC + textwrap.dedent(f"""
        import json
        from opbuild.cache.admin import transfer
        r = transfer.import_archive({str(archive)!r}, {str(tmp_path / "km")!r}, {{}}, None, trust=True)
        print(json.dumps({{"error": r.error, "peak_kb": peak_rss_kb()}}))
    """)
    out = json.loads(run_python(code).stdout.strip().splitlines()[-1])
    assert "over the" in out["error"] and "bound" in out["error"], out
    assert out["peak_kb"] < 300 << 10, out


def test_import_holds_one_entry_at_a_time(exported, tmp_path):
    """An entry's members must be consecutive (export writes them so): interleaved ones are incomplete entries,
    not a pile of binaries held until their partners arrive."""
    _, _, unsigned = exported
    members = [(m.name, data) for m, data in _members(unsigned)][:-1]  # no index: on trust
    entries = [members[i:i + 3] for i in range(1, len(members), 3)]
    interleaved = [members[0]] + [e[k] for k in range(3) for e in entries[:2]] + entries[2]
    _write(tmp_path / "mixed.tar.gz", interleaved)
    result = _import(tmp_path / "mixed.tar.gz", tmp_path / "km", trust=True)
    assert len(result.imported) == 1  # the third entry, whose members are together
    assert sorted(c for _, c, _ in result.skipped) == ["incomplete"] * 6
