"""Tensor: concrete array data, or (inside a graph trace) a symbolic value of the traced graph."""

from __future__ import annotations

import copyreg
from collections.abc import Callable
from typing import Any

import numpy as np

from . import host_writes, symbol
from .dtypes import KNOWN_NP, DType, dtype_of, np_name
from .init_values import init_array
from .ir import TensorType, Value
from .symbol import Symbol
from .tensor_extras import TensorExtras
from .tensor_format import tensor_repr
from .tensor_methods import TensorMethods, _ops
from .tensor_methods_inplace import TensorInPlaceMethods
from .tensor_methods_more import TensorMathMethods
from .tensor_operators import TensorOperators
from .tensor_overloads import TensorOverloads
from .tensor_reductions import TensorReductions

# The arrays device mirrors watch, and those whose newest bytes are on a device (core/host_writes.py; the dicts
# are never rebound): the one test asnumpy and _read make when no device holds anything.
_MIRRORED = host_writes.WATCHED
_OWNED = host_writes.OWNED

# What a conversion of a traced tensor to a Python value does (``bool(t)`` in ``if t.sum() > 0:``), installed by
# trace.py (it imports this module): the active tracer breaks the graph there (core/graph_breaks.py).
_concretizer: Any = None

# The Python value each conversion gives from the data.
def _one_element(conv: Callable[[Any], Any]) -> Callable[[np.ndarray], Any]:
    # MindSpore converts any one-element tensor, whatever its rank (int(tensor([10])) is 10); NumPy 2 refuses
    # arrays of rank > 0, so a one-element array is made a 0-d one first.
    return lambda a: conv(a.reshape(()) if a.size == 1 else a)


PYTHON_VALUE: dict[str, Any] = {"bool": _one_element(bool), "int": _one_element(int), "float": _one_element(float),
                                 "item": lambda a: a.reshape(()).item() if a.dtype.name != "bfloat16"
                                 else float(a.reshape(())),
                                 # the whole array (MindSpore's JIT fallback runs such Python code on values)
                                 "asnumpy": lambda a: np.array(a)}


def install_concretizer(fn: Any) -> None:
    """Install ``fn(tensor, kind)``, called for a conversion (``kind``: a key of PYTHON_VALUE) of a traced
    tensor."""
    global _concretizer
    _concretizer = fn


def python_value(t: Tensor, kind: str) -> Any:
    """``bool``/``int``/``float``/``item`` of ``t``: from its data, or for a traced tensor from the tracer."""
    if t._data is None and _concretizer is not None:
        return _concretizer(t, kind)
    return PYTHON_VALUE[kind](t.asnumpy())


def _initial_values(shape, dtype, init) -> np.ndarray:
    """The values of ``Tensor(shape=..., dtype=..., init=...)``: ``init`` an Initializer, its name or a number
    (default: zeros, as an uninitialised MindSpore tensor reads once initialised)."""
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(d is None or (isinstance(d, int) and d < 0) for d in dims):
        raise ValueError(f"Tensor(shape={list(dims)}): dynamic dimensions (None or -1) declare inputs for "
                         "Cell.set_inputs and take no init; give every dimension to initialise a tensor")
    return init_array(0 if init is None else init, dims, dtype if dtype is not None else "float32")


def _placeholder_value(shape, dtype) -> Value:
    """The type of an input declaration ``Tensor(shape=..., dtype=...)`` (None or -1: a free dimension)."""
    dims = tuple(shape) if isinstance(shape, (list, tuple)) else None
    if dims is None or dtype is None or not all(d is None or isinstance(d, Symbol) or (isinstance(d, int) and d >= -1)
                                                for d in dims):
        raise ValueError(f"Tensor(shape={shape!r}, dtype={dtype!r}): an input declaration needs a list of dims "
                         "(ints, or None for a dynamic one) and a dtype")
    return Value(TensorType(tuple(-1 if d is None or isinstance(d, Symbol) else int(d) for d in dims),
                            dtype_of(dtype).name),
                 name="declared_input")


def _is_declaration(shape) -> bool:
    """``shape`` has a free dimension (None or -1): ``Tensor(shape=..., dtype=...)`` declares an input."""
    return isinstance(shape, (list, tuple)) and any(
        d is None or isinstance(d, Symbol) or (isinstance(d, int) and d == -1) for d in shape)


def is_placeholder(t: Any) -> bool:
    """``t`` is an input declaration (``Tensor(shape=[None, ...], dtype=...)``) rather than data or a traced
    value."""
    return isinstance(t, Tensor) and t._data is None and t._value is not None \
        and t._value.name == "declared_input" and t._value.producer is None


