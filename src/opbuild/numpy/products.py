"""``mindspore.numpy`` products and linear algebra: dot/matmul/inner/outer/kron/cross/tensordot/multi_dot,
norm and trace, trapz, 1-d convolution and correlation, covariance and correlation coefficients, and the
poly* functions. Compositions of opbuild's ops (traceable)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops as F
from ..core.tensor import Tensor
from ._utils import as_float, binary, cast_out, norm_axes, norm_axis, promote, to_tensor

__all__ = ["dot", "matmul", "inner", "outer", "kron", "cross", "tensordot", "multi_dot", "norm", "trace", "trapz",
           "convolve", "correlate", "cov", "corrcoef", "polyadd", "polysub", "polymul", "polyder", "polyint",
           "polyval"]


def tensordot(a: Any, b: Any, axes: Any = 2) -> Tensor:
    """``mindspore.numpy.tensordot``: the sum of products over ``axes`` (an int: the last ``axes`` of ``a``
    with the first of ``b``; or a pair of axis lists)."""
    x, y = binary(a, b)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        ax_a, ax_b = list(range(x.ndim - n, x.ndim)), list(range(n))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, int) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, int) else list(ax_b)
    ax_a = [norm_axis(i, x.ndim) for i in ax_a]
    ax_b = [norm_axis(i, y.ndim) for i in ax_b]
    if [x.shape[i] for i in ax_a] != [y.shape[i] for i in ax_b]:
        raise ValueError(f"tensordot: the summed axes differ in length: {x.shape} {ax_a} and {y.shape} {ax_b}")
    keep_a = [i for i in range(x.ndim) if i not in ax_a]
    keep_b = [i for i in range(y.ndim) if i not in ax_b]
    k = int(np.prod([x.shape[i] for i in ax_a], dtype=np.int64))
    xa = F.reshape(F.transpose(x, tuple(keep_a + ax_a)), (-1, k))
    yb = F.reshape(F.transpose(y, tuple(ax_b + keep_b)), (k, -1))
    out = F.matmul(xa, yb)
    return F.reshape(out, tuple(x.shape[i] for i in keep_a) + tuple(y.shape[i] for i in keep_b))


def dot(a: Any, b: Any) -> Tensor:
    """``mindspore.numpy.dot``: the product summing the last axis of ``a`` with the second-to-last of ``b``
    (its only axis when 1-d); a scalar operand multiplies."""
    x, y = binary(a, b)
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return tensordot(x, y, ([x.ndim - 1], [0 if y.ndim == 1 else y.ndim - 2]))


def matmul(x1: Any, x2: Any, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.matmul``: the matrix product over the last two axes, the others broadcast (a 1-d
    operand is a vector)."""
    a, b = binary(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: scalar operands are not allowed; use multiply")
    return cast_out(F.matmul(a, b), dtype)


def inner(a: Any, b: Any) -> Tensor:
    """``mindspore.numpy.inner``: the sum of products over the last axes of both."""
    x, y = binary(a, b)
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    return tensordot(x, y, ([x.ndim - 1], [y.ndim - 1]))


def outer(a: Any, b: Any) -> Tensor:
    """``mindspore.numpy.outer``: ``a[i] * b[j]`` of the flattened inputs."""
    x, y = binary(a, b)
    return F.reshape(x, (-1, 1)) * F.reshape(y, (1, -1))


def kron(a: Any, b: Any) -> Tensor:
    """``mindspore.numpy.kron``: the Kronecker product."""
    x, y = binary(a, b)
    nd = x.ndim if x.ndim > y.ndim else y.ndim
    x = F.reshape(x, (1,) * (nd - x.ndim) + x.shape)
    y = F.reshape(y, (1,) * (nd - y.ndim) + y.shape)
    # Interleave the axes: x's axis i before y's axis i, then merge each pair.
    xe = F.reshape(x, tuple(v for s in x.shape for v in (s, 1)))
    ye = F.reshape(y, tuple(v for s in y.shape for v in (1, s)))
    return F.reshape(xe * ye, tuple(p * q for p, q in zip(x.shape, y.shape)))


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None) -> Tensor:
    """``mindspore.numpy.cross``: the cross product of 3-vectors (or 2-vectors, z taken as 0) along ``axisa``/
    ``axisb``, placed along ``axisc`` (``axis`` sets all three)."""
    x, y = binary(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    x = F.moveaxis(x, norm_axis(axisa, x.ndim), -1)
    y = F.moveaxis(y, norm_axis(axisb, y.ndim), -1)
    if x.shape[-1] not in (2, 3) or y.shape[-1] not in (2, 3):
        raise ValueError("cross: the vector axes must have length 2 or 3")

    def comps(t: Tensor) -> list[Tensor]:
        cs = [F.squeeze(F.narrow(t, -1, i, 1), -1) for i in range(t.shape[-1])]
        return cs + [F.zeros_like(cs[0])] if len(cs) == 2 else cs

    (a0, a1, a2), (b0, b1, b2) = comps(x), comps(y)
    z = a0 * b1 - a1 * b0
    if x.shape[-1] == 2 and y.shape[-1] == 2:
        return z
    out = F.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, z], -1)
    return F.moveaxis(out, -1, norm_axis(axisc, out.ndim))


