"""Programs over ``mindspore.numpy`` written once for both frameworks: scripts/record_msnumpy.py runs them under
MindSpore 2.10 and tests/numpy/test_msnumpy_programs.py under opbuild, each in PYNATIVE_MODE (called directly)
and in GRAPH_MODE (called from a Cell's ``construct``). ``bind(mnp)`` sets the NumPy-layer module the programs
call (a module global, so MindSpore's graph compiler resolves it); imports no framework itself.

``CASES``: name -> (program, inputs); a program takes the inputs as tensors and returns a tensor or a tuple.
"""

from __future__ import annotations

import numpy as np

mnp = None  # set by bind()


def bind(module) -> None:
    """Make the programs call ``module`` (``mindspore.numpy``, or ``opbuild.numpy``)."""
    global mnp
    mnp = module


_rng = np.random.default_rng(11)
F2x3 = _rng.standard_normal((2, 3)).astype(np.float32)
F3x4 = _rng.standard_normal((3, 4)).astype(np.float32)
F4 = _rng.standard_normal(4).astype(np.float32)
F3x3 = _rng.standard_normal((3, 3)).astype(np.float32)
F2x3x4 = _rng.standard_normal((2, 3, 4)).astype(np.float32)
I2x3 = np.array([[3, -1, 4], [1, -5, 9]], np.int32)
I6 = np.array([2, 7, 1, 8, 2, 8], np.int32)
B2x3 = np.array([[True, False, True], [False, False, True]])
POS = (np.abs(F3x4) + 0.25).astype(np.float32)
UNIT = np.clip(F3x4, -0.9, 0.9).astype(np.float32)
NANS = np.array([[1.0, np.nan, 3.0], [np.nan, 5.0, 6.0]], np.float32)


# ---- creation ----------------------------------------------------------------------------------------------
def creation_consts(x):
    return (mnp.zeros((2, 3)), mnp.ones(4, mnp.int32), mnp.full((2, 2), 1.5), mnp.full((2, 3), [1, 2, 3]),
            mnp.eye(3, 4, 1), mnp.identity(2), mnp.tri(3, 4, -1))


def creation_ranges(x):
    return (mnp.arange(5), mnp.arange(1, 2, 0.25), mnp.arange(10, 0, -3), mnp.linspace(0, 1, 5),
            mnp.linspace(2.0, 3.0, 4, endpoint=False), mnp.logspace(0, 2, 3), mnp.geomspace(1, 1000, 4))


def creation_like(x):
    return mnp.zeros_like(x), mnp.ones_like(x), mnp.full_like(x, 7), mnp.empty_like(x, dtype=mnp.int32)


def creation_tri(x):
    return mnp.tril(x), mnp.triu(x, 1), mnp.tril(x, -1), mnp.diag(x), mnp.diag(x, -1)


def creation_diag_vec(x):
    return mnp.diag(x), mnp.diag(x, 2), mnp.diagflat(x, -1)


def creation_array_of_tensors(x):
    return mnp.array([x, x * 2]), mnp.asarray(x, mnp.float16), mnp.array(x, ndmin=3)


def creation_meshgrid(x):
    a, b = mnp.meshgrid(x, mnp.arange(3))
    c, d = mnp.meshgrid(x, mnp.arange(3), indexing="ij")
    return a, b, c, d


def creation_vander(x):
    return mnp.vander(x, 3), mnp.vander(x, increasing=True)


# ---- elementwise -------------------------------------------------------------------------------------------
def ew_arith(x, y):
    return mnp.add(x, y), mnp.subtract(x, y), mnp.multiply(y, x), mnp.divide(x, y), mnp.power(mnp.abs(x), y)


def ew_int_float(i, f):
    two = mnp.array(2)
    return (mnp.add(i, f), mnp.divide(i, two), mnp.multiply(i, mnp.array(1.5)), mnp.true_divide(i, i),
            mnp.subtract(i, two), mnp.power(i, two))


def ew_int_division(a, b):
    return mnp.floor_divide(a, b), mnp.remainder(a, b), mnp.fmod(a, b), mnp.mod(a, 4)


