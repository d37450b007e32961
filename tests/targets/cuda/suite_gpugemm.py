"""The gpugemm part of the GPU op suite: MatMul, BatchMatMul, FusedMatMul and FusedBatchMatMul at sizes the
tiled GEMM takes (``targets/cuda/kernels/gemm_tiles.py``: 16 rows and columns or more), Conv2D and FusedConv2D
at sizes the implicit GEMM takes (``conv_tiles.py``), with tails in every dimension (rows, columns and the
reduction axis not multiples of the 64 x 64 x 16 tiles), every transpose, broadcast and 1-D batches, the
float types and an integer type; beside them the smallest tiled sizes and a reduction axis shorter than one
K step. scripts/gpu_check.py runs them on a GPU against the CPU target."""

from __future__ import annotations

from dataclasses import dataclass

from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops.registry import get as get_op

from .suite import Case

F32, F64, F16, BF16, I32 = "float32", "float64", "float16", "bfloat16", "int32"


@dataclass(frozen=True)
class GemmCase(Case):
    """A product case with the CPU tests' rule for sums of ``K`` products."""

    def tolerance(self, dtype: str, against_cpu: bool = False) -> tuple[float, float]:
        """(rtol, atol): float32 1e-4 and 1e-4 * sqrt(K), float64 1e-10 and 1e-10 * sqrt(K) (the order of the
        sum differs from NumPy's and the CPU's BLAS); the half types one rounding of their own (float16
        2**-9, bfloat16 2**-6, atol 1e-3 and 1e-2)."""
        spec = self.spec
        prod = spec.inputs[:2]
        ta = bool(spec.attrs.get("transpose_a", spec.attrs.get("producer", {}).get("transpose_a", False)))
        a = prod[0]
        k = (a.shape[-2] if ta and a.rank > 1 else a.shape[-1]) if a.rank else 1
        root = max(int(k), 1) ** 0.5
        return {"float32": (1e-4, 1e-4 * root), "float64": (1e-10, 1e-10 * root),
                "float16": (2.0 ** -9, 1e-3), "bfloat16": (2.0 ** -6, 1e-2)}.get(dtype, (1e-5, 1e-6))


def _spec(op: str, attrs: dict, *types: tuple[tuple[int, ...], str]) -> KernelSpec:
    return get_op(op).spec(attrs, [TensorType(s, d) for s, d in types])


def _t(ta: bool, tb: bool) -> dict:
    return {"transpose_a": ta, "transpose_b": tb}


def matmul_specs() -> list[KernelSpec]:
    """MatMul 70 x 33 by 33 x 81 under every transpose (a tail in each dimension: 70 = 64 + 6, 81 = 64 + 17,
    33 = 2 * 16 + 1), each float type and int32; the smallest tiled product (16 x 16, K 5); a tile-exact one;
    BatchMatMul with broadcast batches, transposes and a shared 2-D operand."""
    specs = []
    m, k, n = 70, 33, 81
    for ta in (False, True):
        for tb in (False, True):
            a = (k, m) if ta else (m, k)
            b = (n, k) if tb else (k, n)
            specs.append(_spec("MatMul", _t(ta, tb), (a, F32), (b, F32)))
    for dt in (F64, F16, BF16, I32):
        specs.append(_spec("MatMul", _t(False, dt != I32), ((m, k), dt), (((n, k) if dt != I32 else (k, n)), dt)))
    specs.append(_spec("MatMul", _t(False, False), ((16, 5), F32), ((5, 16), F32)))
    specs.append(_spec("MatMul", _t(True, False), ((32, 64), F32), ((32, 128), F32)))
    specs.append(_spec("BatchMatMul", _t(False, False), ((2, 1, 35, 20), F32), ((3, 20, 17), F32)))
    specs.append(_spec("BatchMatMul", _t(True, True), ((3, 19, 40), F64), ((3, 66, 19), F64)))
    specs.append(_spec("BatchMatMul", _t(False, True), ((4, 17, 24), F16), ((4, 18, 24), F16)))
    specs.append(_spec("BatchMatMul", _t(False, False), ((2, 3, 20, 9), F32), ((9, 33), F32)))
    return specs


def _m(op: str, *args: str) -> dict:
    return {"op": op, "attrs": {}, "args": list(args)}


