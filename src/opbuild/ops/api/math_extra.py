"""More ``mindspore.ops`` math functions: ``ldexp``, ``copysign``, ``kron``, ``cross``, ``cdist``, ``pdist``,
``dist``, ``cov``, ``mv``, ``ger``, ``diag_embed``, ``diagflat``, ``matrix_band_part``, ``logcumsumexp``,
``polar``, ``inv``, ``msort``, ``median``, ``trapz``, ``gcd``/``lcm``, ``population_count``,
``reverse_sequence`` and the ``*_scatter`` embeddings.

Each composes registered primitives (masks and index tensors are constants of the static shapes), so they
trace and differentiate like their parts.
"""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from .base import binary, promote
from .math_more import cumsum, sort


def _c(value, like: Tensor) -> Tensor:
    return Tensor(np.asarray(value, like.dtype.np_dtype))


def _float(x: Tensor) -> Tensor:
    return x if x.dtype.is_float or x.dtype.is_complex else apply("Cast", {"dtype": "float32"}, [x])


def _axis(ax: int, nd: int, name: str) -> int:
    a = ax + nd if ax < 0 else ax
    if not 0 <= a < max(nd, 1):
        raise ValueError(f"{name}: axis {ax} is out of range for a {nd}-D input")
    return a


def ldexp(x, other) -> Tensor:
    """``ops.ldexp(x, other)``: ``x * 2 ** other``."""
    a = as_tensor(x)
    e = _float(as_tensor(other))
    return binary("Mul", a, apply("Pow", {}, [_c(2.0, e), e]))


def copysign(x, other) -> Tensor:
    """``ops.copysign(x, other)``: ``|x|`` with the sign of ``other`` (integers computed as float32)."""
    a = _float(as_tensor(x))
    o = as_tensor(other, a) if not isinstance(other, Tensor) else other
    mag = apply("Abs", {}, [a])
    neg = binary("Less", o, 0)
    shape = np.broadcast_shapes(tuple(neg.shape), tuple(mag.shape))
    neg = neg if tuple(neg.shape) == shape else apply("BroadcastTo", {"shape": shape}, [neg])
    mag = mag if tuple(mag.shape) == shape else apply("BroadcastTo", {"shape": shape}, [mag])
    return apply("Select", {}, [neg, apply("Neg", {}, [mag]), mag])


def kron(input, other) -> Tensor:  # noqa: A002
    """``ops.kron(input, other)``: the Kronecker product."""
    a, b = promote(input, other)
    nd = max(a.ndim, b.ndim)
    sa, sb = (1,) * (nd - a.ndim) + tuple(a.shape), (1,) * (nd - b.ndim) + tuple(b.shape)
    ai = apply("Reshape", {"shape": tuple(d for s in sa for d in (s, 1))}, [a])
    bi = apply("Reshape", {"shape": tuple(d for s in sb for d in (1, s))}, [b])
    # Of two bool tensors the products are ands (MindSpore 2.10 takes them, recorded; Mul has no bool kernel).
    prod = apply("LogicalAnd" if a.dtype.name == "bool" else "Mul", {}, [ai, bi])
    return apply("Reshape", {"shape": tuple(x * y for x, y in zip(sa, sb, strict=True))}, [prod])


def cross(input, other, dim: int | None = None) -> Tensor:  # noqa: A002
    """``ops.cross(input, other, dim=None)``: the 3-vector cross product along ``dim`` (None: the first axis
    of size 3)."""
    a, b = promote(input, other)
    if dim is None:
        dim = next((i for i, s in enumerate(a.shape) if s == 3), None)
        if dim is None:
            raise ValueError(f"cross: no dimension of size 3 in shape {tuple(a.shape)}")
    d = _axis(dim, a.ndim, "cross")
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise ValueError(f"cross: dimension {dim} must have size 3, got {a.shape[d]} and {b.shape[d]}")

    def comp(t, i):
        key = [slice(None)] * t.ndim
        key[d] = slice(i, i + 1)
        return t[tuple(key)]

    parts = [apply("Sub", {}, [apply("Mul", {}, [comp(a, j), comp(b, k)]), apply("Mul", {}, [comp(a, k), comp(b, j)])])
             for j, k in ((1, 2), (2, 0), (0, 1))]
    return apply("Concat", {"axis": d}, parts)