def ew_unary(x):
    return (mnp.exp(x), mnp.expm1(x), mnp.exp2(x), mnp.square(x), mnp.absolute(x), mnp.sign(x), mnp.negative(x),
            mnp.sin(x), mnp.cos(x), mnp.tanh(x), mnp.arctan(x), mnp.sinh(x), mnp.cbrt(x), mnp.rad2deg(x))


def ew_positive_only(x):
    return mnp.log(x), mnp.log2(x), mnp.log10(x), mnp.log1p(x), mnp.sqrt(x), mnp.reciprocal(x), mnp.arccosh(x + 1)


def ew_unit(x):
    return mnp.arcsin(x), mnp.arccos(x), mnp.arctanh(x), mnp.arcsinh(x)


def ew_rounding(x):
    y = x * 3
    return mnp.floor(y), mnp.ceil(y), mnp.trunc(y), mnp.fix(y), mnp.rint(y)


def ew_int_unary(i):
    return mnp.deg2rad(i), mnp.square(i), mnp.sign(i), mnp.cbrt(i), mnp.negative(i), mnp.absolute(i)


def ew_binary_more(x, y):
    return (mnp.maximum(x, y), mnp.minimum(x, 0.5), mnp.arctan2(x, y), mnp.hypot(x, y), mnp.logaddexp(x, y),
            mnp.logaddexp2(x, y), mnp.copysign(x, y), mnp.heaviside(x, y), mnp.float_power(mnp.abs(x), y))


def ew_clip(x):
    return mnp.clip(x, -0.5, 0.5), mnp.clip(x, None, 0.0), mnp.clip(x, 0, None)


def ew_int_bits(a, b):
    return mnp.bitwise_and(a, b), mnp.bitwise_or(a, b), mnp.bitwise_xor(a, b), mnp.invert(a), mnp.gcd(a, b), \
        mnp.lcm(a, b)


def ew_divmod(a, b):
    return mnp.divmod(a, b)


# ---- reductions --------------------------------------------------------------------------------------------
def red_float(x):
    return (mnp.sum(x), mnp.sum(x, axis=0), mnp.sum(x, axis=(0, 2), keepdims=True), mnp.mean(x, -1),
            mnp.mean(x, (1, 2), keepdims=True), mnp.std(x, 1), mnp.var(x, 2, ddof=1), mnp.amax(x, 1),
            mnp.amin(x, (0, 1)), mnp.ptp(x, 2), mnp.max(x), mnp.min(x, 0, keepdims=True))


def red_int(i):
    return (mnp.sum(i), mnp.sum(i, 1), mnp.mean(i), mnp.mean(i, 0), mnp.var(i), mnp.amax(i, 0), mnp.cumsum(i),
            mnp.cumsum(i, 1), mnp.cumprod(i, 0), mnp.count_nonzero(i), mnp.count_nonzero(i, 1),
            mnp.argmax(i), mnp.argmin(i, 1), mnp.sum(i, initial=10))


def red_bool(b):
    return mnp.sometrue(b, 1), mnp.sometrue(b), mnp.logical_not(b), mnp.where(b, 1.0, -1.0)


def red_where(x):
    return mnp.amax(x, axis=0, where=mnp.array([[True, False, True, True]] * 3), initial=-5.0), \
        mnp.amin(x, 1, initial=0.0)


def red_nan(x):
    return (mnp.nansum(x), mnp.nansum(x, 0), mnp.nanmean(x, 1), mnp.nanvar(x), mnp.nanstd(x, 0), mnp.nanmax(x, 1),
            mnp.nanmin(x), mnp.nancumsum(x, 1))


def red_average(x, w):
    return mnp.average(x), mnp.average(x, 1, w), mnp.average(x, 0, mnp.ones(3), returned=True)


def red_diff(x):
    return mnp.diff(x), mnp.diff(x, 2, 0), mnp.diff(x, prepend=0.0), mnp.ediff1d(x), mnp.gradient(x, axis=1), \
        mnp.gradient(x, 2.0, axis=0)


