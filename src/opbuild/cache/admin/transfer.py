"""``opbuild cache export`` / ``opbuild cache import``: move a warm kernel cache between machines or CI runs.

An archive is a gzip'ed tar holding ``opbuild-cache.json`` (a manifest: format, opbuild version, origin, and
``toolchains``: the toolchain identities recorded in the cache's ``.memo.json``, cache/identity.py),
``kernel_meta/<name>.{info,so,json}`` for every sound entry (cache/entry.py: ``archive_members``), and last the
index ``opbuild-cache.sig``: every member's name, size and sha256, signed with HMAC-SHA256 under
``OPBUILD_CACHE_SECRET`` when it is set (:mod:`.sealing`). Export reads each entry once into memory (bounded:
cache/hashio.py), checks it with the one verifier (cache/entry.py ``verify``) and writes those same bytes, so
an entry that changes while the export runs cannot produce an inconsistent archive; the archive itself is
written atomically.

Import first verifies the whole archive, writing nothing (:func:`.sealing.verify_archive`: streamed, totals
bounded, the index's signature checked, or the archive taken on ``trust``), then reads it again as a stream.
It never extracts paths: it reads regular-file members (symlinks, links, devices, absolute names and ``..``
are refused), each bounded and checked against the verified index, keeps only the entry being read (an
entry's three members are consecutive, as export writes them), and for each complete entry checks it,
compares the machine-dependent parts of its descriptor (compiler, target, opbuild version, ABI, code
generator) with this machine's, and publishes it with the store's atomic, commit-last protocol, signed under
this machine's ``OPBUILD_CACHE_SECRET`` (cache/signing.py): the archive's signature vouched for the entry, so
whatever MAC its ``.json`` carried is dropped and the store signs it afresh. Export under a secret leaves out
every entry not signed with it (an entry planted in kernel_meta is never laundered into a signed archive). A
sound local entry is never replaced; a broken one is quarantined first, under the entry's lock.

The toolchain records travel too, so that an imported cache serves a process without a compiler as a copied
folder does: a record is written into the destination's memo when some entry imported (or already present)
was built by exactly the identity it records. On a machine without a compiler, "this machine's compiler" is
the identity the archive records for this machine's toolchain settings (the one such a process will name
kernels with); without one, every entry is skipped as built by another compiler, saying why.
"""

from __future__ import annotations

import io
import json
import os
import posixpath
import tarfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ..._version import __version__
from .. import entry as entry_format
from .. import fsio, hashio, identity, signing
from ..key import diff
from ..layout import CPU_BINARY_SUFFIX, INFO_SUFFIX, JSON_SUFFIX, entry_suffixes, split_entry_file
from ..local import KernelStore
from ..locks import try_exclusive
from ..statmemo import StatMemo
from .explain import describe_change
from .scan import scan
from .sealing import INDEX, ArchiveRefused, IndexWriter, verify_archive

MANIFEST = "opbuild-cache.json"
ARCHIVE_DIR = entry_format.ARCHIVE_DIR
FORMAT = 1
MAX_MEMBER_BYTES = entry_format.MAX_BINARY_BYTES  # a bigger member is not ours
MACHINE_COMPONENTS = identity.MACHINE_COMPONENTS


@dataclass
class ExportResult:
    """What ``export`` wrote: ``entries`` names and total ``bytes``; ``skipped`` (name, reason) of broken
    entries left out; ``uncommitted`` counts entries without ``.json`` (left out silently)."""

    archive: Path
    directory: Path
    entries: list[str] = field(default_factory=list)
    bytes: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    uncommitted: int = 0
    signed: bool = False  # the index is signed with OPBUILD_CACHE_SECRET

    def as_dict(self) -> dict:
        """JSON-able form."""
        return {"archive": str(self.archive), "directory": str(self.directory), "entries": len(self.entries),
                "bytes": self.bytes, "skipped": [{"name": n, "reason": r} for n, r in self.skipped],
                "uncommitted": self.uncommitted, "signed": self.signed}


def _add(tar: tarfile.TarFile, name: str, data: bytes, mtime: float, index: IndexWriter | None = None) -> None:
    if index is not None:
        index.add(name, data)
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    ti.mtime = int(mtime)
    ti.mode = 0o644
    tar.addfile(ti, io.BytesIO(data))


