"""Collectives and point-to-point messages on Tensors, in place, over a process group: the functions of
MindSpore's ``mint.distributed`` and ``ops.communication`` (PyTorch's ``torch.distributed`` forms).

Each call is one MPI operation on the Tensors' own host buffers (PyNative: these are not graph nodes; a
GRAPH_MODE network uses ``ops.AllReduce`` and its kin). ``group`` is a group's name (None: the world, see
groups.py); ``src``, ``dst`` and ``peer`` are world ranks. ``async_op=True`` returns a :class:`CommHandle`
whose ``wait()`` returns at once: the operation has completed when the call returns (MPI's blocking
collectives), which is what a program that waits before reading the result observes. ``isend``/``irecv``
are truly non-blocking (MPI requests); their handle's ``wait()`` completes them.

Sums and products give every rank the same bits (collective.reduce_buffer). float16, bfloat16 and bool are
reduced in float32 / int32 and cast back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from .collective import REDUCE_OPS, reduce_buffer
from .groups import Group, resolve


class CommHandle:
    """What an ``async_op=True`` collective, ``isend`` and ``irecv`` return: ``wait()`` blocks until the
    operation is complete (an MPI request's ``Wait``; at once for the collectives, complete already)."""

    def __init__(self, requests: Sequence[Any] = (), keep: Any = None) -> None:
        self._requests = list(requests)
        self._keep = keep  # buffers an MPI request still reads or writes

    def wait(self) -> None:
        """Block until the operation has completed."""
        for r in self._requests:
            r.Wait()
        self._requests, self._keep = [], None

    def is_completed(self) -> bool:
        """Whether the operation has completed (without waiting)."""
        return all(r.Test() for r in self._requests)


def _buffer(t: Any, fn: str, what: str) -> np.ndarray:
    """The host array of Tensor ``t`` (written in place), checked."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}: {what} must be a Tensor, got {type(t).__name__}")
    a = t.asnumpy()
    if not a.flags.c_contiguous:  # pragma: no cover - a Tensor's data is C-contiguous
        raise ValueError(f"{fn}: {what} is not contiguous")
    return a


def _tensors(ts: Any, fn: str, what: str) -> list[np.ndarray]:
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"{fn}: {what} must be a list of Tensors, got {type(ts).__name__}")
    return [_buffer(t, fn, f"{what}[{i}]") for i, t in enumerate(ts)]


def _per_rank(fn: str, ts: Any, what: str, g: Group, like: np.ndarray) -> list[np.ndarray]:
    """``ts``: one Tensor per rank of ``g``, each of ``like``'s shape and dtype."""
    arrays = _tensors(ts, fn, what)
    if len(arrays) != g.size or any(a.shape != like.shape or a.dtype != like.dtype for a in arrays):
        raise ValueError(f"{fn}: {what} must hold {g.size} Tensors (one per rank of the group) of shape "
                         f"{like.shape} and dtype {like.dtype}")
    return arrays


def _check_stacked(fn: str, big: np.ndarray, what: str, part: np.ndarray, g: Group) -> None:
    """``big`` (called ``what``) must hold the group's ``part``s stacked on axis 0, in ``part``'s dtype."""
    want = (part.shape[0] * g.size, *part.shape[1:]) if part.ndim else (g.size,)
    if big.shape != want or big.dtype != part.dtype:
        raise ValueError(f"{fn}: {what} must have shape {want} and dtype {part.dtype} (the group's {g.size} "
                         f"pieces of shape {part.shape} stacked on axis 0), got {big.shape} {big.dtype}")


def _fill(outs: Sequence[np.ndarray], flat: np.ndarray) -> None:
    """Copy consecutive pieces of ``flat`` into ``outs`` (each as many elements as it holds)."""
    at = 0
    for o in outs:
        o.reshape(-1)[:] = flat.reshape(-1)[at:at + o.size]
        at += o.size


def _group(fn: str, group: Any, async_op: Any = False) -> Group:
    if not isinstance(async_op, bool):
        raise TypeError(f"{fn}: async_op must be a bool, got {async_op!r}")
    return resolve(group)


def _op(fn: str, op: Any) -> str:
    if op not in REDUCE_OPS:
        raise ValueError(f"{fn}: op must be one of {REDUCE_OPS}, got {op!r}")
    return op


def _done(async_op: bool) -> CommHandle | None:
    return CommHandle() if async_op else None


def _same(fn: str, a: np.ndarray, b: np.ndarray, names: str) -> None:
    if a.dtype != b.dtype:
        raise TypeError(f"{fn}: {names} must have one dtype, got {a.dtype} and {b.dtype}")


def _rows(fn: str, a: np.ndarray, what: str) -> tuple[int, int]:
    """(rows along axis 0, bytes per row) of ``a``."""
    if a.ndim == 0:
        raise ValueError(f"{fn}: {what} must have at least one dimension")
    n = a.shape[0]
    return n, (a.nbytes // n if n else 0)


def _bytes(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1).view(np.uint8)


def _splits(fn: str, sizes: Any, what: str, total: int, n: int) -> list[int]:
    """``sizes`` (None: ``total`` split evenly over ``n``) as ``n`` row counts summing to ``total``."""
    if sizes is None:
        if total % n:
            raise ValueError(f"{fn}: {total} rows do not split evenly over {n} ranks; give {what}")
        return [total // n] * n
    sizes = list(sizes)
    if len(sizes) != n or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in sizes):
        raise ValueError(f"{fn}: {what} must be {n} non-negative ints (one per rank), got {sizes}")
    if sum(sizes) != total:
        raise ValueError(f"{fn}: {what} {sizes} sum to {sum(sizes)}, but the tensor has {total} rows")
    return sizes


def _displacements(counts: Sequence[int]) -> list[int]:
    return [int(v) for v in np.concatenate([[0], np.cumsum(counts)[:-1]])] if counts else []


def all_reduce(tensor: Tensor, op: str = "sum", group: str | None = None, async_op: bool = False
               ) -> CommHandle | None:
    """``tensor`` = its reduction (``op``: sum, max, min, prod) over the group's ranks, on every rank."""
    g = _group("all_reduce", group, async_op)
    reduce_buffer(g.comm, _buffer(tensor, "all_reduce", "tensor").reshape(-1), _op("all_reduce", op))
    return _done(async_op)


def reduce(tensor: Tensor, dst: int, op: str = "sum", group: str | None = None, async_op: bool = False
           ) -> CommHandle | None:
    """On world rank ``dst``: ``tensor`` = the reduction over the group; the other ranks' tensors unchanged."""
    g = _group("reduce", group, async_op)
    root = g.group_rank(dst, "reduce: dst")
    reduce_buffer(g.comm, _buffer(tensor, "reduce", "tensor").reshape(-1), _op("reduce", op), root)
    return _done(async_op)


def broadcast(tensor: Tensor, src: int, group: str | None = None, async_op: bool = False) -> CommHandle | None:
    """Every rank's ``tensor`` = world rank ``src``'s."""
    g = _group("broadcast", group, async_op)
    g.comm.Bcast(_bytes(_buffer(tensor, "broadcast", "tensor")), root=g.group_rank(src, "broadcast: src"))
    return _done(async_op)


def barrier(group: str | None = None, async_op: bool = False, device_ids: Any = None) -> CommHandle | None:
    """Wait until every rank of the group has called it (``device_ids`` is not used on the CPU)."""
    _group("barrier", group, async_op).comm.Barrier()
    return _done(async_op)


def _allgatherv(g: Group, fn: str, out: np.ndarray, x: np.ndarray, rows: list[int]) -> None:
    n, row = _rows(fn, x, "input")
    if rows[g.rank] != n:
        raise ValueError(f"{fn}: this rank's input has {n} rows, output_split_sizes gives it {rows[g.rank]}")
    counts = [r * row for r in rows]
    g.comm.Allgatherv(_bytes(x), [_bytes(out), (counts, _displacements(counts))])


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: str | None = None,
                           async_op: bool = False) -> CommHandle | None:
    """``output_tensor`` = the ranks' ``input_tensor`` concatenated along axis 0, in group-rank order."""
    fn = "all_gather_into_tensor"
    g = _group(fn, group, async_op)
    out, x = _buffer(output_tensor, fn, "output_tensor"), _buffer(input_tensor, fn, "input_tensor")
    _check_stacked(fn, out, "output_tensor", x, g)
    g.comm.Allgather(_bytes(x), _bytes(out))
    return _done(async_op)


def all_gather_into_tensor_uneven(output: Tensor, input: Tensor, output_split_sizes: Any = None,  # noqa: A002
                                  group: str | None = None, async_op: bool = False) -> CommHandle | None:
    """As :func:`all_gather_into_tensor` with rank ``i`` contributing ``output_split_sizes[i]`` rows."""
    fn = "all_gather_into_tensor_uneven"
    g = _group(fn, group, async_op)
    out, x = _buffer(output, fn, "output"), _buffer(input, fn, "input")
    _same(fn, out, x, "output and input")
    if out.shape[1:] != x.shape[1:]:
        raise ValueError(f"{fn}: output {out.shape} and input {x.shape} must agree past axis 0")
    _allgatherv(g, fn, out, x, _splits(fn, output_split_sizes, "output_split_sizes", out.shape[0], g.size))
    return _done(async_op)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: str | None = None, async_op: bool = False
               ) -> CommHandle | None:
    """``tensor_list[i]`` = group rank ``i``'s ``tensor``."""
    g = _group("all_gather", group, async_op)
    x = _buffer(tensor, "all_gather", "tensor")
    outs = _per_rank("all_gather", tensor_list, "tensor_list", g, x)
    flat = np.empty((g.size, x.size), x.dtype)
    g.comm.Allgather(_bytes(x), _bytes(flat))
    _fill(outs, flat)
    return _done(async_op)