def red_cum_axis_none(x):
    return mnp.cumsum(x), mnp.cumprod(x, 1), mnp.argmax(x, 0), mnp.argmin(x)


# ---- shapes and joining ------------------------------------------------------------------------------------
def sh_axes(x):
    return (mnp.reshape(x, (4, -1)), mnp.ravel(x), mnp.transpose(x), mnp.transpose(x, (1, 0, 2)),
            mnp.moveaxis(x, 0, -1), mnp.swapaxes(x, 0, 2), mnp.rollaxis(x, 2), mnp.expand_dims(x, (0, -1)),
            mnp.squeeze(mnp.expand_dims(x, 1), 1))


def sh_flip_roll(x):
    return (mnp.flip(x), mnp.flip(x, 1), mnp.fliplr(x), mnp.flipud(x), mnp.roll(x, 2), mnp.roll(x, -1, 0),
            mnp.roll(x, (1, 2), (0, 1)), mnp.rot90(x), mnp.rot90(x, 2), mnp.rot90(x, -1, (1, 0)))


def sh_broadcast(x, y):
    a, b = mnp.broadcast_arrays(x, y)
    return mnp.broadcast_to(y, (2, 3, 4)), a, b, mnp.atleast_3d(x)


def join_stack(x, y):
    return (mnp.concatenate((x, y)), mnp.concatenate((x, y), axis=1), mnp.concatenate((x, y), axis=None),
            mnp.stack((x, y), -1), mnp.hstack((x, y)), mnp.vstack((x, y)), mnp.dstack((x, y)),
            mnp.column_stack((x, y)), mnp.append(x, y, 0))


def join_split(x):
    return (*mnp.split(x, 2, 1), *mnp.split(x, (1, 3), 1), *mnp.array_split(x, 3, 1), *mnp.hsplit(x, 2),
            *mnp.vsplit(x, 3))


def join_tile_repeat(x):
    return (mnp.tile(x, 2), mnp.tile(x, (2, 1, 1)), mnp.repeat(x, 2), mnp.repeat(x, 3, 0),
            mnp.repeat(x, (1, 0, 2), 1))


def join_pad(x):
    return (mnp.pad(x, 1), mnp.pad(x, ((1, 0), (2, 1)), constant_values=9), mnp.pad(x, 2, mode="edge"),
            mnp.pad(x, (1, 2), mode="reflect"), mnp.pad(x, 2, mode="symmetric"), mnp.pad(x, 1, mode="wrap"),
            mnp.pad(x, ((2, 1), (0, 2)), mode="linear_ramp", end_values=5))


# ---- indexing and logic ------------------------------------------------------------------------------------
def idx_take(x, i):
    return (mnp.take(x, i), mnp.take(x, i, 1), mnp.take(x, mnp.array([5, -1]), 0, mode="wrap"),
            mnp.take_along_axis(x, mnp.array([[0], [2], [1]]), 1), mnp.diagonal(x, 1), mnp.trace(x),
            mnp.trace(x, -1))


def idx_where_select(x, y):
    return (mnp.where(x > 0, x, y), mnp.where(x > y, 1.0, 0), mnp.select([x > 1, x < -1], [x, y], 7.0),
            mnp.choose(mnp.array([[0, 1, 0, 1]] * 3), (x, y)), mnp.piecewise(x, [x < 0, x >= 0], [-1.0, 1.0]))


def idx_unravel(i):
    return (*mnp.unravel_index(i, (3, 4)), *mnp.unravel_index(i, (3, 4), order="F"),
            mnp.ravel_multi_index(mnp.stack(mnp.unravel_index(i, (3, 4))), (3, 4)))


def logic_compare(x, y):
    z = mnp.zeros_like(x)
    return (mnp.equal(x, y), mnp.not_equal(x, z), mnp.greater(x, y), mnp.greater_equal(x, y), mnp.less(x, z),
            mnp.less_equal(x, y), mnp.logical_and(x > 0, y > 0), mnp.logical_or(x > 0, y > 0),
            mnp.logical_xor(x > 0, y > 0), mnp.logical_not(x > 0), mnp.isclose(x, x + 1e-6),
            mnp.isclose(x, y, atol=1.0))


