"""``communication.comm_func`` (MindSpore's ``mindspore.communication.comm_func``, deprecated there since 2.9 in
favour of ``ops.communication``): the functional forms of the collectives, which leave their arguments alone
and return new Tensors, for model zoos written for MindSpore 2.3-2.8.

Every function (and ``P2POp``) issues a DeprecationWarning naming its ``ops.communication`` substitute, with
the words MindSpore logs. Each runs the in-place implementation (tensor_collectives.py, point_to_point.py) on
new buffers: ``group`` is a group's name (the world by default), ``src``/``dst``/``peer`` are world ranks.

Return forms (MindSpore's):

* ``all_reduce``, ``all_gather_into_tensor``, ``reduce_scatter_tensor``, ``all_to_all_single_with_output_shape``:
  ``(output, handle)``, handle None unless ``async_op`` (the collective has completed either way);
  ``all_to_all_with_output_shape``: ``(tuple of outputs, handle)``; ``all_to_all_v_c``: the handle (it writes
  into ``output``, as MindSpore's does).
* ``broadcast``, ``scatter_tensor``, ``recv``: the output Tensor (``recv``'s argument gives only the shape and
  dtype); ``send`` and ``barrier``: None; ``isend``: a handle; ``irecv``: ``(output, handle)``, the output
  filled once the handle's ``wait()`` returns; ``batch_isend_irecv``: a tuple with one Tensor per ``P2POp``
  (the received Tensor, or a 0-d zero of the sent dtype at an ``isend``), every message complete.
* ``reduce`` and ``gather_into_tensor``: the result on rank ``dst``; every other rank gets a Tensor of shape
  ``(1,)`` holding 0 in the input's dtype (the placeholder MindSpore documents, which has no meaning).

Differences from MindSpore 2.10, kept on purpose: ``all_to_all_single_with_output_shape`` splits the input by
its own first dimension when ``input_split_sizes`` is not given (MindSpore's uses ``output_shape``'s, which
sends the wrong rows when the two differ) and returns an empty Tensor of ``output_shape`` when nothing is
received (MindSpore's returns a meaningless 0-d one); ``batch_isend_irecv`` refuses ``P2POp`` s of different
groups (MindSpore's silently uses the first one's group for all).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.dtypes import DType
from ..core.tensor import Tensor
from . import point_to_point as p2p
from . import tensor_collectives as tc
from .groups import Group, resolve
from .tensor_collectives import CommHandle

#: MindSpore's default ``group`` (its ``GlobalComm.WORLD_COMM_GROUP`` when the module is imported).
WORLD = "hccl_world_group"
_VERSION = "2.9.0"


def _deprecated(substitute: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Warn (DeprecationWarning, at the caller) on each call, then run the function."""
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            _warn(fn.__name__, substitute)
            return fn(*args, **kwargs)
        return run
    return decorate


def _warn(name: str, substitute: str) -> None:
    warnings.warn(f"'{name}' is deprecated from version {_VERSION} and will be removed in a future version, use "
                  f"'mindspore.ops.communication.{substitute}' instead.", DeprecationWarning, stacklevel=3)


def _group(fn: str, group: Any, none_ok: bool = False) -> Group:
    if not (isinstance(group, str) or (none_ok and group is None)):
        raise TypeError(f"{fn}: group must be a str (a group's name; {WORLD!r} is the whole job), got {group!r}")
    return resolve(group)