def _pnorm(diff: Tensor, p: float, axis: int) -> Tensor:
    ab = apply("Abs", {}, [diff])
    if p == 0:
        return apply("ReduceSum", {"axis": (axis,), "keep_dims": False},
                     [apply("Cast", {"dtype": ab.dtype.name}, [apply("NotEqual", {}, [ab, _c(0, ab)])])])
    if np.isinf(p):
        return apply("ReduceMax", {"axis": (axis,), "keep_dims": False}, [ab])
    if p == 2:
        # sqrt of a sum of squares: the gradient at 0 distance is taken as 0, as MindSpore does
        s = apply("ReduceSum", {"axis": (axis,), "keep_dims": False}, [apply("Square", {}, [ab])])
        return apply("Sqrt", {}, [s])
    s = apply("ReduceSum", {"axis": (axis,), "keep_dims": False}, [apply("Pow", {}, [ab, _c(p, ab)])])
    return apply("Pow", {}, [s, _c(1.0 / p, s)])


def cdist(x1, x2, p: float = 2.0) -> Tensor:
    """``ops.cdist(x1, x2, p=2.0)``: the p-norm distance between each row of ``x1`` (B, P, M) and of ``x2``
    (B, R, M), shape (B, P, R)."""
    a, b = as_tensor(x1), as_tensor(x2)
    if a.ndim not in (2, 3) or a.ndim != b.ndim or a.shape[-1] != b.shape[-1]:
        raise ValueError(f"cdist: x1 and x2 must be 2-D or 3-D with the same last dimension, got "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    diff = apply("Sub", {}, [apply("ExpandDims", {"axis": a.ndim - 1}, [a]),
                             apply("ExpandDims", {"axis": a.ndim - 2}, [b])])
    return _pnorm(diff, float(p), diff.ndim - 1)


def pdist(input, p: float = 2.0) -> Tensor:  # noqa: A002
    """``ops.pdist(input, p=2.0)``: the p-norm distances between the rows of an (N, M) tensor, for each pair
    i < j in row-major order (the upper triangle of ``cdist(input, input)``)."""
    x = as_tensor(input)
    if x.ndim != 2:
        raise ValueError(f"pdist: input must be 2-D, got {x.ndim}-D")
    i, j = np.triu_indices(x.shape[0], 1)
    xi = apply("Gather", {"axis": 0}, [x, Tensor(i.astype(np.int64))])
    xj = apply("Gather", {"axis": 0}, [x, Tensor(j.astype(np.int64))])
    return _pnorm(apply("Sub", {}, [xi, xj]), float(p), 1)


def dist(input, other, p: float = 2) -> Tensor:  # noqa: A002
    """``ops.dist(input, other, p=2)``: the p-norm of ``input - other`` (a 0-D tensor)."""
    d = binary("Sub", input, other)
    return _pnorm(apply("Reshape", {"shape": (-1,)}, [d]), float(p), 0)


def cov(input, *, correction: int = 1, fweights=None, aweights=None) -> Tensor:  # noqa: A002
    """``ops.cov(input, *, correction=1, fweights=None, aweights=None)``: the covariance matrix of the
    variables in the rows of ``input`` (observations in columns)."""
    x = _float(as_tensor(input))
    if x.ndim > 2:
        raise ValueError(f"cov: input must be at most 2-D, got {x.ndim}-D")
    if x.ndim < 2:
        x = apply("Reshape", {"shape": (1, -1)}, [x])
    n = x.shape[1]
    w = None
    for wt in (fweights, aweights):
        if wt is not None:
            t = apply("Cast", {"dtype": x.dtype.name}, [as_tensor(wt)])
            w = t if w is None else apply("Mul", {}, [w, t])
    if w is None:
        w = Tensor(np.ones(n, x.dtype.np_dtype))
    wsum = apply("ReduceSum", {"axis": (0,), "keep_dims": False}, [w])
    mean = apply("RealDiv", {}, [apply("ReduceSum", {"axis": (1,), "keep_dims": True}, [apply("Mul", {}, [x, w])]),
                                 wsum])
    xc = apply("Sub", {}, [x, mean])
    if aweights is None:
        norm = apply("Sub", {}, [wsum, _c(correction, wsum)])
    else:
        aw = apply("Cast", {"dtype": x.dtype.name}, [as_tensor(aweights)])
        waw = apply("ReduceSum", {"axis": (0,), "keep_dims": False}, [apply("Mul", {}, [w, aw])])
        corr = apply("RealDiv", {}, [waw, wsum])
        norm = apply("Sub", {}, [wsum, apply("Mul", {}, [corr, _c(correction, wsum)])])
    prod = apply("MatMul", {"transpose_b": True}, [apply("Mul", {}, [xc, w]), xc])
    out = apply("RealDiv", {}, [prod, apply("Maximum", {}, [norm, _c(0, norm)])])
    return apply("Reshape", {"shape": ()}, [out]) if as_tensor(input).ndim < 2 else out


def mv(mat, vec) -> Tensor:
    """``ops.mv(mat, vec)``: the product of an (N, M) matrix and an (M,) vector."""
    m, v = as_tensor(mat), as_tensor(vec)
    if m.ndim != 2 or v.ndim != 1:
        raise ValueError(f"mv: mat must be 2-D and vec 1-D, got {m.ndim}-D and {v.ndim}-D")
    return apply("Reshape", {"shape": (-1,)}, [apply("MatMul", {}, [m, apply("Reshape", {"shape": (-1, 1)}, [v])])])


def ger(input, vec2) -> Tensor:  # noqa: A002
    """``ops.ger(input, vec2)``: the outer product of two 1-D tensors."""
    a, b = promote(input, vec2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"ger: both inputs must be 1-D, got {a.ndim}-D and {b.ndim}-D")
    return apply("Mul", {}, [apply("Reshape", {"shape": (-1, 1)}, [a]), apply("Reshape", {"shape": (1, -1)}, [b])])


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: A002
    """``ops.diag_embed(input, offset=0, dim1=-2, dim2=-1)``: matrices (in dims ``dim1``, ``dim2`` of the
    result) whose ``offset`` diagonal holds the last dimension of ``input``."""
    x = as_tensor(input)
    n = x.shape[-1] + abs(offset)
    nd = x.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise ValueError("diag_embed: dim1 and dim2 must differ")
    rows = np.arange(x.shape[-1]) + max(-offset, 0)
    cols = np.arange(x.shape[-1]) + max(offset, 0)
    sel = np.zeros((x.shape[-1], n, n), x.dtype.np_dtype)
    sel[np.arange(x.shape[-1]), rows, cols] = 1
    # (..., k) x (k, n*n) -> (..., n, n), then move the two matrix axes to dim1/dim2
    flat = apply("Reshape", {"shape": (-1, x.shape[-1])}, [x])
    mats = apply("Reshape", {"shape": (*x.shape[:-1], n, n)},
                 [apply("MatMul", {}, [flat, Tensor(sel.reshape(x.shape[-1], n * n))])]) if x.dtype.is_float else \
        apply("Reshape", {"shape": (*x.shape[:-1], n, n)},
              [apply("ReduceSum", {"axis": (1,), "keep_dims": False},
                     [apply("Mul", {}, [apply("Reshape", {"shape": (-1, x.shape[-1], 1)}, [flat]),
                                        Tensor(sel.reshape(1, x.shape[-1], n * n))])])])
    lo, hi = sorted((d1, d2))
    perm = list(range(nd - 2))
    perm.insert(lo, nd - 2 if d1 < d2 else nd - 1)
    perm.insert(hi, nd - 1 if d1 < d2 else nd - 2)
    return mats if perm == list(range(nd)) else apply("Transpose", {"perm": tuple(perm)}, [mats])


def diagflat(input, offset: int = 0) -> Tensor:  # noqa: A002
    """``ops.diagflat(input, offset=0)``: a 2-D tensor with the flattened input on its ``offset`` diagonal."""
    return diag_embed(apply("Reshape", {"shape": (-1,)}, [as_tensor(input)]), offset)


def matrix_band_part(x, lower, upper) -> Tensor:
    """``ops.matrix_band_part(x, lower, upper)``: zero every element of the last two dims outside the band of
    ``lower`` sub- and ``upper`` super-diagonals (negative: keep the whole triangle)."""
    t = as_tensor(x)
    lo = int(lower.asnumpy()) if isinstance(lower, Tensor) else int(lower)
    up = int(upper.asnumpy()) if isinstance(upper, Tensor) else int(upper)
    m, n = t.shape[-2], t.shape[-1]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lo < 0) | (i - j <= lo)) & ((up < 0) | (j - i <= up))
    return apply("Mul", {}, [t, Tensor(keep.astype(t.dtype.np_dtype))])