class Tensor(TensorOperators, TensorOverloads, TensorReductions, TensorMethods, TensorExtras, TensorMathMethods,
             TensorInPlaceMethods):
    """An n-dimensional array of a supported dtype (see :mod:`opbuild.core.dtypes`).

    ``Tensor(data, dtype=None)`` accepts anything NumPy can turn into an array. Python floats default to
    float32 (as in MindSpore); NumPy arrays keep their dtype. Python operators map to primitives, so they work
    both eagerly and inside a traced ``construct``.
    """

    __slots__ = ("_data", "_value", "__weakref__")
    __array_priority__ = 100  # make ndarray <op> Tensor defer to Tensor's reflected operators

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg: bool = False,
                 device=None, internal: bool = False):
        # MindSpore's signature. const_arg, device and internal change how MindSpore's compiler treats the
        # tensor (constant folding, placement); one CPU target has nothing to choose, so they are accepted.
        # MindSpore copies a NumPy array given to Tensor() (Tensor.from_numpy shares it) but shares the data of a
        # Tensor given to Tensor(): a later in-place write to the caller's array must not reach this tensor.
        copy_array = isinstance(input_data, np.ndarray)
        if isinstance(input_data, Tensor):
            input_data = input_data.asnumpy()
        if input_data is None and init is None and _is_declaration(shape):
            # MindSpore's declaration of a dynamic shape for Cell.set_inputs: Tensor(shape=[None, 3], ...) holds
            # no data; its shape shows a free dimension as -1, as MindSpore's does.
            self._data, self._value = None, _placeholder_value(shape, dtype)
            symbol.remember(self, shape)
            return
        if input_data is None:
            if shape is None:
                raise ValueError("Tensor needs input_data (an array, list or scalar), or shape and dtype (with "
                                 "init) as Tensor(shape=(2, 3), dtype=mstype.float32, init=One())")
            input_data = _initial_values(shape, dtype, init)
        elif shape is not None or init is not None:
            raise ValueError("Tensor: give either input_data, or shape/dtype/init, not both")
        arr = np.asarray(input_data)
        if dtype is not None:
            arr = arr.astype(dtype_of(dtype).np_dtype, copy=False)
        elif not isinstance(input_data, (np.ndarray, np.generic)) and arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        dtype_of(arr.dtype)  # raises TypeError for unsupported dtypes
        if not arr.dtype.isnative:  # kernels read the machine's byte order: a big-endian array's values, converted
            arr = arr.astype(arr.dtype.newbyteorder("="))
        if copy_array and np.may_share_memory(arr, input_data):
            arr = arr.copy()
        # np.ascontiguousarray turns a 0-d array into shape (1,): keep scalars (full reductions) 0-d.
        self._data: np.ndarray | None = arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)
        self._value: Value | None = None

    @classmethod
    def _of(cls, arr: np.ndarray) -> Tensor:
        """A Tensor holding ``arr`` itself (no copy, no conversion): for arrays opbuild just produced (kernel
        outputs) and for :meth:`from_numpy`. ``arr`` must be a C-contiguous array of a supported dtype."""
        t = cls.__new__(cls)
        t._data = arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)
        t._value = None
        return t

    @staticmethod
    def _fresh(data: np.ndarray, dtype: DType | None = None) -> Tensor:
        """A plain Tensor (never a Parameter) of ``data`` just computed, in ``dtype`` (default: its own): how the
        method mixins, which this module imports, make their results without importing it."""
        # np.asarray(order="C"), not np.ascontiguousarray: that one makes a 0-d array 1-d.
        arr = np.asarray(data if dtype is None else np.asarray(data).astype(dtype.np_dtype, copy=False), order="C")
        dtype_of(arr.dtype)  # raises TypeError for unsupported dtypes
        return Tensor._of(arr)

    @staticmethod
    def from_numpy(array: np.ndarray) -> Tensor:
        """A Tensor of a NumPy array's values and dtype (``Tensor.from_numpy``; the array is not copied)."""
        if not isinstance(array, np.ndarray):
            raise TypeError(f"Tensor.from_numpy needs a numpy.ndarray, got {type(array).__name__}")
        dtype_of(array.dtype)  # raises TypeError for unsupported dtypes
        if not array.dtype.isnative:
            raise ValueError(f"Tensor.from_numpy shares the array's memory, so it must be in the machine's byte "
                             f"order, not {array.dtype.str!r}; pass array.astype(array.dtype.newbyteorder('=')) "
                             "(a copy) or use Tensor(array)")
        if not array.flags.c_contiguous:
            raise ValueError("Tensor.from_numpy shares the array's memory, so it must be C-contiguous; pass "
                             "np.ascontiguousarray(array) (a copy) instead")
        return Tensor._of(array)

    def init_data(self) -> Tensor:
        """MindSpore initialises ``Tensor(shape=..., init=...)`` lazily; opbuild's values exist from
        construction, so this returns the tensor itself."""
        return self

    @classmethod
    def _symbolic(cls, value: Value) -> Tensor:
        t = cls.__new__(cls)
        t._data = None
        t._value = value
        return t

    # ---- metadata -------------------------------------------------------------------------------
    @property
    def _type(self) -> TensorType:
        if self._value is not None:
            return self._value.type
        return TensorType(tuple(self._data.shape), np_name(self._data.dtype))

    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.type.shape if self._value is not None else self._data.shape  # a new tuple per read

    @property
    def dtype(self) -> DType:
        if self._value is None:  # read on every promotion of every PyNative op: the table first
            return KNOWN_NP.get(self._data.dtype) or dtype_of(self._data.dtype)
        return dtype_of(self._value.type.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim if self._value is None else len(self._value.type.shape)

    @property
    def size(self) -> int:
        return self._type.size

    def asnumpy(self) -> np.ndarray:
        """The data as a NumPy array (shares memory). A traced tensor's values, where the trace can give them
        (a GRAPH_MODE graph breaks there, a gradient traced from Python computes them), are a copy."""
        if self._data is None:
            if _concretizer is not None and not is_placeholder(self):
                return _concretizer(self, "asnumpy")
            raise RuntimeError(
                "asnumpy() was called on a tensor being traced in GRAPH_MODE; its values exist only when the "
                "graph runs. Return it from construct, or use PYNATIVE_MODE to inspect intermediate values.")
        if _MIRRORED:  # a device holds a copy (maybe newer: downloaded first); the caller may write this array
            host_writes.touched(self._data)
        return self._data

    def _read(self) -> np.ndarray:
        """The data for reading only (never write it): :meth:`asnumpy`'s array, downloaded first when a device
        holds newer bytes (a graph's in-place update), without making device copies stale. Printing,
        checkpoints, copies, pickling and PyNative inputs read through it."""
        data = self._data
        if data is None:
            return self.asnumpy()
        if _OWNED:
            host_writes.fetch(data)
        return data

    def __getstate__(self):
        """Pickling and ``copy``: the slots, with the newest data (downloaded if a device holds it)."""
        if self._data is not None:
            self._read()
        slots = {name: getattr(self, name) for name in copyreg._slotnames(type(self)) if hasattr(self, name)}
        return getattr(self, "__dict__", None) or None, slots

    def __array__(self, dtype=None, copy=None):
        arr = self.asnumpy()
        return arr.astype(dtype) if dtype is not None else arr

    def __repr__(self) -> str:
        if self._data is None:
            if is_placeholder(self):  # an input declaration has no values; MindSpore prints an empty value
                return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n)"
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, traced)"
        return tensor_repr(self._read(), self.shape, self.dtype)

    def __str__(self) -> str:
        return str(self._read()) if self._data is not None else repr(self)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        """The slices along the first axis (traced as slices in a graph; the shape is static)."""
        if not self.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __index__(self) -> int:
        """A one-element integer tensor as a Python index (``range(n)[t]``, ``list[t]``)."""
        if self.dtype.is_float or self.size != 1:
            raise TypeError("only a one-element integer tensor can be used as an index")
        return python_value(self, "int")

    # In GRAPH_MODE these break the traced graph (core/graph_breaks.py): ``if x.sum() > 0:`` works there.
    def __bool__(self) -> bool:
        return python_value(self, "bool")

    def __float__(self) -> float:
        return python_value(self, "float")

    def __int__(self) -> int:
        return python_value(self, "int")

    __hash__ = object.__hash__

    def item(self) -> bool | int | float:
        """The value of a one-element tensor as a Python scalar (in GRAPH_MODE a graph break, as ``bool(t)``)."""
        if self.size != 1:
            raise ValueError(f"Tensor.item(): only a one-element tensor converts to a Python scalar, this one has "
                             f"{self.size} elements")
        return python_value(self, "item")

    def tolist(self) -> Any:
        """The values as (nested) Python lists of Python scalars (a scalar for a 0-d tensor)."""
        arr = self.asnumpy()
        return arr.astype(np.float32).tolist() if arr.dtype.name == "bfloat16" else arr.tolist()

    def assign_value(self, value) -> Tensor:
        """Replace this tensor's values by ``value``'s (a Tensor or an array), in place. A tensor takes the new
        shape, as MindSpore's; a Parameter keeps its shape (compiled graphs hold it)."""
        if self._data is None:
            raise RuntimeError("assign_value() on a tensor being traced in GRAPH_MODE; use ops.assign on a "
                               "Parameter there")
        arr = np.asarray(value.asnumpy() if isinstance(value, Tensor) else value, dtype=self._data.dtype)
        if arr.shape != self._data.shape and hasattr(self, "requires_grad"):
            raise ValueError(f"assign_value: shape {arr.shape} differs from the Parameter's {self._data.shape}; "
                             "a Parameter keeps its shape (use a new Parameter)")
        self._data = np.require(arr, requirements="C").copy()
        return self

    def __setitem__(self, index, value) -> None:
        """``t[index] = value``: in place in PyNative mode; a select/scatter node in a traced graph (see
        ops/api/setitem.py)."""
        _ops().setitem(self, index, value)

    # ---- methods (MindSpore 2.x Tensor API), each one functional-API call ----------------------------------
    def __getitem__(self, index):
        """NumPy indexing: ints, slices (any step), ``...``, ``None``, one integer-array or bool-mask index
        (traced as StridedSlice / Gather; see ops/api/indexing.py for the graph-mode rule on masks)."""
        getitem = _ops().getitem
        return getitem(self, index)

    @staticmethod
    def _shape_args(shape: tuple) -> tuple:
        """``t.reshape(2, 3)`` and ``t.reshape((2, 3))`` alike."""
        return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape

    def reshape(self, *shape) -> Tensor:
        """Same elements in ``shape`` (varargs or one tuple; one -1 inferred)."""
        F = _ops()
        return F.reshape(self, self._shape_args(shape))

    def view(self, *shape) -> Tensor:
        """:meth:`reshape` (tensors are contiguous, so a view and a reshape agree); ``view(dtype)`` reads the
        same bytes as another dtype (the last axis scales by the ratio of the item sizes)."""
        if len(shape) == 1 and isinstance(shape[0], DType):
            return Tensor(self.asnumpy().view(shape[0].np_dtype), dtype=shape[0])
        return self.reshape(*shape)

    def transpose(self, *axes) -> Tensor:
        """Permute the axes (no argument: reverse them); two ints swap those two axes (MindSpore 2.x's
        ``transpose(dim0, dim1)``)."""
        F = _ops()
        if len(axes) == 2 and all(isinstance(a, int) for a in axes):
            return F.swapaxes(self, *axes)
        axes = self._shape_args(axes)
        return F.transpose(self, axes or tuple(range(self.ndim - 1, -1, -1)))

    @property
    def T(self) -> Tensor:  # noqa: N802 - MindSpore's name
        """The tensor with its axes reversed."""
        return self.transpose()

    def permute(self, *axis) -> Tensor:
        """Permute the axes (varargs or one tuple)."""
        return self.transpose(*axis)

    def flatten(self, order: str = "C", *args, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge axes start_dim..end_dim (default: every axis, so the result is 1-D); also
        ``flatten(start_dim, end_dim)`` positionally (MindSpore 2.x's second overload)."""
        F = _ops()
        if isinstance(order, int):
            order, start_dim, end_dim = "C", order, args[0] if args else end_dim
        return F.flatten(self, order, start_dim=start_dim, end_dim=end_dim)

    def squeeze(self, axis=None) -> Tensor:
        """Drop size-1 axes (all when ``axis`` is None)."""
        F = _ops()
        return F.squeeze(self, axis)

    def expand_dims(self, axis: int) -> Tensor:
        """Insert a size-1 axis at ``axis``."""
        F = _ops()
        return F.expand_dims(self, axis)

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a size-1 axis at ``dim``."""
        return self.expand_dims(dim)

    def astype(self, dtype, copy: bool = True) -> Tensor:
        """The tensor cast to ``dtype`` (a Cast node; itself when the dtype already matches and not ``copy``)."""
        F = _ops()
        if not copy and self.dtype == dtype_of(dtype):
            return self
        return F.cast(self, dtype)


def as_tensor(x, like: Tensor | None = None) -> Tensor:
    """Coerce ``x`` to a Tensor; a Python scalar takes the dtype of ``like`` (weak typing, as in JAX)."""
    if isinstance(x, Tensor):
        return x
    if like is not None and isinstance(x, (bool, int, float)) and not isinstance(x, np.generic):
        dt = like._type.dtype
        if isinstance(x, float) and dt not in ("float32", "float64") and not float(x).is_integer():
            # A fractional scalar does not fit an integer tensor: the op reports the dtype mismatch.
            return Tensor(x)
        return Tensor(np.asarray(x, dtype=dt))
    return Tensor(x)


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg: bool = False, device=None) -> Tensor:
    """MindSpore 2.x's lower-case constructor ``mindspore.tensor(...)``: the same arguments and result as
    ``Tensor(...)`` (in graph mode too: a tensor created inside ``construct`` is a constant of the trace)."""
    return Tensor(input_data, dtype, shape=shape, init=init, const_arg=const_arg, device=device)
