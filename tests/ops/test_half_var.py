"""float16 variance and standard deviation against MindSpore 2.10's recorded CPU results, bit for bit
(scripts/record_half_var.py: tests/fixtures/mindspore/half_var.json): ``ops.var``/``std``/``var_mean``/
``std_mean`` with ddof 0 or 1 take the standard deviation computed in float32 and rounded once (``var`` is its
square), ``Tensor.var``/``std`` and any other ddof compose step by step in float16, as MindSpore's PyNative
does; GRAPH_MODE gives the same answers. The rounded-once path is checked against the exact float64 result."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "mindspore" / "half_var.json").read_text())
CALLS = ("ops.var", "ops.std", "ops.var_mean", "ops.std_mean", "Tensor.var", "Tensor.std")


def _call(name: str, x, axis, ddof, keepdims):
    if name.startswith("Tensor."):
        return getattr(x, name[7:])(axis, ddof, keepdims)
    return getattr(ops, name[4:])(x, axis, ddof, keepdims)


class _Net(nn.Cell):
    def __init__(self, name, axis, ddof, keepdims):
        super().__init__()
        self.args = (name, axis, ddof, keepdims)

    def construct(self, x):
        name, axis, ddof, keepdims = self.args
        return _call(name, x, axis, ddof, keepdims)


def _case(i: int):
    c = FIXTURE["cases"][i]
    x = np.array(c["x"], np.uint16).view(np.float16).reshape(c["shape"])
    axis = tuple(c["axis"]) if isinstance(c["axis"], list) else c["axis"]
    return c, x, axis


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("i", range(len(FIXTURE["cases"])))
def test_bits_match_mindspore_pynative(i, name, mode):
    c, x, axis = _case(i)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        args = (axis, c["ddof"], c["keepdims"])
        got = _Net(name, *args)(Tensor(x)) if mode == "graph" else _call(name, Tensor(x), *args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    got = got if isinstance(got, tuple) else (got,)
    want = FIXTURE["cases"][i]["results"][f"pynative {name}"]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert str(g.dtype).lower() == w["dtype"] and list(g.shape) == w["shape"]
        np.testing.assert_array_equal(np.ascontiguousarray(g.asnumpy()).view(np.uint16).ravel(), w["bits"],
                                      err_msg=f"{name} case {i}")


def test_the_std_is_correctly_rounded_and_the_variance_within_two_ulp():
    """Against float64: the rounded-once standard deviation is the exact one rounded to float16 (sums of
    squares far past 65504 included), the variance its square (at most 2 ulp off); the steps would overflow."""
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((16, 600)) * 30 + 7).astype(np.float16)
    exact = x.astype(np.float64).var(axis=1, ddof=1)
    std = ops.std(Tensor(x), 1, 1).asnumpy()
    np.testing.assert_array_equal(std, np.sqrt(exact).astype(np.float16))
    var = ops.var(Tensor(x), 1, 1).asnumpy()
    ulps = np.abs(var.view(np.int16).astype(int) - exact.astype(np.float16).view(np.int16).astype(int))
    assert np.isfinite(var).all() and ulps.max() <= 2
    assert np.isinf(Tensor(x).var(1, 1).asnumpy()).all()  # Tensor.var: float16 steps, as MindSpore's


def test_float32_and_other_ddof_keep_the_composition():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 40)).astype(np.float32)
    np.testing.assert_array_equal(ops.var(Tensor(x), 1).asnumpy(), Tensor(x).var(1).asnumpy())
    np.testing.assert_allclose(ops.std(Tensor(x), 1, 1).asnumpy(), x.std(1, ddof=1), rtol=1e-6)
    h = x.astype(np.float16)
    np.testing.assert_array_equal(ops.var(Tensor(h), 1, 2).asnumpy(), Tensor(h).var(1, 2).asnumpy())
