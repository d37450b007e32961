"""The integer/bool/float16 input rules of tests/core/int_input_cases.py inside a GRAPH_MODE Cell: the traced
graph gives the recorded PyNative answer (MindSpore 2.10's GRAPH_MODE gives the same for these calls; it
differs only where a Python int scalar meets a narrow integer tensor, documented in docs/mindspore-compat.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from tests.core import int_input_cases

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "int_inputs.json").read_text())


class _Apply(ms.nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x):
        return self.fn(x)


# (the recorded call, the same call over the Cell's input, the input's constructor in SETUP)
CALLS = [
    *[(f"ops.{f}(T('{dt}'))", getattr(ops, f), f"T('{dt}')") for f in ("sqrt", "reciprocal", "isnan", "trunc")
      for dt in ("bool", "int8", "int64")],
    ("ops.round(T('int32'))", ops.round, "T('int32')"), ("ops.abs(T('bool'))", ops.abs, "T('bool')"),
    ("ops.frac(T('bool'))", ops.frac, "T('bool')"), ("ops.norm(M('int32'))", ops.norm, "M('int32')"),
    ("ops.argmax(M('bool'), 1)", lambda x: ops.argmax(x, 1), "M('bool')"),
    ("M('int8').cumsum(0)", lambda x: x.cumsum(0), "M('int8')"), ("ops.nansum(M('int16'))", ops.nansum, "M('int16')"),
    ("ops.trace(M('int32').reshape(3, 2))", lambda x: ops.trace(x.reshape(3, 2)), "M('int32')"),
    ("ops.matmul(M('int8'), M('int8').T)", lambda x: ops.matmul(x, x.T), "M('int8')"),
    ("M('uint8') @ M('uint8').T", lambda x: x @ x.T, "M('uint8')"),
    ("ops.histc(T('float16'), 4)", lambda x: ops.histc(x, 4), "T('float16')"),
    ("ops.ReduceMean(True)(M('uint8'), 1)", lambda x: ops.ReduceMean(True)(x, 1), "M('uint8')"),
    ("ops.norm(M('int8'), 1)", lambda x: ops.norm(x, 1), "M('int8')"),
    ("ops.isclose(M('bool'), M('bool'))", lambda x: ops.isclose(x, x), "M('bool')"),
    ("T('uint8') // -2", lambda x: x // -2, "T('uint8')"), ("ops.clip(T('uint8'), -1, 3)",
                                                              lambda x: ops.clip(x, -1, 3), "T('uint8')"),
]


@pytest.mark.parametrize("expr,fn,arg", CALLS, ids=[c[0] for c in CALLS])
def test_graph_matches_recorded(expr, fn, arg, graph_mode):
    env: dict = {"ms": ms, "np": np}
    exec(int_input_cases.SETUP, env)  # noqa: S102 - the repository's own case list
    got = _Apply(fn)(eval(arg, env))  # noqa: S307
    want = FIXTURE[expr]
    assert str(got.dtype) == want["dtype"] and list(got.shape) == want["shape"], expr
    np.testing.assert_allclose(np.asarray(got.asnumpy(), np.float64), np.asarray(want["value"]), rtol=1e-3)


@pytest.mark.parametrize("call", [lambda u: u ** -1, lambda u: ops.pow(u, -2), lambda u: ops.fmod(u, -2),
                                  lambda u: ops.div(u, -2, rounding_mode="trunc")])
def test_negative_int_with_unsigned_is_refused(call, pynative_mode):
    # MindSpore computes these in a signed type; the wrapped scalar the other ops take would give other numbers.
    u = ms.Tensor(np.array([3, 0, 2], np.uint8))
    with pytest.raises(ValueError, match="negative Python int .* cast the tensor to a signed dtype"):
        call(u)


def test_lerp_of_unsigned_interpolates_in_float(pynative_mode):
    # end - input in uint8 would wrap (1 - 3 = 254); MindSpore refuses integer lerp, opbuild computes it in float32.
    got = ops.lerp(ms.Tensor(np.array([3, 0, 2, 5], np.uint8)), ms.Tensor(np.array([1, 1, 0, 1], np.uint8)), 0.5)
    assert str(got.dtype) == "Float32"
    np.testing.assert_allclose(got.asnumpy(), [2.0, 0.5, 1.0, 3.0])
