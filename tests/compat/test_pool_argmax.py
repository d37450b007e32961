"""Max pooling with indices (dilated, padded, ceil_mode, adaptive, fractional), AdaptiveAvgPool2D of any size,
AvgPool2d's divisor and Conv2DTranspose against real MindSpore 2.10 (tests/fixtures/ms_pools.npz, recorded
by scripts/record_pools.py from tests/compat/pool_cases.py): values, indices (equal, with their dtype) and
gradients; plus PyTorch's gradients where MindSpore's could not be recorded, and the random ops by property."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import opbuild as ms
from opbuild import Tensor, nn, ops

from ..helpers import FnCell
from .pool_cases import CASES, GRAD, first, outputs, weight

pytestmark = pytest.mark.slow  # some sixty small kernels built in two modes

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "ms_pools.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())
# The samples of fractional pooling (and AdaptiveMaxPool3D's output_size) are read when the call is built: in
# GRAPH_MODE that breaks the graph there (core/graph_breaks.py), so these run in both modes too.
PYNATIVE_ONLY: set[str] = set()


def _run(name: str, mode: str):
    fn, n_in = CASES[name][0], len(CASES[name][1])
    inputs = [Tensor(FIXTURE[f"{name}:in{i}"]) for i in range(n_in)]
    if mode == "graph" and name not in PYNATIVE_ONLY:
        old = ms.get_context("mode")
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            return FnCell(lambda *ts: fn(ms, ops, nn, *ts))(*inputs)
        finally:
            ms.set_context(mode=old)
    return fn(ms, ops, nn, *inputs)


def test_fixture_records_mindspore_2_10_and_every_case() -> None:
    assert META["mindspore"] == "2.10.0"
    # MindSpore 2.10's CPU: no gradient for the two fractional max pools; FractionalMaxPool refuses a seed
    # without deterministic=True (opbuild too: test_matches_mindspore)
    assert set(META["errors"]) == {"fractional_max_pool2d:grad", "fractional_max_pool_tf:grad",
                                   "fractional_max_pool_tf_overlap"}
    for name in CASES:
        assert f"{name}:out0" in FIXTURE or name in META["errors"], name


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mindspore(name: str, mode: str) -> None:
    if name in META["errors"]:  # MindSpore refuses the case: so must opbuild, with the same kind of error
        with pytest.raises(Exception) as info:  # noqa: B017
            _run(name, mode)
        assert type(info.value).__name__ == META["errors"][name].split(":")[0]
        return
    got = outputs(_run(name, mode))
    want = [FIXTURE[k] for k in sorted((k for k in FIXTURE.files if k.startswith(f"{name}:out")),
                                       key=lambda k: int(k.rsplit("out", 1)[1]))]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, w)


def _grad(name: str) -> np.ndarray:
    fn, n_in = CASES[name][0], len(CASES[name][1])
    inputs = [Tensor(FIXTURE[f"{name}:in{i}"]) for i in range(n_in)]
    w = Tensor(weight(tuple(first(fn(ms, ops, nn, *inputs)).shape)))
    rest = inputs[1:]  # constants of the traced function (the samples must be)
    return ms.grad(lambda x: (first(fn(ms, ops, nn, x, *rest)) * w).sum())(inputs[0]).asnumpy()


@pytest.mark.parametrize("name", [n for n in GRAD if f"{n}:grad" in FIXTURE])
def test_gradient_matches_mindspore(name: str) -> None:
    np.testing.assert_allclose(_grad(name), FIXTURE[f"{name}:grad"], rtol=1e-5, atol=1e-5)


def test_fractional_2d_gradient_matches_torch() -> None:
    # MindSpore 2.10's CPU gradient of fractional_max_pool2d raises; PyTorch's op with the same samples gives
    # the same windows (the values above match MindSpore's), so its gradient is the reference.
    x, s = FIXTURE["fractional_max_pool2d:in0"], FIXTURE["fractional_max_pool2d:in1"]
    xt = torch.tensor(x, requires_grad=True)
    y = torch.nn.functional.fractional_max_pool2d(xt, (2, 3), (4, 5), _random_samples=torch.tensor(s))
    (y * torch.tensor(weight(tuple(y.shape)))).sum().backward()
    np.testing.assert_allclose(_grad("fractional_max_pool2d"), xt.grad.numpy(), rtol=1e-6)


def test_dilated_pool_with_indices_matches_torch() -> None:
    x = np.random.default_rng(3).standard_normal((2, 3, 10, 9)).astype(np.float32)
    v, i = ops.max_pool2d(Tensor(x), (3, 2), (2, 3), (1, 1), (3, 2), True, True)
    tv, ti = torch.nn.functional.max_pool2d(torch.tensor(x), (3, 2), (2, 3), (1, 1), (3, 2), True, True)
    np.testing.assert_array_equal(v.asnumpy(), tv.numpy())
    np.testing.assert_array_equal(i.asnumpy(), ti.numpy())


def test_fractional_drawn_samples_by_property() -> None:
    x = np.random.default_rng(4).standard_normal((2, 3, 10, 12)).astype(np.float32)
    ms.set_seed(7)
    a, ia = ops.fractional_max_pool2d(Tensor(x), 3, (4, 5), return_indices=True)
    ms.set_seed(7)
    b, ib = ops.fractional_max_pool2d(Tensor(x), 3, (4, 5), return_indices=True)
    np.testing.assert_array_equal(ia.asnumpy(), ib.asnumpy())   # repeatable under set_seed
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, ia.asnumpy().reshape(2, 3, -1), 2),
                                  a.asnumpy().reshape(2, 3, -1))   # each value is the input at its index
    rows, cols = np.divmod(ia.asnumpy(), 12)
    assert (np.diff(rows, axis=2) >= 0).all() and (np.diff(cols, axis=3) >= 0).all()  # windows move forward


def test_fractional_samples_must_be_constant_and_valid() -> None:
    x = Tensor(np.ones((1, 1, 6, 6), np.float32))
    with pytest.raises(ValueError, match="_random_samples must have shape"):
        ops.fractional_max_pool2d(x, 2, (3, 3), _random_samples=Tensor(np.zeros((1, 1, 3), np.float32)))
    with pytest.raises(ValueError, match="exactly one of output_size and output_ratio"):
        ops.fractional_max_pool2d(x, 2)
    s = Tensor(np.full((1, 1, 2), 0.5, np.float32))
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:  # samples given as a graph input: read where the graph breaks, the same windows as in PyNative
        got = FnCell(lambda t, s_: ops.fractional_max_pool2d(t, 2, (3, 3), _random_samples=s_))(x, s)
    finally:
        ms.set_context(mode=old)
    np.testing.assert_array_equal(got.asnumpy(), ops.fractional_max_pool2d(x, 2, (3, 3), _random_samples=s).asnumpy())


def test_nn_max_pool_refuses_pad_arguments_without_pad_mode() -> None:
    with pytest.raises(ValueError, match="need pad_mode='pad'"):
        nn.MaxPool2d(2, 1, return_indices=True)
    with pytest.raises(ValueError, match="need pad_mode='pad'"):
        nn.MaxPool1d(2, 1, dilation=2)
    with pytest.raises(ValueError, match="need pad_mode='pad'"):
        nn.MaxPool3d(2, 1, return_indices=True)
    with pytest.raises(ValueError, match="need pad_mode='pad'"):
        nn.AvgPool2d(2, 1, divisor_override=3)


def test_dropout_primitives_by_property() -> None:
    x = np.ones((4, 8, 3, 5), np.float32)
    out, mask = ops.Dropout(keep_prob=0.75)(Tensor(x))
    assert mask.dtype == ms.float32 and set(np.unique(mask.asnumpy())) <= {0.0, 1.0}
    np.testing.assert_allclose(out.asnumpy(), mask.asnumpy() / 0.75)
    _, mask2 = ops.Dropout(keep_prob=0.75)(Tensor(x))
    assert (mask.asnumpy() != mask2.asnumpy()).any()   # a fresh mask per call
    for prim, shape in ((ops.Dropout2D(0.5), (16, 8, 3, 5)), (ops.Dropout3D(0.5), (16, 8, 2, 3, 5))):
        out, mask = prim(Tensor(np.ones(shape, np.float32)))
        m = mask.asnumpy()
        assert mask.dtype == ms.bool_ and m.shape == shape
        per_channel = m.reshape(shape[0], shape[1], -1)
        assert (per_channel == per_channel[..., :1]).all()   # whole channels kept or dropped
        assert 0 < per_channel[..., 0].mean() < 1
        np.testing.assert_allclose(out.asnumpy(), m * 2.0)


def test_conv2d_transpose_gradients_match_torch() -> None:
    rng = np.random.default_rng(5)
    dy, w = rng.standard_normal((2, 4, 5, 4)).astype(np.float32), rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    cot = rng.standard_normal((2, 3, 9, 8)).astype(np.float32)
    prim = ops.Conv2DTranspose(4, 3, stride=2, pad_mode="pad", pad=1)
    gdy, gw = ms.grad(lambda a, b: (prim(a, b, (2, 3, 9, 8)) * Tensor(cot)).sum(), grad_position=(0, 1))(
        Tensor(dy), Tensor(w))
    tdy, tw = torch.tensor(dy, requires_grad=True), torch.tensor(w, requires_grad=True)
    out = torch.nn.functional.conv_transpose2d(tdy, tw, stride=2, padding=1, output_padding=(0, 1))
    assert out.shape == (2, 3, 9, 8)
    (out * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(gdy.asnumpy(), tdy.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gw.asnumpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_deformable_conv2d_offset_and_weight_gradients_by_finite_differences() -> None:
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2, 5, 5))
    w = rng.standard_normal((3, 2, 2, 2))
    off = np.concatenate([rng.uniform(-1.5, 1.5, (1, 8, 4, 4)), rng.uniform(0.2, 1, (1, 4, 4, 4))], 1)
    cot = rng.standard_normal((1, 3, 4, 4))

    def f(w_, o_):
        y = ops.deformable_conv2d(Tensor(x), w_, o_, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0))
        return (y * Tensor(cot)).sum()

    gw, go = ms.grad(f, grad_position=(0, 1))(Tensor(w), Tensor(off))
    eps = 1e-6
    for arr, got in ((w, gw.asnumpy()), (off, go.asnumpy())):
        for idx in [tuple(rng.integers(0, s) for s in arr.shape) for _ in range(6)]:
            hi, lo = arr.copy(), arr.copy()
            hi[idx] += eps
            lo[idx] -= eps
            args = (hi, off) if arr is w else (w, hi)
            args_lo = (lo, off) if arr is w else (w, lo)
            num = (float(f(*map(Tensor, args)).asnumpy()) - float(f(*map(Tensor, args_lo)).asnumpy())) / (2 * eps)
            assert abs(num - got[idx]) < 1e-5 * max(1.0, abs(num)), (idx, num, got[idx])


@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_fractional_max_pool_tf_random_windows_by_property(pseudo_random: bool, overlapping: bool) -> None:
    x = np.random.default_rng(8).standard_normal((2, 11, 10, 3)).astype(np.float32)
    y, rows, cols = ops.FractionalMaxPool([1.0, 1.6, 1.4, 1.0], pseudo_random, overlapping)(Tensor(x))
    r, c = rows.asnumpy(), cols.asnumpy()
    assert (r[0], r[-1], len(r) - 1) == (0, 11, int(11 / 1.6)) and (c[0], c[-1], len(c) - 1) == (0, 10, int(10 / 1.4))
    for seq, n in ((r, 11), (c, 10)):
        assert set(np.diff(seq).tolist()) <= {n // (len(seq) - 1), n // (len(seq) - 1) + 1}
    want = np.empty(y.shape, np.float32)
    for i in range(len(r) - 1):
        for j in range(len(c) - 1):
            r1, c1 = min(r[i + 1] + overlapping, 11), min(c[j + 1] + overlapping, 10)
            want[:, i, j] = x[:, r[i]:r1, c[j]:c1].max(axis=(1, 2))
    np.testing.assert_array_equal(y.asnumpy(), want)
    d = ops.FractionalMaxPool([1.0, 1.6, 1.4, 1.0], pseudo_random, overlapping, deterministic=True, seed=4)
    np.testing.assert_array_equal(d(Tensor(x))[1].asnumpy(), d(Tensor(x))[1].asnumpy())  # fixed windows