def _int(fn: str, v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{fn}: {what} must be an int (a world rank), got {v!r}")
    return v


def _new(shape: tuple[int, ...], dtype: Any) -> Tensor:
    return Tensor(np.zeros(shape, dtype))


def _placeholder(x: np.ndarray) -> Tensor:
    """What the ranks other than ``dst`` get from reduce and gather_into_tensor (module docstring)."""
    return _new((1,), x.dtype)


def _rows_per_rank(fn: str, x: np.ndarray, g: Group) -> int:
    n = tc._rows(fn, x, "tensor")[0]
    if n % g.size:
        raise ValueError(f"{fn}: tensor's {n} rows (axis 0) do not split evenly over the group's {g.size} ranks")
    return n // g.size


@_deprecated("all_reduce")
def all_reduce(tensor: Tensor, op: str = "sum", group: str = WORLD, async_op: bool = False
               ) -> tuple[Tensor, CommHandle | None]:
    """``(tensor reduced over the group by op (sum, prod, min, max), handle)``; ``tensor`` is unchanged."""
    x = tc._buffer(tensor, "all_reduce", "tensor")
    if not isinstance(op, str) or op not in tc.REDUCE_OPS:
        raise TypeError(f"all_reduce: op must be one of the strings {tc.REDUCE_OPS}, got {op!r}")
    _group("all_reduce", group)
    out = Tensor(x.copy())
    return out, tc.all_reduce(out, op, group, async_op)


@_deprecated("all_gather_into_tensor")
def all_gather_into_tensor(tensor: Tensor, group: str = WORLD, async_op: bool = False
                           ) -> tuple[Tensor, CommHandle | None]:
    """``(the group's tensors concatenated along axis 0 in group-rank order, handle)`` (0-d tensors: stacked)."""
    x = tc._buffer(tensor, "all_gather_into_tensor", "tensor")
    g = _group("all_gather_into_tensor", group)
    out = _new((x.shape[0] * g.size, *x.shape[1:]) if x.ndim else (g.size,), x.dtype)
    return out, tc.all_gather_into_tensor(out, tensor, group, async_op)


@_deprecated("reduce_scatter_tensor")
def reduce_scatter_tensor(tensor: Tensor, op: str = "sum", group: str = WORLD, async_op: bool = False
                          ) -> tuple[Tensor, CommHandle | None]:
    """``(group rank r's r-th of size equal row blocks of tensor reduced over the group, handle)``."""
    x = tc._buffer(tensor, "reduce_scatter_tensor", "tensor")
    g = _group("reduce_scatter_tensor", group)
    out = _new((_rows_per_rank("reduce_scatter_tensor", x, g), *x.shape[1:]), x.dtype)
    return out, tc.reduce_scatter_tensor(out, tensor, op, group, async_op)


@_deprecated("reduce")
def reduce(tensor: Tensor, dst: int, op: str = "sum", group: str = WORLD) -> Tensor:
    """On world rank ``dst``: ``tensor`` reduced over the group; elsewhere a (1,) zero placeholder."""
    x = tc._buffer(tensor, "reduce", "tensor")
    g = _group("reduce", group)
    root = g.group_rank(_int("reduce", dst, "dst"), "reduce: dst")
    out = Tensor(x.copy())
    tc.reduce(out, dst, op, group)
    return out if g.rank == root else _placeholder(x)


@_deprecated("broadcast")
def broadcast(tensor: Tensor, src: int = 0, group: str = WORLD) -> Tensor:
    """World rank ``src``'s ``tensor``, on every rank (each passes a tensor of that shape and dtype)."""
    x = tc._buffer(tensor, "broadcast", "tensor")
    _group("broadcast", group)
    out = Tensor(x.copy())
    tc.broadcast(out, _int("broadcast", src, "src"), group)
    return out


@_deprecated("scatter_tensor")
def scatter_tensor(tensor: Tensor, src: int = 0, group: str = WORLD) -> Tensor:
    """Group rank ``r``'s ``r``-th of size equal row blocks of world rank ``src``'s ``tensor`` (every rank
    passes a tensor of that shape and dtype; only ``src``'s values are read)."""
    x = tc._buffer(tensor, "scatter_tensor", "tensor")
    g = _group("scatter_tensor", group)
    out = _new((_rows_per_rank("scatter_tensor", x, g), *x.shape[1:]), x.dtype)
    tc.scatter_tensor(out, tensor, _int("scatter_tensor", src, "src"), group)
    return out


@_deprecated("gather_into_tensor")
def gather_into_tensor(tensor: Tensor, dst: int = 0, group: str = WORLD) -> Tensor:
    """On world rank ``dst``: the group's tensors concatenated along axis 0; elsewhere a (1,) zero
    placeholder."""
    x = tc._buffer(tensor, "gather_into_tensor", "tensor")
    g = _group("gather_into_tensor", group)
    root = g.group_rank(_int("gather_into_tensor", dst, "dst"), "gather_into_tensor: dst")
    rows = tc._rows("gather_into_tensor", x, "tensor")[0]
    out = _new((rows * g.size, *x.shape[1:]), x.dtype) if g.rank == root else None
    tc.gather_into_tensor(out, tensor, dst, group)
    return out if out is not None else _placeholder(x)


@_deprecated("barrier")
def barrier(group: str = WORLD) -> None:
    """Return once every rank of the group has called it."""
    _group("barrier", group)
    tc.barrier(group)


@_deprecated("send")
def send(tensor: Tensor, dst: int = 0, group: str = WORLD, tag: int = 0) -> None:
    """Send ``tensor`` to world rank ``dst`` (received by a ``recv`` of the same tag)."""
    tc._buffer(tensor, "send", "tensor")
    _group("send", group)
    p2p.send(tensor, _int("send", dst, "dst"), group, tag)


@_deprecated("recv")
def recv(tensor: Tensor, src: int = 0, group: str = WORLD, tag: int = 0) -> Tensor:
    """The Tensor world rank ``src`` sent; ``tensor`` gives its shape and dtype and is left unchanged."""
    x = tc._buffer(tensor, "recv", "tensor")
    _group("recv", group)
    out = _new(x.shape, x.dtype)
    p2p.recv(out, _int("recv", src, "src"), group, tag)
    return out


@_deprecated("isend")
def isend(tensor: Tensor, dst: int = 0, group: str = WORLD, tag: int = 0) -> CommHandle:
    """Start sending (a copy of) ``tensor`` to world rank ``dst``; the handle's ``wait()`` completes it."""
    x = tc._buffer(tensor, "isend", "tensor")
    _group("isend", group)
    return p2p.isend(Tensor(x.copy()), _int("isend", dst, "dst"), group, tag)


@_deprecated("irecv")
def irecv(tensor: Tensor, src: int = 0, group: str = WORLD, tag: int = 0) -> tuple[Tensor, CommHandle]:
    """``(output, handle)``: ``output`` (``tensor``'s shape and dtype) holds what world rank ``src`` sent once
    ``handle.wait()`` returns."""
    x = tc._buffer(tensor, "irecv", "tensor")
    _group("irecv", group)
    out = _new(x.shape, x.dtype)
    return out, p2p.irecv(out, _int("irecv", src, "src"), group, tag)


class P2POp:
    """One message of :func:`batch_isend_irecv`: ``op`` is ``"isend"``/``"irecv"`` (or those functions),
    ``peer`` a world rank. For ``irecv``, ``tensor`` may be a shape tuple, with ``recv_dtype`` its dtype;
    ``tensor`` is never written (the received Tensor is returned). ``tag`` must be 0 (as in MindSpore)."""

    def __init__(self, op: str | Callable[..., Any], tensor: Tensor | tuple[int, ...], peer: int,
                 group: str | None = None, tag: int = 0, *, recv_dtype: DType | None = None) -> None:
        if not (isinstance(op, str) or callable(op)):
            raise TypeError(f"P2POp: op must be 'isend', 'irecv' or one of those functions, got {op!r}")
        name = op if isinstance(op, str) else getattr(op, "__name__", repr(op))
        if name not in ("isend", "irecv"):
            raise ValueError(f"P2POp: op must be isend or irecv, got {name!r}")
        if not isinstance(tensor, (Tensor, tuple)):
            raise TypeError(f"P2POp: tensor must be a Tensor (or, for irecv, a shape tuple), got "
                            f"{type(tensor).__name__}")
        if tag != 0:
            raise NotImplementedError(f"P2POp: tag must be 0 (tags are not supported here), got {tag!r}")
        _warn("P2POp", "P2POp")
        if isinstance(peer, bool) or not isinstance(peer, int):
            raise TypeError(f"P2POp: peer must be an int (a world rank), got {peer!r}")
        if recv_dtype is not None and not isinstance(recv_dtype, DType):
            raise TypeError(f"P2POp: recv_dtype must be a dtype (such as mindspore.float32), got {recv_dtype!r}")
        self.op, self.tensor, self.peer, self.group, self.tag, self.recv_dtype = (op, tensor, peer, group, tag,
                                                                                  recv_dtype)


def _start(i: int, p: P2POp) -> tuple[Tensor, CommHandle]:
    """Post ``p`` (the ``i``-th of the list): (what the batch returns at its place, its handle)."""
    name = p.op if isinstance(p.op, str) else p.op.__name__
    if name == "isend":
        x = tc._buffer(p.tensor, "batch_isend_irecv", f"p2p_op_list[{i}].tensor")
        return _new((), x.dtype), p2p.isend(Tensor(x.copy()), p.peer, p.group)
    if isinstance(p.tensor, tuple):
        if p.recv_dtype is None:
            raise ValueError(f"batch_isend_irecv: p2p_op_list[{i}] receives into the shape {p.tensor}, so it "
                             "needs recv_dtype (P2POp(..., recv_dtype=mindspore.float32))")
        out = _new(p.tensor, p.recv_dtype.np_dtype)
    else:
        x = tc._buffer(p.tensor, "batch_isend_irecv", f"p2p_op_list[{i}].tensor")
        out = _new(x.shape, x.dtype)
    return out, p2p.irecv(out, p.peer, p.group)


@_deprecated("batch_isend_irecv")
def batch_isend_irecv(p2p_op_list: list[P2POp]) -> tuple[Tensor, ...]:
    """Post every message of ``p2p_op_list`` (none waits for another), wait for all; one Tensor per message:
    the one received at an ``irecv``, a 0-d zero of the sent dtype at an ``isend``."""
    if not isinstance(p2p_op_list, list):
        raise TypeError(f"batch_isend_irecv: p2p_op_list must be a list of P2POp, got {type(p2p_op_list).__name__}")
    if not p2p_op_list:
        raise TypeError("batch_isend_irecv: p2p_op_list is empty; give at least one P2POp")
    for i, p in enumerate(p2p_op_list):
        if not isinstance(p, P2POp):
            raise TypeError(f"batch_isend_irecv: p2p_op_list[{i}] must be a P2POp, got {type(p).__name__}")
    groups = {resolve(p.group).name for p in p2p_op_list}
    if len(groups) > 1:
        raise ValueError(f"batch_isend_irecv: every P2POp must use one group, got {sorted(groups)}")
    started = [_start(i, p) for i, p in enumerate(p2p_op_list)]
    for _, handle in started:
        handle.wait()
    return tuple(out for out, _ in started)


def _shape(fn: str, s: Any, what: str) -> tuple[int, ...]:
    if isinstance(s, Tensor):
        return tuple(s.shape)
    if isinstance(s, tuple) and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in s):
        return s
    raise TypeError(f"{fn}: {what} must be a Tensor or a shape tuple of non-negative ints, got {s!r}")


