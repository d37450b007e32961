"""Conv2D's ``dot`` kernel (targets/cpu/kernels/conv_dot.py: 1x1 convolutions on the smallest maps as dot
products over the input channels): its reduction tree, its results on shapes that take every tile (full and
partial channel and pixel blocks, several images, float64's 8-lane vectors, half types through the float32
kernel), NaN and infinity propagation, where the algorithm choice sends it, and that its module is part of the
kernel's key."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild.core.ir import TensorType
from opbuild.core.tensor import Tensor
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get
from opbuild.targets.cpu.kernels.conv_dot import _tree
from tests.helpers import TORCH_MISSING

CASES = [
    ((1, 32, 3, 3), (8, 32, 1, 1)),  # 2 channel blocks x 3 pixel blocks (4, 4, 1)
    ((2, 48, 3, 3), (7, 48, 1, 1)),  # a partial channel block (3 of 4), 2 images
    ((1, 16, 1, 1), (13, 16, 1, 1)),  # one pixel
    ((3, 64, 2, 2), (5, 64, 1, 1)),  # one whole pixel block, a partial channel block
    ((1, 160, 3, 1), (33, 160, 1, 1)),
]


def _spec(x_shape, w_shape, dtype="float32", **attrs):
    return get("Conv2D").spec({"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), "algo": "dot", **attrs},
                              [TensorType(x_shape, dtype), TensorType(w_shape, dtype)])


@pytest.mark.parametrize("lanes", [8, 16])
def test_the_reduction_tree_sums_each_source_into_its_lane(lanes):
    rng = np.random.default_rng(0)
    sources = [rng.integers(-50, 50, lanes).astype(np.float64) for _ in range(lanes)]
    vecs = list(sources)
    for lo, hi in _tree(lanes):
        vecs = [np.concatenate([a, b])[lo] + np.concatenate([a, b])[hi] for a, b in zip(vecs[::2], vecs[1::2])]
    assert len(vecs) == 1
    np.testing.assert_array_equal(vecs[0], [s.sum() for s in sources])


@pytest.mark.parametrize("x_shape,w_shape", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_dot_matches_the_float64_product(x_shape, w_shape, dtype):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    spec = _spec(x_shape, w_shape, dtype)
    assert spec.attrs["algo"] == "dot"
    out = apply("Conv2D", spec.attrs, [Tensor(x), Tensor(w)]).asnumpy()
    assert out.dtype == np.dtype(dtype) and out.shape == (x_shape[0], w_shape[0], *x_shape[2:])
    ref = np.einsum("oc,bchw->bohw", w[:, :, 0, 0].astype(np.float64), x.astype(np.float64))
    tol = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3}[dtype]
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=tol, atol=tol * np.sqrt(x_shape[1]))


PATCH_CASES = [
    ((1, 32, 6, 6), (24, 32, 3, 3), dict(pad_mode="pad", pad=1, stride=2)),  # a downsampling 3x3: 3x3 out
    ((2, 16, 3, 3), (9, 16, 3, 3), dict(pad_mode="pad", pad=1)),
    ((1, 16, 7, 6), (5, 16, 3, 2), dict(pad_mode="pad", pad=(0, 1, 1, 0), stride=(3, 2), dilation=(1, 2))),
]


@pytest.mark.parametrize("x_shape,w_shape,attrs", PATCH_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_dot_on_patches_matches_torch(x_shape, w_shape, attrs, dtype):
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    spec = _spec(x_shape, w_shape, dtype, **attrs)
    assert spec.attrs["algo"] == "dot"
    k = spec.attrs
    assert get("Conv2D").workspace_bytes(k, spec.inputs, spec.outputs) >= \
        w_shape[1] * w_shape[2] * w_shape[3] * spec.outputs[0].shape[2] * spec.outputs[0].shape[3] * 4
    out = apply("Conv2D", k, [Tensor(x), Tensor(w)]).asnumpy()
    t, b, left, r = k["pad"]
    xp = torch.nn.functional.pad(torch.from_numpy(x.astype(np.float64)), (left, r, t, b))
    ref = torch.nn.functional.conv2d(xp, torch.from_numpy(w.astype(np.float64)), stride=k["stride"],
                                     dilation=k["dilation"]).numpy()
    tol = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3}[dtype]
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=tol, atol=tol * np.sqrt(w_shape[1] * 9))


def test_dot_propagates_nan_and_infinity_to_their_outputs_only():
    x = np.ones((1, 32, 3, 3), np.float32)
    w = np.ones((6, 32, 1, 1), np.float32)
    x[0, 5, 1, 2] = np.nan
    w[4, 31, 0, 0] = np.inf
    out = apply("Conv2D", _spec(x.shape, w.shape).attrs, [Tensor(x), Tensor(w)]).asnumpy()
    assert np.isnan(out[:, :, 1, 2]).all()
    rest = np.ones((3, 3), bool)
    rest[1, 2] = False
    assert np.isposinf(out[0, 4][rest]).all()
    assert (out[0, [0, 1, 2, 3, 5]][:, rest] == 32).all()


def _chosen(x_shape, w_shape, **attrs):
    return get("Conv2D").spec({"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), **attrs},
                              [TensorType(x_shape, "float32"), TensorType(w_shape, "float32")]).attrs["algo"]


def test_dot_is_chosen_for_1x1_convolutions_on_the_smallest_maps():
    assert _chosen((1, 512, 3, 3), (512, 512, 1, 1)) == "dot"
    assert _chosen((1, 1280, 1, 1), (1000, 1280, 1, 1)) == "dot"
    assert _chosen((1, 256, 6, 6), (256, 256, 1, 1)) == "tiled"  # 6x6: the pixel vectors measured faster
    assert _chosen((1, 40, 3, 3), (64, 40, 1, 1)) == "tiled"  # channels not a multiple of 16
    assert _chosen((1, 64, 3, 3), (64, 32, 1, 1), group=2) == "tiled"
    assert _chosen((1, 64, 3, 3), (64, 64, 1, 1), pad_mode="pad", pad=1) == "tiled"
    assert _chosen((1, 128, 6, 6), (256, 128, 3, 3), pad_mode="pad", pad=1, stride=2) == "dot"  # 3x3 output
    assert _chosen((1, 128, 6, 6), (256, 128, 3, 3), pad_mode="pad", pad=1) == "tiled"  # 6x6 output
    # forcing it where it cannot run is refused
    assert _spec((1, 40, 3, 3), (8, 40, 1, 1)).attrs["algo"] == "tiled"
    assert _spec((1, 40, 5, 5), (8, 40, 3, 3)).attrs["algo"] == "tiled"
    assert _spec((1, 32, 5, 5), (8, 16, 3, 3), group=2).attrs["algo"] == "tiled"


def test_dot_workspace_holds_the_transposed_image():
    spec = _spec((2, 64, 3, 3), (8, 64, 1, 1))
    assert get("Conv2D").workspace_bytes(spec.attrs, spec.inputs, spec.outputs) == 64 * 9 * 4
    half = _spec((2, 64, 3, 3), (8, 64, 1, 1), "float16")
    # float32 copies of the inputs and the result follow the transposed image (float32 too)
    assert get("Conv2D").workspace_bytes(half.attrs, half.inputs, half.outputs) == \
        64 * 9 * 4 + 2 * 64 * 9 * 4 + 8 * 64 * 4 + 2 * 8 * 9 * 4


def test_dot_module_is_in_the_conv_kernels_key():
    from opbuild.targets.cpu import kernels

    for op in ("Conv2D", "FusedConv2D"):
        assert any(f.endswith("kernels/conv_dot.py") for f in kernels.emitter(op).files()), op


TAIL_CASES = [
    ((2, 32, 6, 6), (40, 32, 1, 1)),  # 36 pixels: 2 whole vectors read in place, 4 the dot way
    ((1, 48, 5, 5), (7, 48, 1, 1)),  # 25 pixels: 1 + 9
    ((1, 16, 7, 7), (16, 16, 1, 1)),  # 49 pixels: 3 + 1
]


@pytest.mark.parametrize("x_shape,w_shape", TAIL_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_tiled_1x1_with_a_dot_tail_matches_the_float64_product(x_shape, w_shape, dtype):
    from opbuild.ops.conv_plan import ConvShape, tiled_dot_tail, tiled_in_place

    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    spec = _spec(x_shape, w_shape, dtype, algo="tiled")
    assert spec.attrs["algo"] == "tiled"
    lanes = 8 if dtype == "float64" else 16
    g = ConvShape(spec.attrs, x_shape, w_shape, spec.outputs[0].shape, "float64" if dtype == "float64" else "float32")
    tail = x_shape[2] * x_shape[3] % lanes
    assert tiled_in_place(g) and tiled_dot_tail(g) == tail > 0
    assert get("Conv2D").workspace_bytes(spec.attrs, spec.inputs, spec.outputs) >= x_shape[1] * tail * g.itemsize()
    out = apply("Conv2D", spec.attrs, [Tensor(x), Tensor(w)]).asnumpy()
    ref = np.einsum("oc,bchw->bohw", w[:, :, 0, 0].astype(np.float64), x.astype(np.float64))
    tol = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3}[dtype]
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=tol, atol=tol * np.sqrt(x_shape[1]))


def test_no_dot_tail_where_it_cannot_run():
    from opbuild.ops.conv_plan import ConvShape, tiled_dot_tail, tiled_in_place

    def shape(x_shape, w_shape, **attrs):
        spec = _spec(x_shape, w_shape, algo="tiled", **attrs)
        return ConvShape(spec.attrs, x_shape, w_shape, spec.outputs[0].shape, "float32")

    assert tiled_dot_tail(shape((1, 32, 8, 8), (8, 32, 1, 1))) == 0  # whole vectors: in place, no tail
    assert tiled_in_place(shape((1, 32, 8, 8), (8, 32, 1, 1)))
    for g in (shape((1, 40, 6, 6), (8, 40, 1, 1)),  # channels not a multiple of 16
              shape((1, 32, 6, 6), (8, 16, 1, 1), group=2),
              shape((1, 32, 3, 3), (8, 32, 1, 1))):  # no whole vector at all
        assert tiled_dot_tail(g) == 0 and not tiled_in_place(g)


def test_large_dot_kernels_split_over_threads_and_match():
    """From the BLAS threshold the tiles (and a tail's tiles) are split over OpenMP's threads, reading the
    shared transposed block; small ones stay on the calling thread."""
    from opbuild.targets.cpu.kernels import emit

    big, tail = _spec((2, 1024, 3, 3), (1280, 1024, 1, 1)), _spec((1, 1024, 6, 6), (1024, 1024, 1, 1), algo=None)
    assert big.attrs["algo"] == "dot" and tail.attrs["algo"] == "tiled"
    # the whole vectors' tiles and the tail's, in both the AVX-512 and the AVX2 branch
    assert "#pragma omp parallel for" in emit(big) and emit(tail).count("#pragma omp parallel for") == 4
    assert "omp parallel" not in emit(_spec((1, 64, 3, 3), (64, 64, 1, 1)))
    rng = np.random.default_rng(7)
    for spec in (big, tail):
        x, w = (rng.standard_normal(t.shape).astype(np.float32) for t in spec.inputs)
        out = apply("Conv2D", spec.attrs, [Tensor(x), Tensor(w)]).asnumpy()
        ref = np.einsum("oc,bchw->bohw", w[:, :, 0, 0].astype(np.float64), x.astype(np.float64))
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * 32)


def test_dot_prefetches_weight_rows_ahead_within_the_weight_but_not_in_a_tiled_tail():
    """Blocks of up to PREFETCH_MAX_BYTES are prefetched PREFETCH_AHEAD_BYTES ahead (the first item starts the
    first blocks), never past the weight's end; a ``tiled`` kernel's tail (weights already in cache from the
    kernel's own pass) prefetches nothing; long blocks are left to the hardware."""
    from opbuild.targets.cpu.kernels import emit
    from opbuild.targets.cpu.kernels.conv_dot import PREFETCH_AHEAD_BYTES, PREFETCH_MAX_BYTES

    c = emit(_spec((1, 512, 3, 3), (512, 512, 1, 1)))  # blocks of 4 rows x 2 KB: 2 blocks ahead
    assert PREFETCH_AHEAD_BYTES // (4 * 512 * 4) == 2
    assert "if (item == 0)" in c and "o0 + 8 < 512" in c and "__builtin_prefetch" in c
    # AVX-512's tiles of 4 rows: one partial block of 3 rows, nothing after it to start early; AVX2's of 2
    # rows: the lead is the one row after the first block, 64 bytes
    avx512, avx2 = emit(_spec((1, 16, 3, 3), (3, 16, 1, 1))).split("#else")
    assert "if (item == 0)" not in avx512 and "ob_pf < 64;" in avx2
    # AVX-512's blocks of 4 rows x 16 KB: past PREFETCH_MAX_BYTES (AVX2's of 2 rows are not)
    long_rows = emit(_spec((1, 4096, 3, 3), (8, 4096, 1, 1))).split("#else")[0]
    assert PREFETCH_MAX_BYTES < 4 * 4096 * 4 and "__builtin_prefetch" not in long_rows
    tail = _spec((1, 256, 6, 6), (256, 256, 1, 1), algo=None)
    assert tail.attrs["algo"] == "tiled"
    body = emit(tail)
    # the tiled pass prefetches its own blocks (``rest % tc``); the dot tail's items (``item / 1``) do not
    assert "rest % tc == 0" in body and "p0 == 0 &&" not in body
