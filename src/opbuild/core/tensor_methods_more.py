"""A fourth group of ``mindspore.Tensor`` methods: inverse trigonometric and special functions, bit operations,
linear algebra, splits, segment reductions, cumulative and sorting helpers. Each calls the functional API (``ops``
through core/functional_slot.py, or ``mint`` where MindSpore's method follows ``mint``'s function) with
MindSpore 2.10's method signature; a mixin :class:`~opbuild.core.tensor.Tensor` inherits. The in-place, random,
scatter and device methods are in tensor_methods_inplace.py."""

from __future__ import annotations

from typing import Any

from .dtypes import dtype_of
from .functional_slot import _ops
from .providers import provider

_INT64 = dtype_of("int64")


def _mint() -> Any:
    """``opbuild.mint`` (a layer above core: looked up on first use, as the functional API is)."""
    return provider("mint")


def _unary(name: str, doc: str, fn: str | None = None):
    def method(self):
        return getattr(_ops(), fn or name)(self)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    return method


def _binary(name: str, doc: str, fn: str | None = None):
    def method(self, other):
        return getattr(_ops(), fn or name)(self, other)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = doc
    return method


def _split(name: str):
    def method(self, indices_or_sections):
        return getattr(_ops(), name)(self, indices_or_sections)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Pieces of the tensor (``ops.{name}``): a count of equal sections, or the split indices."
    return method


def _segment(name: str):
    def method(self, segment_ids, num_segments):
        return getattr(_ops(), name)(self, segment_ids, num_segments)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"The reduction of the rows sharing a segment id (``ops.{name}``)."
    return method