def export(directory: Path, archive: Path, origin: dict | None = None,
           binary_suffix: str = CPU_BINARY_SUFFIX, secret: bytes | None = None) -> ExportResult:
    """Write every sound committed entry of ``directory`` into the tar.gz ``archive`` (replaced atomically),
    with its index signed with ``secret`` (``OPBUILD_CACHE_SECRET``; unsigned without one, which an import
    takes only with ``trust``). ``origin`` (rank, compiler, target, ...) is recorded in the manifest for the
    reader's information; ``binary_suffix`` is the target's (cache/layout.py)."""
    directory, archive = Path(directory), Path(archive)
    result = ExportResult(archive, directory, signed=secret is not None)
    # Under a secret, only entries signed with it are exported: the archive's signature must not launder an
    # entry planted in kernel_meta into one every importer trusts.
    signer = signing.signer(secret)
    index = IndexWriter()
    listing = scan(directory, binary_suffix)
    tmp = archive.with_name(fsio.tmp_name(archive.name))
    try:
        with tarfile.open(tmp, "w:gz", format=tarfile.PAX_FORMAT) as tar:
            manifest = {"format": FORMAT, "opbuild_version": __version__, "created": time.time(),
                        "source": str(directory), **(origin or {}), "toolchains": _toolchain_records(directory)}
            _add(tar, MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode(), time.time(), index)
            for entry in listing.entries:
                if not entry.committed:  # being built, or debris that `cache verify` reports
                    result.uncommitted += 1
                    continue
                try:  # regular files only: a FIFO would block, a symlink could export a file from elsewhere
                    parts = {s: fsio.read_small(str(entry.path(s)), MAX_MEMBER_BYTES)
                             for s in entry_suffixes(binary_suffix)}
                except OSError as e:  # CorruptFile included
                    result.skipped.append((entry.name, f"cannot read: {e.strerror or e}"))
                    continue
                reason = _problem(entry.name, parts, binary_suffix, signer)
                if reason:
                    result.skipped.append((entry.name, reason))
                    continue
                for member, suffix in entry_format.archive_members(entry.name, binary_suffix):
                    _add(tar, member, parts[suffix], entry.last_used, index)
                result.entries.append(entry.name)
                result.bytes += sum(len(b) for b in parts.values())
            _add(tar, INDEX, index.payload(secret), time.time())  # last: it covers every member before it
        os.replace(tmp, archive)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return result


def _problem(name: str, parts: dict[str, bytes], binary_suffix: str,
             signer: signing.EntrySigner | None = None) -> str | None:
    """Why the parts of entry ``name`` (by suffix, read into memory) are no sound entry (the one verifier; with
    ``signer``, its MAC too)."""
    return entry_format.verify(name, parts[INFO_SUFFIX], parts[JSON_SUFFIX],
                               entry_format.BinaryBytes(parts[binary_suffix], binary_suffix),
                               binary_suffix=binary_suffix, signer=signer).reason


def _toolchain_records(directory: Path) -> dict[str, dict]:
    """The toolchain identities recorded in ``directory``'s memo, by record key (cache/identity.py)."""
    records = {}
    for key, raw in StatMemo(directory).recall_prefixed(identity.TOOLCHAIN_RECORD_PREFIX).items():
        try:
            value = fsio.parse_json(raw.encode(), key)
        except fsio.CorruptFile:
            continue  # the memo is hostile input too: a damaged record only costs the no-compiler warm start
        records[key] = value
    return records


@dataclass
class ImportResult:
    """What ``import`` did. ``skipped`` holds (name, category, detail); categories: ``damaged``,
    ``incomplete``, ``compiler``, ``target``, ``opbuild_version``, ``abi``, ``codegen``, ``in use``,
    ``write error``."""

    archive: Path
    directory: Path
    manifest: dict = field(default_factory=dict)
    imported: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)  # local entry was broken; quarantined and replaced
    present: list[str] = field(default_factory=list)  # a sound local entry already existed
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (archive member, why it was refused)
    error: str = ""  # the archive could not be read (to the end), or was refused as a whole
    refused: bool = False  # nothing was imported: the archive failed verification (``error`` says why)
    signed: bool = False  # its index's signature was checked under OPBUILD_CACHE_SECRET
    toolchains: list[str] = field(default_factory=list)  # toolchain records written into the memo
    compiler_from_archive: bool = False  # no compiler here: entries matched the archive's toolchain record

    @property
    def ok(self) -> bool:
        """No damaged, refused or unreadable content (mismatching machines are expected, not problems)."""
        bad = ("damaged", "incomplete", "in use", "write error")
        return not self.error and not self.rejected and not any(c in bad for _, c, _ in self.skipped)

    def as_dict(self) -> dict:
        """JSON-able form."""
        return {"archive": str(self.archive), "directory": str(self.directory), "manifest": self.manifest,
                "imported": self.imported, "replaced": self.replaced, "present": self.present,
                "skipped": [{"name": n, "category": c, "detail": d} for n, c, d in self.skipped],
                "rejected": [{"member": m, "reason": r} for m, r in self.rejected], "error": self.error,
                "refused": self.refused, "signed": self.signed,
                "toolchains": self.toolchains, "compiler_from_archive": self.compiler_from_archive}


