"""``Tensor.__setitem__`` (``t[key] = value``) as primitives: the new tensor is computed with a Select (and a
Gather that places the values), then takes the place of the old one.

* In PyNative mode the tensor is updated in place (its data replaced), as MindSpore's.
* Inside a trace (GRAPH_MODE ``construct``, ``@jit``) the assignment is a scatter/select node of the graph:
  a Parameter is written with Assign (MindSpore's in-place Ref update); any other tensor is rebound to the new
  value, so the reads traced after the assignment see it.

``key`` may be anything NumPy can index with when its positions are known at trace time (ints, slices,
``...``, ``None``, integer arrays or lists, constant bool masks). A bool Tensor mask computed inside
``construct`` of the tensor's shape is supported too (a Select); an integer index Tensor computed inside
``construct`` is refused with a message saying so. The value (a scalar or a Tensor broadcastable to the
selection) is cast to the tensor's dtype, as MindSpore's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core import trace
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..primitive import apply


def _static_key(key: Any) -> Any:
    """``key`` with concrete Tensors replaced by their NumPy values; raises for indices known only at run time."""
    parts = key if isinstance(key, tuple) else (key,)
    out = []
    for k in parts:
        if isinstance(k, Tensor):
            if k._data is None:
                raise IndexError(
                    "t[index] = value with an index tensor computed inside a GRAPH_MODE construct: the written "
                    "positions must be known when the graph is traced. Use a constant index, a bool mask of the "
                    "tensor's shape (t[mask] = v), ops.where, or PYNATIVE_MODE.")
            k = k.asnumpy()
        out.append(k)
    return tuple(out) if isinstance(key, tuple) else out[0]


def _value_tensor(value: Any, dtype) -> Tensor:
    if isinstance(value, Tensor):
        return value if value.dtype == dtype else apply("Cast", {"dtype": dtype.name}, [value])
    return Tensor(np.asarray(value).astype(dtype.np_dtype))


def updated(x: Tensor, key: Any, value: Any) -> Tensor:
    """The tensor ``x`` with ``x[key] = value`` applied (a new Tensor; ``x`` is untouched)."""
    v = _value_tensor(value, x.dtype)
    if isinstance(key, Tensor) and key.dtype.name == "bool" and key._data is None:
        # A mask known only when the graph runs: a Select over the whole tensor (the mask broadcasts to it).
        if tuple(key.shape) != tuple(x.shape[:key.ndim]):
            raise IndexError(f"t[mask] = value: mask of shape {tuple(key.shape)} does not match the tensor's "
                             f"leading dims {tuple(x.shape[:key.ndim])}")
        mask = key if key.ndim == x.ndim else apply("Reshape", {"shape": (*key.shape, *(1,) * (x.ndim - key.ndim))},
                                                    [key])
        if v.ndim:
            raise IndexError("t[mask] = value with a mask computed in construct takes a scalar value")
        return apply("Select", {}, [apply("BroadcastTo", {"shape": tuple(x.shape)}, [mask]),
                                    apply("BroadcastTo", {"shape": tuple(x.shape)}, [v]), x])
    positions = np.arange(x.size, dtype=np.int64).reshape(x.shape)
    try:
        chosen = np.asarray(positions[_static_key(key)])
    except IndexError as e:
        raise IndexError(f"t[index] = value: {e}") from None
    written = np.zeros(x.size, dtype=bool)
    written[chosen.reshape(-1)] = True
    mask = Tensor(written.reshape(x.shape))
    if v.ndim == 0:
        return apply("Select", {}, [mask, apply("BroadcastTo", {"shape": tuple(x.shape)}, [v]), x])
    try:
        np.broadcast_shapes(tuple(v.shape), chosen.shape)
    except ValueError:
        raise ValueError(f"t[index] = value: a value of shape {tuple(v.shape)} cannot be broadcast to the "
                         f"selection's shape {chosen.shape}") from None
    # Place the k-th value at the k-th chosen position (the last write wins for repeated positions, as NumPy).
    flat_v = apply("Reshape", {"shape": (-1,)}, [apply("BroadcastTo", {"shape": chosen.shape}, [v])
                                                 if tuple(v.shape) != chosen.shape else v])
    source = np.zeros(x.size, dtype=np.int64)
    source[chosen.reshape(-1)] = np.arange(chosen.size, dtype=np.int64)
    placed = apply("Gather", {"axis": 0}, [flat_v, Tensor(source)])
    return apply("Select", {}, [mask, apply("Reshape", {"shape": tuple(x.shape)}, [placed]), x])


def setitem(x: Tensor, key: Any, value: Any) -> None:
    """``x[key] = value`` in place (see the module docstring)."""
    new = updated(x, key, value)
    tracer = trace.current()
    if tracer is None:
        x._data = new.asnumpy()
        return
    if isinstance(x, Parameter):
        apply("Assign", {}, [x, new])
        return
    if x._value is None:  # a concrete tensor met in the trace: later reads of it in this trace see the update
        old = tracer.value_of(x)
        tracer.rebind(old, tracer.value_of(new))
        return
    x._value = new._value
