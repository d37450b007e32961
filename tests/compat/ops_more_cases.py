"""Cases of the second-round ``mindspore.ops`` functions (sparse elementwise and conversions, windows, stacking
and splitting, aliases, math), written once against a MindSpore-shaped namespace: scripts/record_ops_more.py
runs them on real MindSpore 2.10 into tests/fixtures/ops_more.npz; tests/compat/test_ops_more.py runs them on
opbuild and compares.

Each case is ``name -> (fn(ms, ops, *tensors), inputs)``. Names in :data:`EAGER_ONLY` need concrete index
arrays or have data-dependent output shapes, so they are compared in PyNative mode only. This module imports
neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RNG = np.random.default_rng(77)

COO_IDX = np.array([[0, 1], [1, 2], [2, 0]], np.int64)
COO_VAL = np.array([0.3, -0.7, 0.9], np.float32)
CSR_PTR = np.array([0, 1, 3, 3], np.int64)
CSR_IDX = np.array([2, 0, 3], np.int64)
CSR_VAL = np.array([0.4, -0.6, 0.8], np.float32)
POS_VAL = np.array([1.3, 1.7, 2.9], np.float32)

SPARSE_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1",
                "floor", "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu", "relu6", "round",
                "sigmoid", "sin", "sinh", "softsign", "sqrt", "square", "tan", "tanh")


def _coo(ms, i, v):
    return ms.COOTensor(i, v, (3, 4))


def _csr(ms, p, i, v):
    return ms.CSRTensor(p, i, v, (3, 4))


def _coo_case(s: str):
    return lambda ms, ops, i, v: getattr(ops, f"coo_{s}")(_coo(ms, i, v))


def _csr_case(s: str):
    return lambda ms, ops, p, i, v: getattr(ops, f"csr_{s}")(_csr(ms, p, i, v))


def _unary_cases() -> dict:
    out = {}
    for s in SPARSE_UNARY:
        positive = s in ("acosh", "log", "sqrt")
        out[f"coo_{s}"] = (_coo_case(s), [COO_IDX, POS_VAL if positive else COO_VAL])
        out[f"csr_{s}"] = (_csr_case(s), [CSR_PTR, CSR_IDX, POS_VAL if positive else CSR_VAL])
    return out


DENSE = np.array([[0, 1.5, 0, 0], [-2, 0, 0, 3], [0, 0, 0, 0]], np.float32)

CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    **_unary_cases(),
    "coo_add": (lambda ms, ops, i, v: ops.coo_add(_coo(ms, i, v), ms.COOTensor(
        ms.Tensor(np.array([[0, 1], [2, 3]], np.int64)), ms.Tensor(np.array([-0.25, 4.0], np.float32)), (3, 4)),
        ms.Tensor(np.float32(0.1))), [COO_IDX, COO_VAL]),
    "coo_concat": (lambda ms, ops, i, v: ops.coo_concat((_coo(ms, i, v), _coo(ms, i, v)), 1), [COO_IDX, COO_VAL]),
    "csr_add": (lambda ms, ops, p, i, v: ops.csr_add(_csr(ms, p, i, v), ms.CSRTensor(
        ms.Tensor(np.array([0, 1, 1, 2], np.int64)), ms.Tensor(np.array([2, 1], np.int64)),
        ms.Tensor(np.array([1.0, 5.0], np.float32)), (3, 4)),
        ms.Tensor(np.float32(2.0)), ms.Tensor(np.float32(-1.0))), [CSR_PTR, CSR_IDX, CSR_VAL]),
    "csr_to_dense": (lambda ms, ops, p, i, v: ops.csr_to_dense(_csr(ms, p, i, v)), [CSR_PTR, CSR_IDX, CSR_VAL]),
    "csr_softmax": (lambda ms, ops, p, i, v: ops.csr_softmax(_csr(ms, p, i, v), ms.float32),
                    [CSR_PTR, CSR_IDX, CSR_VAL]),
    "dense_to_sparse_coo": (lambda ms, ops, x: ops.dense_to_sparse_coo(x), [DENSE]),
    "dense_to_sparse_csr": (lambda ms, ops, x: ops.dense_to_sparse_csr(x), [DENSE]),
}

X34 = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
X234 = RNG.uniform(-2, 2, (2, 3, 4)).astype(np.float32)
V3 = np.array([1.5, -2.0, 3.0], np.float32)
V2 = np.array([4.0, 5.0], np.float32)
M22 = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)

CASES.update({
    "bartlett_window": (lambda ms, ops: ops.bartlett_window(ms.Tensor(5, ms.int32)), []),
    "bartlett_window_sym": (lambda ms, ops: ops.bartlett_window(ms.Tensor(6, ms.int32), periodic=False), []),
    "blackman_window": (lambda ms, ops: ops.blackman_window(ms.Tensor(7, ms.int32), dtype=ms.float64), []),
    "hamming_window": (lambda ms, ops: ops.hamming_window(6, alpha=0.5, beta=0.4), []),
    "hann_window_sym": (lambda ms, ops: ops.hann_window(5, periodic=False), []),
    "kaiser_window": (lambda ms, ops: ops.kaiser_window(6, beta=8.0), []),
    "kaiser_window_sym": (lambda ms, ops: ops.kaiser_window(5, periodic=False), []),
    "hstack": (lambda ms, ops, a, b: ops.hstack((a, b)), [X34, X34]),
    "hstack_1d": (lambda ms, ops, a, b: ops.hstack([a, b]), [V3, V2]),
    "vstack": (lambda ms, ops, a, b: ops.vstack((a, b)), [V3, V3]),
    "dstack": (lambda ms, ops, a, b: ops.dstack((a, b)), [X34, X34]),
    "column_stack": (lambda ms, ops, a, b: ops.column_stack((a, b)), [V3, V3]),
    "tensor_split_int": (lambda ms, ops, x: ops.tensor_split(x, 3, axis=1), [X34]),
    "tensor_split_idx": (lambda ms, ops, x: ops.tensor_split(x, (1, 3), axis=-1), [X34]),
    "hsplit": (lambda ms, ops, x: ops.hsplit(x, 2), [X34]),
    "vsplit": (lambda ms, ops, x: ops.vsplit(x, (1,)), [X34]),
    "dsplit": (lambda ms, ops, x: ops.dsplit(x, 2), [X234]),
    "atleast_1d": (lambda ms, ops, x: ops.atleast_1d(x), [np.array(2.0, np.float32)]),
    "atleast_2d": (lambda ms, ops, x, y: ops.atleast_2d((x, y)), [V3, X34]),
    "atleast_3d": (lambda ms, ops, x, y: ops.atleast_3d([x, y]), [V3, X34]),
    "fliplr": (lambda ms, ops, x: ops.fliplr(x), [X234]),
    "flipud": (lambda ms, ops, x: ops.flipud(x), [X34]),
    "movedim": (lambda ms, ops, x: ops.movedim(x, 0, 2), [X234]),
    "swapdims": (lambda ms, ops, x: ops.swapdims(x, 0, 2), [X234]),
    "t": (lambda ms, ops, x: ops.t(x), [X34]),
    "ravel": (lambda ms, ops, x: ops.ravel(x), [X234]),
    "view_as": (lambda ms, ops, x, y: ops.view_as(x, y), [X34, np.zeros((6, 2), np.float32)]),
    "block_diag": (lambda ms, ops, a, b, c: ops.block_diag(a, b, c), [M22, V3, np.array(7.0, np.float32)]),
    "meshgrid_xy": (lambda ms, ops, a, b: ops.meshgrid(a, b), [V3, V2]),
    "meshgrid_ij": (lambda ms, ops, a, b, c: ops.meshgrid(a, b, c, indexing="ij"), [V3, V2, V2]),
    "meshgrid_xy3": (lambda ms, ops, a, b, c: ops.meshgrid(a, b, c, indexing="xy"), [V3, V2, V2]),
    "cartesian_prod": (lambda ms, ops, a, b: ops.cartesian_prod(a, b), [V3, V2]),
    "combinations": (lambda ms, ops, x: ops.combinations(x), [np.array([1, 2, 3, 4], np.int32)]),
    "combinations_repl": (lambda ms, ops, x: ops.combinations(x, 3, True), [V3]),
    "tril_indices": (lambda ms, ops: ops.tril_indices(4, 3, -1), []),
    "triu_indices": (lambda ms, ops: ops.triu_indices(3, 4, 1, dtype=ms.int32), []),
    "vander": (lambda ms, ops, x: ops.vander(x), [V3]),
    "vander_n": (lambda ms, ops, x: ops.vander(x, N=5), [np.array([1, 2, 3], np.int32)]),
})

I7 = np.array([-7, 7, -6, 5, 9], np.int32)
D3 = np.array([2, -2, 4, -3, 2], np.int32)
F5 = np.array([-7.5, 7.5, -0.0, 5.0, -1.25], np.float32)
G5 = np.array([2.0, -2.0, 4.0, -3.0, 0.5], np.float32)
B34 = np.array([[1, 0, 2, 0], [1, 1, 1, 1], [0, 0, 0, 0]], np.int32)

CASES.update({
    "eye": (lambda ms, ops: ops.eye(3, 4, ms.int32), []),
    "eye_default": (lambda ms, ops: ops.eye(2), []),
    "fill": (lambda ms, ops: ops.fill(ms.float32, (2, 3), 1.5), []),
    "full_like": (lambda ms, ops, x: ops.full_like(x, 2), [X34]),
    "full_like_dtype": (lambda ms, ops, x: ops.full_like(x, 3, dtype=ms.int32), [X34]),
    "shape_queries": (lambda ms, ops, x: ms.Tensor(np.array([ops.numel(x), ops.rank(x), ops.size(x),
                                                              *ops.shape(x)], np.int64)), [X234]),
    "positive": (lambda ms, ops, x: ops.positive(x), [X34]),
    "subtract": (lambda ms, ops, x, y: ops.subtract(x, y, alpha=2), [X34, X34[::-1].copy()]),
    "eq": (lambda ms, ops, x, y: ops.eq(x, y), [I7, np.array([-7, 0, -6, 0, 9], np.int32)]),
    "sgn": (lambda ms, ops, x: ops.sgn(x), [F5]),
    "signbit": (lambda ms, ops, x: ops.signbit(x), [F5]),
    "signbit_int": (lambda ms, ops, x: ops.signbit(x), [I7]),
    "floor_mod": (lambda ms, ops, x, y: ops.floor_mod(x, y), [I7, D3]),
    "truncate_div_int": (lambda ms, ops, x, y: ops.truncate_div(x, y), [I7, D3]),
    "truncate_div_float": (lambda ms, ops, x, y: ops.truncate_div(x, y), [F5, G5]),
    "truncate_mod_int": (lambda ms, ops, x, y: ops.truncate_mod(x, y), [I7, D3]),
    "truncate_mod_float": (lambda ms, ops, x, y: ops.truncate_mod(x, y), [F5, G5]),
    "dtype_predicates": (lambda ms, ops, x, y: ms.Tensor(np.array([ops.is_complex(x), ops.is_floating_point(x),
                                                                   ops.is_floating_point(y), ops.is_nonzero(x[0, :1])],
                                                                  np.bool_)), [X34, I7]),
    "isreal": (lambda ms, ops, x: ops.isreal(x), [X34]),
    "range_int": (lambda ms, ops: ops.range(1, 11, 3), []),
    "range_float": (lambda ms, ops: ops.range(0.5, 3.0, 0.75), []),
    "linspace": (lambda ms, ops: ops.linspace(-1.0, 2.0, 7), []),
    "logspace": (lambda ms, ops: ops.logspace(0.0, 2.0, 5, base=2), []),
    "scalar_to_tensor": (lambda ms, ops: ops.scalar_to_tensor(3, ms.int32), []),
    "scalar_to_tensor_default": (lambda ms, ops: ops.scalar_to_tensor(2.5), []),
    "tuple_to_array_int": (lambda ms, ops: ops.tuple_to_array((1, 2, 3)), []),
    "tuple_to_array_float": (lambda ms, ops: ops.tuple_to_array((1.0, 2.5)), []),
    "slice": (lambda ms, ops, x: ops.slice(x, (0, 1, 1), (2, -1, 2)), [X234]),
    "strided_slice": (lambda ms, ops, x: ops.strided_slice(x, (0, 0, 3), (2, 3, 0), (1, 2, -1)), [X234]),
    "strided_slice_masks": (lambda ms, ops, x: ops.strided_slice(x, (1, 0, 0), (2, 2, 4), (1, 1, 2),
                                                                 begin_mask=2, shrink_axis_mask=1), [X234]),
    "all": (lambda ms, ops, x: ops.all(x), [B34]),
    "all_axis": (lambda ms, ops, x: ops.all(x, 1, keep_dims=True), [B34]),
    "any_axis": (lambda ms, ops, x: ops.any(x > 0, (0,)), [B34]),
    "any_bool": (lambda ms, ops, x: ops.any(x > 0, 1), [X34]),
})

U8 = np.array([[3, 1, 3, 3], [2, 2, 1, 5]], np.int32)

CASES.update({
    "argwhere": (lambda ms, ops, x: ops.argwhere(x), [B34]),
    "masked_select": (lambda ms, ops, x, m: ops.masked_select(x, m > 0), [X34, np.array([1, 0, 1, 1], np.int32)]),
    "unique": (lambda ms, ops, x: ops.unique(x), [U8]),
    "unique_consecutive": (lambda ms, ops, x: ops.unique_consecutive(x, True, True), [U8]),
    "unique_consecutive_axis": (lambda ms, ops, x: ops.unique_consecutive(x, True, True, dim=0),
                                [np.array([[1, 2], [1, 2], [3, 4], [1, 2]], np.float32)]),
    "unique_consecutive_plain": (lambda ms, ops, x: ops.unique_consecutive(x), [U8]),
})

A23 = RNG.uniform(-2, 2, (2, 3)).astype(np.float32)
P43 = RNG.uniform(-2, 2, (4, 3)).astype(np.float32)
GI = np.array([12, -18, 0, 7, 0, 48], np.int32)
GJ = np.array([8, 27, 5, -21, 0, -36], np.int32)

CASES.update({
    "ldexp": (lambda ms, ops, x, e: ops.ldexp(x, e), [X34[0], np.array([1, -2, 3, 0], np.int32)]),
    "copysign": (lambda ms, ops, x, y: ops.copysign(x, y), [F5, G5]),
    "copysign_int": (lambda ms, ops, x, y: ops.copysign(x, y), [I7, F5]),
    "kron": (lambda ms, ops, x, y: ops.kron(x, y), [M22, A23]),
    "kron_1d": (lambda ms, ops, x, y: ops.kron(x, y), [V3, V2]),
    "cross": (lambda ms, ops, x, y: ops.cross(x, y), [P43, P43[::-1].copy()]),
    "cross_dim": (lambda ms, ops, x, y: ops.cross(x, y, dim=1), [P43, P43[::-1].copy()]),
    "cdist": (lambda ms, ops, x, y: ops.cdist(x, y), [P43, A23]),
    "cdist_p1": (lambda ms, ops, x, y: ops.cdist(x, y, p=1.0), [P43[None], A23[None]]),
    "pdist": (lambda ms, ops, x: ops.pdist(x), [P43]),
    "pdist_p3": (lambda ms, ops, x: ops.pdist(x, p=3.0), [P43]),
    "dist": (lambda ms, ops, x, y: ops.dist(x, y), [X34, X34[::-1].copy()]),
    "dist_p3": (lambda ms, ops, x, y: ops.dist(x, y, p=3), [X34, X34[::-1].copy()]),
    "cov": (lambda ms, ops, x: ops.cov(x), [X34]),
    "cov_weights": (lambda ms, ops, x, f, a: ops.cov(x, correction=0, fweights=f, aweights=a),
                    [X34, np.array([1, 2, 1, 3], np.int32), np.array([0.5, 1.0, 2.0, 1.5], np.float32)]),
    "mv": (lambda ms, ops, m, v: ops.mv(m, v), [X34, X34[0]]),
    "ger": (lambda ms, ops, a, b: ops.ger(a, b), [V3, V2]),
    "diag_embed": (lambda ms, ops, x: ops.diag_embed(x), [A23]),
    "diag_embed_offset": (lambda ms, ops, x: ops.diag_embed(x, 1, 0, 2), [A23]),
    "diagflat": (lambda ms, ops, x: ops.diagflat(x, -1), [M22]),
    "matrix_band_part": (lambda ms, ops, x: ops.matrix_band_part(x, 1, 0), [X234]),
    "matrix_band_part_neg": (lambda ms, ops, x: ops.matrix_band_part(x, -1, 1), [X34]),
    "logcumsumexp": (lambda ms, ops, x: ops.logcumsumexp(x, 1), [X34]),
    "polar": (lambda ms, ops, r, a: ops.polar(r, a), [np.abs(V3), V3]),
    "inv": (lambda ms, ops, x: ops.inv(x), [F5[:2]]),
    "msort": (lambda ms, ops, x: ops.msort(x), [X34]),
    "median": (lambda ms, ops, x: ops.median(x, 1), [X34]),
    "median_keep": (lambda ms, ops, x: ops.median(x, 0, keepdims=True), [X34]),
    "trapz": (lambda ms, ops, y: ops.trapz(y), [X34]),
    "trapz_x": (lambda ms, ops, y, x: ops.trapz(y, x, dim=0), [X34, np.array([0.0, 0.5, 2.0], np.float32)]),
    "trapz_dx": (lambda ms, ops, y: ops.trapz(y, dx=0.25), [X34]),
    "gcd": (lambda ms, ops, a, b: ops.gcd(a, b), [GI, GJ]),
    "lcm": (lambda ms, ops, a, b: ops.lcm(a, b), [GI, GJ]),
    "population_count": (lambda ms, ops, x: ops.population_count(x), [np.array([0, 7, -1, 255, -128], np.int16)]),
    "population_count_i8": (lambda ms, ops, x: ops.population_count(x), [np.array([0, 7, -1, 127], np.int8)]),
    "reverse_sequence": (lambda ms, ops, x, s: ops.reverse_sequence(x, s, seq_dim=1),
                         [X34, np.array([1, 3, 4], np.int32)]),
    "reverse_sequence_batch1": (lambda ms, ops, x, s: ops.reverse_sequence(x, s, seq_dim=0, batch_dim=1),
                                [X34, np.array([2, 3, 1, 0], np.int32)]),
    "slice_scatter": (lambda ms, ops, x, s: ops.slice_scatter(x, s, 1, 0, 4, 2), [X34, np.ones((3, 2), np.float32)]),
    "select_scatter": (lambda ms, ops, x, s: ops.select_scatter(x, s, 0, 1), [X34, np.ones(4, np.float32)]),
    "diagonal_scatter": (lambda ms, ops, x, s: ops.diagonal_scatter(x, s, 1), [X34, np.ones(3, np.float32)]),
})

CASES.update({
    "histc": (lambda ms, ops, x: ops.histc(x, bins=4, min=-1.0, max=1.5), [X34]),
    "histc_auto": (lambda ms, ops, x: ops.histc(x, bins=5), [X34]),
    "bincount": (lambda ms, ops, x: ops.bincount(x), [np.array([0, 3, 1, 3, 3], np.int32)]),
    "bincount_weights": (lambda ms, ops, x, w: ops.bincount(x, w, minlength=7),
                         [np.array([0, 3, 1, 3, 3], np.int32), V3.repeat(2)[:5].copy()]),
    "matrix_diag": (lambda ms, ops, x: ops.matrix_diag(x), [A23]),
    "matrix_diag_k": (lambda ms, ops, x: ops.matrix_diag(x, k=1, padding_value=9), [A23]),
    "matrix_diag_part": (lambda ms, ops, x: ops.matrix_diag_part(x, ms.Tensor(1, ms.int32),
                                                                 ms.Tensor(0.0, ms.float32)), [X234]),
    "pinv": (lambda ms, ops, x: ops.pinv(x), [P43]),
    "pinv_rank1": (lambda ms, ops, x: ops.pinv(x), [np.outer(V3, V2).astype(np.float32)]),
})

NAN34 = X34.copy()
NAN34[0, 1] = np.nan
NAN34[1, 1:] = np.nan
NAN34[2, 3] = np.nan

CASES.update({
    "dot_2d": (lambda ms, ops, a, b: ops.dot(a, b), [X34, P43]),
    "dot_3d": (lambda ms, ops, a, b: ops.dot(a, b), [X234, np.stack([P43, P43 * 2])]),
    "vecdot": (lambda ms, ops, a, b: ops.vecdot(a, b, axis=0), [X34, X34[::-1].copy()]),
    "adjoint": (lambda ms, ops, x: ops.adjoint(x), [X234]),
    "approximate_equal": (lambda ms, ops, a, b: ops.approximate_equal(a, b, 0.5), [F5, G5]),
    "bias_add": (lambda ms, ops, x, b: ops.bias_add(x, b), [X234.reshape(2, 3, 2, 2), V3]),
    "dense": (lambda ms, ops, x, w, b: ops.dense(x, w, b), [X34, P43[:2, :].repeat(2, 1)[:, :4].copy(), V2]),
    "bidense": (lambda ms, ops, a, b, w: ops.bidense(a, b, w), [X34, X34[:, :3].copy(), RNG.uniform(-1, 1, (5, 4, 3))
                                                                  .astype(np.float32)]),
    "cosine_similarity": (lambda ms, ops, a, b: ops.cosine_similarity(a, b), [X34, X34[::-1].copy()]),
    "view_as_real": (lambda ms, ops, r, i: ops.view_as_real(ops.Complex()(r, i)), [V3, V3[::-1].copy()]),
    "unsorted_segment_sum": (lambda ms, ops, x, s: ops.unsorted_segment_sum(x, s, 4),
                             [X34, np.array([0, 3, 0], np.int32)]),
    "nanmedian": (lambda ms, ops, x: ops.nanmedian(x, 1), [NAN34]),
    "nanmedian_keep": (lambda ms, ops, x: ops.nanmedian(x, 0, keepdims=True), [NAN34]),
    "eps": (lambda ms, ops, x: ops.eps(x), [X34]),
    "deepcopy": (lambda ms, ops, x: ops.deepcopy(x), [X34]),
    "like_shapes": (lambda ms, ops, x: ms.Tensor(np.array([*ops.rand_like(x).shape, *ops.randn_like(x).shape,
                                                           *ops.randint_like(x, 0, 5, dtype=ms.int32).shape,
                                                           int(ops.is_tensor(x))], np.int64)), [X34]),
})

def _assigns(ms, ops, x, y):
    # Fresh copies: opbuild's Parameter shares its initial tensor's memory (MindSpore's copies it).
    p = ms.Parameter(ms.Tensor(x.asnumpy().copy()), name="p")
    ops.assign_sub(p, y)
    ops.assign_add(p, y * 3)
    q = ms.Parameter(ms.Tensor(x.asnumpy().copy()), name="q")
    ops.assign(q, y)
    return ms.Tensor(p.asnumpy()), ms.Tensor(q.asnumpy())


CASES.update({
    "assign_family": (_assigns, [X34, X34[::-1].copy()]),
    "dyn_shape": (lambda ms, ops, x: ops.dyn_shape(x), [X234]),
    "scalar_cast": (lambda ms, ops: ms.Tensor(np.array([ops.scalar_cast(255.7, ms.int64),
                                                         ops.scalar_cast(-3, ms.float64),
                                                         ops.scalar_cast(2, ms.bool_)], np.float64)), []),
})

CASES.update({
    "diag_2d": (lambda ms, ops, x: ops.diag(x), [M22]),
    "unbind_dim": (lambda ms, ops, x: ops.unbind(x, dim=1), [X34]),
    "select_keywords": (lambda ms, ops, c, x, y: ops.select(condition=c > 0, input=x, other=y), [X34, X34, -X34]),
})

CASES.update({
    "diff_prepend_append": (lambda ms, ops, x, p, a: ops.diff(x, 1, 1, prepend=p, append=a),
                            [X34, X34[:, :1].copy(), X34[:, :2].copy()]),
    "amax_initial": (lambda ms, ops, x: ops.amax(x, 1, initial=0.5), [X34]),
    "amin_initial_where": (lambda ms, ops, x, w: ops.amin(x, 0, True, initial=1.0, where=w > 0),
                           [X34, np.array([1, 0, 1, 1], np.int32)]),
})

EAGER_ONLY = {"assign_family", "dyn_shape", "like_shapes", "bincount", "bincount_weights",
              "argwhere", "masked_select", "unique", "unique_consecutive", "unique_consecutive_axis",
              "unique_consecutive_plain", "dtype_predicates", "coo_add", "coo_concat", "csr_add", "csr_softmax",
              "dense_to_sparse_coo", "dense_to_sparse_csr", "csr_to_dense"}


def outputs(result) -> list[np.ndarray]:
    """A case's result (a Tensor, a sparse tensor, a number or a tuple of them) as NumPy arrays; a sparse
    tensor gives its index arrays, values and dense shape."""
    items = result if isinstance(result, (tuple, list)) else [result]
    out: list[np.ndarray] = []
    for t in items:
        if hasattr(t, "indptr"):
            out += [np.asarray(t.indptr.asnumpy()), np.asarray(t.indices.asnumpy()), np.asarray(t.values.asnumpy()),
                    np.asarray(t.shape, np.int64)]
        elif hasattr(t, "indices") and hasattr(t, "values"):
            out += [np.asarray(t.indices.asnumpy()), np.asarray(t.values.asnumpy()), np.asarray(t.shape, np.int64)]
        elif hasattr(t, "asnumpy"):
            out.append(np.asarray(t.asnumpy()))
        else:
            out.append(np.asarray(t))
    return out


__all__ = ["CASES", "EAGER_ONLY", "outputs"]
