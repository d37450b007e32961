"""The signed index of a cache archive, and the verification pass ``cache import`` runs before writing anything.

An archive written by ``opbuild cache export`` ends with ``opbuild-cache.sig``, a JSON object::

    {"format": 1, "key_id": <16 hex | "unsigned">, "members": [[name, size, sha256], ...], "mac": <hex | null>}

``members`` lists every other member in order (the informational ``opbuild-cache.json`` included);
``mac`` is HMAC-SHA256 under ``OPBUILD_CACHE_SECRET`` of the canonical JSON of the other three fields (null
when the exporter had no secret), and ``key_id`` names the secret without revealing it, as the shared tier's
entries do (cache/shared/entry.py ``key_id``).

:func:`verify_archive` reads the whole archive once as a stream, nothing written and at most one chunk
(cache/hashio.py ``CHUNK``) of a member held at a time, hashing every member; it refuses the whole archive
(:class:`ArchiveRefused`, one line saying why and what to do) when it is damaged, holds more than
:data:`MAX_MEMBERS` members or :data:`MAX_TOTAL_BYTES` bytes, holds a member over the bound on binaries
(``hashio.MAX_BINARY_BYTES``: no entry file comes near it), or when its members are not exactly those of its
index. Without ``trust`` it also refuses an archive that is not signed, or that is signed but cannot be
checked here (no secret set); with ``trust`` those are imported on the user's word (an index present is still
checked). A signature that is checked and does not match is refused whatever ``trust`` says: the archive was
changed, or signed with another secret (to import it anyway, run the import without ``OPBUILD_CACHE_SECRET``
and with ``--trust``).
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
import tarfile
import zlib
from dataclasses import dataclass, field
from typing import BinaryIO

from .. import fsio, hashio
from ..signing import key_id

INDEX = "opbuild-cache.sig"
FORMAT = 1
#: Bounds on an archive as a whole: far above a large cache (three members per entry), far below a zip bomb.
MAX_MEMBERS = 300_000
MAX_TOTAL_BYTES = 64 << 30
MAX_INDEX_BYTES = 64 << 20
_TRUST_HINT = "import it with --trust only if you trust where it came from"


class ArchiveRefused(Exception):
    """The archive is not imported at all; ``reason`` says why (one line)."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


def _canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _mac(secret: bytes, key: str, members: list) -> str:
    return hmac.new(secret, _canonical({"format": FORMAT, "key_id": key, "members": members}),
                    hashlib.sha256).hexdigest()


@dataclass
class IndexWriter:
    """The index of an archive being written: :meth:`add` each member as it is written, :meth:`payload` last."""

    members: list[list] = field(default_factory=list)

    def add(self, name: str, data: bytes) -> None:
        """Record member ``name`` holding ``data``."""
        self.members.append([name, len(data), hashlib.sha256(data).hexdigest()])

    def payload(self, secret: bytes | None) -> bytes:
        """The index member's bytes, signed with ``secret`` when given."""
        key = key_id(secret)
        mac = _mac(secret, key, self.members) if secret else None
        return _canonical({"format": FORMAT, "key_id": key, "members": self.members, "mac": mac}) + b"\n"


@dataclass
class Verified:
    """What :func:`verify_archive` proved: ``members`` (name -> (size, sha256)) every later read must match,
    or None for an archive without an index imported on trust; ``signed``: its signature was checked."""

    members: dict[str, tuple[int, str]] | None
    signed: bool
    key_id: str


def _parse_index(raw: bytes) -> tuple[str, list, str | None]:
    try:
        data = fsio.parse_json(raw, INDEX)
    except fsio.CorruptFile as e:
        raise ArchiveRefused(f"its index {INDEX} is damaged ({e.strerror})") from None
    key, members, mac = data.get("key_id"), data.get("members"), data.get("mac")
    if data.get("format") != FORMAT or not isinstance(key, str) or not isinstance(members, list) \
            or not (mac is None or isinstance(mac, str)):
        raise ArchiveRefused(f"its index {INDEX} is of another format or malformed")
    for row in members:
        if not (isinstance(row, list) and len(row) == 3 and isinstance(row[0], str) and type(row[1]) is int
                and isinstance(row[2], str) and len(row[2]) == 64):
            raise ArchiveRefused(f"its index {INDEX} has a malformed member row")
    return key, members, mac