def logic_special(x):
    return (mnp.isnan(x), mnp.isinf(x), mnp.isfinite(x), mnp.isneginf(x * -1e38 * 1e10),
            mnp.isposinf(x * 1e38 * 1e10), mnp.signbit(x))


def logic_membership(i):
    return mnp.in1d(i, mnp.array([1, 8])), mnp.isin(i, [2, 7], invert=True)


# ---- products ----------------------------------------------------------------------------------------------
def prod_dots(x, y):
    return (mnp.dot(x, y), mnp.matmul(x, y), mnp.inner(x, mnp.transpose(y)), mnp.outer(x[0], y[:, 0]),
            mnp.tensordot(x, y, 1), mnp.tensordot(x, x * 2, ((0, 1), (0, 1))), mnp.dot(x[0], y),
            mnp.kron(x[:, :2], y[:2, :2]), mnp.multi_dot([x, y, mnp.transpose(y)]))


def prod_cross(x, y):
    return mnp.cross(x, y), mnp.cross(x, y, axisc=0), mnp.cross(x[:, :2], y[:, :2])


def prod_norms(x):
    return (mnp.norm(x), mnp.norm(x, axis=1), mnp.norm(x, 1, axis=0), mnp.norm(x, np.inf, 1), mnp.norm(x, "fro"),
            mnp.norm(x, 1), mnp.norm(x, axis=(0, 1), keepdims=True))


def prod_signal(x, v):
    return (mnp.convolve(x, v), mnp.convolve(x, v, "same"), mnp.convolve(x, v, "valid"), mnp.correlate(x, v),
            mnp.correlate(x, v, "full"), mnp.trapz(x), mnp.trapz(x, dx=0.5), mnp.polyval(v, x))


def prod_stats(x):
    return mnp.cov(x), mnp.cov(x, rowvar=False), mnp.cov(x, bias=True), mnp.corrcoef(x), mnp.cov(x[0], x[1])


def prod_poly(p, q):
    return mnp.polyadd(p, q), mnp.polysub(p, q[:2]), mnp.polymul(p, q), mnp.polyder(p), mnp.polyder(q, 2), \
        mnp.polyint(p), mnp.polyint(q, 2)


# ---- statistics --------------------------------------------------------------------------------------------
def stat_hist(x):
    h, e = mnp.histogram(x, 4)
    h2, e2 = mnp.histogram(x, [-2.0, -0.5, 0.0, 0.5, 2.0], density=True)
    return h, e, h2, e2, mnp.histogram_bin_edges(x, 3), mnp.histogram(x, 3, (-1, 1))[0]


def stat_hist2d(x, y):
    return mnp.histogram2d(x, y, bins=(2, 3))


def stat_search(s, v):
    return (mnp.searchsorted(s, v), mnp.searchsorted(s, v, side="right"), mnp.digitize(v, s),
            mnp.digitize(v, s, right=True), mnp.interp(v, s, s * 2), mnp.interp(v, s, s * 2, left=-1.0, right=9.0))


def stat_bincount(i):
    return mnp.bincount(i), mnp.bincount(i, weights=mnp.arange(6).astype("float32"), minlength=12)


def misc_windows(x):
    return mnp.hamming(7), mnp.hanning(6), mnp.bartlett(5), mnp.blackman(8), mnp.unwrap(x * 4)


def misc_indices(x):
    a, b = mnp.indices((2, 3))
    r, c = mnp.tril_indices(3, 1)
    u, v = mnp.triu_indices_from(x)
    d = mnp.diag_indices(3)
    p, q = mnp.ix_(mnp.array([0, 2]), mnp.array([1, 2, 3]))
    return a, b, r, c, u, v, d[0], p, q


