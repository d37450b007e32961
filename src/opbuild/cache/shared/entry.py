"""The blob of one shared-tier entry: an entry's blob body (cache/entry.py) in a signed envelope.

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

The key id names the secret without revealing it (:func:`..signing.key_id`: the first 8 bytes of
HMAC(secret, "opbuild key id"), or ``unsigned``; local entries and archives name their secret alike).
Backends store entries in one namespace per key id, so ranks with different secrets never overwrite each
other's entries (:mod:`.tier` warns about them).

The header and the bytes after it are the entry's blob body, defined with the entry's other forms in
cache/entry.py: ``name``, ``info_size``, ``binary_size``, ``sha256`` (of the binary) and ``meta`` (the build
result without the fields derived from the binary); the parts are checked by the one verifier there.
Format 1 blobs (header parsed before its signature) are rejected as
another format; they also live under other keys (see the backends' layouts), so they are never even read.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from .. import entry as entry_format
from ..fsio import CorruptFile, parse_json
from ..layout import CPU_BINARY_SUFFIX
from ..signing import key_id
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


def _tag(secret: bytes | None, key: str, rest: bytes | memoryview) -> str:
    """The tag of a blob: HMAC-SHA256 with a secret, SHA-256 without; over the key id and the rest."""
    h = hmac.new(secret, digestmod=hashlib.sha256) if secret else hashlib.sha256()
    h.update(MAGIC + key.encode() + b"\n")
    h.update(rest)
    return h.hexdigest()


def pack(name: str, info: bytes, binary: bytes, meta: dict, secret: bytes | None = None) -> bytes:
    """The blob of one entry (the body is :func:`..entry.blob_body`), signed when ``secret`` is given."""
    rest = entry_format.blob_body(name, info, binary, meta)
    key = key_id(secret)
    return MAGIC + key.encode() + b" " + _tag(secret, key, rest).encode() + b"\n" + rest


def unpack(blob: bytes, name: str, info: bytes, secret: bytes | None = None,
           binary_suffix: str = CPU_BINARY_SUFFIX) -> RemoteEntry:
    """Verify ``blob`` as the entry of kernel ``name`` with descriptor ``info``; raise EntryRejected if not.

    Order: magic and format, key id, tag over the raw bytes, and only then the header, the sizes
    (:func:`..entry.from_blob`) and the one verifier (:func:`..entry.verify`: the descriptor, the binary's
    size, checksum and ELF check). EntryRejected is the only exception this raises."""
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
    parts = entry_format.from_blob(name, header, memoryview(blob)[hend + 1:])
    if isinstance(parts, str):
        raise EntryRejected(parts)
    # The one verifier, as for a local entry: never adopted (nor loaded) unless it is the requested kernel, its
    # binary matches the header and is a loadable object exporting the kernel's symbol.
    result = entry_format.result_record(name, binary_suffix, parts.meta, parts.sha256, parts.size)
    verdict = entry_format.verify(name, parts.info, result, entry_format.BinaryBytes(parts.binary, binary_suffix),
                                  binary_suffix=binary_suffix, requested=info, source="the header")
    if verdict.reason is not None:
        raise EntryRejected(verdict.reason)
    return RemoteEntry(name, parts.info, parts.binary, parts.meta, parts.sha256)