@_deprecated("all_to_all")
def all_to_all_with_output_shape(output_shape_list: list[Any], input_tensor_list: list[Tensor],
                                 group: str | None = None, async_op: bool = False
                                 ) -> tuple[tuple[Tensor, ...], CommHandle | None]:
    """Rank ``i`` sends ``input_tensor_list[j]`` to rank ``j``; returns ``(outputs, handle)``, ``outputs[i]``
    what rank ``i`` sent here, of shape ``output_shape_list[i]`` (a shape tuple or a Tensor whose shape is
    used) and the inputs' dtype."""
    fn = "all_to_all_with_output_shape"
    ins = tc._tensors(input_tensor_list, fn, "input_tensor_list")
    if not isinstance(output_shape_list, (list, tuple)):
        raise TypeError(f"{fn}: output_shape_list must be a list of shapes, got {type(output_shape_list).__name__}")
    shapes = [_shape(fn, s, f"output_shape_list[{i}]") for i, s in enumerate(output_shape_list)]
    if len({a.dtype for a in ins}) > 1:
        raise TypeError(f"{fn}: the Tensors of input_tensor_list must have one dtype, got "
                        f"{sorted({str(a.dtype) for a in ins})}")
    _group(fn, group, none_ok=True)
    dtype = ins[0].dtype if ins else np.float32
    outs = [_new(s, dtype) for s in shapes]
    return tuple(outs), tc.all_to_all(outs, input_tensor_list, group, async_op)


