"""Collectives over NumPy buffers: what the runtime calls for a collective graph node (and PyNative calls
directly). Each call is ONE MPI operation over one flat buffer, whatever the number of tensors (a bucket of
gradients is packed, reduced once and unpacked), so the job pays one latency per bucket, not per parameter.

Sums are computed as ``Reduce`` to rank 0 followed by ``Bcast``, not ``Allreduce``: MPI does not promise that
an allreduce of floats gives every rank the same bits (an algorithm may add in a different order on each
rank), and the weights of a data-parallel job must stay bit-identical on every rank. With a reduce, one rank
computes the sum and every rank receives those bytes. Max and min are exact, so they use ``Allreduce``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .groups import WORLD_NAMES, Group, resolve
from .management import _mpi, is_initialized

REDUCE_OPS = ("sum", "max", "min", "prod")


def _pack(inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> np.ndarray:
    """One contiguous buffer holding the inputs' data: the single output itself when there is one tensor (no
    copy when the memory plan put the output on its input), else a new flat buffer."""
    if len(outputs) == 1:
        out = outputs[0]
        if out.ctypes.data != inputs[0].ctypes.data:
            np.copyto(out, inputs[0])
        return out.reshape(-1)
    flat = np.empty(sum(a.size for a in inputs), dtype=outputs[0].dtype)
    at = 0
    for a in inputs:
        flat[at:at + a.size] = a.reshape(-1)
        at += a.size
    return flat


def _unpack(flat: np.ndarray, outputs: Sequence[np.ndarray]) -> None:
    if len(outputs) == 1 and flat.ctypes.data == outputs[0].ctypes.data:
        return
    at = 0
    for o in outputs:
        o.reshape(-1)[:] = flat[at:at + o.size]
        at += o.size


def _wide(flat: np.ndarray) -> np.ndarray:
    """The buffer an MPI reduction works on: ``flat`` itself, or for the types MPI has no arithmetic for
    (bfloat16; float16 and bool, which not every MPI reduces) a float32 / int32 copy."""
    if flat.dtype == np.bool_:
        return flat.astype(np.int32)
    if flat.dtype.kind == "f" and flat.dtype.itemsize < 4 or flat.dtype.name == "bfloat16":
        return flat.astype(np.float32)
    return flat


def reduce_buffer(comm: object, flat: np.ndarray, op: str, root: int | None = None) -> None:
    """Reduce ``flat`` (contiguous, 1-D) over the ranks of ``comm`` in place: on every rank (``root`` None) or
    on rank ``root`` of ``comm`` only (the others' buffers are left as they were). Sums and products are a
    reduce to one rank (then a broadcast of its bytes), so every rank gets the same bits (module docstring)."""
    MPI = _mpi()
    work = _wide(flat)
    here = comm.Get_rank()
    if op in ("sum", "prod") or root is not None:
        mpi_op = {"sum": MPI.SUM, "prod": MPI.PROD, "max": MPI.MAX, "min": MPI.MIN}[op]
        to = 0 if root is None else root
        if here == to:
            comm.Reduce(MPI.IN_PLACE, work, op=mpi_op, root=to)
        else:
            comm.Reduce(work, None, op=mpi_op, root=to)
        if root is None:
            comm.Bcast(work, root=0)
    else:
        comm.Allreduce(MPI.IN_PLACE, work, op=MPI.MAX if op == "max" else MPI.MIN)
    if work is not flat and (root is None or here == root):
        # bool: a sum or max is "any", a product or min "all"
        np.copyto(flat, work != 0 if flat.dtype == np.bool_ else work, casting="unsafe")


def _group(name: str | None) -> Group | None:
    """The group a collective node runs over; None when it has nothing to exchange (one rank, or the world of
    a process that never joined a job). A named group needs init() and this rank among its members."""
    if (name is None or name in WORLD_NAMES) and not is_initialized():
        return None
    g = resolve(name)
    return g if g.size > 1 else None


def all_reduce(inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray], op: str = "sum",
               scale: float = 1.0, group: str | None = None) -> None:
    """``outputs[i] = reduce over the group's ranks of inputs[i]`` (then times ``scale``, the mean's
    1/degree), all the tensors of one dtype in one MPI call. Outputs may be the inputs' own buffers."""
    if op not in REDUCE_OPS:
        raise ValueError(f"AllReduce: op must be one of {REDUCE_OPS}, got {op!r}")
    flat = _pack(inputs, outputs)
    g = _group(group)
    if g is not None:
        reduce_buffer(g.comm, flat, op)
    if scale != 1.0:
        # In the buffer's dtype: a float32 gradient times a float32 1/n, as the mean kernel would compute it.
        np.multiply(flat, flat.dtype.type(scale), out=flat, casting="unsafe")
    _unpack(flat, outputs)


def all_gather(inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray], group: str | None = None) -> None:
    """``outputs[0]`` = the group's ranks' ``inputs[0]`` concatenated along axis 0, in group-rank order."""
    (x,), (out,) = inputs, outputs
    g = _group(group)
    if g is not None:
        g.comm.Allgather(np.ascontiguousarray(x), out)
    else:
        np.copyto(out, x.reshape(out.shape))


def broadcast(inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray], root_rank: int = 0,
              group: str | None = None) -> None:
    """Every ``outputs[i]`` = world rank ``root_rank``'s ``inputs[i]`` (one MPI call per dtype-uniform
    bucket), over ``group``'s ranks."""
    flat = _pack(inputs, outputs)
    g = _group(group)
    if g is not None:
        g.comm.Bcast(flat, root=g.group_rank(root_rank, "Broadcast: root_rank"))
    _unpack(flat, outputs)


def broadcast_arrays(arrays: Sequence[np.ndarray], root_rank: int = 0) -> None:
    """Overwrite ``arrays`` (C-contiguous, e.g. Parameters' data) with rank ``root_rank``'s, one MPI call per
    dtype: how a data-parallel job starts every rank from rank 0's weights."""
    by_dtype: dict[str, list[np.ndarray]] = {}
    for a in arrays:
        if not a.flags.c_contiguous:
            raise ValueError("broadcast_arrays: arrays must be C-contiguous (they are written in place)")
        by_dtype.setdefault(a.dtype.str, []).append(a)
    for group_arrays in by_dtype.values():
        broadcast(group_arrays, group_arrays, root_rank)