def logcumsumexp(input, axis: int) -> Tensor:  # noqa: A002
    """``ops.logcumsumexp(input, axis)``: ``log(cumsum(exp(input), axis))``, computed stably (shifted by the
    maximum along ``axis``)."""
    x = as_tensor(input)
    if not x.dtype.is_float:
        raise TypeError(f"logcumsumexp: input must be a float tensor, got {x.dtype}")
    m = apply("ReduceMax", {"axis": (axis,), "keep_dims": True}, [x])
    m = apply("Select", {}, [apply("IsFinite", {}, [m]), m, apply("ZerosLike", {}, [m])])
    return apply("Add", {}, [apply("Log", {}, [cumsum(apply("Exp", {}, [apply("Sub", {}, [x, m])]), axis)]), m])


def polar(abs, angle) -> Tensor:  # noqa: A002 - MindSpore's argument names
    """``ops.polar(abs, angle)``: the complex tensor ``abs * (cos(angle) + i sin(angle))``."""
    r, a = promote(abs, angle)
    return apply("Complex", {}, [apply("Mul", {}, [r, apply("Cos", {}, [a])]),
                                 apply("Mul", {}, [r, apply("Sin", {}, [a])])])


def inv(x) -> Tensor:
    """``ops.inv(x)``: the elementwise reciprocal ``1 / x``. As MindSpore 2.10's, an int16/int32/int64 tensor
    keeps its dtype (1 / x truncated toward zero; 1 / 0 gives what MindSpore's CPU gives: 0 for int16, the
    dtype's smallest value for int32/int64); bool, int8 and uint8 tensors are refused, as there."""
    t = as_tensor(x)
    dt = t.dtype
    if dt.name in ("int16", "int32", "int64"):
        # 1 / x truncated is x for x = +-1 and 0 for |x| > 1
        unit = apply("LessEqual", {}, [apply("Abs", {}, [t]), np.asarray(1, dt.np_dtype)])
        zero = apply("Equal", {}, [t, np.asarray(0, dt.np_dtype)])
        # 1 / 0 is undefined; MindSpore's CPU gives 0 for int16 and the smallest value for int32/int64
        low = np.asarray(0 if dt.name == "int16" else np.iinfo(dt.np_dtype).min, dt.np_dtype)
        zeros = apply("ZerosLike", {}, [t])
        out = apply("Select", {}, [unit, t, zeros])
        return apply("Select", {}, [zero, apply("Add", {}, [zeros, low]), out])
    if not (dt.is_float or dt.is_complex):
        raise TypeError(f"inv: dtype {dt.name} is not supported (a float or complex tensor, int16, int32 or int64; "
                        "cast it first)")
    return apply("Reciprocal", {}, [t])