def apply_funcs(x):
    return mnp.apply_along_axis(mnp.diag, -1, x), mnp.apply_along_axis(mnp.sum, 0, x), \
        mnp.apply_over_axes(mnp.sum, x, (0, 1))


# ---- second batch: the less common arguments -----------------------------------------------------------------
def more_creation(x):
    return (mnp.linspace(x, x * 3, 3), mnp.linspace(x, 5.0, 3, axis=1), mnp.logspace(1, 3, 3, base=2.0),
            mnp.full((2, 4), x), mnp.eye(3, k=-1, dtype=mnp.int32), mnp.tri(3, 2, 1), mnp.vander(x[:, 0], 4),
            mnp.arange(2, 9, 3), mnp.ones((2, 2), mnp.float16))


def more_grids(x):
    g = mnp.mgrid[0:2, 1:4]
    o1, o2 = mnp.ogrid[0:3, 0:2]
    r, c = mnp.triu_indices(4, -1, 3)
    a, b = mnp.meshgrid(x, x[:2], sparse=True)
    return g, o1, o2, r, c, a, b


def grid_complex_step(x):
    return mnp.mgrid[0:1:5j], mnp.ogrid[-1:1:3j]


def more_shapes(x):
    a, b = mnp.atleast_2d(x[0, 0], x)
    return (a, b, mnp.atleast_1d(x[0, 0]), mnp.rollaxis(x, 0, 3), mnp.rollaxis(x, 2, 1), mnp.squeeze(x[:1], 0),
            mnp.moveaxis(x, (0, 1), (2, 0)), mnp.reshape(x, 24), mnp.swapaxes(x, -1, -2))


def more_reductions(x):
    return (mnp.nanvar(x, 0, ddof=1), mnp.nanstd(x, 1, keepdims=True), mnp.nanmean(x, keepdims=True),
            mnp.nansum(x, 1, keepdims=True), mnp.ptp(x, keepdims=True), mnp.std(x, (0, 1), 1, True),
            mnp.gradient(x), mnp.diff(x, 1, 0, append=x[:1]), mnp.cumprod(x), mnp.nancumsum(x, 0))


def more_average(x, w):
    avg, total = mnp.average(x, 1, w, returned=True)
    return avg, total, mnp.average(x, None, x * x), mnp.average(x, 0, returned=True)


def more_indexing(x, i):
    return (mnp.take(x, i, 0), mnp.take(x, i, 1, mode="wrap"), mnp.choose(i, (x[0], x[1], x[2]), mode="wrap"),
            mnp.take_along_axis(x, mnp.array([[1, 0, 2, 1]]), 0), mnp.ravel_multi_index(mnp.array([[1, 9], [2, 5]]),
            (3, 4), mode="wrap"), mnp.ravel_multi_index(mnp.array([[1, 2], [3, 0]]), (3, 4), order="F"))


def more_products(x, y):
    return (mnp.tensordot(x, y, 0), mnp.tensordot(x, x * 2, 2), mnp.inner(x[0], y[:, 0]),
            mnp.outer(x, y[0]), mnp.kron(x[0], y[0]), mnp.cross(x, x * 2 - 1, axis=1), mnp.dot(x, y[:, 0]),
            mnp.matmul(x[0], y), mnp.norm(y, -np.inf, 1), mnp.norm(y, -1), mnp.norm(y[0], 3), mnp.trace(y, 1, 1, 0))


def more_signal(a, v):
    return (mnp.convolve(v, a), mnp.convolve(v, a, "same"), mnp.correlate(v, a, "same"), mnp.correlate(a, v, "same"),
            mnp.correlate(v, a, "full"), mnp.polyint(v, 2, 3.0), mnp.polyval(a, mnp.array([[0.5, -1.0]])),
            mnp.trapz(mnp.stack((a, a * 2)), mnp.arange(a.shape[0]) * 0.5))


def more_stats(x, w):
    # MindSpore's cov takes integer weights only.
    iw = mnp.array([1, 2, 1, 3])
    return (mnp.cov(x, aweights=iw), mnp.cov(x, ddof=0), mnp.cov(x, bias=True, fweights=iw * 2),
            mnp.corrcoef(x[0], x[1]), mnp.corrcoef(x, rowvar=False))


