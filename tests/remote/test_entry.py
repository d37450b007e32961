"""The shared-tier entry blob: what is accepted and what is rejected."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opbuild.cache.remote_entry import EntryRejected, pack, unpack
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
    # a reader without a secret accepts signed entries (it cannot check them; it trusts the tier)
    assert unpack(pack(NAME, INFO, BINARY, META, SECRET), NAME, INFO, None).binary == BINARY


@pytest.mark.parametrize(("blob", "secret", "reason"), [
    (pack(NAME, INFO, BINARY, META), SECRET, "not signed"),
    (pack(NAME, INFO, BINARY, META, b"other"), SECRET, "bad signature"),
    (pack(NAME, INFO, BINARY, META)[:-1], None, "size"),
    (pack(NAME, INFO, BINARY, META)[:-1] + b"!", None, "binary sha256"),
    (pack("square_other", INFO, BINARY, META), None, "names kernel"),
    (pack(NAME, INFO.replace(b"3", b"4"), BINARY, META), None, "differs from the requested"),
    (pack(NAME, INFO, BINARY[: len(BINARY) // 2], META), None, "not a loadable shared object"),  # truncated
    (pack(NAME, INFO, shared_object("square_other"), META), None, "does not export the kernel symbol"),
    (b"PK\x03\x04 a zip", None, "magic"),
    (b"opbuild-entry 1\n{not json\n", None, "unparsable"),
])
def test_rejections(blob, secret, reason):
    with pytest.raises(EntryRejected, match=reason):
        unpack(blob, NAME, INFO, secret)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_any_flipped_byte_of_a_signed_entry_is_rejected(data):
    blob = bytearray(pack(NAME, INFO, BINARY, META, SECRET))
    i = data.draw(st.integers(0, len(blob) - 1))
    blob[i] ^= data.draw(st.integers(1, 255))
    with pytest.raises(EntryRejected):
        unpack(bytes(blob), NAME, INFO, SECRET)