def msort(input) -> Tensor:  # noqa: A002
    """``ops.msort(input)``: ``input`` sorted in ascending order along its first axis."""
    return sort(input, axis=0)[0]


def median(input, axis: int = -1, keepdims: bool = False) -> tuple[Tensor, Tensor]:  # noqa: A002
    """``ops.median(input, axis=-1, keepdims=False)``: the lower median along ``axis`` and its index. A lane
    holding a NaN has the median NaN at the index of its first NaN (MindSpore's and torch's answer)."""
    x = as_tensor(input)
    ax = _axis(axis, x.ndim, "median")
    vals, idx = sort(x, axis=ax)
    k = (x.shape[ax] - 1) // 2 if x.ndim else 0
    key = [slice(None)] * x.ndim
    key[ax] = slice(k, k + 1)
    v, i = vals[tuple(key)], idx[tuple(key)]
    i = apply("Cast", {"dtype": "int64"}, [i]) if i.dtype.name != "int64" else i
    if x.ndim and x.dtype.is_float:
        # sort puts NaNs last, so the middle element of a lane with a NaN is a number: NaN is the answer.
        # ReduceMax of such a lane is NaN, and ArgMax finds its first NaN.
        top = apply("ReduceMax", {"axis": (ax,), "keep_dims": True}, [x])
        first = apply("ExpandDims", {"axis": ax}, [apply("ArgMax", {"axis": ax, "output_type": "int64"}, [x])])
        nan = apply("IsNan", {}, [top])
        v, i = apply("Select", {}, [nan, top, v]), apply("Select", {}, [nan, first, i])
    if not keepdims:
        v, i = apply("Squeeze", {"axis": (ax,)}, [v]), apply("Squeeze", {"axis": (ax,)}, [i])
    return v, i


