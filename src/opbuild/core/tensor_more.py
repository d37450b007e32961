"""A third group of ``mindspore.Tensor`` methods (rounding, NaN handling, products, diagonals, in-place
variants), each a call of the functional API through the slot of tensor_methods.py; a mixin Tensor inherits."""

from __future__ import annotations

from typing import Any

from .functional_slot import _ops


def _F() -> Any:  # noqa: N802 - the functional namespace, as ``F`` is in MindSpore's code
    return _ops()


def _call(name: str, doc: str):
    def method(self, *args, **kwargs):
        return getattr(_F(), name)(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = doc
    return method


def _in_place(name: str):
    def method(self, *args, **kwargs):
        self[...] = getattr(self, name)(*args, **kwargs)
        return self

    method.__name__ = f"{name}_"
    method.__doc__ = f"``{name}`` written into this tensor in place; returns it."
    return method


class TensorMoreMethods:
    """Mixin of further Tensor methods (see the module docstring). ``self`` is always a Tensor."""

    __slots__ = ()

    trunc = _call("trunc", "Round toward zero.")
    nonzero = _call("nonzero", "The coordinates of the non-zero elements; ops.nonzero.")
    real = _call("real", "The real part (a real tensor itself); ops.real.")
    imag = _call("imag", "The imaginary part (zeros for a real tensor); ops.imag.")
    conj = _call("conj", "The complex conjugate (a real tensor itself); ops.conj.")
    angle = _call("angle", "The argument of each complex element, in radians; ops.angle.")
    fix = trunc
    frac = _call("frac", "self - trunc(self).")
    isinf = _call("isinf", "True where +inf or -inf.")
    isposinf = _call("isposinf", "True where +inf.")
    isneginf = _call("isneginf", "True where -inf.")
    nan_to_num = _call("nan_to_num", "NaN, +inf, -inf replaced (ops.nan_to_num).")
    nansum = _call("nansum", "Sum with NaN as zero.")
    nanmean = _call("nanmean", "Mean of the non-NaN elements.")
    hypot = _call("hypot", "sqrt(self**2 + other**2).")
    logaddexp = _call("logaddexp", "log(exp(self) + exp(other)).")
    logaddexp2 = _call("logaddexp2", "log2(2**self + 2**other).")
    xlogy = _call("xlogy", "self * log(other), 0 where self is 0.")
    xdivy = _call("xdivy", "self / other, 0 where self is 0.")
    float_power = _call("float_power", "The power in float64.")
    fmax = _call("fmax", "Elementwise max ignoring NaN.")
    fmin = _call("fmin", "Elementwise min ignoring NaN.")
    heaviside = _call("heaviside", "The Heaviside step with ``values`` at zero.")
    deg2rad = _call("deg2rad", "Degrees to radians.")
    rad2deg = _call("rad2deg", "Radians to degrees.")
    erfc = _call("erfc", "1 - erf(self).")
    logit = _call("logit", "log(self / (1 - self)).")
    outer = _call("outer", "Outer product of two 1-D tensors.")
    ger = outer
    inner = _call("inner", "Sums of products over the last axes.")
    mm = _call("mm", "Product of two 2-D matrices.")
    bmm = _call("bmm", "Batched matrix product.")
    addmv = _call("addmv", "beta * self + alpha * (mat @ vec).")
    addr = _call("addr", "beta * self + alpha * outer(vec1, vec2).")
    baddbmm = _call("baddbmm", "beta * self + alpha * (batch1 @ batch2).")
    diff = _call("diff", "The n-th forward difference along an axis.")
    diagonal = _call("diagonal", "The diagonal of two axes' planes, as the last axis.")
    rot90 = _call("rot90", "Rotate by 90 degrees in a plane.")
    moveaxis = _call("moveaxis", "Move axes to new positions.")
    movedim = moveaxis
    gather_elements = _call("gather_elements", "Gather along ``dim`` by an index of the input's rank.")
    aminmax = _call("aminmax", "(min, max) over an axis.")
    ptp = _call("ptp", "max - min over an axis.")
    take = _call("take", "Elements of the flattened tensor at ``indices``.")
    def cumprod(self, dim: int, dtype=None):
        """Running products along ``dim``."""
        return _F().cumprod(self, dim, dtype)

    topk = _call("topk", "The k largest (smallest) values along a dim and their indices (ops.topk).")
    igamma = _call("igamma", "The regularised lower incomplete gamma function P(self, other) (ops.igamma).")
    igammac = _call("igammac", "The regularised upper incomplete gamma function Q(self, other) (ops.igammac).")
    nextafter = _call("nextafter", "The next representable value towards other (ops.nextafter).")
    lcm = _call("lcm", "The elementwise least common multiple with other (ops.lcm).")
    gcd = _call("gcd", "The elementwise greatest common divisor with other (ops.gcd).")
    svd = _call("svd", "(s, u, v) of the matrices in the last two axes (ops.svd).")
    lu_solve = _call("lu_solve", "The solution of A x = self from A's packed LU factors (ops.lu_solve).")

    def sort(self, axis: int = -1, descending: bool = False):
        """(values, indices) sorted along ``axis``."""
        return _F().sort(self, axis, descending)

    def argsort(self, axis: int = -1, descending: bool = False):
        """The indices that sort the tensor along ``axis``."""
        return _F().argsort(self, axis, descending)

    def bitwise_and(self, other):
        """Elementwise bitwise AND (``ops.bitwise_and``; bool tensors: logical AND)."""
        return _F().bitwise_and(self, other)

    def bitwise_or(self, other):
        """Elementwise bitwise OR (``ops.bitwise_or``; bool tensors: logical OR)."""
        return _F().bitwise_or(self, other)

    def bitwise_xor(self, other):
        """Elementwise bitwise XOR (``ops.bitwise_xor``; bool tensors: logical XOR)."""
        return _F().bitwise_xor(self, other)

    def eq(self, other):
        """self == other."""
        return _F().equal(self, other)

    def swapdims(self, dim0: int, dim1: int):
        """Exchange two axes."""
        return self.swapaxes(dim0, dim1)

    @property
    def mT(self):  # noqa: N802 - MindSpore's name
        """The last two axes exchanged."""
        return self.swapaxes(-1, -2)

    @property
    def mH(self):  # noqa: N802 - MindSpore's name
        """The last two axes exchanged and, for a complex tensor, conjugated (the conjugate transpose of every
        matrix of a batch)."""
        if self.ndim < 2:
            raise ValueError(f"Tensor.mH: the tensor must have at least 2 dims, got {self.ndim}")
        out = self.swapaxes(-1, -2)
        return _F().conj(out) if self.dtype.is_complex else out

    def t(self):
        """The transpose of a tensor of rank <= 2."""
        if self.ndim > 2:
            raise ValueError(f"Tensor.t(): the tensor must have at most 2 dims, got {self.ndim}")
        return self.transpose() if self.ndim == 2 else self

    def fliplr(self):
        """Reverse the second axis."""
        return self.flip((1,))

    def flipud(self):
        """Reverse the first axis."""
        return self.flip((0,))

    def reverse(self, axis):
        """Reverse along ``axis``."""
        return self.flip(axis)

    def reshape_as(self, other):
        """Reshape to ``other``'s shape."""
        return self.reshape(other.shape)

    def view_as(self, other):
        """Reshape to ``other``'s shape."""
        return self.reshape(other.shape)

    def type_as(self, other):
        """Cast to ``other``'s dtype."""
        return self.astype(other.dtype)

    def ndimension(self) -> int:
        """The number of axes."""
        return self.ndim

    def new_full(self, size, fill_value, *, dtype=None):
        """A tensor of ``size`` filled with ``fill_value``, in this tensor's dtype (or ``dtype``)."""
        return _F().full(tuple(size), fill_value, dtype=dtype or self.dtype)

    def new_empty(self, size, *, dtype=None):
        """A tensor of ``size`` in this tensor's dtype (zeros: opbuild has no uninitialised memory)."""
        return self.new_zeros(size, dtype)

    def positive(self):
        """The tensor itself."""
        return self

    def sgn(self):
        """The sign of a real tensor."""
        return self.sign()

    def repeat_interleave(self, repeats: int, dim=None):
        """Each element repeated ``repeats`` times along ``dim`` (None: flattened)."""
        return self.repeat(repeats, dim)

    def is_signed(self) -> bool:
        """Whether the dtype holds negative values."""
        return self.dtype.is_float or (self.dtype.is_int and not self.dtype.is_unsigned)

    def is_complex(self) -> bool:
        """Whether the dtype is complex64 or complex128."""
        return self.dtype.is_complex

    def argmax_with_value(self, axis: int = 0, keep_dims: bool = False):
        """(value, index) of the maximum along ``axis`` (MindSpore 2.10's order)."""
        return _F().max(self, axis, keep_dims)

    def argmin_with_value(self, axis: int = 0, keep_dims: bool = False):
        """(value, index) of the minimum along ``axis`` (MindSpore 2.10's order)."""
        return _F().min(self, axis, keep_dims)

    def requires_grad_(self, requires_grad: bool = True):
        """Accepted for a plain Tensor (gradients are taken with ``grad``); returns the tensor."""
        return self

    add_ = _in_place("add")
    sub_ = _in_place("sub")
    mul_ = _in_place("mul")
    div_ = _in_place("div")
    clamp_ = _in_place("clamp")
    exp_ = _in_place("exp")
    log_ = _in_place("log")
    floor_ = _in_place("floor")
    sigmoid_ = _in_place("sigmoid")
    tanh_ = _in_place("tanh")
    masked_fill_ = _in_place("masked_fill")
    floor_divide_ = _in_place("floor_divide")
    remainder_ = _in_place("remainder")

    def copy_(self, src):
        """Write ``src``'s values (broadcast to this shape, cast to this dtype) into this tensor; returns it."""
        self[...] = src
        return self

    def dot(self, other):
        """The matrix product of two 2-D tensors (MindSpore's ``dot`` needs rank >= 2; opbuild supports 2)."""
        if self.ndim < 2 or other.ndim < 2:
            raise ValueError(f"dot: both inputs must have rank >= 2, got {self.ndim} and {other.ndim}")
        if self.ndim > 2 or other.ndim > 2:
            raise NotImplementedError("dot: inputs of rank > 2 are not supported by opbuild; use ops.matmul")
        return _F().matmul(self, other)
