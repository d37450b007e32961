"""``ops.communication.set_comm_ops_inplace``: MindSpore's switch between its communication functions' two forms.

In place (the default, and always for ``mint.distributed``), ``all_reduce`` writes into its tensor and returns
a handle or None. Switched off for a function, ``ops.communication``'s ``all_reduce``, ``all_gather_into_tensor``
and ``reduce_scatter_tensor`` leave their arguments alone and return ``(result, handle)`` (handle None unless
``async_op``), and the functions that only have the in-place form (``broadcast``, ``reduce``, the uneven
gathers and scatters, ``gather_into_tensor``, ``scatter_tensor``, ``batch_isend_irecv``) refuse to run, as
MindSpore 2.10's do. The other names of the switch's list accept it and stay in place.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import point_to_point as p2p
from . import tensor_collectives as tc

#: The function names MindSpore's switch knows (its list, in its order).
COMM_FUNCS = ("all_reduce", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_to_all",
              "all_to_all_single", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "isend", "irecv",
              "send", "recv", "gather", "scatter", "all_gather", "reduce_scatter", "barrier", "broadcast",
              "reduce", "batch_isend_irecv", "all_gather_object", "broadcast_object_list", "gather_object",
              "scatter_object_list", "send_object_list", "recv_object_list", "gather_into_tensor",
              "scatter_tensor", "all_to_all_v_c")
_inplace = dict.fromkeys(COMM_FUNCS, True)


def set_comm_ops_inplace(is_enable: bool, func_list: list[str] | tuple[str, ...] | None = None) -> None:
    """Make ``ops.communication``'s functions in ``func_list`` (None: all of them) work in place
    (``is_enable=True``, the default) or return new tensors (module docstring)."""
    if not isinstance(is_enable, bool):
        raise TypeError(f"set_comm_ops_inplace: is_enable must be a bool, got {type(is_enable).__name__}")
    if func_list is None:
        names: tuple[str, ...] = COMM_FUNCS
    elif isinstance(func_list, (list, tuple)):
        names = tuple(func_list)
        unknown = [n for n in names if n not in _inplace]
        if unknown:
            raise ValueError(f"set_comm_ops_inplace: unknown function names {unknown}; the names are "
                             f"{list(COMM_FUNCS)}")
    else:
        raise TypeError(f"set_comm_ops_inplace: func_list must be a list or tuple of names or None, got "
                        f"{type(func_list).__name__}")
    for n in names:
        _inplace[n] = is_enable


def _only_in_place(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` refusing to run while its in-place form is switched off (it has no other form)."""
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        if not _inplace[fn.__name__]:
            raise ValueError(f"{fn.__name__}: only the in-place form exists, and set_comm_ops_inplace(False) "
                             f"switched it off; call set_comm_ops_inplace(True, ['{fn.__name__}']) first")
        return fn(*args, **kwargs)
    return run


def _returned(out: Tensor, async_op: bool) -> tuple[Tensor, tc.CommHandle | None]:
    return out, (tc.CommHandle() if async_op else None)


def all_reduce(tensor: Tensor, op: str = "sum", group: str | None = None, async_op: bool = False) -> Any:
    """In place: as ``mint.distributed.all_reduce``. Switched off: ``(the reduction, handle)``, ``tensor`` kept."""
    if _inplace["all_reduce"]:
        return tc.all_reduce(tensor, op, group, async_op)
    tc._buffer(tensor, "all_reduce", "tensor")
    out = Tensor(tensor.asnumpy().copy())
    tc.all_reduce(out, op, group, async_op)
    return _returned(out, async_op)


def all_gather_into_tensor(output_tensor: Tensor | None, input_tensor: Tensor, group: str | None = None,
                           async_op: bool = False) -> Any:
    """In place: as ``mint.distributed.all_gather_into_tensor``. Switched off: ``(the ranks' inputs stacked
    along axis 0, handle)``; ``output_tensor`` is not used (may be None)."""
    fn = "all_gather_into_tensor"
    if _inplace[fn]:
        return tc.all_gather_into_tensor(output_tensor, input_tensor, group, async_op)
    x = tc._buffer(input_tensor, fn, "input_tensor")
    g = tc._group(fn, group, async_op)
    out = Tensor(np.empty((g.size * tc._rows(fn, x, "input_tensor")[0], *x.shape[1:]), x.dtype))
    tc.all_gather_into_tensor(out, input_tensor, group, async_op)
    return _returned(out, async_op)


def reduce_scatter_tensor(output: Tensor | None, input: Tensor, op: str = "sum",  # noqa: A002
                          group: str | None = None, async_op: bool = False) -> Any:
    """In place: as ``mint.distributed.reduce_scatter_tensor``. Switched off: ``(this rank's share of the
    reduction, handle)``; ``output`` is not used (may be None)."""
    fn = "reduce_scatter_tensor"
    if _inplace[fn]:
        return tc.reduce_scatter_tensor(output, input, op, group, async_op)
    x = tc._buffer(input, fn, "input")
    g = tc._group(fn, group, async_op)
    rows = tc._splits(fn, None, "", tc._rows(fn, x, "input")[0], g.size)
    out = Tensor(np.empty((rows[g.rank], *x.shape[1:]), x.dtype))
    tc.reduce_scatter_tensor(out, input, op, group, async_op)
    return _returned(out, async_op)


broadcast = _only_in_place(tc.broadcast)
reduce = _only_in_place(tc.reduce)
all_gather_into_tensor_uneven = _only_in_place(tc.all_gather_into_tensor_uneven)
reduce_scatter_tensor_uneven = _only_in_place(tc.reduce_scatter_tensor_uneven)
gather_into_tensor = _only_in_place(tc.gather_into_tensor)
scatter_tensor = _only_in_place(tc.scatter_tensor)
batch_isend_irecv = _only_in_place(p2p.batch_isend_irecv)