def more_hist(x):
    h, edges = mnp.histogramdd(x, bins=(2, 3, 2, 2), density=True)
    h2, ex, ey = mnp.histogram2d(x[:, 0], x[:, 1], bins=3, range=((-1, 1), (-2, 2)), weights=x[:, 2] + 2)
    hw, _ = mnp.histogram(x, 5, weights=x + 3)
    return h, edges[0], edges[1], edges[2], edges[3], h2, ex, ey, hw


def more_search(s, v):
    shuffled = mnp.take(s, mnp.array([2, 0, 3, 1]))
    return (mnp.searchsorted(shuffled, v, sorter=mnp.array([1, 3, 0, 2])), mnp.digitize(v, mnp.flip(s)),
            mnp.interp(v, s, s * s), mnp.interp(s, s, s),
            mnp.searchsorted(mnp.array([1.0, 1.0, 2.0]), mnp.array([1.0, 1.5]), "right"))


def more_elementwise(x, y):
    return (mnp.float_power(x, y), mnp.power(x, y), mnp.remainder(x, y), mnp.fmod(x, y), mnp.floor_divide(x, y),
            mnp.copysign(y, x), mnp.heaviside(x - 0.5, mnp.array(0.5)), mnp.clip(x, y, 1.0), mnp.maximum(x, y),
            mnp.positive(x), mnp.rint(x * 2.5))


def more_logic(x):
    z = mnp.zeros_like(x)
    return (mnp.isclose(x, x * (1 + 1e-6), rtol=0), mnp.isclose(x, z, atol=0.5), mnp.logical_and(x, z),
            mnp.logical_or(x, z), mnp.logical_not(x), mnp.sometrue(x, 0, keepdims=True), mnp.signbit(-x))


def more_join(x):
    return (*mnp.array_split(x, 2, 0), *mnp.split(x, [1, -1], 1), *mnp.dsplit(x[None], 2), mnp.repeat(x, [1, 2, 0], 0),
            mnp.tile(x[0], (2, 2)), mnp.pad(x, ((0, 1), (1, 1)), mode="edge"), mnp.append(x, x))


