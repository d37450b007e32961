"""The documented ``mindspore.Tensor`` methods beyond the core ones of tensor.py, each a call of the functional
API (so they trace and cache like ``ops.*``), gathered in a mixin that :class:`~opbuild.core.tensor.Tensor`
inherits.

The functional API is reached through the slot of functional_slot.py, filled by ``opbuild.ops``.
"""

from __future__ import annotations

from .dtypes import dtype_of
from .functional_slot import _ops  # noqa: F401 - re-exported for tensor.py
from .tensor_more import TensorMoreMethods


def _binary(name: str, doc: str):
    def method(self, other):
        return getattr(_ops(), name)(self, other)

    method.__name__ = name
    method.__doc__ = doc
    return method


def _unary(name: str, doc: str):
    def method(self):
        return getattr(_ops(), name)(self)

    method.__name__ = name
    method.__doc__ = doc
    return method


def _cast_to(dtype: str, name: str):
    def method(self):
        return self.astype(dtype)

    method.__name__ = name
    method.__doc__ = f"The tensor as {dtype} (``Tensor.{name}()``)."
    return method


def _moment_args(name: str, axis, ddof, keepdims, dim, correction, keepdim) -> tuple:
    """(axis, ddof, keepdims) of Tensor.var/std from either of MindSpore 2.10's overloads: (axis, ddof=0,
    keepdims) or (dim, *, correction=1, keepdim), the second chosen by its keywords."""
    if dim is None and correction is None and keepdim is None:
        return axis, ddof, keepdims
    if axis is not None or ddof != 0 or keepdims:
        raise TypeError(f"Tensor.{name}: pass either axis/ddof/keepdims or dim/correction/keepdim, not both")
    return dim, 1 if correction is None else correction, bool(keepdim)