def trapz(y, x=None, *, dx: float = 1.0, dim: int = -1) -> Tensor:
    """``ops.trapz(y, x=None, *, dx=1.0, dim=-1)``: the trapezoidal-rule integral of ``y`` along ``dim``, at
    points ``x`` (or spacing ``dx``)."""
    yt = _float(as_tensor(y))
    d = _axis(dim, yt.ndim, "trapz")
    n = yt.shape[d]

    def part(t, lo, hi):
        key = [slice(None)] * t.ndim
        key[d if t.ndim == yt.ndim else -1] = slice(lo, hi)
        return t[tuple(key)]

    avg = apply("Mul", {}, [apply("Add", {}, [part(yt, 1, n), part(yt, 0, n - 1)]), _c(0.5, yt)])
    if x is None:
        return apply("Mul", {}, [apply("ReduceSum", {"axis": (d,), "keep_dims": False}, [avg]), _c(dx, yt)])
    xt = apply("Cast", {"dtype": yt.dtype.name}, [as_tensor(x)])
    dxs = apply("Sub", {}, [part(xt, 1, n), part(xt, 0, n - 1)])
    if xt.ndim == 1 and yt.ndim > 1:
        shape = [1] * yt.ndim
        shape[d] = n - 1
        dxs = apply("Reshape", {"shape": tuple(shape)}, [dxs])
    return apply("ReduceSum", {"axis": (d,), "keep_dims": False}, [apply("Mul", {}, [avg, dxs])])


def _int_pair(name: str, a, b) -> tuple[Tensor, Tensor]:
    x, y = promote(a, b)
    if x.dtype.is_float or x.dtype.is_complex or x.dtype.name == "bool":
        raise TypeError(f"{name}: inputs must be integer tensors, got {x.dtype}")
    shape = np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    return tuple(t if tuple(t.shape) == shape else apply("BroadcastTo", {"shape": shape}, [t]) for t in (x, y))