def multi_dot(arrays: Any) -> Tensor:
    """``mindspore.numpy.multi_dot``: the product of a chain of matrices, multiplied in the cheapest order (the
    first may be 1-d, a row; the last 1-d, a column)."""
    ts = promote(*[to_tensor(a) for a in arrays])
    if len(ts) < 2:
        raise ValueError("multi_dot needs at least two arrays")
    first_1d, last_1d = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_1d:
        ts[0] = F.reshape(ts[0], (1, -1))
    if last_1d:
        ts[-1] = F.reshape(ts[-1], (-1, 1))
    dims = [t.shape[0] for t in ts] + [ts[-1].shape[1]]
    n = len(ts)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def chain(i: int, j: int) -> Tensor:
        return ts[i] if i == j else F.matmul(chain(i, split[i][j]), chain(split[i][j] + 1, j))

    out = chain(0, n - 1)
    if first_1d:
        out = F.squeeze(out, 0)
    if last_1d:
        out = F.squeeze(out, -1)
    return out


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A002
    """``mindspore.numpy.norm``: the vector norm (an int axis or 1-d input) or matrix norm (two axes);
    the 2-norm of the flattened input for ``axis=None``."""
    t = as_float(to_tensor(x))
    if axis is None and ord is None:
        out = F.sqrt(F.sum(F.square(t), tuple(range(t.ndim)), keepdims)) if t.ndim else F.abs(t)
        return out
    if axis is None:
        axis = tuple(range(t.ndim))
    axes = norm_axes(axis, t.ndim) if isinstance(axis, int) else tuple(norm_axis(a, t.ndim) for a in axis)
    if len(axes) == 2 and ord in (1, -1, np.inf, -np.inf):
        return _matrix_norm(t, ord, axes, keepdims)
    return F.norm(t, ord, axes if len(axes) > 1 else axes[0], keepdims)