def _split_sizes(fn: str, sizes: Any, what: str) -> list[int] | None:
    if sizes is None or (isinstance(sizes, (list, tuple)) and not sizes):
        return None  # MindSpore: None or empty means equal blocks
    if not isinstance(sizes, (list, tuple)):
        raise TypeError(f"{fn}: {what} must be a list or tuple of ints or None, got {type(sizes).__name__}")
    return list(sizes)


@_deprecated("all_to_all_single")
def all_to_all_single_with_output_shape(output_shape: Any, tensor: Tensor, output_split_sizes: Any = None,
                                        input_split_sizes: Any = None, group: str | None = None,
                                        async_op: bool = False) -> tuple[Tensor, CommHandle | None]:
    """Rank ``i`` sends its ``j``-th row block of ``tensor`` (``input_split_sizes[j]`` rows; None: equal
    blocks) to rank ``j``; returns ``(output, handle)``, ``output`` of ``output_shape`` holding the blocks
    received in rank order (``output_split_sizes[i]`` rows from rank ``i``; None: equal blocks)."""
    fn = "all_to_all_single_with_output_shape"
    x = tc._buffer(tensor, fn, "tensor")
    shape = _shape(fn, output_shape, "output_shape")
    outs, ins = _split_sizes(fn, output_split_sizes, "output_split_sizes"), _split_sizes(fn, input_split_sizes,
                                                                                          "input_split_sizes")
    _group(fn, group, none_ok=True)
    out = _new(shape, x.dtype)
    return out, tc.all_to_all_single(out, tensor, outs, ins, group, async_op)