class _TensorLinalgMethods:
    """The linear-algebra, statistics and random-draw methods (``self`` is always a Tensor)."""

    __slots__ = ()

    # ---- linear algebra and statistics ----------------------------------------------------------------
    adjoint = _unary("adjoint", "The conjugate transpose of the last two axes (``ops.adjoint``).")
    det = _unary("det", "The determinant of each square matrix (``ops.det``).")
    matrix_determinant = _unary("matrix_determinant", "The determinant of each matrix (``ops.matrix_determinant``).")
    logdet = _unary("logdet", "The log of the determinant of each matrix (``ops.logdet``).")
    slogdet = _unary("slogdet", "(sign, log|det|) of each matrix (``ops.slogdet``).")
    log_matrix_determinant = _unary("log_matrix_determinant",
                                    "(sign, log|det|) of each matrix (``ops.log_matrix_determinant``).")
    inverse = _unary("inverse", "The inverse of each square matrix (``ops.inverse``).")
    eigvals = _unary("eigvals", "The (complex) eigenvalues of each square matrix (``ops.eigvals``).")
    geqrf = _unary("geqrf", "(packed Householder vectors and R, tau) of the QR factorisation (``ops.geqrf``).")

    def orgqr(self, input2):
        """The Q of a QR factorisation from geqrf's reflectors (this tensor) and their scales ``input2``."""
        return _ops().orgqr(self, input2)

    def lstsq(self, A):  # noqa: N803 - MindSpore's argument name
        """The least-squares solution x of A x = self (``ops.lstsq(self, A)``)."""
        return _ops().lstsq(self, A)

    def ormqr(self, input2, input3, left: bool = True, transpose: bool = False):
        """``input3`` multiplied by the Q of a QR factorisation given as geqrf's Householder reflectors (this
        tensor, (*, m, n)) and their scales ``input2`` (*, min(m, n)): Q @ input3 (``left``) or input3 @ Q, with
        Q's conjugate transpose where ``transpose``. Q (m x m) is ``ops.orgqr`` of the reflectors made square:
        the columns past n are zeros and their scales 0, so they add identity factors."""
        F, m, n = _ops(), self.shape[-2], self.shape[-1]
        side = input3.shape[-2] if left else input3.shape[-1]
        if input3.ndim < 2 or side != m:
            raise ValueError(f"Tensor.ormqr: input3 {tuple(input3.shape)} must have {m} (the reflectors' rows) "
                             f"{'rows' if left else 'columns'}")
        if input2.shape[-1] > min(m, n):
            raise ValueError(f"Tensor.ormqr: input2 (tau) has {input2.shape[-1]} scales, at most min(m, n) = "
                             f"{min(m, n)} allowed")
        h = self[..., :m] if n >= m else F.concat((self, F.zeros((*self.shape[:-1], m - n), self.dtype)), -1)
        k = input2.shape[-1]
        tau = input2 if k == m else F.concat((input2, F.zeros((*input2.shape[:-1], m - k), input2.dtype)), -1)
        q = F.orgqr(h, tau)
        if transpose:
            q = q.swapaxes(-1, -2)
            q = F.conj(q) if q.dtype.is_complex else q
        return F.matmul(q, input3) if left else F.matmul(input3, q)

    def cholesky(self, upper: bool = False):
        """The Cholesky factor of each symmetric positive-definite matrix (``ops.cholesky``)."""
        return _ops().cholesky(self, upper)

    def cholesky_inverse(self, upper: bool = False):
        """The inverse of A from its Cholesky factor (this tensor; ``ops.cholesky_inverse``)."""
        return _ops().cholesky_inverse(self, upper)

    def cholesky_solve(self, input2, upper: bool = False):
        """The solution of A x = self with A's Cholesky factor ``input2`` (``ops.cholesky_solve``)."""
        return _ops().cholesky_solve(self, input2, upper)

    def triangular_solve(self, A, upper: bool = True, transpose: bool = False,  # noqa: N803 - MindSpore's name
                         unitriangular: bool = False):
        """(solution, A) of A x = self with A triangular (``mint.triangular_solve``)."""
        return _mint().triangular_solve(self, A, upper, transpose, unitriangular)

    def qr(self, some: bool = True):
        """(Q, R) of each matrix; ``some``: the reduced factorisation, else the complete one (``ops.qr``)."""
        return _ops().qr(self, "reduced" if some else "complete")

    def matrix_power(self, n: int):
        """Each square matrix to the integer power ``n`` (``ops.matrix_power``)."""
        return _ops().matrix_power(self, n)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * self + alpha * (the sum over the batch of batch1 @ batch2) (``ops.addbmm``; int64 for
        integer inputs)."""
        return _ops().addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def cross(self, other, dim=None):
        """The cross product of 3-vectors along ``dim`` (None: the first axis of size 3; ``ops.cross``)."""
        return _ops().cross(self, other, dim)

    def cov(self, *, correction: int = 1, fweights=None, aweights=None):
        """The covariance matrix of the variables in the rows (``ops.cov``)."""
        return _ops().cov(self, correction=correction, fweights=fweights, aweights=aweights)

    # ---- random draws -------------------------------------------------------------------------------------
    def multinomial(self, num_samples: int, replacement: bool = True, seed=None):
        """``num_samples`` category indices drawn per row with these probabilities (``ops.multinomial``)."""
        return _ops().multinomial(self, num_samples, replacement, seed)

    def random_categorical(self, num_sample: int, seed: int = 0, dtype=_INT64):
        """``num_sample`` category indices drawn per row from these logits (``ops.random_categorical``)."""
        return _ops().random_categorical(self, num_sample, seed, dtype)

    def bernoulli(self, *, generator=None):
        """0/1 draws with this tensor's values as the probabilities of 1 (``mint.bernoulli``)."""
        return _mint().bernoulli(self, generator=generator)

    def uniform(self, from_: float = 0.0, to: float = 1.0, generator=None):
        """A tensor of this shape and dtype drawn uniformly from [from_, to) (``ops.uniform_`` on a copy)."""
        if from_ > to:
            raise TypeError(f"Tensor.uniform: from_ ({from_}) must not be larger than to ({to})")
        return _ops().uniform_(self.clone(), from_, to, generator=generator)