def _reduce_scatterv(g: Group, fn: str, out: np.ndarray, x: np.ndarray, rows: list[int], op: str) -> None:
    """Reduce ``x`` to group rank 0, then scatter ``rows[i]`` rows of it to rank ``i``."""
    _same(fn, out, x, "output and input")
    n, row = _rows(fn, x, "input")
    if out.shape != (rows[g.rank], *x.shape[1:]):
        raise ValueError(f"{fn}: output must have shape {(rows[g.rank], *x.shape[1:])} (this rank's rows of "
                         f"input {x.shape}), got {out.shape}")
    work = x.copy()
    reduce_buffer(g.comm, work.reshape(-1), _op(fn, op), root=0)
    counts = [r * row for r in rows]
    g.comm.Scatterv([_bytes(work), (counts, _displacements(counts))] if g.rank == 0 else None, _bytes(out), root=0)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: str = "sum", group: str | None = None,  # noqa: A002
                          async_op: bool = False) -> CommHandle | None:
    """``output`` = group rank ``r``'s share (the ``r``-th of ``size`` equal row blocks) of ``input`` reduced
    over the group."""
    fn = "reduce_scatter_tensor"
    g = _group(fn, group, async_op)
    x = _buffer(input, fn, "input")
    _reduce_scatterv(g, fn, _buffer(output, fn, "output"), x, _splits(fn, None, "", _rows(fn, x, "input")[0],
                                                                       g.size), op)
    return _done(async_op)


