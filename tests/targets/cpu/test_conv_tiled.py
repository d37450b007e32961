"""Conv2D's tiled kernel (targets/cpu/kernels/conv_tiled.py, planned by ops/conv_plan.py): its results on the
shapes that exercise each of its paths (padded phase planes at any stride and dilation, 1x1 read in place,
1x1 on planes short of whole vectors, depthwise-like groups with thread-local planes, several images and
groups), the workspace it plans, and when it splits work over threads."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild.core.ir import TensorType
from opbuild.core.tensor import Tensor
from opbuild.ops.conv_plan import ConvShape, tiled_in_place, tiled_per_thread, tiled_plane
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get
from opbuild.targets.cpu.kernels import emit
from opbuild.targets.cpu.kernels.conv_tiled import _BUDGET_AVX512, _tile
from tests.helpers import TORCH_MISSING

CASES = [
    ((1, 32, 24, 24), (32, 32, 3, 3), dict(pad_mode="pad", pad=1)),  # 39 pixel vectors, 8x3 tiles
    ((1, 3, 20, 22), (32, 3, 7, 7), dict(pad_mode="pad", pad=3, stride=2)),  # a stem: four phase planes
    ((2, 8, 30, 31), (16, 8, 3, 3), dict(pad_mode="pad", pad=(2, 0, 1, 3), stride=(1, 2), dilation=(2, 1))),
    ((1, 4, 11, 13), (8, 2, 3, 2), dict(group=2, pad_mode="pad", pad=(0, 2, 1, 1), stride=(2, 1), dilation=2)),
    ((1, 64, 8, 8), (96, 64, 1, 1), {}),  # 1x1 on 64 pixels: read in place, stored straight
    ((3, 5, 3, 3), (7, 5, 1, 1), {}),  # 1x1 on 9 pixels: copied into a zero-padded plane
    ((2, 6, 5, 5), (12, 2, 1, 1), dict(group=3, dilation=2)),
    ((2, 12, 9, 10), (24, 1, 3, 3), dict(group=12, pad_mode="pad", pad=1, stride=2)),  # depthwise, x2
    ((1, 40, 4, 4), (40, 1, 3, 3), dict(group=40, pad_mode="same")),
    ((1, 128, 3, 3), (200, 128, 3, 3), dict(pad_mode="pad", pad=1)),  # one vector: 24x1 tiles, channel tail
]


def _spec(x_shape, w_shape, dtype="float32", **attrs):
    return get("Conv2D").spec({"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), "algo": "tiled",
                               **attrs}, [TensorType(x_shape, dtype), TensorType(w_shape, dtype)])


@pytest.mark.parametrize("x_shape,w_shape,attrs", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tiled_matches_torch(x_shape, w_shape, attrs, dtype):
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    spec = _spec(x_shape, w_shape, dtype, **attrs)
    assert spec.attrs["algo"] == "tiled"
    out = apply("Conv2D", spec.attrs, [Tensor(x), Tensor(w)]).asnumpy()
    k = spec.attrs
    t, b, left, r = k["pad"]
    ref = torch.nn.functional.conv2d(torch.nn.functional.pad(torch.from_numpy(x), (left, r, t, b)),
                                     torch.from_numpy(w), stride=k["stride"], dilation=k["dilation"],
                                     groups=k["group"]).numpy()
    tol = 1e-4 if dtype == "float32" else 1e-11
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol * np.sqrt(w_shape[1] * w_shape[2] * w_shape[3]))


def test_workspace_follows_the_path():
    op = get("Conv2D")

    def planned(*shapes, **attrs):
        spec = _spec(*shapes, **attrs)
        g = ConvShape(spec.attrs, shapes[0], shapes[1], spec.outputs[0].shape, "float32")
        return g, op.workspace_bytes(spec.attrs, spec.inputs, spec.outputs), emit(spec)

    g, size, src = planned((1, 64, 8, 8), (96, 64, 1, 1))  # read in place: no workspace
    assert tiled_in_place(g) and size == 0 and "ob_ws" not in src
    g, size, src = planned((3, 5, 3, 3), (7, 5, 1, 1))  # 9 pixels: one zero-padded 16-pixel plane per channel
    assert not tiled_in_place(g) and size == 5 * 16 * 4 and "ob_ws" in src
    g, size, src = planned((1, 32, 24, 24), (32, 32, 3, 3), pad_mode="pad", pad=1)
    rows, cols, elements, nvec = tiled_plane(g)
    assert (rows, cols, nvec) == (26, 26, 39)  # 24 output rows of 26 domain columns: 624 pixels, 39 vectors
    assert elements % 16 == 0 and elements >= nvec * 16 + 2 * 26 + 2 and size == 32 * elements * 4
    g, size, src = planned((1, 40, 4, 4), (40, 1, 3, 3), group=40, pad_mode="same")
    assert tiled_per_thread(g) and size == 0 and "static __thread" in src  # thread-local planes


def test_threads_only_from_the_blas_threshold():
    small = emit(_spec((1, 32, 12, 12), (32, 32, 3, 3), pad_mode="pad", pad=1))  # 1.3M multiply-adds
    large = emit(_spec((1, 64, 56, 56), (64, 64, 3, 3), pad_mode="pad", pad=1))  # 116M
    assert "omp parallel" not in small and "#pragma omp parallel for" in large
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    w = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    spec = _spec(x.shape, w.shape, pad_mode="pad", pad=1)
    out = apply("Conv2D", spec.attrs, [Tensor(x), Tensor(w)]).asnumpy()  # on every OpenMP thread there is
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=1).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-3)


def test_tile_choice_covers_the_domain_with_few_partial_tiles():
    assert _tile(64, 10, _BUDGET_AVX512) == (11, 2)  # not 6x4, whose last pixel tile is half empty
    assert _tile(512, 1, _BUDGET_AVX512) == (24, 1)  # one vector: as many channels as registers allow
    for og, nvec in [(32, 39), (24, 196), (1, 196), (6, 16), (200, 1), (3, 2)]:
        ocb, pv = _tile(og, nvec, _BUDGET_AVX512)
        assert 1 <= ocb <= min(og, _BUDGET_AVX512[pv]) and 1 <= pv <= max(_BUDGET_AVX512)
