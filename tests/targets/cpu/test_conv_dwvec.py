"""Conv2D's ``dwvec`` kernel (targets/cpu/kernels/conv_dwvec.py: depthwise convolutions vectorised over
channels): its results against torch on shapes that take each of its paths (full and partial channel blocks,
whole and partial pixel tiles of a row, strides, dilations, uneven padding, several images, 3x3 to 7x7 taps,
float64's 8-lane vectors, half types through the float32 kernel), its results inside a graph with a fused
epilogue, where the algorithm choice sends it, and that its module is part of the kernel's key."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild.core.ir import TensorType
from opbuild.core.tensor import Tensor
from opbuild.ops.conv_plan import DWVEC_MAX_BYTES, choose
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get
from tests.helpers import TORCH_MISSING

CASES = [
    ((1, 48, 3, 3), (48, 1, 3, 3), dict(pad_mode="pad", pad=1)),  # 3 full blocks, one 3-pixel tile per row
    ((2, 40, 6, 6), (40, 1, 5, 5), dict(pad_mode="pad", pad=2)),  # a partial block (8 of 16 lanes), 2 images
    ((1, 20, 13, 11), (20, 1, 3, 3), dict(pad_mode="pad", pad=(0, 1, 2, 0), stride=2)),  # uneven padding
    ((1, 17, 12, 21), (17, 1, 7, 7), dict(pad_mode="pad", pad=3)),  # 21 columns: 2 full tiles and a tail
    ((1, 16, 14, 14), (16, 1, 3, 3), dict(pad_mode="pad", pad=2, dilation=2)),
    ((3, 9, 10, 9), (9, 1, 3, 2), dict(pad_mode="pad", pad=(1, 1, 0, 1), stride=(1, 2), dilation=(2, 1))),
]


def _spec(x_shape, w_shape, dtype="float32", **attrs):
    return get("Conv2D").spec({"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), "group": x_shape[1],
                               "algo": "dwvec", **attrs}, [TensorType(x_shape, dtype), TensorType(w_shape, dtype)])


def _torch_ref(torch, x, w, k):
    t, b, left, r = k["pad"]
    xp = torch.nn.functional.pad(torch.from_numpy(x.astype(np.float64)), (left, r, t, b))
    return torch.nn.functional.conv2d(xp, torch.from_numpy(w.astype(np.float64)), stride=k["stride"],
                                      dilation=k["dilation"], groups=k["group"]).numpy()


@pytest.mark.parametrize("x_shape,w_shape,attrs", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_dwvec_matches_torch(x_shape, w_shape, attrs, dtype):
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    spec = _spec(x_shape, w_shape, dtype, **attrs)
    assert spec.attrs["algo"] == "dwvec"
    out = apply("Conv2D", spec.attrs, [Tensor(x), Tensor(w)]).asnumpy()
    assert out.dtype == np.dtype(dtype)
    ref = _torch_ref(torch, x, w, spec.attrs)
    assert out.shape == ref.shape
    tol = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3}[dtype]
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=tol, atol=tol * 8)


def test_dwvec_equals_the_tiled_kernel_bit_for_bit_without_contraction_differences():
    """Both sum the taps in (row, column) order from zero: on integer-valued data (every product and partial
    sum exact in float32) the two kernels agree exactly, with NaN and infinity propagated the same way."""
    rng = np.random.default_rng(4)
    x = rng.integers(-8, 8, (2, 24, 7, 7)).astype(np.float32)
    w = rng.integers(-4, 4, (24, 1, 5, 5)).astype(np.float32)
    x[0, 3, 2, 2], x[1, 20, 0, 6] = np.nan, np.inf
    outs = [apply("Conv2D", _spec(x.shape, w.shape, algo=algo, pad_mode="pad", pad=2).attrs,
                  [Tensor(x), Tensor(w)]).asnumpy() for algo in ("dwvec", "tiled")]
    np.testing.assert_array_equal(outs[0], outs[1])
    assert np.isnan(outs[0][0, 3]).any() and np.isnan(outs[0][1, 20]).any()


@pytest.mark.usefixtures("graph_mode")
def test_dwvec_with_a_fused_epilogue_in_a_graph():
    """A depthwise Conv2D + BiasAdd + ReLU6 compiled as a graph fuse into one FusedConv2D whose producer runs
    ``dwvec``; its result is the reference's."""
    import opbuild.ops as ops
    from opbuild.core import trace
    from opbuild.passes import EpilogueFusion, Fusion

    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 32, 6, 6)).astype(np.float32)
    w = rng.standard_normal((32, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)

    def fn(x, w, b):
        return ops.ReLU6()(ops.BiasAdd()(ops.Conv2D(32, 3, pad_mode="same", group=32)(x, w), b))

    graph, _ = trace.trace(fn, [Tensor(x), Tensor(w), Tensor(b)])
    graph = EpilogueFusion().run(Fusion().run(graph))
    assert [n.op for n in graph.nodes] == ["FusedConv2D"]
    assert graph.nodes[0].attrs["producer"]["algo"] == "dwvec"
    out = ops.ReLU6()(ops.BiasAdd()(ops.Conv2D(32, 3, pad_mode="same", group=32)(Tensor(x), Tensor(w)),
                                    Tensor(b))).asnumpy()
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((1, 32, 6, 6))
    for i in range(3):
        for j in range(3):
            ref += xp[:, :, i:i + 6, j:j + 6] * w[None, :, 0, i, j, None, None]
    ref = np.clip(ref + b[None, :, None, None], 0, 6)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def _chosen(x_shape, w_shape, **attrs):
    return get("Conv2D").spec({"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), **attrs},
                              [TensorType(x_shape, "float32"), TensorType(w_shape, "float32")]).attrs["algo"]


def test_dwvec_is_chosen_for_depthwise_convolutions_whose_block_buffers_fit():
    assert _chosen((1, 576, 3, 3), (576, 1, 5, 5), group=576, pad_mode="same") == "dwvec"
    assert _chosen((1, 144, 56, 56), (144, 1, 3, 3), group=144, pad_mode="same", stride=2) == "dwvec"
    assert _chosen((1, 32, 112, 112), (32, 1, 3, 3), group=32, pad_mode="same") == "depthwise"  # large, stride 1
    # the padded input (114 x 114) and output (56 x 56) of one block: 1.0 MB of vectors, past DWVEC_MAX_BYTES
    assert DWVEC_MAX_BYTES < (114 * 114 + 56 * 56 + 9) * 64
    assert _chosen((1, 32, 112, 112), (32, 1, 3, 3), group=32, pad_mode="same", stride=2) == "tiled"
    assert _chosen((1, 16, 6, 6), (32, 1, 3, 3), group=16, pad_mode="same") == "tiled"  # multiplier 2
    assert _chosen((1, 1, 6, 6), (1, 1, 3, 3), pad_mode="same") == "tiled"  # one channel, one group
    attrs = {"kernel_size": [3, 3], "stride": [1, 1], "dilation": [1, 1], "pad": [1, 1, 1, 1], "group": 64}
    # the backward ops have no dwvec kernel: forcing it there is refused
    assert choose((1, 64, 6, 6), (64, 1, 3, 3), (6, 6), {**attrs, "algo": "dwvec"}) == "depthwise"


def test_dwvec_module_is_in_the_conv_kernels_key():
    from opbuild.targets.cpu import kernels

    for op in ("Conv2D", "FusedConv2D"):
        assert any(f.endswith("kernels/conv_dwvec.py") for f in kernels.emitter(op).files()), op


def test_large_dwvec_kernels_split_blocks_over_threads_and_match():
    """From the BLAS threshold the (image, channel block) pairs are split over OpenMP's threads, each with its
    own buffers; small kernels stay on the calling thread."""
    torch = pytest.importorskip("torch", reason=TORCH_MISSING)
    from opbuild.targets.cpu.kernels import emit

    big = _spec((2, 256, 24, 24), (256, 1, 5, 5), pad_mode="pad", pad=2)  # 7.4M multiply-adds
    assert big.attrs["algo"] == "dwvec" and "#pragma omp parallel for" in emit(big)
    assert "omp parallel" not in emit(_spec((1, 32, 6, 6), (32, 1, 3, 3), pad_mode="pad", pad=1))
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 256, 24, 24)).astype(np.float32)
    w = rng.standard_normal((256, 1, 5, 5)).astype(np.float32)
    out = apply("Conv2D", big.attrs, [Tensor(x), Tensor(w)]).asnumpy()
    np.testing.assert_allclose(out, _torch_ref(torch, x, w, big.attrs), rtol=1e-5, atol=1e-5 * 5)