def reduce_scatter_tensor_uneven(output: Tensor, input: Tensor, input_split_sizes: Any = None,  # noqa: A002
                                 op: str = "sum", group: str | None = None, async_op: bool = False
                                 ) -> CommHandle | None:
    """As :func:`reduce_scatter_tensor` with rank ``i`` receiving ``input_split_sizes[i]`` rows."""
    fn = "reduce_scatter_tensor_uneven"
    g = _group(fn, group, async_op)
    x = _buffer(input, fn, "input")
    rows = _splits(fn, input_split_sizes, "input_split_sizes", _rows(fn, x, "input")[0], g.size)
    _reduce_scatterv(g, fn, _buffer(output, fn, "output"), x, rows, op)
    return _done(async_op)


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: str = "sum", group: str | None = None,
                   async_op: bool = False) -> CommHandle | None:
    """``output`` = ``input_list[r]`` reduced over the group, on group rank ``r``."""
    fn = "reduce_scatter"
    g = _group(fn, group, async_op)
    out = _buffer(output, fn, "output")
    ins = _per_rank(fn, input_list, "input_list", g, out)
    _reduce_scatterv(g, fn, out.reshape(1, -1), np.stack(ins).reshape(g.size, -1), [1] * g.size, op)
    return _done(async_op)


