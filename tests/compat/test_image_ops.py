"""MindSpore's image operators (AdjustHue, AdjustSaturation, RGBToHSV, HSVToRGB, CropAndResize / crop_and_resize,
AffineGrid, ResizeNearestNeighborV2, ResizeBicubic, ResizeArea, ResizeLinear1D, UpsampleNearest3D,
UpsampleTrilinear3D, upsample) and their gradients against real MindSpore 2.10 (tests/fixtures/optim_image.npz,
recorded by scripts/record_optim_image.py from tests/compat/image_cases.py), in both modes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops

from ..helpers import FnCell
from .image_cases import CASES, GRAD_CASES, RGB, outputs

pytestmark = pytest.mark.slow  # about a hundred kernels built in both modes

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "optim_image.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())
# MindSpore refuses these (ResizeLinear1D's 'asymmetric' mode; interpolate's option rules): so does opbuild.
REFUSED_BY_BOTH = {"ResizeLinear1D_asym", "interpolate_nearest_4d_scale", "interpolate_nearest_align",
                   "interpolate_linear_scale", "interpolate_bilinear_scale", "interpolate_area_3d",
                   "interpolate_nearest_exact_scale", "interpolate_area_align"}
# MindSpore defines no gradient of AdjustHue/AdjustSaturation; opbuild's (through the composition) is checked
# against central differences below.
NO_MINDSPORE_GRADIENT = {"grad_AdjustHue", "grad_AdjustSaturation"}
COMPARED = sorted(set(CASES) - REFUSED_BY_BOTH - NO_MINDSPORE_GRADIENT)


def test_fixture_records_every_case() -> None:
    assert META["mindspore"] == "2.10.0"
    assert {n for n in META["errors"] if n in CASES} == REFUSED_BY_BOTH | NO_MINDSPORE_GRADIENT
    for name in COMPARED:
        assert f"{name}:out0" in FIXTURE, name


# ms.grad traces its own graph, so the gradient cases run once (PyNative), the others in both modes.
RUNS = [(n, m) for n in COMPARED for m in (("pynative",) if n in GRAD_CASES else ("pynative", "graph"))]


@pytest.mark.parametrize("name, mode", RUNS)
def test_matches_mindspore(name: str, mode: str) -> None:
    fn, inputs = CASES[name]
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        tensors = [Tensor(a) for a in inputs]
        result = FnCell(lambda *ts: fn(ms, ops, *ts))(*tensors) if mode == "graph" else fn(ms, ops, *tensors)
    finally:
        ms.set_context(mode=old)
    got, want = outputs(result)[0], FIXTURE[f"{name}:out0"]
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    tol = (1e-3, 1e-3) if got.dtype == np.float16 else (2e-5, 2e-6)
    np.testing.assert_allclose(got, want, rtol=tol[0], atol=tol[1])


@pytest.mark.parametrize("name", sorted(REFUSED_BY_BOTH))
def test_refuses_what_mindspore_refuses(name: str) -> None:
    fn, inputs = CASES[name]
    with pytest.raises(ValueError):
        fn(ms, ops, *[Tensor(a) for a in inputs])


@pytest.mark.parametrize("prim", [lambda: ops.AdjustHue(), lambda: ops.AdjustSaturation()])
def test_colour_adjustment_gradient_matches_central_differences(prim) -> None:
    x = RGB[:1, :2].astype(np.float64)
    w = np.random.default_rng(3).uniform(-1, 1, x.shape)
    k = Tensor(np.array(0.3, np.float32))
    got = ms.grad(lambda t: (prim()(t, k) * Tensor(w)).sum())(Tensor(x)).asnumpy()
    eps, want = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        want[i] = ((prim()(Tensor(hi), k).asnumpy() - prim()(Tensor(lo), k).asnumpy()) * w).sum() / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_bad_inputs_are_refused_clearly() -> None:
    img = Tensor(np.zeros((1, 2, 2, 3), np.float32))
    with pytest.raises(TypeError, match="delta must be a 0-D float32 Tensor"):
        ops.AdjustHue()(img, Tensor(np.array([0.1], np.float32)))
    with pytest.raises(ValueError, match="3 channels last"):
        ops.AdjustSaturation()(Tensor(np.zeros((1, 2, 2, 4), np.float32)), Tensor(np.array(1.0, np.float32)))
    with pytest.raises(ValueError, match="box_indices must be int32"):
        ops.crop_and_resize(img, Tensor(np.zeros((2, 4), np.float32)), Tensor(np.zeros((3,), np.int32)), (2, 2))
    with pytest.raises(ValueError, match="method must be one of"):
        ops.CropAndResize(method="cubic")
    with pytest.raises(ValueError, match="cannot both be True"):
        ops.ResizeBicubic(align_corners=True, half_pixel_centers=True)
    with pytest.raises(ValueError, match="exactly one of output_size and scales"):
        ops.UpsampleNearest3D()(Tensor(np.zeros((1, 1, 2, 2, 2), np.float32)))