def gcd(input, other) -> Tensor:  # noqa: A002
    """``ops.gcd(input, other)``: the elementwise greatest common divisor (non-negative) of integer tensors."""
    a, b = _int_pair("gcd", input, other)
    a, b = apply("Abs", {}, [a]), apply("Abs", {}, [b])
    zero, one = _c(0, a), _c(1, a)
    # Euclid's steps, a fixed number of them: enough for every value of the dtype (Fibonacci worst case)
    for _ in range(8 * a.dtype.np_dtype.itemsize * 2):
        bz = apply("Equal", {}, [b, zero])
        r = apply("FloorMod", {}, [a, apply("Select", {}, [bz, apply("BroadcastTo", {"shape": tuple(b.shape)}, [one]),
                                                            b])])
        a, b = apply("Select", {}, [bz, a, b]), apply("Select", {}, [bz, b, r])
    return a


def lcm(input, other) -> Tensor:  # noqa: A002
    """``ops.lcm(input, other)``: the elementwise least common multiple (0 if either is 0)."""
    a, b = _int_pair("lcm", input, other)
    g = gcd(a, b)
    gz = apply("Equal", {}, [g, _c(0, g)])
    safe = apply("Select", {}, [gz, apply("OnesLike", {}, [g]), g])
    return apply("Abs", {}, [apply("Mul", {}, [apply("FloorDiv", {}, [a, safe]), b])])


def population_count(input_x) -> Tensor:
    """``ops.population_count(input_x)``: the number of set bits of each element (uint8; int16/uint16/int8/
    uint8/int32/int64 inputs)."""
    x = as_tensor(input_x)
    if x.dtype.is_float or x.dtype.is_complex or x.dtype.name == "bool":
        raise TypeError(f"population_count: input_x must be an integer tensor, got {x.dtype}")
    bits = 8 * x.dtype.np_dtype.itemsize
    # Sign extension to int64 keeps the low ``bits`` bits of the two's complement, and BitwiseAnd after a
    # shift reads them one by one.
    u = apply("Cast", {"dtype": "int64"}, [x])
    total = None
    one = _c(1, u)
    for i in range(bits):
        bit = apply("BitwiseAnd", {}, [apply("RightShift", {}, [u, _c(i, u)]), one])
        total = bit if total is None else apply("Add", {}, [total, bit])
    return apply("Cast", {"dtype": "uint8"}, [total])


def reverse_sequence(x, seq_lengths, seq_dim: int, batch_dim: int = 0) -> Tensor:
    """``ops.reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0)``: reverse the first ``seq_lengths[b]``
    elements along ``seq_dim`` of each batch entry ``b`` (along ``batch_dim``)."""
    t = as_tensor(x)
    sd, bd = _axis(seq_dim, t.ndim, "reverse_sequence"), _axis(batch_dim, t.ndim, "reverse_sequence")
    if sd == bd:
        raise ValueError("reverse_sequence: seq_dim and batch_dim must differ")
    lens = apply("Cast", {"dtype": "int64"}, [as_tensor(seq_lengths)])
    shape_l = [1] * t.ndim
    shape_l[bd] = t.shape[bd]
    shape_j = [1] * t.ndim
    shape_j[sd] = t.shape[sd]
    ln = apply("Reshape", {"shape": tuple(shape_l)}, [lens])
    j = Tensor(np.arange(t.shape[sd], dtype=np.int64).reshape(shape_j))
    rev = apply("Sub", {}, [apply("Sub", {}, [ln, _c(1, ln)]), j])
    idx = apply("Select", {}, [apply("Less", {}, [apply("BroadcastTo", {"shape": tuple(t.shape)}, [j]),
                                                  apply("BroadcastTo", {"shape": tuple(t.shape)}, [ln])]),
                               apply("BroadcastTo", {"shape": tuple(t.shape)}, [rev]),
                               apply("BroadcastTo", {"shape": tuple(t.shape)}, [j])])
    return apply("GatherD", {"dim": sd}, [t, idx])