def _alltoallv(g: Group, send: np.ndarray, send_rows: list[int], recv: np.ndarray, recv_rows: list[int]) -> None:
    row = send.nbytes // max(send.shape[0], 1) if send.ndim else send.nbytes
    rrow = recv.nbytes // max(recv.shape[0], 1) if recv.ndim else recv.nbytes
    sc, rc = [r * row for r in send_rows], [r * rrow for r in recv_rows]
    g.comm.Alltoallv([_bytes(send), (sc, _displacements(sc))], [_bytes(recv), (rc, _displacements(rc))])


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: Any = None,  # noqa: A002
                      input_split_sizes: Any = None, group: str | None = None, async_op: bool = False
                      ) -> CommHandle | None:
    """Rank ``i`` sends its ``j``-th row block of ``input`` (``input_split_sizes[j]`` rows; None: equal
    blocks) to rank ``j``, and ``output`` holds the blocks received, in rank order."""
    fn = "all_to_all_single"
    g = _group(fn, group, async_op)
    out, x = _buffer(output, fn, "output"), _buffer(input, fn, "input")
    _same(fn, out, x, "output and input")
    if out.shape[1:] != x.shape[1:]:
        raise ValueError(f"{fn}: output {out.shape} and input {x.shape} must agree past axis 0")
    send = _splits(fn, input_split_sizes, "input_split_sizes", _rows(fn, x, "input")[0], g.size)
    recv = _splits(fn, output_split_sizes, "output_split_sizes", _rows(fn, out, "output")[0], g.size)
    _alltoallv(g, x, send, out, recv)
    return _done(async_op)


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor], group: str | None = None,
               async_op: bool = False) -> CommHandle | None:
    """Rank ``i`` sends ``input_tensor_list[j]`` to rank ``j``, which receives it in
    ``output_tensor_list[i]`` (shapes may differ per pair; one dtype)."""
    fn = "all_to_all"
    g = _group(fn, group, async_op)
    ins, outs = _tensors(input_tensor_list, fn, "input_tensor_list"), _tensors(output_tensor_list, fn,
                                                                             "output_tensor_list")
    if len(ins) != g.size or len(outs) != g.size:
        raise ValueError(f"{fn}: both lists must hold {g.size} Tensors (one per rank of the group)")
    dtypes = {a.dtype for a in ins + outs}
    if len(dtypes) != 1:
        raise TypeError(f"{fn}: every Tensor must have one dtype, got {sorted(str(d) for d in dtypes)}")
    send = np.concatenate([a.reshape(-1) for a in ins])
    recv = np.empty(sum(o.size for o in outs), outs[0].dtype)
    _alltoallv(g, send, [a.size for a in ins], recv, [o.size for o in outs])
    _fill(outs, recv)
    return _done(async_op)


