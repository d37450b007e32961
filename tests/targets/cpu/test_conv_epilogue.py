"""FusedConv2D's per-channel epilogue applied at the convolution kernel's stores (targets/cpu/kernels/
conv_epilogue.py): on every path of the ``tiled`` (in-place whole vectors, a ``dot`` tail, the padded-domain
scatter, groups, the per-thread depthwise-like path), ``dot`` and ``dwvec`` (full and partial channel blocks)
kernels its results equal, bit for bit, the unfused convolution's output followed by the same epilogue in
NumPy (float32 and float64 arithmetic round the same way); the AVX2 branches of those kernels (compiled here
with AVX-512 turned off) give the same; epilogues that are not per-channel, half types and the other
algorithms keep the pass over the output."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from opbuild.core.ir import TensorType
from opbuild.core.tensor import Tensor
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get
from opbuild.targets.cpu.compilers.gcc import BASE_FLAGS
from opbuild.targets.cpu.generation import emit, translation_unit


def _m(op, *args):
    return {"op": op, "attrs": {}, "args": list(args)}


# bias, a folded BatchNorm's scale, a NaN-propagating clip (ReLU6 as ONNX exports it: Clip(0, 6))
MEMBERS = [_m("Add", "i0", "i1"), _m("Mul", "t0", "i2"), _m("ClipByValue", "t1", "i3", "i4")]

# (x, w, conv attrs, expected algo): each path of the three kernels that apply the epilogue at their stores
CASES = [
    ((1, 32, 8, 8), (48, 32, 1, 1), {}, "tiled"),  # in place, whole vectors straight into the output
    ((2, 32, 6, 6), (40, 32, 1, 1), {}, "tiled"),  # whole vectors + a dot tail (36 = 2 x 16 + 4), 2 images
    ((1, 8, 9, 9), (12, 8, 3, 3), {"pad_mode": "pad", "pad": 1}, "tiled"),  # padded domain: tmp, scatter
    ((1, 8, 7, 7), (12, 4, 3, 3), {"pad_mode": "pad", "pad": 1, "group": 2}, "tiled"),  # two groups
    ((1, 6, 12, 12), (12, 1, 3, 3), {"pad_mode": "pad", "pad": 1, "group": 6}, "tiled"),  # per-thread planes
    ((2, 64, 3, 3), (36, 64, 1, 1), {}, "dot"),  # 1x1 on 3x3: (4x4, 4x1, ...) tiles, partial channel block
    ((1, 32, 6, 6), (20, 32, 3, 3), {"pad_mode": "pad", "pad": 1, "stride": 2}, "dot"),  # patches
    ((2, 48, 6, 6), (48, 1, 3, 3), {"pad_mode": "pad", "pad": 1, "group": 48}, "dwvec"),  # full blocks
    ((1, 20, 7, 7), (20, 1, 5, 5), {"pad_mode": "pad", "pad": 2, "group": 20}, "dwvec"),  # a partial block
]


def _attrs(w_shape, conv, algo):
    return {"out_channel": w_shape[0], "kernel_size": list(w_shape[2:]), "algo": algo, **conv}


def _fused(x_shape, w_shape, conv, algo, dtype, views=None):
    o = w_shape[0]
    views = views or [[o, 1, 1], [o, 1, 1], [], []]
    types = [TensorType(x_shape, dtype), TensorType(w_shape, dtype),
             *(TensorType(tuple(v), dtype) for v in views)]
    return get("FusedConv2D").spec({"producer": _attrs(w_shape, conv, algo), "views": views,
                                    "members": MEMBERS}, types)


def _operands(x_shape, w_shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    x.flat[5] = np.nan  # propagated through the sums and the clip
    o = w_shape[0]
    bias, scale = rng.standard_normal((o, 1, 1)).astype(dtype), rng.uniform(0.5, 2, (o, 1, 1)).astype(dtype)
    return x, w, bias, scale, np.array(-1.5, dtype), np.array(2.0, dtype)


def _reference(spec, x, w, bias, scale, lo, hi):
    """The unfused kernel's output (the same algorithm: the same sums), then the epilogue in NumPy."""
    y = apply("Conv2D", spec.attrs["producer"], [Tensor(x), Tensor(w)]).asnumpy()
    t = (y + bias) * scale
    return np.where(np.isnan(t), t, np.minimum(np.maximum(t, lo), hi))


@pytest.mark.parametrize("x_shape,w_shape,conv,algo", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_epilogue_at_the_stores_equals_the_unfused_result(x_shape, w_shape, conv, algo, dtype):
    spec = _fused(x_shape, w_shape, conv, algo, dtype)
    assert spec.attrs["producer"]["algo"] == algo
    assert "OB_EPI" in emit(spec)  # this path, not the pass
    args = _operands(x_shape, w_shape, dtype, seed=len(x_shape) + w_shape[0])
    got = apply("FusedConv2D", spec.attrs, [Tensor(a) for a in args]).asnumpy()
    want = _reference(spec, *args)
    assert np.isnan(want).any() and (want == 2.0).any() and (want == -1.5).any()
    np.testing.assert_array_equal(got, want)


def _compile_without_avx512(spec, tmp_path):
    """The kernel built with AVX-512 off (its ``#else`` branches), loaded with ctypes."""
    cc = shutil.which("gcc")
    if cc is None:
        pytest.skip("no gcc on PATH to build the AVX2 variant with")
    src = tmp_path / "k.c"
    src.write_text(translation_unit([("ob_kernel", spec, emit(spec))], False))
    lib = tmp_path / "k.so"
    flags = [f for f in BASE_FLAGS if f != "-mprefer-vector-width=512"]
    subprocess.run([cc, *flags, "-mno-avx512f", "-fopenmp", "-o", str(lib), str(src), "-lm"], check=True)
    return ctypes.CDLL(str(lib)).ob_kernel


@pytest.mark.parametrize("x_shape,w_shape,conv,algo", CASES)
def test_avx2_branches_equal_the_unfused_result(x_shape, w_shape, conv, algo, tmp_path):
    spec = _fused(x_shape, w_shape, conv, algo, "float32")
    fn = _compile_without_avx512(spec, tmp_path)
    args = _operands(x_shape, w_shape, "float32", seed=7)
    out = np.empty(spec.outputs[0].shape, np.float32)
    op = get("FusedConv2D")
    ws = np.zeros(max(op.workspace_bytes(spec.attrs, spec.inputs, spec.outputs), 1) + 64, np.uint8)
    ws_addr = ws.ctypes.data + (-ws.ctypes.data % 64)
    ptrs = (ctypes.c_void_p * (len(args) + 2))(*(a.ctypes.data for a in args), out.ctypes.data, ws_addr)
    fn(ptrs)
    np.testing.assert_array_equal(out, _reference(spec, *args))


def test_other_epilogues_keep_the_pass():
    """A residual (a full-size view), a row-broadcast view, a half type and the ``direct`` algorithm keep the
    pass over the output after the kernel."""
    x, w = (1, 32, 6, 6), (32, 32, 1, 1)
    assert "OB_EPI" not in emit(_fused(x, w, {}, "tiled", "float32", [[32, 1, 1], [1, 32, 6, 6], [], []]))
    assert "OB_EPI" not in emit(_fused(x, w, {}, "tiled", "float32", [[32, 1, 1], [6], [], []]))
    assert "OB_EPI" not in emit(_fused(x, w, {}, "tiled", "float16"))
    assert "OB_EPI" not in emit(_fused(x, w, {}, "direct", "float32"))
    assert "OB_EPI" in emit(_fused(x, w, {}, "tiled", "float32"))