def fused_specs() -> list[KernelSpec]:
    """The fused GEMMs at tiled sizes: a Dense layer's bias and GeLU (transposed weights), a residual ReLU6 with
    a transposed ``a``, a per-channel ``pre`` recipe, a broadcast-batch bias with Sigmoid; float32, float64
    and float16."""
    bias_gelu = {"producer": {"transpose_b": True}, "views": [[70]],
                 "members": [_m("Add", "i0", "i1"), _m("GeLU", "t0")]}
    res_relu6 = {"producer": {"transpose_a": True}, "views": [[37, 70]],
                 "members": [_m("Add", "i0", "i1"), _m("ReLU6", "t0")]}
    pre = {"producer": {}, "views": [[20], [20]],
           "pre": [{"inputs": [1], "members": [_m("Abs", "i0"), _m("Sqrt", "t0")]}],
           "members": [_m("Add", "i0", "i1"), _m("Mul", "t0", "i3"), _m("ReLU", "t1")]}
    bcast_bias = {"producer": {}, "views": [[18]], "members": [_m("Add", "i0", "i1"), _m("Sigmoid", "t0")]}
    return [_spec("FusedMatMul", bias_gelu, ((37, 21), F32), ((70, 21), F32), ((70,), F32)),
            _spec("FusedMatMul", bias_gelu, ((37, 21), F64), ((70, 21), F64), ((70,), F64)),
            _spec("FusedMatMul", bias_gelu, ((37, 21), F16), ((70, 21), F16), ((70,), F16)),
            _spec("FusedMatMul", res_relu6, ((19, 37), F32), ((19, 70), F32), ((37, 70), F32)),
            _spec("FusedMatMul", pre, ((66, 17), F32), ((17, 20), F32), ((20,), F32), ((20,), F32)),
            _spec("FusedBatchMatMul", bcast_bias, ((2, 1, 17, 12), F32), ((3, 12, 18), F32), ((18,), F32))]


# (x shape, w shape, attrs, dtype) of the implicit-GEMM convolutions (conv_tiles.py: 16+ output channels per
# group): padded 3x3 with tails everywhere; grouped with strides, dilation and a 4-sided pad; "same" with
# stride 2 in float64; 1x1.
CONVS = [((2, 5, 11, 13), (20, 5, 3, 3), {"pad_mode": "pad", "pad": 1}, F32),
         ((1, 6, 12, 9), (34, 3, 3, 2), {"pad_mode": "pad", "pad": (1, 0, 2, 1), "stride": (2, 1),
                                         "dilation": (1, 2), "group": 2}, F32),
         ((2, 4, 7, 7), (18, 4, 3, 3), {"pad_mode": "same", "stride": 2}, F64),
         ((2, 17, 5, 6), (33, 17, 1, 1), {}, F32)]


# Conv2DBackpropInput's implicit GEMM (16+ input channels per group): strided (terms between strides
# skipped), grouped with dilation and a 4-sided pad, "same" with stride 2 in float64.
GRAD_CONVS = [((2, 17, 9, 8), (20, 17, 3, 3), {"pad_mode": "pad", "pad": 1, "stride": 2}, F32),
              ((1, 36, 7, 6), (24, 18, 3, 2), {"pad_mode": "pad", "pad": (1, 0, 2, 1), "stride": (2, 1),
                                               "dilation": (1, 2), "group": 2}, F32),
              ((2, 16, 7, 7), (18, 16, 3, 3), {"pad_mode": "same", "stride": 2}, F64)]


def conv_specs() -> list[KernelSpec]:
    """Conv2D on each geometry of :data:`CONVS`, Conv2DBackpropInput on each of :data:`GRAD_CONVS`;
    FusedConv2D with a bias and ReLU, and with a residual add."""
    specs = [_spec("Conv2D", {"out_channel": ws[0], "kernel_size": list(ws[2:]), **attrs}, (xs, dt), (ws, dt))
             for xs, ws, attrs, dt in CONVS]
    for xs, ws, attrs, dt in GRAD_CONVS:
        fwd = _spec("Conv2D", {"out_channel": ws[0], "kernel_size": list(ws[2:]), **attrs}, (xs, dt), (ws, dt))
        base = {k: v for k, v in fwd.attrs.items() if k != "algo"}
        y = fwd.outputs[0]
        specs.append(_spec("Conv2DBackpropInput", {**base, "input_size": list(xs)}, (y.shape, dt), (ws, dt)))
    conv = {"out_channel": 24, "kernel_size": [3, 3], "pad_mode": "pad", "pad": 1}
    bias_relu = {"producer": conv, "views": [[24, 1, 1]], "members": [_m("Add", "i0", "i1"), _m("ReLU", "t0")]}
    residual = {"producer": conv, "views": [[2, 24, 8, 7]], "members": [_m("Add", "i0", "i1")]}
    x, w = ((2, 3, 8, 7), F32), ((24, 3, 3, 3), F32)
    specs += [_spec("FusedConv2D", bias_relu, x, w, ((24,), F32)),
              _spec("FusedConv2D", residual, x, w, ((2, 24, 8, 7), F32))]
    return specs


def cases(start: int = 0) -> list[Case]:
    """The cases, seeded from ``start`` (suite.py numbers every case); the convolutions take the nn suite's
    tolerance rule (sums of taps)."""
    from .suite_gpunn import NNCase  # here: suite_gpunn imports suite, which imports this module lazily

    products = [GemmCase(spec, start + i) for i, spec in enumerate(matmul_specs() + fused_specs())]
    convs = [NNCase(spec, start + len(products) + i) for i, spec in enumerate(conv_specs())]
    return products + convs


__all__ = ["CONVS", "GRAD_CONVS", "GemmCase", "cases", "conv_specs", "fused_specs", "matmul_specs"]
