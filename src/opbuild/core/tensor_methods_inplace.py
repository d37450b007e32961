"""``mindspore.Tensor``'s in-place methods (``addmm_``, ``index_add_``, ``scatter_``, ``sign_``, the random fills
``normal_``/``exponential_``/``bernoulli_``, ...), its older scatter methods, ``unique``, and the device and
DLPack members, with MindSpore 2.10's signatures; a mixin :class:`~opbuild.core.tensor.Tensor` inherits.

An in-place method computes the new values with the functional API, writes them into the tensor with
``self[...] = ...`` (in PyNative the data changes; traced in a graph, the tensor's value is replaced, as
``Tensor.copy_`` does) and returns the tensor itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import tensor_hooks
from .functional_slot import _ops
from .providers import provider


def _mint() -> Any:
    return provider("mint")


def _write(self, values):
    """``values`` written into ``self``; ``self`` returned (what every in-place method gives back)."""
    self[...] = values
    return self


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "asnumpy") and hasattr(x, "dtype")


def _leading(src, index):
    """``src``'s leading block of ``index``'s shape: MindSpore's ``scatter_``/``scatter_add`` (as PyTorch's) read
    only the elements of ``src`` that ``index`` has, where ``src`` may be larger along any axis."""
    if not _is_tensor(src) or not _is_tensor(index) or tuple(src.shape) == tuple(index.shape):
        return src
    if src.ndim != index.ndim or any(i > s for i, s in zip(index.shape, src.shape)):
        raise ValueError(f"Tensor scatter: src {tuple(src.shape)} must have index's rank and be at least index's "
                         f"size {tuple(index.shape)} along every axis")
    return src[tuple(slice(0, n) for n in index.shape)]


def _int32_index(index):
    """An int64 index Tensor as int32, which ``ops.index_fill`` takes (MindSpore's method takes both)."""
    return index.astype("int32") if _is_tensor(index) and index.dtype.name == "int64" else index


class TensorInPlaceMethods:
    """Mixin of Tensor's in-place, scatter, ``unique`` and device methods. ``self`` is always a Tensor."""

    __slots__ = ()

    # ---- in-place arithmetic and writes -------------------------------------------------------------------
    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        """beta * self + alpha * (mat1 @ mat2), written into this tensor; returns it."""
        return _write(self, _ops().addmm(self, mat1, mat2, beta=beta, alpha=alpha))

    def sign_(self):
        """The sign (-1, 0 or 1) of each element, written into this tensor; returns it."""
        return _write(self, _ops().sign(self))

    def erfinv_(self):
        """The inverse error function of each element, written into this tensor; returns it."""
        return _write(self, _ops().erfinv(self))

    def fill_diagonal_(self, fill_value: float, wrap: bool = False):
        """The main diagonal set to ``fill_value`` (``wrap``: restarting below a tall matrix's square), in
        place; returns the tensor."""
        return _write(self, self.fill_diagonal(fill_value, wrap))

    def index_add_(self, dim: int, index, source, *, alpha=1):
        """``alpha * source``'s slices added at ``index`` along ``dim``, in place; returns the tensor."""
        return _write(self, _mint().index_add(self, dim, index, source, alpha=alpha))

    def index_copy_(self, dim: int, index, tensor):
        """``tensor``'s slices along ``dim`` written at ``index``, in place; returns the tensor."""
        if not _is_tensor(index) or index.ndim != 1:
            raise ValueError("Tensor.index_copy_: index must be a 1-D integer Tensor")
        if not _is_tensor(tensor) or tensor.ndim != self.ndim:
            raise ValueError(f"Tensor.index_copy_: tensor must be a Tensor of the same rank as self ({self.ndim})")
        self[(slice(None),) * (dim % self.ndim) + (index,)] = tensor
        return self

    def index_fill_(self, dim: int, index, value):
        """``value`` at ``index`` along ``dim``, in place; returns the tensor."""
        return _write(self, _ops().index_fill(self, dim, _int32_index(index), value))

    def index_put_(self, indices, values, accumulate: bool = False):
        """``values`` written (``accumulate``: added) at the index tensors ``indices``, in place; returns the
        tensor."""
        if not isinstance(indices, (tuple, list)):
            raise TypeError(f"Tensor.index_put_: indices must be a tuple or list of Tensors, got "
                            f"{type(indices).__name__}")
        return _write(self, self.index_put(indices, values, accumulate))

    def masked_scatter_(self, mask, source):
        """``source``'s leading elements written where ``mask`` is True, in order, in place; returns the
        tensor."""
        return _write(self, self.masked_scatter(mask, source))

    def put_(self, index, source, accumulate: bool = False):
        """``source`` written (``accumulate``: added) at the flat positions ``index``, in place; returns the
        tensor (``ops.put_``)."""
        _ops().put_(self, index, source, accumulate)
        return self

    # ---- scatters -----------------------------------------------------------------------------------------
    def scatter_(self, dim: int, index, src, *, reduce=None):
        """``src`` (a Tensor, or a number written everywhere) written at ``index`` along ``dim``, in place;
        ``reduce='add'``/``'multiply'`` combines instead; returns the tensor."""
        if _is_tensor(src):
            return _write(self, self.scatter(dim, index, _leading(src, index), reduce=reduce))
        return _write(self, self.scatter(dim, index, value=src, reduce=reduce))

    def scatter_add(self, dim, index, src=None):
        """A copy with ``src`` added at ``index`` along ``dim`` (``scatter_add(dim, index, src)``, as
        ``mint.scatter_add``), or, called with two Tensors, with ``updates`` added at the coordinates
        ``indices`` (MindSpore's older overload ``scatter_add(indices, updates)``, ``ops.tensor_scatter_add``)."""
        if src is None:
            if isinstance(dim, int) or not _is_tensor(dim):
                raise TypeError("Tensor.scatter_add takes (dim, index, src) or (indices, updates) with two Tensors, "
                                f"got dim={dim!r} and no src")
            return _ops().tensor_scatter_add(self, dim, index)
        return _mint().scatter_add(self, dim, index, _leading(src, index))

    def scatter_add_(self, dim: int, index, src):
        """``src`` added at ``index`` along ``dim``, in place; returns the tensor."""
        return _write(self, _mint().scatter_add(self, dim, index, _leading(src, index)))

    def scatter_sub(self, indices, updates):
        """A copy with ``updates`` subtracted at the coordinates ``indices`` (``ops.tensor_scatter_sub``)."""
        return _ops().tensor_scatter_sub(self, indices, updates)

    def scatter_mul(self, indices, updates):
        """A copy with the elements at the coordinates ``indices`` multiplied by ``updates``."""
        return _ops().tensor_scatter_mul(self, indices, updates)

    def scatter_div(self, indices, updates):
        """A copy with the elements at the coordinates ``indices`` divided by ``updates``."""
        return _ops().tensor_scatter_div(self, indices, updates)

    def scatter_max(self, indices, updates):
        """A copy with the elements at the coordinates ``indices`` raised to ``updates`` where smaller."""
        return _ops().tensor_scatter_max(self, indices, updates)

    def scatter_min(self, indices, updates):
        """A copy with the elements at the coordinates ``indices`` lowered to ``updates`` where larger."""
        return _ops().tensor_scatter_min(self, indices, updates)

    # ---- random fills ---------------------------------------------------------------------------------------
    def normal_(self, mean=0, std=1, *, generator=None):
        """Fill with draws from N(mean, std^2), in place; returns the tensor (``ops.normal_``)."""
        _ops().normal_(self, mean, std, generator=generator)
        return self

    def exponential_(self, lambd=1, *, generator=None):
        """Fill with draws from the exponential distribution of rate ``lambd``, in place; returns the tensor."""
        _ops().exponential_(self, lambd, generator=generator)
        return self

    def bernoulli_(self, p=0.5, *, generator=None):
        """Fill with 0/1 draws, 1 with probability ``p`` (a number or a Tensor), in place; returns the tensor."""
        _ops().bernoulli_(self, p, generator=generator)
        return self

    # ---- unique -----------------------------------------------------------------------------------------------
    def unique(self, sorted: bool = True, return_inverse: bool = False,  # noqa: A002 - MindSpore's name
               return_counts: bool = False, dim=None):
        """The distinct elements (``dim``: the distinct slices along it) in ascending order, and optionally the
        int64 inverse indices (the input's shape; along ``dim``, one per slice) and counts."""
        data = self.asnumpy()
        if dim is not None and not -data.ndim <= dim < max(data.ndim, 1):
            raise ValueError(f"Tensor.unique: dim {dim} is out of range for a {data.ndim}-D tensor")
        values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True, axis=dim)
        out = [self._fresh(values, self.dtype)]
        if return_inverse:
            shape = data.shape if dim is None else (data.shape[dim],)
            out.append(self._fresh(inverse.reshape(shape).astype(np.int64)))
        if return_counts:
            out.append(self._fresh(counts.astype(np.int64)))
        return out[0] if len(out) == 1 else tuple(out)

    # ---- backward hooks (core/tensor_hooks.py) ------------------------------------------------------------
    def register_hook(self, hook):
        """Call ``hook(grad)`` with the gradient reaching this tensor when a gradient is taken; a Tensor it
        returns replaces the gradient. Returns a handle whose ``remove()`` removes the hook."""
        return tensor_hooks.register(self, hook)

    def remove_hook(self, handle_id: int) -> None:
        """Remove the hook whose handle has the id ``handle_id`` (``handle.id``)."""
        tensor_hooks.remove(self, handle_id)

    def hooks(self) -> list:
        """The hooks registered on this tensor, in registration order."""
        return tensor_hooks.hooks_of(self)

    # ---- device and exchange ----------------------------------------------------------------------------------
    @property
    def device(self) -> str:
        """Where the data lives: ``'CPU'`` (opbuild's tensors are host arrays)."""
        return "CPU"

    @property
    def is_meta(self) -> bool:
        """Whether the tensor has no data, only a shape and dtype (never: opbuild's tensors hold data)."""
        return False

    @property
    def init(self):
        """The initializer waiting to fill the data (None: opbuild's tensors hold their data from creation)."""
        return None

    def pin_memory(self):
        """A copy in page-locked memory for faster device transfers; on opbuild's CPU, a plain copy."""
        return self.clone()

    def to_(self, device=None, non_blocking: bool = False):
        """Move the data to ``device`` in place; opbuild runs on the CPU only, so only 'CPU' is accepted."""
        if device is None or str(device).split(":")[0].upper() != "CPU":
            raise ValueError(f"Tensor.to_: opbuild's tensors live on the CPU only, got device={device!r}; use 'CPU'")
        return self

    def to_dlpack(self):
        """A DLPack capsule sharing this tensor's data (``mindspore.utils.to_dlpack``)."""
        return self.asnumpy().__dlpack__()

    @staticmethod
    def from_dlpack(dlpack):
        """A Tensor sharing the memory of a DLPack capsule or of an object with ``__dlpack__``
        (``mindspore.utils.from_dlpack``)."""
        return provider("from_dlpack")(dlpack)
