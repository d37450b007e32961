"""The blob of one shared-tier entry: what a kernel_meta entry holds, packed with its digests and signature.

Format 2 (no pickle, nothing executed while reading)::

    b"opbuild-entry 2 " <key id> b" " <tag: 64 hex digits> b"\\n"
    <header: canonical JSON, one line> b"\\n"
    <.info bytes> <binary bytes>

The tag covers every other byte of the blob: it is HMAC-SHA256(secret, message) when the writer had
``OPBUILD_CACHE_SECRET``, else SHA-256(message), where the message is the first line up to the key id, a
newline, and everything after the first line. :func:`unpack` checks the key id and the tag over the raw bytes
*before* it parses anything else, so a hostile header (deeply nested JSON, huge numbers) is never parsed
unless it was signed with this rank's secret; the header is then parsed with :func:`.fsio.parse_json`
(bounded, only ever "corrupt").

The key id names the secret without revealing it (:func:`key_id`: the first 8 bytes of
HMAC(secret, "opbuild key id"), or ``unsigned``). Backends store entries in one namespace per key id, so
ranks with different secrets never overwrite each other's entries (:mod:`.tier` warns about them).

The header holds ``name``, ``info_size``, ``binary_size``, ``sha256`` (of the binary) and ``meta`` (the
kernel_meta ``.json`` build result). Format 1 blobs (header parsed before its signature) are rejected as
another format; they also live under other keys (see the backends' layouts), so they are never even read.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from .. import elf
from ..fsio import CorruptFile, parse_json
from ..identity import kernel_symbol
from .backend import UNSIGNED

FORMAT = 2
PREFIX = b"opbuild-entry "
MAGIC = PREFIX + str(FORMAT).encode() + b" "
MAX_HEADER = 1 << 20
_TAG_HEX = 64
# A first line longer than this is not ours: magic, a 16-hex (or "unsigned") key id, a space, 64 hex, newline.
_MAX_FIRST_LINE = len(MAGIC) + 16 + 1 + _TAG_HEX + 1


class EntryRejected(Exception):
    """A shared-tier entry failed verification; ``reason`` says why. It is never loaded.

    ``mismatch`` is True when the cause is most likely a misconfiguration rather than damage: the entry was
    signed with a different secret (another key id), or its signature does not match this rank's secret."""

    def __init__(self, reason: str, mismatch: bool = False):
        self.reason = reason
        self.mismatch = mismatch
        super().__init__(reason)


@dataclass
class RemoteEntry:
    """A verified entry: the kernel's descriptor, binary and build result."""

    name: str
    info: bytes
    binary: bytes
    meta: dict
    sha256: str  # of the binary


def key_id(secret: bytes | None) -> str:
    """The namespace of entries signed with ``secret``: 16 hex digits derived from it (it cannot be turned
    back into the secret), or ``"unsigned"`` without one."""
    if not secret:
        return UNSIGNED
    return hmac.new(secret, b"opbuild key id", hashlib.sha256).hexdigest()[:16]


def _canonical(obj: dict) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _tag(secret: bytes | None, key: str, rest: bytes | memoryview) -> str:
    """The tag of a blob: HMAC-SHA256 with a secret, SHA-256 without; over the key id and the rest."""
    h = hmac.new(secret, digestmod=hashlib.sha256) if secret else hashlib.sha256()
    h.update(MAGIC + key.encode() + b"\n")
    h.update(rest)
    return h.hexdigest()


def pack(name: str, info: bytes, binary: bytes, meta: dict, secret: bytes | None = None) -> bytes:
    """The blob of one entry, signed when ``secret`` is given."""
    header = {"name": name, "info_size": len(info), "binary_size": len(binary),
              "sha256": hashlib.sha256(binary).hexdigest(), "meta": meta}
    rest = _canonical(header) + b"\n" + info + binary
    key = key_id(secret)
    return MAGIC + key.encode() + b" " + _tag(secret, key, rest).encode() + b"\n" + rest


def _size(header: dict, field: str) -> int:
    value = header.get(field)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise EntryRejected(f"header field {field} is {value!r}, not a size")
    return value


def unpack(blob: bytes, name: str, info: bytes, secret: bytes | None = None) -> RemoteEntry:
    """Verify ``blob`` as the entry of kernel ``name`` with descriptor ``info``; raise EntryRejected if not.

    Order: magic and format, key id, tag over the raw bytes, and only then the header, the sizes, the
    descriptor and the binary's checksum. EntryRejected is the only exception this raises."""
    if not blob.startswith(MAGIC):
        if blob.startswith(PREFIX):
            raise EntryRejected("an entry of another format version (written by another opbuild release)")
        raise EntryRejected("not an opbuild entry (bad magic)")
    end = blob.find(b"\n", len(MAGIC), _MAX_FIRST_LINE)
    if end < 0:
        raise EntryRejected("no signature line")
    try:
        key, tag = blob[len(MAGIC):end].decode("ascii").split(" ")
    except (UnicodeDecodeError, ValueError):
        raise EntryRejected("malformed signature line") from None
    ours = key_id(secret)
    if key != ours:
        if secret and key == UNSIGNED:
            raise EntryRejected("entry is not signed (OPBUILD_CACHE_SECRET is set)", mismatch=True)
        raise EntryRejected(f"signed with another key (key id {key}; this rank's is {ours}): set the same "
                            f"OPBUILD_CACHE_SECRET on every rank", mismatch=True)
    rest = memoryview(blob)[end + 1:]
    if not hmac.compare_digest(tag.encode(), _tag(secret, key, rest).encode()):
        if secret:
            raise EntryRejected("bad signature (HMAC-SHA256 does not match this rank's OPBUILD_CACHE_SECRET)",
                                mismatch=True)
        raise EntryRejected("blob checksum does not match (damaged or truncated)")
    # Authentic from here on (or, without a secret, intact): parse, still defensively.
    hend = blob.find(b"\n", end + 1, end + 1 + MAX_HEADER)
    if hend < 0:
        raise EntryRejected("no header line")
    try:
        header = parse_json(blob[end + 1:hend], "entry header")
    except CorruptFile as e:
        raise EntryRejected(f"unparsable header ({e.strerror})") from None
    if header.get("name") != name:
        raise EntryRejected(f"entry names kernel {str(header.get('name'))[:80]!r}, expected {name}")
    info_size, binary_size = _size(header, "info_size"), _size(header, "binary_size")
    meta, sha = header.get("meta"), header.get("sha256")
    if not isinstance(meta, dict) or not isinstance(sha, str):
        raise EntryRejected("header lacks meta or sha256")
    body = memoryview(blob)[hend + 1:]
    if len(body) != info_size + binary_size:
        raise EntryRejected(f"size {len(body)} != info_size + binary_size recorded in the header")
    got_info, binary = bytes(body[:info_size]), bytes(body[info_size:])
    if got_info != info:
        raise EntryRejected(".info differs from the requested descriptor")
    if hashlib.sha256(binary).hexdigest() != sha:
        raise EntryRejected("binary sha256 does not match the header")
    try:  # as for a local entry: never adopted (nor loaded) unless it is a loadable object with the kernel
        elf.check(binary, [kernel_symbol(name)])
    except elf.ElfError as e:
        raise EntryRejected(f"binary is not a loadable shared object: {e}") from None
    return RemoteEntry(name, got_info, binary, meta, sha)