def _embed(name: str, input, src, key) -> Tensor:  # noqa: A002
    """``input`` with the region ``key`` replaced by ``src`` (a mask select; gradients reach both)."""
    x = as_tensor(input)
    s = as_tensor(src)
    if s.dtype != x.dtype:
        s = apply("Cast", {"dtype": x.dtype.name}, [s])
    pos = np.arange(int(np.prod(x.shape)), dtype=np.int64).reshape(x.shape)[key]
    if pos.shape != tuple(s.shape):
        raise ValueError(f"{name}: src must have shape {pos.shape}, got {tuple(s.shape)}")
    mask = np.zeros(int(np.prod(x.shape)), bool)
    mask[pos.reshape(-1)] = True
    # where each position of x takes its value from in src (0 where masked off)
    where = np.zeros(int(np.prod(x.shape)), np.int64)
    where[pos.reshape(-1)] = np.arange(pos.size)
    spread = apply("Reshape", {"shape": tuple(x.shape)},
                   [apply("Gather", {"axis": 0}, [apply("Reshape", {"shape": (-1,)}, [s]), Tensor(where)])])
    return apply("Select", {}, [Tensor(mask.reshape(x.shape)), spread, x])


def slice_scatter(input, src, axis: int = 0, start=None, end=None, step: int = 1) -> Tensor:  # noqa: A002
    """``ops.slice_scatter(input, src, axis=0, start=None, end=None, step=1)``: ``input`` with
    ``input[..., start:end:step, ...]`` (along ``axis``) replaced by ``src``."""
    x = as_tensor(input)
    key = [slice(None)] * x.ndim
    key[_axis(axis, x.ndim, "slice_scatter")] = slice(start, end, step)
    return _embed("slice_scatter", x, src, tuple(key))


def select_scatter(input, src, axis: int, index: int) -> Tensor:  # noqa: A002
    """``ops.select_scatter(input, src, axis, index)``: ``input`` with the slice at ``index`` along ``axis``
    replaced by ``src``."""
    x = as_tensor(input)
    key = [slice(None)] * x.ndim
    key[_axis(axis, x.ndim, "select_scatter")] = int(index)
    return _embed("select_scatter", x, src, tuple(key))


def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """``ops.diagonal_scatter(input, src, offset=0, dim1=0, dim2=1)``: ``input`` with its ``offset`` diagonal
    over ``dim1``/``dim2`` replaced by ``src`` (shaped like ``ops.diagonal``'s result)."""
    x = as_tensor(input)
    pos = np.arange(int(np.prod(x.shape)), dtype=np.int64).reshape(x.shape)
    diag = np.diagonal(pos, offset, dim1, dim2)
    s = as_tensor(src)
    if diag.shape != tuple(s.shape):
        raise ValueError(f"diagonal_scatter: src must have shape {diag.shape}, got {tuple(s.shape)}")
    flat_key = np.zeros(pos.size, bool)
    flat_key[diag.reshape(-1)] = True
    mask = flat_key.reshape(x.shape)
    where = np.zeros(pos.size, np.int64)
    where[diag.reshape(-1)] = np.arange(diag.size)
    s = s if s.dtype == x.dtype else apply("Cast", {"dtype": x.dtype.name}, [s])
    spread = apply("Reshape", {"shape": tuple(x.shape)},
                   [apply("Gather", {"axis": 0}, [apply("Reshape", {"shape": (-1,)}, [s]), Tensor(where)])])
    return apply("Select", {}, [Tensor(mask), spread, x])


__all__ = ["ldexp", "copysign", "kron", "cross", "cdist", "pdist", "dist", "cov", "mv", "ger", "diag_embed",
           "diagflat", "matrix_band_part", "logcumsumexp", "polar", "inv", "msort", "median", "trapz", "gcd", "lcm",
           "population_count", "reverse_sequence", "slice_scatter", "select_scatter", "diagonal_scatter"]