class _TensorArrayMethods:
    """Metadata, conversion, shape, data movement and creation methods (``self`` is always a Tensor)."""

    __slots__ = ()

    # ---- metadata -------------------------------------------------------------------------------------
    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.dtype.np_dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the whole tensor."""
        return self.size * self.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """Bytes to step along each axis (tensors are C-contiguous)."""
        out, step = [], self.itemsize
        for d in reversed(self.shape):
            out.append(step)
            step *= d
        return tuple(reversed(out))

    def dim(self) -> int:
        """The number of axes (``ndim``)."""
        return self.ndim

    def numel(self) -> int:
        """The number of elements (``size``)."""
        return self.size

    nelement = numel

    def is_floating_point(self) -> bool:
        """Whether the dtype is a float type."""
        return self.dtype.is_float

    def is_contiguous(self) -> bool:
        """Always True: opbuild's tensors are C-contiguous."""
        return True

    def contiguous(self):
        """The tensor itself (already contiguous)."""
        return self

    # ---- conversion -----------------------------------------------------------------------------------
    def to(self, dtype):
        """The tensor cast to ``dtype``."""
        return self.astype(dtype)

    def type(self, dtype=None):
        """With ``dtype``: the tensor cast to it; without: the dtype's name as MindSpore prints it."""
        return str(self.dtype) if dtype is None else self.astype(dtype)

    float = _cast_to("float32", "float")
    half = _cast_to("float16", "half")
    double = _cast_to("float64", "double")
    int = _cast_to("int32", "int")
    long = _cast_to("int64", "long")
    short = _cast_to("int16", "short")
    bool = _cast_to("bool", "bool")
    bfloat16 = _cast_to("bfloat16", "bfloat16")

    def copy(self):
        """A new tensor with the same values."""
        return self.clone()

    def clone(self):
        """A new tensor with the same values (in a traced graph, a new value; updating one leaves the other)."""
        if self._data is not None:
            return self._fresh(self._read().copy())
        return _ops().reshape(self, self.shape)

    # ---- shape and data movement ---------------------------------------------------------------------
    def ravel(self):
        """The elements as a 1-D tensor."""
        return self.reshape(-1)

    def swapaxes(self, axis0: int, axis1: int):
        """Exchange two axes."""
        return _ops().swapaxes(self, axis0, axis1)

    def tile(self, reps):
        """Repeat the tensor along each axis (``ops.tile``)."""
        return _ops().tile(self, tuple(reps))

    def broadcast_to(self, shape):
        """Broadcast to ``shape``."""
        return _ops().broadcast_to(self, tuple(shape))

    def expand_as(self, other):
        """Broadcast to ``other``'s shape."""
        return _ops().broadcast_to(self, tuple(other.shape))

    def gather(self, input_indices, axis: int, batch_dims: int = 0):
        """Slices along ``axis`` picked by ``input_indices`` (``ops.gather``)."""
        return _ops().gather(self, input_indices, axis, batch_dims)

    def flip(self, dims):
        """Reverse along ``dims``."""
        return _ops().flip(self, dims)

    def narrow(self, axis: int, start: int, length: int):
        """``length`` elements along ``axis`` from ``start``."""
        return _ops().narrow(self, axis, start, length)

    def select(self, dim: int, index: int):
        """The slice at ``index`` along ``dim``, that dim removed."""
        if not -self.ndim <= dim < self.ndim:  # taken modulo the rank, it selected along another axis
            raise ValueError(f"Tensor.select: axis {dim} is out of range for rank {self.ndim}")
        return self[(slice(None),) * (dim % self.ndim) + (index,)]

    def tril(self, diagonal: int = 0):
        """Lower triangle of the last two dims."""
        return _ops().tril(self, diagonal)

    def triu(self, diagonal: int = 0):
        """Upper triangle of the last two dims."""
        return _ops().triu(self, diagonal)

    def diag(self):
        """A 1-D tensor as the diagonal of a square matrix."""
        return _ops().diag(self)

    def roll(self, shifts, dims=None):
        """Elements shifted along ``dims``, wrapping around (``ops.roll``)."""
        return _ops().roll(self, shifts, dims)

    def repeat(self, repeats: int, axis=None):
        """Each element repeated ``repeats`` times along ``axis`` (None: of the flattened tensor), as
        ``numpy.repeat`` with an int count."""
        if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 0:
            raise TypeError(f"Tensor.repeat: repeats must be a non-negative int, got {repeats!r}")
        x = self.reshape(-1) if axis is None else self
        return _ops().repeat_elements(x, repeats, 0 if axis is None else axis)

    def split(self, split_size_or_sections, axis: int = 0):
        """Pieces along ``axis`` (``ops.split``)."""
        return _ops().split(self, split_size_or_sections, axis)

    def chunk(self, chunks: int, axis: int = 0):
        """``chunks`` pieces along ``axis``."""
        return _ops().chunk(self, chunks, axis)

    def unbind(self, dim: int = 0):
        """The slices along ``dim``."""
        return _ops().unstack(self, dim)

    def softmax(self, axis: int = -1):
        """Softmax along ``axis``."""
        return _ops().softmax(self, axis)

    def log_softmax(self, axis: int = -1):
        """Log-softmax along ``axis``."""
        return _ops().log_softmax(self, axis)

    # ---- creation like this one and in-place fills -----------------------------------------------------
    def new_zeros(self, size, dtype=None):
        """Zeros of ``size`` in this tensor's dtype (or ``dtype``)."""
        return _ops().zeros(tuple(size) if not isinstance(size, int) else (size,), dtype or self.dtype)

    def new_ones(self, size, dtype=None):
        """Ones of ``size`` in this tensor's dtype (or ``dtype``)."""
        return _ops().ones(tuple(size) if not isinstance(size, int) else (size,), dtype or self.dtype)

    def fill(self, value):
        """A new tensor of this shape and dtype holding ``value`` everywhere."""
        return _ops().full(self.shape, value, dtype=self.dtype)

    def fill_(self, value):
        """Set every element to ``value``, in place; returns the tensor."""
        self[...] = value
        return self

    def zero_(self):
        """Set every element to 0, in place; returns the tensor."""
        return self.fill_(0)



