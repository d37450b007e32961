"""Checkpoints of every dtype MindSpore writes, both directions, byte for byte: the files under
tests/fixtures/mindspore/ckpt_dtypes/ were written by MindSpore 2.10 (scripts/record_checkpoint_dtypes.py)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import opbuild as ms

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "mindspore" / "ckpt_dtypes"

def values(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """The recipe of scripts/record_checkpoint_dtypes.py ``values`` (repeated: that script imports MindSpore);
    the tests below prove the two agree, value for value."""
    if dtype == "bool":
        return np.arange(12).reshape(3, 4) % 3 == 0, np.array(True)
    if dtype.startswith(("float", "bfloat")):
        grid = (np.arange(12, dtype=np.float32).reshape(3, 4) - 6.0) * np.float32(0.3712)
        grid[0, 0] = np.inf
        grid[0, 1] = -0.0
        return grid, np.array(1.0 / 3.0, np.float32)
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    picks = [lo, lo + 1, lo // 3, max(lo, -1), 0, 1, 7, 100, hi // 3, hi // 2, hi - 1, hi]
    return np.array(picks, dtype=dtype).reshape(3, 4), np.array(hi, dtype)


DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
          "int64", "uint64", "bool")


def _np(dtype: str) -> np.dtype:
    return np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mindspore_file_loads_exactly(dtype):
    loaded = ms.load_checkpoint(str(FIXTURES / f"{dtype}.ckpt"))
    assert list(loaded) == ["grid", "scalar"]
    for name, src in zip(("grid", "scalar"), values(dtype), strict=True):
        got = loaded[name].asnumpy()
        want = src.astype(_np(dtype))
        assert got.dtype == _np(dtype) and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), name  # bit for bit: -0.0, inf and the rounding included
        assert loaded[name].dtype == getattr(ms, "bool_" if dtype == "bool" else dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_saved_file_is_mindspore_s_byte_for_byte(dtype, tmp_path):
    grid, scalar = (ms.Tensor(a.astype(_np(dtype))) for a in values(dtype))
    params = [ms.Parameter(grid, name="grid"), ms.Parameter(scalar, name="scalar")]
    ms.save_checkpoint(params, str(tmp_path / "out.ckpt"))
    assert (tmp_path / "out.ckpt").read_bytes() == (FIXTURES / f"{dtype}.ckpt").read_bytes()


def test_loads_into_half_parameters_with_mindspore_s_conversions():
    net = ms.nn.Dense(4, 3, has_bias=False)
    net.weight = ms.Parameter(ms.Tensor(np.ones((3, 4), np.float16)), name="weight")
    loaded = ms.load_checkpoint(str(FIXTURES / "float32.ckpt"))
    # float32 into float16 converts (not strict), an integer into a float does not
    assert ms.load_param_into_net(net, {"weight": loaded["grid"]}) == ([], [])
    assert net.weight.asnumpy().dtype == np.float16
    np.testing.assert_array_equal(net.weight.asnumpy(), values("float32")[0].astype(np.float16))
    with pytest.raises(RuntimeError, match="only float<->float and int<->int"):
        ms.load_param_into_net(net, {"weight": ms.load_checkpoint(str(FIXTURES / "int8.ckpt"))["grid"]})
