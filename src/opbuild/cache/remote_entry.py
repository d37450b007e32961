"""The blob of one shared-tier entry: what a kernel_meta entry holds, packed with its digests and signature.

Format (no pickle, nothing executed while reading)::

    b"opbuild-entry 1\\n"
    <header: canonical JSON, one line> b"\\n"
    <.info bytes> <binary bytes>

The header holds ``name``, ``info_size``, ``info_sha256``, ``binary_size``, ``sha256`` (of the binary), ``meta``
(the kernel_meta ``.json`` build result) and, when a secret is set on publish, ``sig``: the hex HMAC-SHA256
over the magic line and the canonical JSON of every other header field. The header binds both digests, so
the signature covers the descriptor and the binary as well.

:func:`unpack` accepts an entry only if it is well formed, is the requested kernel (name and ``.info`` bytes),
its digests match, and, when the reader has a secret, it carries a valid signature. The shared tier is code
that this process will load: without a secret it is trusted as such.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from . import elf
from .key import kernel_symbol

MAGIC = b"opbuild-entry 1\n"
MAX_HEADER = 1 << 20


class EntryRejected(Exception):
    """A shared-tier entry failed verification; ``reason`` says why. It is never loaded."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


@dataclass
class RemoteEntry:
    """A verified entry: the kernel's descriptor, binary and build result."""

    name: str
    info: bytes
    binary: bytes
    meta: dict
    sha256: str  # of the binary


def _canonical(obj: dict) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _signature(secret: bytes, fields: dict) -> str:
    return hmac.new(secret, MAGIC + _canonical(fields), hashlib.sha256).hexdigest()


def pack(name: str, info: bytes, binary: bytes, meta: dict, secret: bytes | None = None) -> bytes:
    """The blob of one entry, signed when ``secret`` is given."""
    header = {"name": name, "info_size": len(info), "info_sha256": hashlib.sha256(info).hexdigest(),
              "binary_size": len(binary), "sha256": hashlib.sha256(binary).hexdigest(), "meta": meta}
    if secret:
        header["sig"] = _signature(secret, header)
    return MAGIC + _canonical(header) + b"\n" + info + binary


def unpack(blob: bytes, name: str, info: bytes, secret: bytes | None = None) -> RemoteEntry:
    """Verify ``blob`` as the entry of kernel ``name`` with descriptor ``info``; raise EntryRejected if not."""
    if not blob.startswith(MAGIC):
        raise EntryRejected("not an opbuild entry (bad magic)")
    end = blob.find(b"\n", len(MAGIC), len(MAGIC) + MAX_HEADER)
    if end < 0:
        raise EntryRejected("no header line")
    try:
        header = json.loads(blob[len(MAGIC):end])
        if not isinstance(header, dict):
            raise ValueError("header is not an object")
        info_size, binary_size = int(header["info_size"]), int(header["binary_size"])
        sha, info_sha, meta = str(header["sha256"]), str(header["info_sha256"]), header["meta"]
        if not isinstance(meta, dict):
            raise ValueError("meta is not an object")
    except (ValueError, KeyError, TypeError) as e:
        raise EntryRejected(f"unparsable header ({e})") from None
    if secret:
        sig = header.pop("sig", None)
        if not isinstance(sig, str) or not sig:
            raise EntryRejected("entry is not signed (OPBUILD_CACHE_SECRET is set)")
        if not hmac.compare_digest(sig, _signature(secret, header)):
            raise EntryRejected("bad signature (HMAC-SHA256 does not match OPBUILD_CACHE_SECRET)")
    if header.get("name") != name:
        raise EntryRejected(f"entry names kernel {header.get('name')!r}, expected {name}")
    body = memoryview(blob)[end + 1:]
    if len(body) != info_size + binary_size or info_size < 0 or binary_size < 0:
        raise EntryRejected(f"size {len(body)} != info_size + binary_size recorded in the header")
    got_info, binary = bytes(body[:info_size]), bytes(body[info_size:])
    if hashlib.sha256(got_info).hexdigest() != info_sha:
        raise EntryRejected(".info sha256 does not match the header")
    if got_info != info:
        raise EntryRejected(".info differs from the requested descriptor")
    if hashlib.sha256(binary).hexdigest() != sha:
        raise EntryRejected("binary sha256 does not match the header")
    try:  # as for a local entry: never adopted (nor loaded) unless it is a loadable object with the kernel
        elf.check(binary, [kernel_symbol(name)])
    except elf.ElfError as e:
        raise EntryRejected(f"binary is not a loadable shared object: {e}") from None
    return RemoteEntry(name, got_info, binary, meta, sha)