def _check_signature(key: str, members: list, mac: str | None, secret: bytes | None, trust: bool) -> bool:
    """Whether the index's signature was checked and holds; raises ArchiveRefused when it may not be used."""
    if mac is None:
        if trust:
            return False
        raise ArchiveRefused("it is not signed (exported without OPBUILD_CACHE_SECRET): " + _TRUST_HINT)
    if secret is None:
        if trust:
            return False
        raise ArchiveRefused(f"it is signed (key id {key[:16]}) but OPBUILD_CACHE_SECRET is unset here: set the "
                             "secret it was exported with, or " + _TRUST_HINT)
    ours = key_id(secret)
    if key != ours:
        raise ArchiveRefused(f"it is signed with another secret (key id {key[:16]}, this OPBUILD_CACHE_SECRET's is "
                             f"{ours}): set the secret it was exported with")
    if not hmac.compare_digest(mac.encode(), _mac(secret, key, members).encode()):
        raise ArchiveRefused("its signature does not match (HMAC-SHA256 under OPBUILD_CACHE_SECRET): the archive "
                             "was changed after it was exported")
    return True


def _scan(f: BinaryIO) -> tuple[dict[str, tuple[int, str]], bytes | None]:
    """Every member of the archive as name -> (size, sha256), streamed, and the raw index (None if absent)."""
    seen: dict[str, tuple[int, str]] = {}
    index: bytes | None = None
    count = total = 0
    gz = f.read(2) == b"\x1f\x8b"
    f.seek(0)
    # Our own gzip reader: tarfile ends quietly when a cut falls inside a member's header, and its stream reader
    # does not notice a gzip stream cut short; GzipFile raises EOFError for it, so a truncated archive is
    # "damaged" wherever the cut falls (drained below), not "without an index".
    source = gzip.GzipFile(fileobj=f, mode="rb") if gz else f
    with tarfile.open(fileobj=source, mode="r|" if gz else "r|*") as tar:
        for member in tar:
            count += 1
            if count > MAX_MEMBERS:
                raise ArchiveRefused(f"it holds more than {MAX_MEMBERS} members: not a cache archive")
            if member.isdir():
                continue
            if index is not None:
                raise ArchiveRefused(f"member {member.name[:200]!r} follows the index {INDEX}, which comes last")
            if member.name in seen:
                raise ArchiveRefused(f"member {member.name[:200]!r} appears twice")
            if member.name == INDEX and member.isfile():
                if member.size > MAX_INDEX_BYTES:
                    raise ArchiveRefused(f"its index is {member.size} bytes, over the {MAX_INDEX_BYTES}-byte bound")
                index = _read(tar, member)
                continue
            if not member.isfile():
                seen[member.name] = (-1, "")  # links and devices: never in an index, refused below
                continue
            total += member.size
            if total > MAX_TOTAL_BYTES:
                raise ArchiveRefused(f"its members hold more than {MAX_TOTAL_BYTES} bytes: not a cache archive")
            if why := hashio.too_large(member.size):
                raise ArchiveRefused(f"member {member.name[:200]!r} is {why}: not a cache archive")
            stream = tar.extractfile(member)
            seen[member.name] = (member.size, hashio.copy_hashed(stream, None, member.size, what=member.name)
                                 if stream is not None else "")
    while gz and source.read(1 << 20):  # to the gzip trailer: EOFError if the stream was cut
        pass
    return seen, index


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    stream = tar.extractfile(member)
    return stream.read(MAX_INDEX_BYTES + 1) if stream is not None else b""


def verify_archive(f: BinaryIO, secret: bytes | None, trust: bool = False) -> Verified:
    """Pass one of an import: check the archive open as ``f`` (from its start) as the module says; raise
    :class:`ArchiveRefused` or return what every member read later must match."""
    try:
        seen, index = _scan(f)
    except (tarfile.TarError, EOFError, zlib.error, OSError) as e:
        raise ArchiveRefused(f"the archive is damaged or not a tar.gz ({e})") from None
    if index is None:
        if trust:
            return Verified(None, False, key_id(None))
        raise ArchiveRefused(f"it has no index {INDEX} (written by an older opbuild, or stripped): " + _TRUST_HINT)
    key, members, mac = _parse_index(index)
    signed = _check_signature(key, members, mac, secret, trust)
    listed: dict[str, tuple[int, str]] = {}
    for name, size, sha in members:
        if name in listed:
            raise ArchiveRefused(f"its index lists {name[:200]!r} twice")
        listed[name] = (size, sha)
    for name, found in seen.items():
        if name not in listed:
            raise ArchiveRefused(f"member {name[:200]!r} is not in its index")
        if listed[name] != found:
            raise ArchiveRefused(f"member {name[:200]!r} differs from its index (size or sha256)")
    if missing := [n for n in listed if n not in seen]:
        raise ArchiveRefused(f"member {missing[0][:200]!r} of its index is missing (a truncated archive?)")
    return Verified(listed, signed, key)


__all__ = ["FORMAT", "INDEX", "MAX_INDEX_BYTES", "MAX_MEMBERS", "MAX_TOTAL_BYTES", "ArchiveRefused", "IndexWriter",
           "Verified", "verify_archive"]
