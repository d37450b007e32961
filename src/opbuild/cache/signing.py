"""Signatures under ``OPBUILD_CACHE_SECRET``: the key id that names a secret, and the MAC of a local entry.

One secret signs three things, each with HMAC-SHA256 over its own domain-separated message, so that no
signature of one kind can stand in for another: shared-tier blobs (cache/shared/entry.py), archive indexes
(cache/admin/sealing.py) and, here, the entries of kernel_meta.

**A signed entry** carries its MAC at the very start of its ``.json`` (the build result), which stays one JSON
object::

    {"mac":"<key id: 16 hex>:<tag: 64 hex>",
     "binary": ..., "sha256": ..., ...}

The tag is HMAC-SHA256(secret, message), where the message is :data:`DOMAIN`, the entry's name and a newline,
the length of the ``.info`` bytes (8 bytes, big-endian), the ``.info`` bytes, and the ``.json`` bytes as they
would be without the MAC (``{`` followed by everything after the MAC's field). The ``.json`` records the
binary's size and sha256, so the MAC covers all three files: swapping any of them, or renaming an entry to
another kernel's name (its key), breaks it. It is checked on the raw bytes, before the ``.json`` is parsed
(:func:`problem`), and costs one HMAC of about 2-3 KB per kernel on a warm start (docs/cache.md).

The key id names the secret without revealing it (first 8 bytes of HMAC(secret, "opbuild key id")), so an
entry signed under another secret is told apart from a forged one in what a reader reports.
"""

from __future__ import annotations

import hashlib
import hmac
import re

#: The key id of anything written without a secret.
UNSIGNED = "unsigned"
#: Separates the MAC of a local entry from every other use of the secret.
DOMAIN = b"opbuild local entry 1\n"
_OPEN = b'{"mac":"'
_KEY_HEX = 16
_TAG_HEX = 64
#: Bytes of the MAC's field at the start of a signed ``.json``: ``{"mac":"<key id>:<tag>",``.
FIELD_BYTES = len(_OPEN) + _KEY_HEX + 1 + _TAG_HEX + 2
_FIELD = re.compile(re.escape(_OPEN) + rb"([0-9a-f]{%d}):[0-9a-f]{%d}\"," % (_KEY_HEX, _TAG_HEX))


def key_id(secret: bytes | None) -> str:
    """The name of ``secret``: 16 hex digits derived from it (it cannot be turned back into the secret), or
    ``"unsigned"`` without one."""
    if not secret:
        return UNSIGNED
    return hmac.new(secret, b"opbuild key id", hashlib.sha256).hexdigest()[:_KEY_HEX]


class EntrySigner:
    """Signs and checks the entries of one secret (the HMAC's key schedule is computed once and copied per
    entry: a warm start checks every kernel)."""

    __slots__ = ("key_id", "_base", "_key_bytes")

    def __init__(self, secret: bytes):
        if not secret:
            raise ValueError("an entry signer needs a non-empty secret")
        self.key_id = key_id(secret)
        self._key_bytes = self.key_id.encode()
        self._base = hmac.new(secret, DOMAIN, hashlib.sha256)

    def _tag(self, name: str, info: bytes, rest: bytes | memoryview) -> bytes:
        """The tag over the name, ``.info`` and the unsigned ``.json``: ``{`` then ``rest``."""
        h = self._base.copy()
        h.update(name.encode() + b"\n" + len(info).to_bytes(8, "big"))
        h.update(info)
        h.update(b"{")
        h.update(rest)
        return h.hexdigest().encode()

    def sign(self, name: str, info: bytes, result_json: bytes) -> bytes:
        """The signed ``.json`` of entry ``name``: ``result_json`` (a JSON object's bytes, starting with
        ``{``, holding no ``mac`` field) with the MAC's field put first."""
        if not result_json.startswith(b"{"):
            raise ValueError("a build result to sign must be a JSON object")
        rest = result_json[1:]
        tag = self._tag(name, info, rest)
        return _OPEN + self._key_bytes + b":" + tag + b'",' + rest

    def problem(self, name: str, info: bytes, raw_json: bytes) -> str | None:
        """Why the ``.json`` bytes ``raw_json`` of entry ``name`` with ``.info`` bytes ``info`` do not carry a
        valid MAC under this secret, or None. Reads nothing but the bytes given; parses nothing."""
        key = signed_key(raw_json)
        if key is None:
            return ("unsigned: the entry carries no MAC, but OPBUILD_CACHE_SECRET is set (written before the "
                    "secret was set, by a process without it, or planted)")
        if key != self.key_id:
            return (f"signed with another OPBUILD_CACHE_SECRET (key id {key}; this process's is {self.key_id})")
        tag = raw_json[FIELD_BYTES - 2 - _TAG_HEX:FIELD_BYTES - 2]
        if not hmac.compare_digest(tag, self._tag(name, info, memoryview(raw_json)[FIELD_BYTES:])):
            return ("bad MAC: its .info, .json or binary was changed after it was signed, or it was moved from "
                    "another kernel's name")
        return None


def signed_key(raw_json: bytes) -> str | None:
    """The key id a ``.json``'s MAC field names, or None when it has no well-formed one (unsigned)."""
    found = _FIELD.match(raw_json)
    return None if found is None else found.group(1).decode()


def signer(secret: bytes | None) -> EntrySigner | None:
    """The signer of ``secret``, or None without one (entries are then written unsigned and read by checksum)."""
    return EntrySigner(secret) if secret else None


__all__ = ["DOMAIN", "FIELD_BYTES", "UNSIGNED", "EntrySigner", "key_id", "signed_key", "signer"]
