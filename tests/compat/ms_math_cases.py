"""Cases of the math, scan, scatter, sort, resize and sampling functions, written once against a MindSpore-shaped
namespace: scripts/record_ms_math_ops.py runs them on real MindSpore 2.10 and stores inputs and outputs in
tests/fixtures/ms_math_ops.npz; tests/compat/test_ms_math_ops.py runs them on opbuild and compares.

Each case is ``name -> (fn(ms, ops, *tensors), inputs)``; ``fn`` may return a Tensor or a tuple of them. This
module imports neither MindSpore nor opbuild: the caller passes its ``ms`` and ``ops``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RNG = np.random.default_rng(2024)


def _f32(*shape: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


X34 = _f32(3, 4)
TIES = np.array([[3, 1, 3, 2, 1], [0, 0, 5, 5, 4]], np.float32)
IMG = _f32(1, 2, 4, 5)
GRID = _f32(1, 3, 4, 2, low=-1.3, high=1.3)
IDX = np.array([[0], [2], [0]], np.int32)
UPD = _f32(3, 4)

CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "cumsum_axis1": (lambda ms, ops, x: ops.cumsum(x, 1), [X34]),
    "cumsum_int": (lambda ms, ops, x: ops.cumsum(x, 0), [np.arange(12, dtype=np.int32).reshape(3, 4)]),
    "cumsum_dtype": (lambda ms, ops, x: ops.cumsum(x, 1, dtype=ms.float32),
                     [np.arange(6, dtype=np.int32).reshape(2, 3)]),
    "cumprod": (lambda ms, ops, x: ops.cumprod(x, 0), [X34]),
    "CumSum_exclusive_reverse": (lambda ms, ops, x: ops.CumSum(exclusive=True, reverse=True)(x, 1), [X34]),
    "CumProd_exclusive": (lambda ms, ops, x: ops.CumProd(exclusive=True)(x, 0), [X34]),
    "cummax": (lambda ms, ops, x: ops.cummax(x, 1), [np.array([[3, 1, 3, 5, 5, 2], [0, 0, -1, 0, 7, 7]], np.float32)]),
    "cummin": (lambda ms, ops, x: ops.cummin(x, 1), [np.array([[3, 1, 3, 5, 5, 2], [0, 0, -1, 0, 7, 7]], np.float32)]),
    "cummax_nan": (lambda ms, ops, x: ops.cummax(x, 0), [np.array([1, np.nan, 0, 5], np.float32)]),
    "cummin_int_axis0": (lambda ms, ops, x: ops.cummin(x, 0), [np.array([[4, 2], [4, 9], [1, 2]], np.int32)]),
    "logsumexp": (lambda ms, ops, x: ops.logsumexp(x * 30, 1), [X34]),
    "logsumexp_keep": (lambda ms, ops, x: ops.logsumexp(x, (0, 1), True), [X34]),
    "topk": (lambda ms, ops, x: ops.topk(x, 3, dim=1), [TIES]),
    # Without ties among the smallest: MindSpore 2.10 on the CPU returned [1, 0] for the two zeros of
    # [0, 0, 5, 5, 4], against its documentation's smaller-index-first rule that opbuild follows.
    "topk_smallest": (lambda ms, ops, x: ops.topk(x, 2, dim=1, largest=False),
                      [np.array([[3, 1, 3, 2, 0], [7, 0, 5, 6, 4]], np.float32)]),
    "TopK": (lambda ms, ops, x: ops.TopK()(x, 2), [X34]),
    "sort_descending": (lambda ms, ops, x: ops.sort(x, axis=1, descending=True), [X34]),
    "Sort_axis0": (lambda ms, ops, x: ops.Sort(axis=0)(x), [X34]),
    "argsort": (lambda ms, ops, x: ops.argsort(x, 1), [X34]),
    "tensor_scatter_update": (lambda ms, ops, x, i, u: ops.tensor_scatter_update(x, i[1:], u[1:]), [X34, IDX, UPD]),
    "tensor_scatter_add": (lambda ms, ops, x, i, u: ops.tensor_scatter_add(x, i, u), [X34, IDX, UPD]),
    "tensor_scatter_sub": (lambda ms, ops, x, i, u: ops.tensor_scatter_sub(x, i, u), [X34, IDX, UPD]),
    "tensor_scatter_mul": (lambda ms, ops, x, i, u: ops.tensor_scatter_mul(x, i, u), [X34, IDX, UPD]),
    "tensor_scatter_max": (lambda ms, ops, x, i, u: ops.tensor_scatter_max(x, i, u), [X34, IDX, UPD]),
    "tensor_scatter_min": (lambda ms, ops, x, i, u: ops.tensor_scatter_min(x, i, u), [X34, IDX, UPD]),
    "scatter_nd": (lambda ms, ops, i, u: ops.scatter_nd(i, u, (3, 4)), [IDX, UPD]),
    "tensor_scatter_elements": (
        lambda ms, ops, x, i, u: ops.tensor_scatter_elements(x, i, u, axis=1, reduction="add"),
        [X34, np.array([[1, 0, 3], [2, 2, 0]], np.int32), _f32(2, 3)]),
    "scatter": (lambda ms, ops, x, i, u: ops.scatter(x, 0, i, u),
                [X34, np.array([[1, 0, 2, 0]], np.int64), _f32(1, 4)]),
    "interpolate_nearest": (lambda ms, ops, x: ops.interpolate(x, size=(7, 3), mode="nearest"), [IMG]),
    "interpolate_bilinear": (lambda ms, ops, x: ops.interpolate(x, size=(6, 8), mode="bilinear",
                                                                  align_corners=False), [IMG]),
    "interpolate_bilinear_ac": (lambda ms, ops, x: ops.interpolate(x, size=(6, 8), mode="bilinear",
                                                                     align_corners=True), [IMG]),
    "interpolate_bicubic": (lambda ms, ops, x: ops.interpolate(x, size=(6, 9), mode="bicubic",
                                                                 align_corners=False), [IMG]),
    "interpolate_bicubic_ac": (lambda ms, ops, x: ops.interpolate(x, size=(6, 9), mode="bicubic",
                                                                    align_corners=True), [IMG]),
    "interpolate_bicubic_down": (lambda ms, ops, x: ops.interpolate(x, size=(3, 2), mode="bicubic"), [IMG]),
    "interpolate_nearest_scale": (lambda ms, ops, x: ops.interpolate(x, scale_factor=(1.5, 2.5), mode="nearest",
                                                                       recompute_scale_factor=True), [IMG]),
    "interpolate_bilinear_scale": (lambda ms, ops, x: ops.interpolate(x, scale_factor=(1.6, 0.6), mode="bilinear",
                                                                        recompute_scale_factor=True), [IMG]),
    "interpolate_nearest_exact": (lambda ms, ops, x: ops.interpolate(x, size=(7, 3), mode="nearest-exact"), [IMG]),
    "interpolate_trilinear": (lambda ms, ops, x: ops.interpolate(x, size=(3, 5, 2), mode="trilinear"),
                              [_f32(1, 2, 2, 3, 4)]),
    "interpolate_linear": (lambda ms, ops, x: ops.interpolate(x, size=9, mode="linear"), [_f32(2, 3, 5)]),
    "interpolate_area": (lambda ms, ops, x: ops.interpolate(x, size=(3, 2), mode="area"), [IMG]),
    "ResizeBilinearV2": (lambda ms, ops, x: ops.ResizeBilinearV2()(x, (6, 7)), [IMG]),
    "ResizeBilinearV2_half_pixel": (lambda ms, ops, x: ops.ResizeBilinearV2(half_pixel_centers=True)(x, (6, 7)),
                                    [IMG]),
    "ResizeNearestNeighbor": (lambda ms, ops, x: ops.ResizeNearestNeighbor((7, 3))(x), [IMG]),
    "grid_sample_bilinear": (lambda ms, ops, x, g: ops.grid_sample(x, g, "bilinear", "zeros", False), [IMG, GRID]),
    "grid_sample_nearest_border": (lambda ms, ops, x, g: ops.grid_sample(x, g, "nearest", "border", True),
                                   [IMG, GRID]),
    "grid_sample_bicubic_reflection": (lambda ms, ops, x, g: ops.grid_sample(x, g, "bicubic", "reflection",
                                                                             False), [IMG, GRID]),
    "einsum_matmul": (lambda ms, ops, a, b: ops.einsum("ij,jk->ik", a, b), [X34, _f32(4, 2)]),
    "einsum_diag_sum": (lambda ms, ops, a: ops.einsum("ii", a), [_f32(3, 3)]),
    "einsum_batch": (lambda ms, ops, a, b: ops.einsum("bij,bkj->bik", a, b), [_f32(2, 3, 4), _f32(2, 5, 4)]),
    "vector_norm": (lambda ms, ops, x: ops.vector_norm(x, 3, 1), [X34]),
    "vector_norm_inf": (lambda ms, ops, x: ops.vector_norm(x, float("inf")), [X34]),
    "norm": (lambda ms, ops, x: ops.norm(x, dim=0), [X34]),
    "sign": (lambda ms, ops, x: ops.sign(x), [np.array([-1.5, 0.0, 2.0, -0.0], np.float32)]),
    "tan": (lambda ms, ops, x: ops.tan(x), [X34]),
    "asin": (lambda ms, ops, x: ops.asin(x * 0.4), [X34]),
    "acos": (lambda ms, ops, x: ops.acos(x * 0.4), [X34]),
    "atan": (lambda ms, ops, x: ops.atan(x), [X34]),
    "sinh": (lambda ms, ops, x: ops.sinh(x), [X34]),
    "cosh": (lambda ms, ops, x: ops.cosh(x), [X34]),
    "asinh": (lambda ms, ops, x: ops.asinh(x), [X34]),
    "acosh": (lambda ms, ops, x: ops.acosh(ops.abs(x) + 1), [X34]),
    "atanh": (lambda ms, ops, x: ops.atanh(x * 0.4), [X34]),
    "expm1": (lambda ms, ops, x: ops.expm1(x), [X34]),
    "log1p": (lambda ms, ops, x: ops.log1p(ops.abs(x)), [X34]),
    "trunc": (lambda ms, ops, x: ops.trunc(x), [X34]),
    "isinf": (lambda ms, ops, x: ops.isinf(x), [np.array([np.inf, -np.inf, 1.0, np.nan], np.float32)]),
    "atan2": (lambda ms, ops, a, b: ops.atan2(a, b), [X34, _f32(3, 4)]),
    "bitwise_and": (lambda ms, ops, a, b: ops.bitwise_and(a, b),
                    [np.array([0, 5, -3, 7], np.int32), np.array([1, 4, 6, -1], np.int32)]),
    "bitwise_or": (lambda ms, ops, a, b: ops.bitwise_or(a, b),
                   [np.array([0, 5, -3, 7], np.int32), np.array([1, 4, 6, -1], np.int32)]),
    "bitwise_xor": (lambda ms, ops, a, b: ops.bitwise_xor(a, b),
                    [np.array([0, 5, -3, 7], np.int32), np.array([1, 4, 6, -1], np.int32)]),
    "arange_int": (lambda ms, ops: ops.arange(1, 9, 2), []),
    "arange_float": (lambda ms, ops: ops.arange(0, 2, 0.5), []),
    "addcdiv": (lambda ms, ops, a, b, c: ops.addcdiv(a, b, c, value=2), [X34, _f32(3, 4), _f32(3, 4, low=1.0)]),
    "addcmul": (lambda ms, ops, a, b, c: ops.addcmul(a, b, c, value=0.5), [X34, _f32(3, 4), _f32(3, 4)]),
    "addn": (lambda ms, ops, a, b: ops.addn((a, b, a)), [X34, _f32(3, 4)]),
    "mm": (lambda ms, ops, a, b: ops.mm(a, b), [X34, _f32(4, 5)]),
    "tensor_dot": (lambda ms, ops, a, b: ops.tensor_dot(a, b, ((0, 1), (1, 2))), [_f32(1, 2, 3), _f32(3, 1, 2)]),
    "count_nonzero": (lambda ms, ops, x: ops.count_nonzero(x), [np.array([[0, 1, 0], [2, 0, 3]], np.float32)]),
    "count_nonzero_axis": (lambda ms, ops, x: ops.count_nonzero(x, axis=1, keep_dims=True),
                           [np.array([[0, 1, 0], [2, 0, 3]], np.int32)]),
    "repeat_interleave": (lambda ms, ops, x: ops.repeat_interleave(x, 2, 1),
                          [np.arange(6, dtype=np.int32).reshape(2, 3)]),
    "sequence_mask": (lambda ms, ops, x: ops.sequence_mask(x, 5), [np.array([1, 3, 0, 5], np.int32)]),
    "AddN": (lambda ms, ops, a, b: ops.AddN()((a, b)), [X34, _f32(3, 4)]),
    "ScatterNd": (lambda ms, ops, i, u: ops.ScatterNd()(i, u, (3, 4)), [IDX, UPD]),
    "LpNorm": (lambda ms, ops, x: ops.LpNorm(1, p=3)(x), [np.array([[1, -2, 0.5], [0, 0, 0]], np.float32)]),
    "LpNorm_keep": (lambda ms, ops, x: ops.LpNorm([0, 1], p=1, keep_dims=True)(x), [X34]),
    "Addcdiv": (lambda ms, ops, a, b, c, v: ops.Addcdiv()(a, b, c, v),
                [X34, _f32(3, 4), _f32(3, 4, low=1.0), np.array([2.0], np.float32)]),
    "Addcmul": (lambda ms, ops, a, b, c, v: ops.Addcmul()(a, b, c, v),
                [X34, _f32(3, 4), _f32(3, 4), np.array([0.5], np.float32)]),
    "select": (lambda ms, ops, c, x, y: ops.select(c, x, y),
               [np.array([[True, False, True, False]] * 3), X34, _f32(3, 4)]),
}


def outputs(result) -> list[np.ndarray]:
    """A case's result (a Tensor or a tuple of them) as NumPy arrays."""
    items = result if isinstance(result, (tuple, list)) else [result]
    return [np.asarray(t.asnumpy()) for t in items]


__all__ = ["CASES", "outputs"]