CASES = {
    "creation_consts": (creation_consts, [F4]),
    "creation_ranges": (creation_ranges, [F4]),
    "creation_like": (creation_like, [F2x3]),
    "creation_like_int": (creation_like, [I2x3]),
    "creation_tri": (creation_tri, [F3x4]),
    "creation_diag_vec": (creation_diag_vec, [F4]),
    "creation_array_of_tensors": (creation_array_of_tensors, [F4]),
    "creation_meshgrid": (creation_meshgrid, [F4]),
    "creation_vander": (creation_vander, [F4]),
    "ew_arith": (ew_arith, [F3x4, POS]),
    "ew_int_float": (ew_int_float, [I2x3, F2x3]),
    "ew_int_division": (ew_int_division, [I2x3, np.array([2, 3, -2], np.int32)]),
    "ew_unary": (ew_unary, [F3x4]),
    "ew_positive_only": (ew_positive_only, [POS]),
    "ew_unit": (ew_unit, [UNIT]),
    "ew_rounding": (ew_rounding, [F3x4]),
    "ew_int_unary": (ew_int_unary, [I2x3]),
    "ew_binary_more": (ew_binary_more, [F3x4, POS]),
    "ew_clip": (ew_clip, [F3x4]),
    "ew_int_bits": (ew_int_bits, [np.abs(I2x3), np.array([[6, 10, 15], [4, 25, 3]], np.int32)]),
    "ew_divmod": (ew_divmod, [F3x4, POS]),
    "red_float": (red_float, [F2x3x4]),
    "red_int": (red_int, [I2x3]),
    "red_bool": (red_bool, [B2x3]),
    "red_where": (red_where, [F3x4]),
    "red_nan": (red_nan, [NANS]),
    "red_average": (red_average, [F3x4, np.array([1.0, 2.0, 0.5, 0.25], np.float32)]),
    "red_diff": (red_diff, [F3x4]),
    "red_cum_axis_none": (red_cum_axis_none, [F3x4]),
    "sh_axes": (sh_axes, [F2x3x4]),
    "sh_flip_roll": (sh_flip_roll, [F3x4]),
    "sh_broadcast": (sh_broadcast, [F2x3x4[0, :, :1], F4]),
    "join_stack": (join_stack, [F2x3, F2x3 * 2]),
    "join_split": (join_split, [F3x4]),
    "join_tile_repeat": (join_tile_repeat, [F2x3]),
    "join_pad": (join_pad, [F2x3]),
    "join_pad_int": (join_pad, [I2x3]),
    "idx_take": (idx_take, [F3x4, np.array([[0, 2], [5, 11]], np.int32)]),
    "idx_where_select": (idx_where_select, [F3x4, F3x4 * -2]),
    "idx_unravel": (idx_unravel, [np.array([0, 5, 7, 11], np.int32)]),
    "logic_compare": (logic_compare, [F3x4, F3x4[::-1].copy()]),
    "logic_special": (logic_special, [np.array([0.5, -0.0, np.inf, -np.inf, np.nan, -2.0], np.float32)]),
    "logic_membership": (logic_membership, [I6]),
    "prod_dots": (prod_dots, [F2x3, F3x4]),
    "prod_cross": (prod_cross, [F2x3, F2x3[::-1].copy()]),
    "prod_norms": (prod_norms, [F3x4]),
    "prod_signal": (prod_signal, [F4 * 2, np.array([0.5, -1.0, 2.0], np.float32)]),
    "prod_stats": (prod_stats, [F3x4]),
    "prod_poly": (prod_poly, [np.array([1.0, -2.0, 3.0], np.float32), np.array([2.0, 0.5, 0.0, 1.0], np.float32)]),
    "stat_hist": (stat_hist, [F3x4]),
    "stat_hist2d": (stat_hist2d, [F4, F4[::-1].copy()]),
    "stat_search": (stat_search, [np.array([-1.0, 0.0, 0.5, 2.0], np.float32), F3x4]),
    "stat_bincount": (stat_bincount, [I6]),
    "misc_windows": (misc_windows, [F4]),
    "misc_indices": (misc_indices, [F3x3]),
    "apply_funcs": (apply_funcs, [F2x3]),
    "more_creation": (more_creation, [F4[:2].reshape(2, 1)]),
    "more_grids": (more_grids, [F4]),
    "grid_complex_step": (grid_complex_step, [F4]),
    "more_shapes": (more_shapes, [F2x3x4]),
    "more_reductions": (more_reductions, [F3x4]),
    "more_average": (more_average, [F3x4, np.array([1.0, 2.0, 0.5, 0.25], np.float32)]),
    "more_indexing": (more_indexing, [F3x4, np.array([0, 2, 1, 5], np.int32)]),
    "more_products": (more_products, [F2x3, F3x4]),
    "more_signal": (more_signal, [np.array([1.0, -2.0, 0.5], np.float32), F4 * 3]),
    "more_stats": (more_stats, [F3x4, np.array([0.5, 1.0, 2.0, 1.0], np.float32)]),
    "more_hist": (more_hist, [F3x4 + F3x4[::-1]]),
    "more_search": (more_search, [np.array([-1.0, 0.0, 0.5, 2.0], np.float32), F3x4]),
    "more_elementwise": (more_elementwise, [POS, F3x4]),
    "more_logic": (more_logic, [F3x4]),
    "more_join": (more_join, [F3x4]),
}

# Whose output length depends on the values (PyNative only, in both frameworks).
PYNATIVE_ONLY = {"stat_bincount", "grid_complex_step"}  # and a complex slice step MindSpore's graph refuses


def outputs(result) -> list[np.ndarray]:
    """The arrays of a program's result (a tensor, a number, or a tuple/list of them)."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [np.asarray(r.asnumpy() if hasattr(r, "asnumpy") else r) for r in items]