def _matrix_norm(t: Tensor, ord: Any, axes: tuple[int, int], keepdims: bool) -> Tensor:  # noqa: A002
    """The induced 1-norm (largest column sum of |t|) and inf-norm (largest row sum), and their -1/-inf
    (smallest) counterparts, over the matrix axes ``axes`` (rows, columns)."""
    rows, cols = axes
    summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
    sums = F.sum(F.abs(t), summed, True)
    out = F.amax(sums, over, True) if ord in (1, np.inf) else F.amin(sums, over, True)
    if not keepdims:
        out = F.reshape(out, tuple(s for i, s in enumerate(out.shape) if i not in axes))
    return out


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.trace``: the sum of diagonal ``offset`` of the ``axis1``/``axis2`` planes."""
    t = to_tensor(a)
    d = F.diagonal(t, offset, norm_axis(axis1, t.ndim), norm_axis(axis2, t.ndim))
    return cast_out(F.sum(d, -1), dtype)


def trapz(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Tensor:
    """``mindspore.numpy.trapz``: the integral of ``y`` along ``axis`` by the trapezoidal rule (sample points
    ``x``, or spacing ``dx``)."""
    t = as_float(to_tensor(y))
    ax = norm_axis(axis, t.ndim)
    n = t.shape[ax]
    mids = (F.narrow(t, ax, 1, n - 1) + F.narrow(t, ax, 0, n - 1)) * 0.5
    if x is None:
        return F.sum(mids, ax) * float(dx)
    xs = as_float(to_tensor(x))
    if xs.ndim == 1:
        shape = [1] * t.ndim
        shape[ax] = xs.shape[0]
        xs = F.reshape(xs, tuple(shape))
        xax = ax
    else:
        xax = ax
    d = F.narrow(xs, xax, 1, xs.shape[xax] - 1) - F.narrow(xs, xax, 0, xs.shape[xax] - 1)
    return F.sum(mids * d, ax)


def _conv1d(a: Tensor, v: Tensor, mode: str) -> Tensor:
    """The convolution of ``a`` with the not longer ``v``."""
    n, m = a.shape[0], v.shape[0]
    if mode == "full":
        lo, count = -(m - 1), n + m - 1
    elif mode == "same":
        lo, count = -(m - 1) + (m - 1) // 2, n
    elif mode == "valid":
        lo, count = 0, n - m + 1
    else:
        raise ValueError(f"mode must be 'full', 'same' or 'valid', got {mode!r}")
    # out[k] = sum_j a[lo + k + j] * v[m - 1 - j]: a gather of windows of a (zero outside) times flipped v.
    idx = lo + np.arange(count)[:, None] + np.arange(m)[None, :]
    ext = F.concat([a, F.zeros((1,), a.dtype)], 0)
    safe = np.where((idx >= 0) & (idx < n), idx, n).astype(np.int32)
    windows = F.gather(ext, Tensor(safe), 0)
    return F.sum(windows * F.reshape(F.flip(v, (0,)), (1, m)), 1)


def _vec(x: Any, name: str) -> Tensor:
    t = to_tensor(x)
    if t.ndim != 1 or t.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array, got shape {t.shape}")
    return t


def convolve(a: Any, v: Any, mode: str = "full") -> Tensor:
    """``mindspore.numpy.convolve``: the discrete linear convolution of two 1-d arrays ('full', 'same' or
    'valid')."""
    x, y = promote(_vec(a, "a"), _vec(v, "v"))
    if x.shape[0] < y.shape[0]:
        x, y = y, x
    return _conv1d(x, y, mode)


def correlate(a: Any, v: Any, mode: str = "valid") -> Tensor:
    """``mindspore.numpy.correlate``: the cross-correlation ``sum_n a[n + k] * v[n]`` of two 1-d arrays."""
    x, y = promote(_vec(a, "a"), _vec(v, "v"))
    if x.shape[0] >= y.shape[0]:
        return _conv1d(x, F.flip(y, (0,)), mode)
    return F.flip(_conv1d(y, F.flip(x, (0,)), mode), (0,))


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.cov``: the covariance matrix of variables in rows (``rowvar``) or columns;
    ``fweights``/``aweights`` weigh the observations."""
    t = as_float(to_tensor(m))
    if t.ndim == 1:
        t = F.reshape(t, (1, -1))
    if not rowvar and t.shape[0] != 1:
        t = F.transpose(t, (1, 0))
    if y is not None:
        u = as_float(to_tensor(y))
        u = F.reshape(u, (1, -1)) if u.ndim == 1 else (u if rowvar else F.transpose(u, (1, 0)))
        t = F.concat(promote(t, u), 0)
    n = t.shape[1]
    w = None
    if fweights is not None:
        w = as_float(to_tensor(fweights))
    if aweights is not None:
        aw = as_float(to_tensor(aweights))
        w = aw if w is None else w * aw
    ddof = (0 if bias else 1) if ddof is None else ddof
    if w is None:
        mean = F.mean(t, 1, True)
        fact = float(n - ddof)
        xc = t - mean
        out = F.matmul(xc, F.transpose(xc, (1, 0))) / fact
    else:
        wsum = F.sum(w)
        mean = F.sum(t * F.reshape(w, (1, -1)), 1, True) / wsum
        if aweights is None:
            fact = wsum - float(ddof)
        else:
            aw = as_float(to_tensor(aweights))
            fact = wsum - float(ddof) * F.sum(w * aw) / wsum
        xc = t - mean
        out = F.matmul(xc * F.reshape(w, (1, -1)), F.transpose(xc, (1, 0))) / fact
    if out.shape == (1, 1):
        out = F.reshape(out, ())
    return cast_out(out, dtype)


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, dtype: Any = None) -> Tensor:
    """``mindspore.numpy.corrcoef``: the Pearson correlation coefficients (the covariance normalised by the
    standard deviations), clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return cast_out(c / c, dtype)
    d = F.sqrt(F.diagonal(c, 0, 0, 1))
    out = c / F.reshape(d, (-1, 1)) / F.reshape(d, (1, -1))
    return cast_out(F.clip(out, -1.0, 1.0), dtype)


def _poly(p: Any) -> Tensor:
    t = to_tensor(p)
    if t.ndim != 1:
        raise ValueError(f"a polynomial is a 1-d array of coefficients, got shape {t.shape}")
    return t


def _padded(a: Tensor, n: int) -> Tensor:
    return a if a.shape[0] == n else F.concat([F.zeros((n - a.shape[0],), a.dtype), a], 0)


def polyadd(a1: Any, a2: Any) -> Tensor:
    """``mindspore.numpy.polyadd``: the sum of two polynomials (coefficients, highest power first)."""
    x, y = promote(_poly(a1), _poly(a2))
    n = x.shape[0] if x.shape[0] > y.shape[0] else y.shape[0]
    return _padded(x, n) + _padded(y, n)


def polysub(a1: Any, a2: Any) -> Tensor:
    """``mindspore.numpy.polysub``: the difference of two polynomials."""
    x, y = promote(_poly(a1), _poly(a2))
    n = x.shape[0] if x.shape[0] > y.shape[0] else y.shape[0]
    return _padded(x, n) - _padded(y, n)


def polymul(a1: Any, a2: Any) -> Tensor:
    """``mindspore.numpy.polymul``: the product of two polynomials."""
    return convolve(a1, a2)


def polyder(p: Any, m: int = 1) -> Tensor:
    """``mindspore.numpy.polyder``: the ``m``-th derivative of a polynomial."""
    t = _poly(p)
    if m < 0:
        raise ValueError("polyder: the order m must not be negative")
    for _ in range(m):
        n = t.shape[0] - 1
        if n <= 0:
            return F.zeros((1,), t.dtype)
        powers = Tensor(np.arange(n, 0, -1).astype(t.dtype.np_dtype))
        t = F.narrow(t, 0, 0, n) * powers
    return t


def polyint(p: Any, m: int = 1, k: Any = None) -> Tensor:
    """``mindspore.numpy.polyint``: the ``m``-th antiderivative, with integration constants ``k`` (zeros)."""
    t = as_float(_poly(p))
    if m < 0:
        raise ValueError("polyint: the order m must not be negative")
    ks = np.zeros(m) if k is None else np.broadcast_to(np.asarray(k, dtype=np.float64), (m,))
    for i in range(m):
        n = t.shape[0]
        div = Tensor(np.arange(n, 0, -1).astype(t.dtype.np_dtype))
        t = F.concat([t / div, F.full((1,), float(ks[i]), dtype=t.dtype)], 0)
    return t


def polyval(p: Any, x: Any) -> Tensor:
    """``mindspore.numpy.polyval``: the polynomial ``p`` evaluated at ``x`` (Horner's scheme)."""
    c = _poly(p)
    xs = to_tensor(x)
    c, xs = promote(c, xs)
    out = F.zeros_like(xs)
    for i in range(c.shape[0]):
        out = out * xs + c[i]
    return out
