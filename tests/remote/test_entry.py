"""The shared-tier entry blob: what is accepted and what is rejected."""

from __future__ import annotations

import hashlib
import hmac
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opbuild.cache.shared.entry import MAGIC, EntryRejected, key_id, pack, unpack
from tests.remote._elf import shared_object

INFO = b'{"op":"Square","shape":[3]}\n'
NAME = "square_" + hashlib.sha256(INFO).hexdigest()[:32]
BINARY = shared_object(NAME)
META = {"symbol": "ob_x", "build_seconds": 0.1}
SECRET = b"k3y"


def test_roundtrip_with_and_without_secret():
    for secret in (None, SECRET):
        entry = unpack(pack(NAME, INFO, BINARY, META, secret), NAME, INFO, secret)
        assert (entry.info, entry.binary, entry.meta) == (INFO, BINARY, META)
        assert entry.sha256 == hashlib.sha256(BINARY).hexdigest()


def test_key_ids_name_secrets_without_revealing_them():
    assert key_id(None) == key_id(b"") == "unsigned"
    assert re.fullmatch(r"[0-9a-f]{16}", key_id(SECRET)) and key_id(SECRET) != key_id(b"other")
    assert key_id(SECRET) == key_id(b"k3y")  # stable: every rank with this secret derives the same one
    assert pack(NAME, INFO, BINARY, META, SECRET).startswith(b"opbuild-entry 2 " + key_id(SECRET).encode() + b" ")


def _resigned(blob: bytes, secret: bytes | None, rest: bytes) -> bytes:
    """``rest`` (header line onwards) under a valid tag for ``secret``: what a writer holding it could make."""
    key = key_id(secret)
    h = hmac.new(secret, digestmod=hashlib.sha256) if secret else hashlib.sha256()
    h.update(MAGIC + key.encode() + b"\n" + rest)
    return MAGIC + key.encode() + b" " + h.hexdigest().encode() + b"\n" + rest


NESTED = b"[" * 100_000 + b"\n" + INFO + BINARY


@pytest.mark.parametrize(("blob", "secret", "reason"), [
    (pack(NAME, INFO, BINARY, META), SECRET, "not signed"),
    (pack(NAME, INFO, BINARY, META, b"other"), SECRET, "another key"),
    (pack(NAME, INFO, BINARY, META, SECRET), None, "another key"),
    (pack(NAME, INFO, BINARY, META)[:-1], None, "checksum"),
    (pack(NAME, INFO, BINARY, META)[:-1] + b"!", None, "checksum"),
    (pack(NAME, INFO, BINARY, META, SECRET)[:-1] + b"!", SECRET, "bad signature"),
    (pack("square_other", INFO, BINARY, META), None, "names kernel"),
    (pack(NAME, INFO.replace(b"3", b"4"), BINARY, META), None, "differs from the requested"),
    (pack(NAME, INFO, BINARY[: len(BINARY) // 2], META), None, "not a loadable shared object"),  # truncated
    (pack(NAME, INFO, shared_object("square_other"), META), None, "does not export the kernel symbol"),
    (b"PK\x03\x04 a zip", None, "magic"),
    (b"opbuild-entry 1\n{}\n", None, "another format version"),
    (b"opbuild-entry 2 unsigned " + b"0" * 5000, None, "no signature line"),
    (b"opbuild-entry 2 unsigned\xff 00\n", None, "malformed"),
    # a deeply nested header under a forged tag: the MAC rejects it before any parsing
    (_resigned(b"", b"attacker", NESTED), SECRET, "another key"),
    (MAGIC + key_id(SECRET).encode() + b" " + b"0" * 64 + b"\n" + NESTED, SECRET, "bad signature"),
    # without a secret the checksum is anybody's to compute: the header is parsed, boundedly, and rejected
    (_resigned(b"", None, NESTED), None, "unparsable header"),
    (_resigned(b"", None, b'{"name":"' + NAME.encode() + b'","info_size":-1}\n'), None, "not a size"),
    (_resigned(b"", None, b'{"name":"' + NAME.encode() + b'","info_size":true}\n'), None, "not a size"),
    (_resigned(b"", None, b"[]\n"), None, "unparsable header"),
])
def test_rejections(blob, secret, reason):
    with pytest.raises(EntryRejected, match=reason):
        unpack(blob, NAME, INFO, secret)


def test_a_nested_header_is_never_parsed_when_signing_is_on(monkeypatch):
    from opbuild.cache.shared import entry as remote_entry

    def parse(*args):
        raise AssertionError("parsed before the signature was checked")

    monkeypatch.setattr(remote_entry, "parse_json", parse)
    with pytest.raises(EntryRejected, match="bad signature"):
        unpack(MAGIC + key_id(SECRET).encode() + b" " + b"0" * 64 + b"\n" + NESTED, NAME, INFO, SECRET)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_any_flipped_byte_of_a_signed_entry_is_rejected(data):
    blob = bytearray(pack(NAME, INFO, BINARY, META, SECRET))
    i = data.draw(st.integers(0, len(blob) - 1))
    blob[i] ^= data.draw(st.integers(1, 255))
    with pytest.raises(EntryRejected):
        unpack(bytes(blob), NAME, INFO, SECRET)