class TensorMathMethods(_TensorLinalgMethods):
    """Mixin of further Tensor methods (see the module docstring): the linear-algebra ones above, plus the
    elementwise, search, segment and scatter-into-a-copy ones. ``self`` is always a Tensor."""

    __slots__ = ()

    # ---- elementwise ----------------------------------------------------------------------------------
    acos = _unary("acos", "The elementwise arc cosine (``ops.acos``).")
    arccos = _unary("arccos", "The elementwise arc cosine (``ops.acos``).", "acos")
    asin = _unary("asin", "The elementwise arc sine (``ops.asin``).")
    arcsin = _unary("arcsin", "The elementwise arc sine (``ops.asin``).", "asin")
    atan = _unary("atan", "The elementwise arc tangent (``ops.atan``).")
    arctan = _unary("arctan", "The elementwise arc tangent (``ops.atan``).", "atan")
    acosh = _unary("acosh", "The elementwise inverse hyperbolic cosine (``ops.acosh``).")
    arccosh = _unary("arccosh", "The elementwise inverse hyperbolic cosine (``ops.acosh``).", "acosh")
    asinh = _unary("asinh", "The elementwise inverse hyperbolic sine (``ops.asinh``).")
    arcsinh = _unary("arcsinh", "The elementwise inverse hyperbolic sine (``ops.asinh``).", "asinh")
    atanh = _unary("atanh", "The elementwise inverse hyperbolic tangent (``ops.atanh``).")
    arctanh = _unary("arctanh", "The elementwise inverse hyperbolic tangent (``ops.atanh``).", "atanh")
    atan2 = _binary("atan2", "The arc tangent of self / other in the right quadrant (``ops.atan2``).")
    arctan2 = _binary("arctan2", "The arc tangent of self / other in the right quadrant (``ops.atan2``).", "atan2")
    digamma = _unary("digamma", "The logarithmic derivative of the gamma function (``ops.digamma``).")
    erfinv = _unary("erfinv", "The inverse error function (``ops.erfinv``).")
    i0 = _unary("i0", "The modified Bessel function of order 0 (``ops.bessel_i0``).", "bessel_i0")
    invert = _unary("invert", "The elementwise bitwise NOT of an integer or bool tensor (``ops.invert``).")
    isreal = _unary("isreal", "True where the element's imaginary part is 0 (``ops.isreal``).")
    signbit = _unary("signbit", "True where the sign bit is set (``ops.signbit``).")
    copysign = _binary("copysign", "self's magnitude with other's sign (``ops.copysign``).")
    ldexp = _binary("ldexp", "self * 2**other (``ops.ldexp``).")
    bitwise_left_shift = _binary("bitwise_left_shift", "self << other (``ops.bitwise_left_shift``).")
    bitwise_right_shift = _binary("bitwise_right_shift", "self >> other (``ops.bitwise_right_shift``).")

    lgamma = _unary("lgamma", "The log of the absolute gamma function (``ops.lgamma``; int32 computes in float32).")
    sinc = _unary("sinc", "sin(pi x) / (pi x), 1 at 0 (``ops.sinc``; integer and bool compute in float32).")
    inv = _unary("inv", "The elementwise reciprocal (``ops.inv``; int16/int32/int64 keep their dtype).")

    def bitwise_not(self):
        """The elementwise bitwise NOT (logical NOT for bool; ``mint.bitwise_not``)."""
        return _mint().bitwise_not(self)

    def approximate_equal(self, other, tolerance: float = 1e-05):
        """True where |self - other| < tolerance (``ops.approximate_equal``)."""
        return _ops().approximate_equal(self, other, tolerance)

    def mvlgamma(self, p: int):
        """The multivariate log-gamma function of dimension ``p`` (``ops.mvlgamma``)."""
        return _ops().mvlgamma(self, p)

    def hardshrink(self, lambd: float = 0.5):
        """self where |self| > lambd, else 0 (``ops.hardshrink``)."""
        return _ops().hardshrink(self, lambd)

    def soft_shrink(self, lambd: float = 0.5):
        """self shrunk toward 0 by ``lambd``, 0 within it (``ops.soft_shrink``)."""
        return _ops().soft_shrink(self, lambd)

    def fills(self, value: float):
        """A tensor of this shape and dtype filled with ``value`` (``ops.fills``)."""
        return _ops().fills(self, value)

    # ---- selection and search -------------------------------------------------------------------------
    argwhere = _unary("argwhere", "The coordinates of the non-zero elements, one row each (``ops.argwhere``).")

    def masked_select(self, mask):
        """The elements where ``mask`` is True, as a 1-D tensor (``ops.masked_select``)."""
        return _ops().masked_select(self, mask)

    def gather_nd(self, indices):
        """The slices at the coordinates of ``indices``' last axis (``ops.gather_nd``)."""
        return _ops().gather_nd(self, indices)

    msort = _unary("msort", "Sorted along the first axis (``ops.msort``).")

    def searchsorted(self, v, side: str = "left", sorter=None):
        """The int32 indices (MindSpore 2.10's method gives int32, ``ops.searchsorted`` int64) at which ``v``'s
        values would go in this sorted last axis."""
        return _ops().searchsorted(self, v, out_int32=True, side=side, sorter=sorter)

    def bincount(self, weights=None, minlength: int = 0):
        """How often each non-negative int occurs, optionally weighted (``ops.bincount``)."""
        return _ops().bincount(self, weights, minlength)

    def histc(self, bins: int = 100, min=0, max=0):  # noqa: A002 - MindSpore's argument names
        """A histogram of ``bins`` equal bins over [min, max] (both 0: the data's range; ``mint.histc``)."""
        return _mint().histc(self, bins, min, max)

    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False):
        """(values, indices) of the k-th smallest element along ``dim`` (``mint.kthvalue``)."""
        return _mint().kthvalue(self, k, dim, keepdim)

    def top_k(self, k: int, sorted: bool = True):  # noqa: A002 - MindSpore's argument name
        """(values, indices) of the ``k`` largest along the last axis (``ops.top_k``)."""
        return _ops().top_k(self, k, sorted)

    def nanmedian(self, axis: int = -1, keepdims: bool = False):
        """(values, int64 indices) of the lower median along ``axis`` ignoring NaN (``ops.nanmedian``); an
        integer tensor, which holds no NaN, gives its median (``Tensor.median``), as MindSpore's method does."""
        if not self.dtype.is_float:
            return self.median(axis, keepdims)
        return _ops().nanmedian(self, axis, keepdims)

    def quantile(self, q, axis=None, keepdims: bool = False):
        """The ``q``-th quantiles along ``axis`` (None: all), interpolating linearly (``ops.quantile``)."""
        return _ops().quantile(self, q, axis, keepdims)

    def nanquantile(self, q, axis=None, keepdims: bool = False):
        """:meth:`quantile` ignoring NaN (``ops.nanquantile``)."""
        return _ops().nanquantile(self, q, axis, keepdims)

    def cummax(self, axis: int):
        """(values, indices) of the running maximum along ``axis`` (``ops.cummax``)."""
        return _ops().cummax(self, axis)

    def cummin(self, axis: int):
        """(values, indices) of the running minimum along ``axis`` (``ops.cummin``)."""
        return _ops().cummin(self, axis)

    def logcumsumexp(self, axis: int):
        """log(cumsum(exp(self))) along ``axis`` (``ops.logcumsumexp``)."""
        return _ops().logcumsumexp(self, axis)

    def unique_consecutive(self, return_inverse: bool = False, return_counts: bool = False, dim=None):
        """The tensor with runs of equal elements collapsed, optionally with the inverse indices and the run
        lengths (``ops.unique_consecutive``)."""
        return _ops().unique_consecutive(self, return_inverse, return_counts, dim)

    def unique_with_pad(self, pad_num):
        """(unique values padded with ``pad_num`` to the input's length, inverse indices) of a 1-D tensor."""
        return _ops().unique_with_pad(self, pad_num)

    unsorted_segment_max = _segment("unsorted_segment_max")
    unsorted_segment_min = _segment("unsorted_segment_min")
    unsorted_segment_prod = _segment("unsorted_segment_prod")

    # ---- shapes, splits and scatters into a copy --------------------------------------------------------
    dsplit = _split("dsplit")
    hsplit = _split("hsplit")
    vsplit = _split("vsplit")

    def tensor_split(self, indices_or_sections, axis: int = 0):
        """Pieces along ``axis``: a count of near-equal sections, or the split indices (``ops.tensor_split``)."""
        return _ops().tensor_split(self, indices_or_sections, axis)

    def diagflat(self, offset: int = 0):
        """A 2-D tensor with the flattened tensor on diagonal ``offset`` (``ops.diagflat``)."""
        return _ops().diagflat(self, offset)

    def diagonal_scatter(self, src, offset: int = 0, dim1: int = 0, dim2: int = 1):
        """A copy with ``src`` written on a diagonal of the (dim1, dim2) planes (``ops.diagonal_scatter``)."""
        return _ops().diagonal_scatter(self, src, offset, dim1, dim2)

    def select_scatter(self, src, axis: int, index: int):
        """A copy with ``src`` written at ``index`` along ``axis`` (``ops.select_scatter``)."""
        return _ops().select_scatter(self, src, axis, index)

    def slice_scatter(self, src, axis: int = 0, start=None, end=None, step: int = 1):
        """A copy with ``src`` written in the slice start:end:step along ``axis`` (``ops.slice_scatter``)."""
        return _ops().slice_scatter(self, src, axis, start, end, step)

    def index_fill(self, axis: int, index, value):
        """A copy with ``value`` at ``index`` along ``axis`` (``ops.index_fill``)."""
        return _ops().index_fill(self, axis, index.astype("int32") if getattr(index, "dtype", None) is not None
                                 and index.dtype.name == "int64" else index, value)

    def inplace_update(self, v, indices):
        """A copy with the rows at ``indices`` replaced by ``v``'s rows (``ops.inplace_update``)."""
        return _ops().inplace_update(self, v, indices)

    def reverse_sequence(self, seq_lengths, seq_dim: int = 0, batch_dim: int = 0):
        """Each batch entry's first ``seq_lengths[i]`` elements along ``seq_dim`` reversed
        (``ops.reverse_sequence``)."""
        return _ops().reverse_sequence(self, seq_lengths, seq_dim, batch_dim)

    def renorm(self, p: int, axis: int, maxnorm: float):
        """The sub-tensors along ``axis`` whose p-norm exceeds ``maxnorm`` scaled down to it (``ops.renorm``)."""
        if not (self.dtype.is_float or self.dtype.is_complex):
            raise TypeError(f"Tensor.renorm: the tensor must be float or complex, got {self.dtype} (cast it first)")
        return _ops().renorm(self, p, axis, maxnorm)

    def unfold(self, kernel_size, dilation=1, padding=0, stride=1):
        """The sliding blocks of a 4-D (N, C, H, W) tensor as columns (``ops.unfold``)."""
        return _ops().unfold(self, kernel_size, dilation, padding, stride)

    def fold(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        """Columns of sliding blocks summed back into an image (``ops.fold``)."""
        return _ops().fold(self, output_size, kernel_size, dilation, padding, stride)

    def col2im(self, output_size, kernel_size, dilation, padding_value, stride):
        """Columns of sliding blocks summed back into an image (``ops.col2im``)."""
        return _ops().col2im(self, output_size, kernel_size, dilation, padding_value, stride)