@_deprecated("all_to_all_v_c")
def all_to_all_v_c(output: Tensor, input: Tensor, send_count_matrix: list[int],  # noqa: A002
                   group: str | None = None, async_op: bool = False) -> CommHandle | None:
    """Rank ``i`` sends ``send_count_matrix[i * size + j]`` rows (axis 0) of ``input`` to rank ``j``, in order;
    ``output`` (written in place, as MindSpore's) receives each rank's rows in rank order. Returns the handle
    (None unless ``async_op``)."""
    fn = "all_to_all_v_c"
    x, out = tc._buffer(input, fn, "input"), tc._buffer(output, fn, "output")
    g = _group(fn, group, none_ok=True)
    if not isinstance(async_op, bool):
        raise TypeError(f"{fn}: async_op must be a bool, got {async_op!r}")
    if not isinstance(send_count_matrix, list):
        raise TypeError(f"{fn}: send_count_matrix must be a list of ints, got {type(send_count_matrix).__name__}")
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in send_count_matrix):
        raise TypeError(f"{fn}: send_count_matrix must hold ints, got {send_count_matrix}")
    if len(send_count_matrix) != g.size * g.size:
        raise TypeError(f"{fn}: send_count_matrix must hold {g.size} x {g.size} counts (the group has {g.size} "
                        f"ranks), got {len(send_count_matrix)}")
    row, out_row = math.prod(x.shape[1:]), math.prod(out.shape[1:])
    if row != out_row:
        raise ValueError(f"{fn}: input {x.shape} and output {out.shape} must have rows of one size (the product "
                         f"of the dimensions past axis 0), got {row} and {out_row}")
    return tc.all_to_all_v_c(output, input, [c * row for c in send_count_matrix], group, async_op)


__all__ = ["all_reduce", "all_gather_into_tensor", "all_to_all_with_output_shape",
           "all_to_all_single_with_output_shape", "barrier", "broadcast", "gather_into_tensor", "isend", "irecv",
           "reduce_scatter_tensor", "reduce", "scatter_tensor", "send", "recv", "P2POp", "batch_isend_irecv",
           "all_to_all_v_c"]