class TensorMethods(_TensorArrayMethods, TensorMoreMethods):
    """Mixin of Tensor's documented methods (see the module docstring): the array methods above, plus
    arithmetic, comparison and reductions. ``self`` is always a Tensor."""

    __slots__ = ()

    # ---- elementwise shortcuts ------------------------------------------------------------------------
    def abs(self):
        """Elementwise absolute value."""
        return abs(self)

    exp = _unary("exp", "Elementwise e**x.")
    log = _unary("log", "Elementwise natural logarithm.")
    sqrt = _unary("sqrt", "Elementwise square root.")

    def pow(self, exponent):
        """Elementwise self ** exponent."""
        return self ** exponent

    def clip(self, min=None, max=None):  # noqa: A002 - MindSpore's argument names
        """Bound the values to [min, max] (either may be None)."""
        return _ops().clamp(self, min, max)

    clamp = clip

    # ---- arithmetic and comparison (functional-API calls) ----------------------------------------------
    add = _binary("add", "self + other (``ops.add``).")
    sub = _binary("sub", "self - other (``ops.sub``).")
    subtract = sub
    mul = _binary("mul", "self * other (``ops.mul``).")
    multiply = mul
    true_divide = _binary("div", "self / other, true division (``ops.div``).")
    maximum = _binary("maximum", "Elementwise max (``ops.maximum``).")
    minimum = _binary("minimum", "Elementwise min (``ops.minimum``).")
    equal = _binary("equal", "self == other (``ops.equal``).")
    ne = _binary("ne", "self != other (``ops.ne``).")
    not_equal = ne
    gt = _binary("gt", "self > other (``ops.gt``).")
    greater = gt
    ge = _binary("ge", "self >= other (``ops.ge``).")
    greater_equal = ge
    lt = _binary("lt", "self < other (``ops.lt``).")
    less = lt
    le = _binary("le", "self <= other (``ops.le``).")
    less_equal = le
    logical_and = _binary("logical_and", "Elementwise AND of the truth values.")
    logical_or = _binary("logical_or", "Elementwise OR of the truth values.")
    logical_xor = _binary("logical_xor", "Elementwise XOR of the truth values.")
    remainder = _binary("remainder", "Remainder with the divisor's sign (``ops.remainder``).")
    fmod = _binary("fmod", "Remainder with the dividend's sign (``ops.fmod``).")
    floor_divide = _binary("floor_divide", "Division rounded toward minus infinity.")
    matmul = _binary("matmul", "Matrix product (``ops.matmul``).")

    def div(self, other, *, rounding_mode=None):
        """self / other (``ops.div``; ``rounding_mode`` 'floor' or 'trunc')."""
        return _ops().div(self, other, rounding_mode=rounding_mode)

    divide = div

    neg = _unary("neg", "-self.")
    negative = neg
    square = _unary("square", "self * self.")
    sin = _unary("sin", "Elementwise sine.")
    cos = _unary("cos", "Elementwise cosine.")
    tanh = _unary("tanh", "Elementwise tanh.")
    sigmoid = _unary("sigmoid", "Elementwise logistic sigmoid.")
    floor = _unary("floor", "Round toward minus infinity.")
    ceil = _unary("ceil", "Round toward plus infinity.")
    rsqrt = _unary("rsqrt", "1 / sqrt(self).")
    reciprocal = _unary("reciprocal", "1 / self.")
    isnan = _unary("isnan", "True where the element is NaN.")
    isfinite = _unary("isfinite", "True where the element is finite.")
    erf = _unary("erf", "The error function.")
    sign = _unary("sign", "-1, 0 or 1 by sign.")
    log1p = _unary("log1p", "log(1 + self).")
    expm1 = _unary("expm1", "exp(self) - 1.")
    relu = _unary("relu", "max(self, 0).")
    logical_not = _unary("logical_not", "Elementwise NOT of the truth values.")

    log2 = _unary("log2", "Base-2 logarithm.")
    log10 = _unary("log10", "Base-10 logarithm.")
    tan = _unary("tan", "Elementwise tangent.")
    sinh = _unary("sinh", "Hyperbolic sine.")
    cosh = _unary("cosh", "Hyperbolic cosine.")
    absolute = _unary("abs", "Elementwise absolute value.")

    def isclose(self, x2, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
        """|self - x2| <= atol + rtol * |x2| elementwise."""
        return _ops().isclose(self, x2, rtol, atol, equal_nan)

    def count_nonzero(self, axis=(), keep_dims: bool = False, dtype=None):
        """How many elements are non-zero over ``axis``."""
        return _ops().count_nonzero(self, axis, keep_dims, dtype)

    def addcmul(self, tensor1, tensor2, value=1):
        """self + value * tensor1 * tensor2."""
        return _ops().addcmul(self, tensor1, tensor2, value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        """self + value * tensor1 / tensor2."""
        return _ops().addcdiv(self, tensor1, tensor2, value)

    def index_select(self, axis: int, index):
        """The slices along ``axis`` at ``index``."""
        return _ops().index_select(self, axis, index)

    def expand(self, size):
        """Broadcast to ``size`` (-1 keeps a dim)."""
        return _ops().broadcast_to(self, tuple(size))

    def numpy(self):
        """The values as a NumPy array (``asnumpy``)."""
        return self.asnumpy()

    def round(self, decimals: int = 0):
        """Round half to even (``ops.round``)."""
        return _ops().round(self, decimals=decimals)

    def lerp(self, end, weight):
        """self + weight * (end - self)."""
        return _ops().lerp(self, end, weight)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        """beta * self + alpha * (mat1 @ mat2)."""
        return _ops().addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def where(self, condition, y):
        """self where ``condition`` else ``y`` (``ops.where(condition, self, y)``)."""
        return _ops().where(condition, self, y)

    def masked_fill(self, mask, value):
        """``value`` where ``mask`` is True."""
        return _ops().masked_fill(self, mask, value)

    # ---- reductions -----------------------------------------------------------------------------------
    def var(self, axis=None, ddof: int = 0, keepdims: bool = False, *, dim=None, correction=None, keepdim=None):
        """Variance over ``axis`` with divisor N - ddof; MindSpore 2.10's second overload
        ``var(dim=None, *, correction=1, keepdim=False)`` when one of its keywords is given."""
        return _ops().tensor_var(self, *_moment_args("var", axis, ddof, keepdims, dim, correction, keepdim))

    def std(self, axis=None, ddof: int = 0, keepdims: bool = False, *, dim=None, correction=None, keepdim=None):
        """Standard deviation over ``axis`` with divisor N - ddof; MindSpore 2.10's second overload
        ``std(dim=None, *, correction=1, keepdim=False)`` when one of its keywords is given."""
        return _ops().tensor_std(self, *_moment_args("std", axis, ddof, keepdims, dim, correction, keepdim))

    def amax(self, axis=None, keepdims: bool = False):
        """Maximum over ``axis`` (values only)."""
        return _ops().amax(self, axis, keepdims)

    def amin(self, axis=None, keepdims: bool = False):
        """Minimum over ``axis`` (values only)."""
        return _ops().amin(self, axis, keepdims)

    def logsumexp(self, axis, keepdims: bool = False):
        """log(sum(exp(self))) over ``axis``."""
        return _ops().logsumexp(self, axis, keepdims)

    def norm(self, ord=None, dim=None, keepdim: bool = False, *, dtype=None):  # noqa: A002
        """Vector/Frobenius norm (``ops.norm``)."""
        return _ops().norm(self, ord, dim, keepdim, dtype=dtype)

    def cumsum(self, axis=None, dtype=None):
        """Running sums along ``axis`` (None: of the flattened tensor); bool and integer tensors narrower than
        int32 sum as int32 (MindSpore 2.10's method, unlike ``ops.cumsum`` which keeps their dtype), and ``dtype``
        casts the sums, not the input (``[1.5, -2.0]`` with int64 gives ``[1, 0]``), as MindSpore's method does."""
        x = self if axis is not None else self.reshape(-1)
        if self.dtype.name in ("bool", "int8", "uint8", "int16"):
            x = x.astype("int32")
        out = _ops().cumsum(x, 0 if axis is None else axis)
        return out if dtype is None or dtype_of(dtype) == self.dtype else out.astype(dtype)

    def trace(self):
        """Sum of the main diagonal."""
        return _ops().trace(self)
