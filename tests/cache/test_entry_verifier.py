"""One entry format, one verifier (cache/entry.py): every reader of an entry (a build's lookup, the graph
manifest's check, ``cache verify``, ``cache export`` and ``import``, the shared-tier fetch) accepts the same
sound entry and gives the same reason for the same damage; the signature hook runs before anything is parsed
and the binary's size is checked before a byte of it is read; archives carry only the toolchain records of
compilers that built an entry they hold."""

from __future__ import annotations

import hashlib
import json
import tarfile
from pathlib import Path

import pytest

from opbuild.cache import entry, identity, key
from opbuild.cache.admin import scan, transfer, verify
from opbuild.cache.local import KernelStore
from opbuild.cache.shared import entry as blob
from opbuild.cache.statmemo import StatMemo
from opbuild.core.ir import TensorType
from tests.remote._elf import shared_object

COMPILER = {"path": "/usr/bin/cc", "version": "cc 1.0", "flags": ["-O2"]}
TARGET = {"arch": "x86_64"}
HERE = {"compiler": COMPILER, "target": TARGET, "opbuild_version": "0", "abi": 1}


def _info(op: str = "Square") -> bytes:
    t = TensorType((3,), "float32")
    return key.canonical_bytes(key.descriptor(op, {}, [t], [t], codegen_hash="c" * 64, abi=1, compiler=COMPILER,
                                              target=TARGET, version="0"))


INFO = _info()
NAME = key.kernel_name("Square", INFO)


@pytest.fixture
def store(tmp_path) -> KernelStore:
    s = KernelStore(tmp_path / "kernel_meta")
    s.publish(NAME, INFO, shared_object(NAME), {"kernel": NAME, "op": "Square", "build_seconds": 0.1})
    return s


def _row(store: KernelStore) -> tuple[str, str, str, int]:
    """What a graph manifest records of the entry while it is sound."""
    raw = store.json_path(NAME).read_bytes()
    binary = store.binary_path(NAME).read_bytes()
    return (hashlib.sha256(INFO).hexdigest(), hashlib.sha256(raw).hexdigest(), hashlib.sha256(binary).hexdigest(),
            len(binary))


def _verify_reason(store: KernelStore) -> str | None:
    (found,) = scan.scan(store.path).entries
    return verify.check_entry(KernelStore(store.path), found)


def _export_reason(store: KernelStore, tmp_path: Path) -> str | None:
    result = transfer.export(store.path, tmp_path / "out.tar.gz")
    return dict(result.skipped).get(NAME)


def test_every_reader_accepts_a_sound_entry(store, tmp_path):
    assert store.lookup(NAME, INFO).status == "hit"
    assert store.check(NAME, *_row(store)).status == "hit"
    assert _verify_reason(store) is None and _export_reason(store, tmp_path) is None
    imported = transfer.import_archive(tmp_path / "out.tar.gz", tmp_path / "other", HERE, trust=True)
    assert imported.imported == [NAME] and imported.ok
    meta = json.loads(store.json_path(NAME).read_bytes())
    fetched = blob.unpack(blob.pack(NAME, INFO, shared_object(NAME), entry.meta_of(meta)), NAME, INFO)
    assert fetched.binary == shared_object(NAME)


def _flip_binary(store: KernelStore) -> None:
    p = store.binary_path(NAME)
    data = bytearray(p.read_bytes())
    data[-1] ^= 0xFF
    p.write_bytes(bytes(data))


def _truncate_binary(store: KernelStore) -> None:
    p = store.binary_path(NAME)
    p.write_bytes(p.read_bytes()[:100])


def _json_names_other_kernel(store: KernelStore) -> None:
    p = store.json_path(NAME)
    meta = json.loads(p.read_bytes())
    meta["kernel"] = "square_" + "0" * 32
    p.write_bytes(entry.encode_result(meta))


def _binary_is_a_symlink(store: KernelStore) -> None:
    p = store.binary_path(NAME)
    outside = store.path.parent / "outside.so"
    outside.write_bytes(p.read_bytes())
    p.unlink()
    p.symlink_to(outside)


@pytest.mark.parametrize(("damage", "reason"), [
    (_flip_binary, "binary sha256 does not match .json"),
    (_truncate_binary, "binary size 100 != "),
    (_json_names_other_kernel, ".json names kernel 'square_"),
    (_binary_is_a_symlink, "binary is not a regular file in the cache"),
])
def test_every_reader_gives_the_same_reason_for_the_same_damage(store, tmp_path, damage, reason):
    damage(store)
    looked_up = KernelStore(store.path).lookup(NAME, INFO)
    assert looked_up.status == "corrupt" and looked_up.reason.startswith(reason), looked_up.reason
    assert _verify_reason(store) == looked_up.reason
    if damage is not _binary_is_a_symlink:  # export never follows a symlink: it reports it unreadable instead
        assert _export_reason(store, tmp_path) == looked_up.reason


def test_the_manifest_check_uses_the_recorded_digests(store):
    row = _row(store)
    _flip_binary(store)
    assert KernelStore(store.path).check(NAME, *row).reason == "binary sha256 does not match the graph manifest"
    assert store.check("../" + NAME, *row).reason.endswith("is not a kernel name (<op>_<32 hex digits>)")


class _Unread(entry.Binary):
    """A binary whose bytes must not be read."""

    def size(self) -> int:
        return 7

    def contents(self):
        raise AssertionError("read before its size was checked")


def test_the_signature_is_checked_before_anything_is_parsed_and_the_size_before_the_bytes():
    parsed = []
    verdict = entry.verify(NAME, b"[" * 100_000, b"not json", _Unread(), binary_suffix=".so",
                           authenticate=lambda: parsed.append(1) or "bad signature")
    assert verdict.reason == "bad signature" and parsed == [1]
    meta = entry.result_record(NAME, ".so", {}, "0" * 64, 8)
    assert entry.verify(NAME, INFO, meta, _Unread(), binary_suffix=".so").reason == \
        "binary size 7 != 8 recorded in .json"


def test_archives_carry_only_the_toolchain_records_of_their_entries(store, tmp_path):
    memo = StatMemo(store.path)
    ours = identity.toolchain_record_key("CPU", ("", "", "", "", ""))
    other = identity.toolchain_record_key("CPU", ("", "-O0", "", "", ""))
    memo.remember(ours, json.dumps(COMPILER, sort_keys=True))
    memo.remember(other, json.dumps({"path": "/evil/cc"}, sort_keys=True))
    archive = tmp_path / "out.tar.gz"
    transfer.export(store.path, archive)
    with tarfile.open(archive) as tar:
        manifest = json.loads(tar.extractfile(transfer.MANIFEST).read())
    assert manifest["toolchains"] == {ours: COMPILER, other: {"path": "/evil/cc"}}
    dest = tmp_path / "dest"
    result = transfer.import_archive(archive, dest, {**HERE, "compiler": None}, record_key=ours, trust=True)
    assert result.imported == [NAME] and result.compiler_from_archive and result.toolchains == [ours]
    assert StatMemo(dest).recall(ours) == json.dumps(COMPILER, sort_keys=True)
    assert StatMemo(dest).recall(other) is None  # no entry of that identity: a record of it is not written