def gather(tensor: Tensor, gather_list: list[Tensor] | None, dst: int = 0, group: str | None = None,
           async_op: bool = False) -> CommHandle | None:
    """On world rank ``dst``: ``gather_list[i]`` = group rank ``i``'s ``tensor`` (others may pass None)."""
    g = _group("gather", group, async_op)
    x = _buffer(tensor, "gather", "tensor")
    root = g.group_rank(dst, "gather: dst")
    outs = _per_rank("gather", gather_list, "gather_list", g, x) if g.rank == root else None
    flat = np.empty((g.size, x.size), x.dtype) if outs is not None else None
    g.comm.Gather(_bytes(x), None if flat is None else _bytes(flat), root=root)
    if outs is not None:
        _fill(outs, flat)
    return _done(async_op)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None, src: int = 0, group: str | None = None,
            async_op: bool = False) -> CommHandle | None:
    """``tensor`` = world rank ``src``'s ``scatter_list[r]`` on group rank ``r``."""
    g = _group("scatter", group, async_op)
    out = _buffer(tensor, "scatter", "tensor")
    root = g.group_rank(src, "scatter: src")
    flat = None
    if g.rank == root:
        flat = np.stack([a.reshape(-1) for a in _per_rank("scatter", scatter_list, "scatter_list", g, out)])
    g.comm.Scatter(None if flat is None else _bytes(flat), _bytes(out), root=root)
    return _done(async_op)


def gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, dst: int = 0, group: str | None = None,
                       async_op: bool = False) -> CommHandle | None:
    """On world rank ``dst``: ``output_tensor`` = the ranks' ``input_tensor`` stacked on axis 0."""
    g = _group("gather_into_tensor", group, async_op)
    x = _buffer(input_tensor, "gather_into_tensor", "input_tensor")
    root = g.group_rank(dst, "gather_into_tensor: dst")
    out = None
    if g.rank == root:
        out = _buffer(output_tensor, "gather_into_tensor", "output_tensor")
        _check_stacked("gather_into_tensor", out, "output_tensor", x, g)
    g.comm.Gather(_bytes(x), None if out is None else _bytes(out), root=root)
    return _done(async_op)


def scatter_tensor(output_tensor: Tensor, input_tensor: Tensor, src: int = 0, group: str | None = None,
                   async_op: bool = False) -> CommHandle | None:
    """``output_tensor`` = the ``r``-th of ``size`` row blocks of world rank ``src``'s ``input_tensor``."""
    g = _group("scatter_tensor", group, async_op)
    out = _buffer(output_tensor, "scatter_tensor", "output_tensor")
    root = g.group_rank(src, "scatter_tensor: src")
    x = None
    if g.rank == root:
        x = _buffer(input_tensor, "scatter_tensor", "input_tensor")
        _check_stacked("scatter_tensor", x, "input_tensor", out, g)
    g.comm.Scatter(None if x is None else _bytes(x), _bytes(out), root=root)
    return _done(async_op)


def all_to_all_v_c(output: Tensor, input: Tensor, send_count_matrix: Any, group: str | None = None,  # noqa: A002
                   async_op: bool = False) -> CommHandle | None:
    """Rank ``i`` sends ``send_count_matrix[i * size + j]`` elements of flat ``input`` to rank ``j`` (in
    order); ``output`` holds what each rank sent this one, in rank order (the matrix is the same on every
    rank)."""
    fn = "all_to_all_v_c"
    g = _group(fn, group, async_op)
    out, x = _buffer(output, fn, "output"), _buffer(input, fn, "input")
    _same(fn, out, x, "output and input")
    counts = [int(c) for c in np.asarray(send_count_matrix).reshape(-1)]
    if len(counts) != g.size * g.size or min(counts) < 0:
        raise ValueError(f"{fn}: send_count_matrix must hold {g.size} x {g.size} non-negative counts, got "
                         f"{len(counts)} values")
    send = counts[g.rank * g.size:(g.rank + 1) * g.size]
    recv = counts[g.rank::g.size]
    if sum(send) != x.size or sum(recv) != out.size:
        raise ValueError(f"{fn}: this rank sends {sum(send)} and receives {sum(recv)} elements, but input has "
                         f"{x.size} and output {out.size}")
    _alltoallv(g, x.reshape(-1), send, out.reshape(-1), recv)
    return _done(async_op)


__all__ = ["CommHandle", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_reduce",
           "all_to_all", "all_to_all_single", "all_to_all_v_c", "barrier", "broadcast", "gather",
           "gather_into_tensor", "reduce", "reduce_scatter", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven",
           "scatter", "scatter_tensor"]