def _member_problem(member: tarfile.TarInfo) -> str | None:
    """Why an archive member must not be read, or None."""
    name = member.name
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or "\\" in name:
        return "absolute or non-POSIX path"
    if ".." in posixpath.normpath(name).split("/") or ".." in name.split("/"):
        return "path escapes the archive ('..')"
    if member.issym() or member.islnk():
        return f"link to {member.linkname!r}"
    if not member.isfile():
        return "not a regular file"
    if member.size > MAX_MEMBER_BYTES:
        return f"too large ({member.size} bytes)"
    return None


CodegenFn = Callable[[str], "str | None"]


def _machine_mismatch(desc: dict, here: dict, codegen: CodegenFn | None) -> tuple[str, str] | None:
    """(category, detail) when an entry was built for another machine/toolchain than ``here``, else None."""
    if here.get("compiler") is None:
        return "compiler", ("no compiler here, and the archive records no toolchain for this machine's settings "
                            "(the exporting machine's OPBUILD_CFLAGS, OPBUILD_BLAS, OPBUILD_OPENMP and "
                            "OPBUILD_BLAS_THREADS must be set alike)")
    for comp in MACHINE_COMPONENTS:
        if desc.get(comp) != here.get(comp):
            changes = diff({comp: desc.get(comp)}, {comp: here.get(comp)})
            detail = "; ".join(describe_change(f, o, n) for f, o, n in changes[:4])
            return comp, f"archive -> here: {detail}"
    if codegen is not None:
        expected = codegen(str(desc.get("op")))
        if expected is None:
            return "codegen", f"op {desc.get('op')!r} is not known to this opbuild"
        if desc.get("codegen") != expected:
            return "codegen", f"the code generator of {desc.get('op')} differs from this opbuild's"
    return None


def import_archive(archive: Path, directory: Path, here: dict[str, Any],
                   codegen: CodegenFn | None = None, binary_suffix: str = CPU_BINARY_SUFFIX,
                   secret: bytes | None = None, trust: bool = False, record_key: str | None = None) -> ImportResult:
    """Import the entries of ``archive`` into the kernel_meta ``directory`` (created if needed), and the
    toolchain records of the compilers they were built with (see the module docstring).

    The archive is verified first (:func:`.sealing.verify_archive` with ``secret``, ``OPBUILD_CACHE_SECRET``,
    and ``trust``): refused, nothing is written and ``error`` says why. ``here`` gives this machine's values
    of :data:`MACHINE_COMPONENTS` (``compiler`` identity, None when this machine has no compiler, ``target``,
    ``opbuild_version``, ``abi``); ``record_key`` is this machine's toolchain record key
    (:func:`.identity.toolchain_record_key`), under which the archive's record stands in for a missing compiler;
    ``codegen(op)`` returns this opbuild's code generator hash of an op (None if unknown); ``binary_suffix``
    is the target's (cache/layout.py). Raises OSError if the archive cannot be opened or the directory
    created.
    """
    archive, directory = Path(archive), Path(directory)
    result = ImportResult(archive, directory)
    with open(archive, "rb") as f:
        try:
            verified = verify_archive(f, secret, trust)
        except ArchiveRefused as e:
            result.error, result.refused = f"refused {archive}: {e.reason}", True
            return result
        result.signed = verified.signed
        store = KernelStore(directory, binary_suffix=binary_suffix, secret=secret)  # re-signs what it imports
        f.seek(0)
        compilers: set[str] = set()  # canonical JSON of the compiler identities of the entries now in the store
        try:
            _import_members(f, store, verified.members, here, record_key, codegen, result, compilers)
        except (tarfile.TarError, EOFError, zlib.error) as e:
            result.error = f"archive is damaged or not a tar.gz ({e})"
    _carry_toolchains(directory, result, compilers)
    return result


