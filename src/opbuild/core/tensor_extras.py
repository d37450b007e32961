"""Tensor methods of MindSpore 2.x that read or rebuild the data as a whole (``allclose``, ``median``,
``index_add``, ``index_put``, ``scatter``, ``masked_scatter``, ``fill_diagonal``, ``resize``, ``choose``,
``to_coo``/``to_csr``, ``stride``, ...), a mixin of :class:`~opbuild.core.tensor.Tensor`.

They compute in NumPy on the tensor's data, in PyNative mode (a tensor being traced in GRAPH_MODE has no data:
``asnumpy`` then raises, naming the mode). Results follow MindSpore 2.10's (fixtures recorded by
scripts/record_tensor_extras.py), including its choices where NumPy's differ: ``resize`` pads with zeros,
``itemset`` returns a new tensor and leaves the tensor as it was, ``median`` gives the lower middle value and
its int64 index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .functional_slot import _ops
from .providers import provider


def _np(x) -> np.ndarray:
    return np.asarray(x.asnumpy()) if hasattr(x, "asnumpy") else np.asarray(x)


class TensorExtras:
    """Whole-data Tensor methods (MindSpore 2.x names and signatures)."""

    __slots__ = ()

    @property
    def H(self):  # noqa: N802 - MindSpore's name
        """The conjugate transpose of a 2-D tensor."""
        if self.ndim != 2:
            raise ValueError(f"Tensor.H: expected a 2-D tensor, got {self.ndim}-D")
        out = _ops().transpose(self, (1, 0))
        return _ops().conj(out) if self.dtype.is_complex else out

    @property
    def data(self):
        """The tensor itself (MindSpore's ``Tensor.data``)."""
        return self

    @property
    def has_init(self) -> bool:
        """Whether the data waits for ``init_data`` (opbuild tensors hold their data from creation)."""
        return False

    def value(self):
        """The tensor's value (itself)."""
        return self

    def byte(self):
        """The tensor as uint8."""
        return self.astype("uint8")

    def allclose(self, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
        """Whether every element is close to ``other``'s (``|a - b| <= atol + rtol * |b|``)."""
        return bool(np.allclose(_np(self).astype(np.float64), _np(other).astype(np.float64), rtol, atol,
                                equal_nan))

    def choose(self, choices, mode: str = "clip"):
        """Elements picked from ``choices`` by this tensor's indices (``numpy.choose``)."""
        if mode not in ("clip", "wrap", "raise"):
            raise ValueError(f"Tensor.choose: mode must be 'clip', 'wrap' or 'raise', got {mode!r}")
        opts = [_np(c) for c in choices] if isinstance(choices, (list, tuple)) else _np(choices)
        return self._fresh(np.choose(_np(self), opts, mode=mode))

    @classmethod
    def convert_bytes_to_tensor(cls, bytes_data: bytes, shape, dtype):
        """A tensor of ``shape`` and ``dtype`` read from ``bytes_data`` (what ``get_bytes`` returned)."""
        return cls._fresh(np.frombuffer(bytes_data, dtype=dtype.np_dtype).reshape(tuple(shape)).copy())

    def data_ptr(self) -> int:
        """The address of the first element."""
        return int(self.asnumpy().ctypes.data)

    def storage_offset(self) -> int:
        """Elements between the storage's start and the first element (0: tensors own their data)."""
        return 0

    def stride(self, dim: int | None = None):
        """Steps in elements between neighbours along each axis (C order), or along ``dim``."""
        steps = [s // self.asnumpy().itemsize for s in self.asnumpy().strides]
        return steps if dim is None else steps[dim]

    def is_pinned(self) -> bool:
        """Whether the data is in page-locked memory (never, on opbuild)."""
        return False

    def is_shared(self) -> bool:
        """Whether the data is in shared memory (never, on opbuild)."""
        return False

    def move_to(self, to: str, blocking: bool = True):
        """A copy on device ``to``; opbuild's tensors live on the CPU only."""
        if str(to).upper() != "CPU":
            raise ValueError(f"Tensor.move_to: opbuild runs on the CPU only, got to={to!r}; use 'CPU'")
        return self._fresh(self.asnumpy().copy(), self.dtype)

    def set_const_arg(self, const_arg: bool = True):
        """Mark the tensor as a constant graph argument (kept as a flag; returns the tensor)."""
        if not isinstance(const_arg, bool):
            raise TypeError(f"Tensor.set_const_arg: const_arg must be a bool, got {type(const_arg).__name__}")
        return self

    def flush_from_cache(self) -> None:
        """Write a cache-enabled embedding back from its cache (no cache on opbuild: nothing to do)."""
        return None

    def fill_diagonal(self, fill_value: float, wrap: bool = False):
        """A copy with the main diagonal set to ``fill_value`` (``wrap``: restart below tall matrices)."""
        out = self.asnumpy().copy()
        np.fill_diagonal(out, fill_value, wrap=wrap)
        return self._fresh(out, self.dtype)

    def itemset(self, *args):
        """A copy with one element set (``itemset(index, value)`` or ``itemset(value)`` for one element)."""
        out = self.asnumpy().copy()
        if len(args) == 1:
            out.flat[0] = args[0]
        elif len(args) == 2:
            index = args[0] if isinstance(args[0], tuple) else np.unravel_index(args[0], out.shape)
            out[index] = args[1]
        else:
            raise TypeError("Tensor.itemset: expected (value) or (index, value)")
        return self._fresh(out, self.dtype)

    def resize(self, *new_shape):
        """A tensor of ``new_shape`` with the elements in C order, cut or padded with zeros."""
        shape = tuple(new_shape[0]) if len(new_shape) == 1 and isinstance(new_shape[0], (tuple, list)) \
            else tuple(new_shape)
        flat = self.asnumpy().ravel()
        out = np.zeros(int(np.prod(shape)), flat.dtype)
        n = min(out.size, flat.size)
        out[:n] = flat[:n]
        return self._fresh(out.reshape(shape), self.dtype)

    def index_add(self, indices, y, axis: int, use_lock: bool = True, check_index_bound: bool = True):
        """A copy with ``y`` added at ``indices`` along ``axis``."""
        out = self.asnumpy().copy()
        idx = _np(indices).astype(np.int64)
        if check_index_bound and (idx.min(initial=0) < 0 or idx.max(initial=0) >= out.shape[axis]):
            raise IndexError(f"Tensor.index_add: indices out of range for axis {axis} of size {out.shape[axis]}")
        moved = np.moveaxis(out, axis, 0)
        np.add.at(moved, idx, np.moveaxis(_np(y).astype(out.dtype), axis, 0))
        return self._fresh(out, self.dtype)

    def index_put(self, indices, values, accumulate: bool = False):
        """A copy with ``values`` written (``accumulate``: added) at the index tensors ``indices``."""
        out = self.asnumpy().copy()
        key = tuple(_np(i).astype(np.int64) for i in indices)
        vals = _np(values).astype(out.dtype)
        if accumulate:
            np.add.at(out, key, np.broadcast_to(vals, out[key].shape))
        else:
            out[key] = vals
        return self._fresh(out, self.dtype)

    def masked_scatter(self, mask, source):
        """A copy whose elements where ``mask`` is true are ``source``'s first elements, in order."""
        out = self.asnumpy().copy()
        m = np.broadcast_to(_np(mask).astype(bool), out.shape)
        src = _np(source).ravel()
        if src.size < m.sum():
            raise ValueError(f"Tensor.masked_scatter: source has {src.size} elements, the mask selects {m.sum()}")
        out[m] = src[:m.sum()]
        return self._fresh(out, self.dtype)

    def scatter(self, axis: int | None = None, index=None, src=None, *, dim: int | None = None, value=None,
                reduce: str | None = None):
        """A copy with ``src`` (or the scalar ``value``) written at ``index`` along ``axis`` (or ``dim``);
        ``reduce='add'``/``'multiply'`` combines instead of writing."""
        axis = dim if axis is None else axis
        out = self.asnumpy().copy()
        idx = _np(index).astype(np.int64)
        if src is not None and tuple(_np(src).shape) != idx.shape:
            raise ValueError(f"Tensor.scatter: index and src must have the same shape, got {idx.shape} and "
                             f"{tuple(_np(src).shape)}")
        vals = np.broadcast_to(np.asarray(value, out.dtype), idx.shape) if src is None else \
            _np(src).astype(out.dtype)
        grid = list(np.indices(idx.shape, sparse=True))
        grid[axis] = idx
        if reduce is None:
            out[tuple(grid)] = vals
        elif reduce in ("add", "multiply"):
            (np.add if reduce == "add" else np.multiply).at(out, tuple(grid), vals)
        else:
            raise ValueError(f"Tensor.scatter: reduce must be None, 'add' or 'multiply', got {reduce!r}")
        return self._fresh(out, self.dtype)

    def median(self, axis: int = -1, keepdims: bool = False, *, dim: int | None = None,
               keepdim: bool | None = None):
        """(values, int64 indices) of the lower median along ``axis`` (or ``dim``); a lane holding a NaN has
        the median NaN at the index of its first NaN (as ``ops.median``)."""
        axis = axis if dim is None else dim
        keepdims = keepdims if keepdim is None else keepdim
        data = self.asnumpy()
        order = np.argsort(data, axis=axis, kind="stable")
        k = (data.shape[axis] - 1) // 2
        idx = np.take(order, [k], axis=axis)
        if self.dtype.is_float and data.size:  # argsort puts NaNs last: the middle of a lane with one is a number
            nan = np.isnan(data)
            idx = np.where(nan.any(axis=axis, keepdims=True), np.argmax(nan, axis=axis, keepdims=True), idx)
        vals = np.take_along_axis(data, idx, axis=axis)
        if not keepdims:
            idx, vals = np.squeeze(idx, axis), np.squeeze(vals, axis)
        return self._fresh(vals, self.dtype), self._fresh(idx.astype(np.int64))

    def sum_to_size(self, *size):
        """Sum over the axes where ``size`` is 1 (or missing in front) so the result has shape ``size``."""
        shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
        lead = self.ndim - len(shape)
        if lead < 0:
            raise ValueError(f"Tensor.sum_to_size: size {shape} has more axes than the tensor's {self.shape}")
        axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and self.shape[lead + i] != 1)
        out = _ops().sum(self, axes, True) if axes else self
        return out.reshape(shape)

    def to_coo(self):
        """The nonzero elements as a COOTensor (int32 indices, as MindSpore's)."""
        COOTensor = provider("sparse_classes")["COOTensor"]  # noqa: N806 - a class
        data = self.asnumpy()
        nz = np.argwhere(data != 0)
        return COOTensor(self._fresh(nz.astype(np.int32)), self._fresh(data[tuple(nz.T)], self.dtype),
                         tuple(data.shape))

    def to_csr(self):
        """The nonzero elements of a 2-D tensor as a CSRTensor (int32 index arrays, as MindSpore's)."""
        CSRTensor = provider("sparse_classes")["CSRTensor"]  # noqa: N806 - a class
        data = self.asnumpy()
        if data.ndim != 2:
            raise ValueError(f"Tensor.to_csr: expected a 2-D tensor, got {data.ndim}-D")
        rows, cols = np.nonzero(data)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=data.shape[0]))]).astype(np.int32)
        return CSRTensor(self._fresh(indptr), self._fresh(cols.astype(np.int32)),
                         self._fresh(data[rows, cols], self.dtype), tuple(data.shape))

    def uniform_(self, from_: float = 0.0, to: float = 1.0, *, generator: Any = None):
        """Fill with values drawn uniformly from [from_, to), in place (``generator``: a mindspore.Generator
        whose seed and offset make the draw repeatable; ``ops.uniform_``)."""
        return _ops().uniform_(self, from_, to, generator=generator)

    def cauchy(self, median: float = 0.0, sigma: float = 1.0):
        """Fill with values drawn from the Cauchy distribution (``median``, scale ``sigma``), in place."""
        data = self.asnumpy()
        data[...] = (median + sigma * np.random.default_rng().standard_cauchy(data.shape)).astype(data.dtype)
        return self

    def log_normal(self, mean: float = 1.0, std: float = 2.0):
        """Fill with values whose logarithm is N(mean, std^2), in place."""
        if std <= 0:
            raise ValueError(f"Tensor.log_normal: std must be positive, got {std}")
        data = self.asnumpy()
        data[...] = np.random.default_rng().lognormal(mean, std, data.shape).astype(data.dtype)
        return self

    def random_(self, from_: int = 0, to: int | None = None, *, generator: Any = None):
        """Fill with integers drawn uniformly from [from_, to) (to: the dtype's largest by default), in place
        (``ops.random_``)."""
        return _ops().random_(self, from_, to, generator=generator)
