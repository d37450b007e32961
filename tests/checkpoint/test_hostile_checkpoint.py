"""Checkpoints a hostile or broken writer made (issue 23, points 6 and 7): dims whose product overflows int64
and strings holding code points that are not characters are CheckpointErrors naming the file, not tracebacks
from NumPy; a value of the wrong kind under a parameter's name is reported in ``param_not_load`` with a
warning (a TypeError under ``strict_load=True``), never silently skipped."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import opbuild as ms
from opbuild.checkpoint import CheckpointError
from opbuild.models import mlp
from tests.checkpoint.test_checkpoint import value_bytes


def _ucs4(points: list[int]) -> bytes:
    return np.array(points, "<u4").tobytes()


@pytest.mark.parametrize("content, message", [
    # 2**62 * 4 * 4 bytes wraps to 0 in int64: an empty content would "match" and reshape would fail.
    (value_bytes("w", [1 << 62, 4], "Float32", b""), "should hold 73786976294838206464 bytes but holds 0"),
    (value_bytes("w", [1 << 32, 1 << 32], "Float32", b"\0" * 8), "should hold"),
    (value_bytes("s", [0], "str", _ucs4([0x41, 0x110000])), "holds 0x110000, which is not a Unicode character"),
    (value_bytes("s", [0], "str", _ucs4([0xD800])), "holds 0xd800, which is not a Unicode character"),
    (value_bytes("s", [0], "str", _ucs4([0xFFFFFFFF])), "holds 0xffffffff"),
])
def test_hostile_entries_are_checkpoint_errors(tmp_path, content, message) -> None:
    path = tmp_path / "bad.ckpt"
    path.write_bytes(value_bytes("ok", [1], "Float32", b"\0" * 4) + content)
    with pytest.raises(CheckpointError, match=message) as info:
        ms.load_checkpoint(str(path))
    assert str(path) in str(info.value)


def test_a_valid_string_entry_still_loads(tmp_path) -> None:
    path = tmp_path / "s.ckpt"
    text = value_bytes("s", [0], "str", _ucs4([0x41, 0x1F600]))
    path.write_bytes(value_bytes("ok", [1], "Float32", b"\0" * 4) + text)
    assert ms.load_checkpoint(str(path))["s"] == "A\U0001F600"


def test_a_string_under_a_parameter_name_is_not_loaded_and_reported(caplog) -> None:
    net = mlp(16, (8,), 4, seed=0)
    before = net.head.bias.asnumpy().copy()
    values = {n: ms.Parameter(np.full(p.shape, 0.5, np.float32), name=n) for n, p in net.parameters_and_names()}
    values["head.bias"] = "not a tensor"
    with caplog.at_level(logging.WARNING, logger="opbuild.checkpoint"):
        not_loaded, unused = ms.load_param_into_net(net, values)
    assert not_loaded == ["head.bias"] and unused == ["head.bias"]
    assert "head.bias" in caplog.text and "not a Parameter" in caplog.text
    np.testing.assert_array_equal(net.head.bias.asnumpy(), before)
    assert float(net.head.weight.asnumpy()[0, 0]) == 0.5


def test_a_string_under_a_parameter_name_is_an_error_when_strict() -> None:
    net = mlp(16, (8,), 4, seed=0)
    values = {n: ms.Parameter(np.zeros(p.shape, np.float32), name=n) for n, p in net.parameters_and_names()}
    values["head.weight"] = "oops"
    with pytest.raises(TypeError, match="'head.weight', not a Parameter"):
        ms.load_param_into_net(net, values, strict_load=True)


def test_a_tag_that_is_not_utf8_is_a_checkpoint_error(tmp_path) -> None:
    path = tmp_path / "tag.ckpt"
    ms.save_checkpoint([{"name": "wq", "data": np.ones(2, np.float32)}], str(path))
    path.write_bytes(path.read_bytes().replace(b"wq", b"w\xff"))  # the same length: the framing stays valid
    with pytest.raises(CheckpointError, match=r"value #0 has the tag b'w\\xff', which is not UTF-8 text") as info:
        ms.load_checkpoint(str(path))
    assert str(path) in str(info.value)