def _import_members(f: BinaryIO, store: KernelStore, members: dict[str, tuple[int, str]] | None, here: dict,
                    record_key: str | None, codegen: CodegenFn | None, result: ImportResult,
                    compilers: set[str]) -> None:
    """Pass two: each member read bounded and checked against the verified index (``members``; None on
    trust without one); only the entry being read is held (its members are consecutive)."""
    suffixes = entry_suffixes(store.binary_suffix)
    current, group = "", {}

    def incomplete() -> None:
        if group:
            missing = ", ".join(s for s in suffixes if s not in group)
            result.skipped.append((current, "incomplete", f"archive lacks its {missing}"))

    with tarfile.open(fileobj=f, mode="r|*") as tar:
        for member in tar:
            if member.isdir() or member.name == INDEX:
                continue
            problem = _member_problem(member)
            if problem:
                result.rejected.append((member.name, problem))
                continue
            base = posixpath.basename(member.name)
            if base == MANIFEST:
                result.manifest = _read_manifest(tar, member)
                here = _here(here, result, record_key)
                continue
            parts = split_entry_file(base, store.binary_suffix)
            if parts is None:
                result.rejected.append((member.name, "not a kernel cache file"))
                continue
            stream = tar.extractfile(member)
            limit = MAX_MEMBER_BYTES if parts[1] == store.binary_suffix else fsio.MAX_METADATA_BYTES
            try:
                data, sha = hashio.read_stream(stream, member.size, limit, member.name) if stream else (b"", "")
            except fsio.CorruptFile as e:
                result.rejected.append((member.name, e.strerror))
                continue
            if members is not None and members.get(member.name) != (member.size, sha):
                result.rejected.append((member.name, "differs from the archive's verified index (the archive "
                                                     "changed while it was being imported)"))
                continue
            name, suffix = parts
            if name != current:
                incomplete()
                current, group = name, {}
            if suffix in group:
                result.rejected.append((member.name, "duplicate member"))
                continue
            group[suffix] = data if suffix == store.binary_suffix else bytes(data)
            if len(group) == len(suffixes):
                compiler = _import_entry(store, name, group, here, codegen, result)
                if compiler is not None:
                    compilers.add(compiler)
                current, group = "", {}
    incomplete()


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _here(here: dict[str, Any], result: ImportResult, record_key: str | None) -> dict[str, Any]:
    """``here``, with the archive's toolchain record for ``record_key`` as the compiler when there is none."""
    if here.get("compiler") is not None or record_key is None:
        return here
    recorded = result.manifest.get("toolchains")
    found = recorded.get(record_key) if isinstance(recorded, dict) else None
    if not isinstance(found, dict):
        return here
    result.compiler_from_archive = True
    return {**here, "compiler": found}


def _carry_toolchains(directory: Path, result: ImportResult, compilers: set[str]) -> None:
    """Write the archive's toolchain records of compilers that built an entry now in the store into its memo
    (an archive is hostile input: a record of another identity could only name kernels that are absent, and
    is not written at all)."""
    recorded = result.manifest.get("toolchains")
    if not isinstance(recorded, dict) or not compilers:
        return
    memo = StatMemo(directory)
    for key, value in recorded.items():
        if identity.is_toolchain_record_key(key) and isinstance(value, dict) and _canonical(value) in compilers:
            memo.remember(key, _canonical(value))
            result.toolchains.append(key)


def _read_manifest(tar: tarfile.TarFile, member: tarfile.TarInfo) -> dict:
    f = tar.extractfile(member)
    try:
        return fsio.parse_json(f.read(fsio.MAX_METADATA_BYTES) if f is not None else b"", MANIFEST)
    except fsio.CorruptFile:  # informational only: a damaged one is as good as none
        return {}


def _import_entry(store: KernelStore, name: str, parts: dict[str, bytes], here: dict,
                  codegen: CodegenFn | None, result: ImportResult) -> str | None:
    """Import one entry; returns the canonical JSON of its compiler identity when it is now in the store."""
    info, meta_raw, binary = parts[INFO_SUFFIX], parts[JSON_SUFFIX], parts[store.binary_suffix]
    reason = _problem(name, parts, store.binary_suffix)
    if reason:
        result.skipped.append((name, "damaged", reason))
        return None
    desc = fsio.parse_json(info, INFO_SUFFIX)  # checked just above
    mismatch = _machine_mismatch(desc, here, codegen)
    if mismatch:
        result.skipped.append((name, *mismatch))
        return None
    compiler = _canonical(desc.get("compiler"))
    if store.lookup(name, info).status == "hit":
        result.present.append(name)
        return compiler
    with try_exclusive(store, name) as held:
        if not held:
            result.skipped.append((name, "in use", "another process is building or loading this entry"))
            return None
        found = store.lookup(name, info)  # again, under the lock
        if found.status == "hit":
            result.present.append(name)
            return compiler
        if found.status == "corrupt":
            store.quarantine(name, f"replaced by cache import from {result.archive}: {found.reason}")
        meta = entry_format.meta_of(fsio.parse_json(meta_raw, JSON_SUFFIX))  # publish derives the rest again
        try:
            store.publish(name, info, binary, meta)
        except OSError as e:  # e.g. disk full: publish leaves no committed half-entry behind
            result.skipped.append((name, "write error", e.strerror or str(e)))
            return None
        (result.replaced if found.status == "corrupt" else result.imported).append(name)
    return compiler
