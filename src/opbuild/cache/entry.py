"""One kernel cache entry: its three forms, and the one function that verifies it for every reader.

An entry is the kernel named ``<op lower>_<hash>`` (:data:`.layout.NAME_RE`): its canonical descriptor
(``.info``, the whole key), its build result (``.json``: :func:`result_record`) and its binary. It exists in
three forms, all defined here:

* **files** of kernel_meta: ``<name>.info``, ``<name>.json``, ``<name><binary suffix>`` (:func:`file_names`),
  published binary, ``.info``, then ``.json`` (the commit marker) by ``KernelStore.publish``;
* **a shared-tier blob body**: one header line (canonical JSON: ``name``, ``info_size``, ``binary_size``,
  ``sha256`` of the binary, ``meta``: the build result without the fields derived from the binary) followed by
  the ``.info`` and binary bytes (:func:`blob_body`, :func:`from_blob`); cache/shared/entry.py wraps it in
  the signed envelope and checks the signature before anything of the body is parsed;
* **archive members**: ``kernel_meta/<name>.info``, ``<name><binary suffix>``, ``<name>.json``
  (:func:`archive_members`), which ``opbuild cache export`` writes and ``import`` reads
  (cache/admin/transfer.py adds the archive's own manifest).

:func:`verify` is the one verifier. Every reader calls it: a build's lookup and the graph manifest's check
(cache/local.py), ``opbuild cache verify`` (cache/admin/verify.py), the shared-tier fetch
(cache/shared/entry.py) and archive export and import (cache/admin/transfer.py). What differs between readers
is only what the entry is compared with: the requested descriptor (a lookup, a fetch), a graph manifest's
recorded digests (:class:`Recorded`), or nothing but itself (``verify``, archives). Its stages, in order:

1. ``authenticate`` (optional): a signature over the raw parts, checked before anything is parsed;
2. the name matches the entry-name pattern (every path is derived from it), unless the caller derived it from
   the requested descriptor itself (a lookup, a fetch);
2b. ``signer`` (the files of a store under ``OPBUILD_CACHE_SECRET``): the entry's MAC (cache/signing.py) over
   its name, ``.info`` and ``.json`` bytes (which record the binary's sha256), checked on the raw bytes before
   anything is parsed; missing (unsigned), under another secret or wrong, the entry is refused with that
   reason;
3. ``.info``: equal to the requested bytes, or hashing to the recorded digest, or else hashing to the name and
   describing the op the name says;
4. ``.json``: hashing to the recorded digest, or else parsing (bounded) with an integer ``size``, a string
   ``sha256``, ``binary`` naming ``<name><suffix>`` and ``kernel``/``op`` (when present) naming this entry;
5. the binary's size, known before a byte of it is read (a stored binary: its ``lstat``; a regular file only),
   bounded by :data:`MAX_BINARY_BYTES` and equal to the recorded size;
6. the binary's sha256 (a stored binary is read once per inode; a streamed, bounded read slots in there:
   :class:`Binary` is the seam);
7. the binary is a loadable shared object exporting the kernel's symbol (cache/elf.py, on the same bytes).

A reader gets a :class:`Verdict`: a reason (the entry is corrupt) or None, never an exception.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import NamedTuple, Protocol

from . import binaries, elf, fsio, hashio
from .identity import kernel_symbol
from .layout import HASH_CHARS, INFO_SUFFIX, JSON_SUFFIX, NAME_RE
from .signing import EntrySigner

#: Directory of an entry's members in an export archive.
ARCHIVE_DIR = "kernel_meta"
#: No kernel binary comes near this; a larger file in an entry's place is not read into memory (the one limit
#: of cache/hashio.py, shared by every reader).
MAX_BINARY_BYTES = hashio.MAX_BINARY_BYTES
#: Fields of the build result derived from the binary (filled in at publication, never copied).
DERIVED_FIELDS = ("binary", "suffix", "sha256", "size")
#: The field of a signed ``.json`` holding its MAC (cache/signing.py): never copied into another entry.
MAC_FIELD = "mac"


# ---- the forms of an entry ------------------------------------------------------------------------
def file_names(name: str, binary_suffix: str) -> tuple[str, str, str]:
    """The files of entry ``name`` in the order they are published: binary, ``.info``, ``.json`` (commit)."""
    return (name + binary_suffix, name + INFO_SUFFIX, name + JSON_SUFFIX)


def archive_members(name: str, binary_suffix: str) -> list[tuple[str, str]]:
    """``(member path, suffix)`` of entry ``name`` in an export archive, in the order they are written
    (``.json`` last, as in the store)."""
    return [(f"{ARCHIVE_DIR}/{name}{s}", s) for s in (INFO_SUFFIX, binary_suffix, JSON_SUFFIX)]


def result_record(name: str, binary_suffix: str, meta: dict, sha256: str, size: int) -> dict:
    """The build result (``.json``) of entry ``name``: ``meta`` (kernel, op, symbol, build seconds, command,
    ...) plus the fields derived from the binary (:data:`DERIVED_FIELDS`)."""
    record = dict(meta, binary=name + binary_suffix, suffix=binary_suffix, sha256=sha256, size=size)
    record.pop(MAC_FIELD, None)  # a MAC signs one entry's files: the publisher signs its own
    return record


def encode_result(result: dict, signer: EntrySigner | None = None, name: str = "", info: bytes = b"") -> bytes:
    """The bytes of a ``.json`` build result; with ``signer``, signed as entry ``name`` with ``.info`` bytes
    ``info`` (cache/signing.py: the MAC's field first)."""
    raw = (json.dumps(result, indent=1, sort_keys=True) + "\n").encode()
    return raw if signer is None else signer.sign(name, info, raw)


def meta_of(result: dict) -> dict:
    """A build result without the fields derived from the binary and without its MAC (what a copy of the entry
    publishes again, signed by whoever publishes it)."""
    return {k: v for k, v in result.items() if k not in DERIVED_FIELDS and k != MAC_FIELD}


def _canonical(obj: dict) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def blob_body(name: str, info: bytes, binary: bytes, meta: dict) -> bytes:
    """The body of a shared-tier blob: the header line, then ``.info`` and the binary."""
    header = {"name": name, "info_size": len(info), "binary_size": len(binary),
              "sha256": hashlib.sha256(binary).hexdigest(), "meta": meta}
    return _canonical(header) + b"\n" + info + binary


class BlobParts(NamedTuple):
    """The parts of an entry as a blob carries them (see :func:`from_blob`)."""

    info: bytes
    binary: bytes
    meta: dict
    sha256: str
    size: int


def from_blob(name: str, header: dict, body: memoryview | bytes) -> BlobParts | str:
    """The parts of a blob whose (authenticated) header line parsed to ``header`` and whose remaining bytes are
    ``body``; or why they do not form the entry ``name``. The parts are then checked by :func:`verify`."""
    if header.get("name") != name:
        return f"entry names kernel {str(header.get('name'))[:80]!r}, expected {name}"
    sizes = []
    for key in ("info_size", "binary_size"):
        value = header.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"header field {key} is {_shown(value)}, not a size"
        sizes.append(value)
    meta, sha = header.get("meta"), header.get("sha256")
    if not isinstance(meta, dict) or not isinstance(sha, str):
        return "header lacks meta or sha256"
    info_size, binary_size = sizes
    if len(body) != info_size + binary_size:
        return f"size {len(body)} != info_size + binary_size recorded in the header"
    return BlobParts(bytes(body[:info_size]), bytes(body[info_size:]), meta, sha, binary_size)


# ---- the binary, as each reader holds it ----------------------------------------------------------
class Unsound(Exception):
    """A part of an entry cannot be verified; ``reason`` says why (raised by :class:`Binary` methods)."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


class Binary(ABC):
    """An entry's binary as a reader holds it: bytes in memory, or a file of the store (cache/local.py)."""

    @abstractmethod
    def size(self) -> int:
        """Its size in bytes, known before any byte is read; raises :class:`Unsound` (missing, not a regular
        file, ...)."""

    @abstractmethod
    def contents(self) -> tuple[str, frozenset[str] | str]:
        """``(sha256 hex, exported symbols or why it is not a loadable shared object)``; raises
        :class:`Unsound` when it cannot be read."""


class BinaryBytes(Binary):
    """A binary held in memory (an archive member, a shared-tier blob, an entry read for ``verify``);
    ``binary_suffix`` says whose binary it is (a shared object, or a cubin: cache/binaries.py)."""

    def __init__(self, data: bytes, binary_suffix: str = ".so"):
        self.data = data
        self.binary_suffix = binary_suffix

    def size(self) -> int:
        return len(self.data)

    def contents(self) -> tuple[str, frozenset[str] | str]:
        try:
            exported: frozenset[str] | str = binaries.symbols_for(self.data, self.binary_suffix)
        except elf.ElfError as e:
            exported = str(e)
        return hashlib.sha256(self.data).hexdigest(), exported


class Recorded(Protocol):
    """What a graph manifest records of an entry (cache/manifest.py ``Item``)."""

    info_sha256: str
    json_sha256: str
    binary_sha256: str
    size: int


class Verdict(NamedTuple):
    """The outcome of :func:`verify`: ``reason`` None when the entry is sound; ``result`` the parsed ``.json``
    (None when it was only compared with a recorded digest)."""

    reason: str | None
    result: dict | None = None


# ---- the verifier ---------------------------------------------------------------------------------
def name_problem(name: str) -> str | None:
    """Why ``name`` is not an entry name (check it before building a path from it), or None."""
    if NAME_RE.match(name) is None:
        return f"{_shown(name)} is not a kernel name (<op>_<{HASH_CHARS} hex digits>)"
    return None


def verify(name: str, info: bytes, result: bytes | dict, binary: Binary, *, binary_suffix: str,
           requested: bytes | None = None, recorded: Recorded | None = None,
           authenticate: Callable[[], str | None] | None = None, source: str | None = None,
           signer: EntrySigner | None = None) -> Verdict:
    """Verify entry ``name`` from its ``.info`` bytes, its build result (``.json`` bytes, or the dict a blob
    carries) and its binary, in the stages of the module docstring. ``requested``: the descriptor a build asks
    for; ``recorded``: a graph manifest's row (then ``result`` must be the ``.json`` bytes); neither: the entry
    is checked against itself. ``source`` names where the binary's size and sha256 were recorded, for the
    reasons (default ``.json``, or the graph manifest). ``signer``: the entry's files must carry a valid MAC
    under its secret (then ``result`` must be the ``.json`` bytes)."""
    if authenticate is not None and (why := authenticate()) is not None:
        return Verdict(why)
    if requested is None and NAME_RE.match(name) is None:  # a name read from a manifest, archive or listing
        return Verdict(name_problem(name))
    if signer is not None:
        if not isinstance(result, bytes):
            return Verdict("unsigned: a signed entry's .json must be checked as bytes")
        if (why := signer.problem(name, info, result)) is not None:
            return Verdict(why)
    op_part, _, name_hash = name.rpartition("_")
    name_op = op_part or None  # None: a bare name a caller derived itself (the shared tier's tests use them)
    if requested is not None:
        if info != requested:
            if hashlib.sha256(info).hexdigest()[:HASH_CHARS] != name_hash:
                return Verdict(".info differs from the requested descriptor (and does not hash to the entry's name)")
            return Verdict(".info differs from the requested descriptor")
    elif recorded is not None:
        if recorded.info_sha256[:HASH_CHARS] != name_hash or hashlib.sha256(info).hexdigest() != recorded.info_sha256:
            return Verdict(".info differs from the manifest")
    elif (why := _info_problem(info, str(name_op), name_hash)) is not None:
        return Verdict(why)
    parsed: dict | None = None
    if recorded is not None:
        if not isinstance(result, bytes) or hashlib.sha256(result).hexdigest() != recorded.json_sha256:
            return Verdict(".json differs from the manifest")
        size, sha, source = recorded.size, recorded.binary_sha256, source or "the graph manifest"
    else:
        checked = _result(result, name, name_op, binary_suffix)
        if isinstance(checked, str):
            return Verdict(checked)
        parsed, size, sha = checked
    why = _binary_problem(binary, size, sha, kernel_symbol(name), source or JSON_SUFFIX)
    return Verdict(why, parsed if why is None else None)


def _info_problem(info: bytes, name_op: str, name_hash: str) -> str | None:
    """Why ``.info`` bytes checked against nothing but the entry's name are unsound, or None."""
    if hashlib.sha256(info).hexdigest()[:HASH_CHARS] != name_hash:
        return ".info does not hash to the entry's name"
    try:
        desc = fsio.parse_json(info, INFO_SUFFIX)
    except fsio.CorruptFile as e:
        return e.strerror
    op = desc.get("op")
    if not isinstance(op, str) or op.lower() != name_op:
        return f".info describes op {_shown(op)}, but the entry's name says {name_op!r}"
    return None


def _result(result: bytes | dict, name: str, name_op: str | None, binary_suffix: str) -> tuple[dict, int, str] | str:
    """The build result parsed and checked: ``(result, binary size, binary sha256)``, or why it is unsound."""
    if isinstance(result, dict):
        meta = result
    else:
        try:
            meta = fsio.parse_json(result, JSON_SUFFIX)
        except fsio.CorruptFile as e:
            return f"unparsable .json ({e.strerror})"
    size, sha = meta.get("size"), meta.get("sha256")
    if not isinstance(size, int) or isinstance(size, bool) or not isinstance(sha, str):
        return "unparsable .json (size or sha256 missing or of the wrong type)"
    if meta.get("binary") != name + binary_suffix:
        return f".json names binary {_shown(meta.get('binary'))}, expected {name}{binary_suffix}"
    if meta.get("kernel") not in (None, name):
        return f".json names kernel {_shown(meta.get('kernel'))}"
    op = meta.get("op")
    if op is not None and name_op is not None and (not isinstance(op, str) or op.lower() != name_op):
        return f".json names op {_shown(op)}, the entry's name says {name_op!r}"
    return meta, size, sha


def _binary_problem(binary: Binary, size: int, sha256: str, symbol: str, source: str) -> str | None:
    try:
        found = binary.size()
        if why := hashio.too_large(found):
            return f"binary of {why}"
        if found != size:  # before a byte is read: a hostile size never costs a read
            return f"binary size {found} != {size} recorded in {source}"
        digest, exported = binary.contents()
    except Unsound as e:
        return e.reason
    if digest != sha256:
        return f"binary sha256 does not match {source}"
    if isinstance(exported, str):
        return f"binary is not a loadable shared object: {exported}"
    if symbol not in exported:
        return f"binary is not a loadable shared object: it does not export the kernel symbol {symbol}"
    return None


def _shown(value: object) -> str:
    """A field's value for a message: strings quoted, anything else by type (repr of a deeply nested value may
    recurse)."""
    if isinstance(value, str):
        return repr(value[:100])
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) < 1 << 64:
        return repr(value)
    return type(value).__name__


__all__ = ["ARCHIVE_DIR", "DERIVED_FIELDS", "MAC_FIELD", "MAX_BINARY_BYTES",
           "Binary", "BinaryBytes", "BlobParts", "Recorded",
           "Unsound", "Verdict", "archive_members", "blob_body", "encode_result", "file_names", "from_blob", "meta_of",
           "name_problem", "result_record", "verify"]
