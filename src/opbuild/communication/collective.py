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

from .management import _mpi, group, is_initialized

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


def all_reduce(inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray], op: str = "sum",
               scale: float = 1.0) -> None:
    """``outputs[i] = reduce over ranks of inputs[i]`` (then times ``scale``, the mean's 1/degree), all the
    tensors of one dtype in one MPI call. Outputs may be the inputs' own buffers (in place)."""
    if op not in REDUCE_OPS:
        raise ValueError(f"AllReduce: op must be one of {REDUCE_OPS}, got {op!r}")
    flat = _pack(inputs, outputs)
    if is_initialized() and group().size > 1:
        MPI = _mpi()
        g = group()
        if op in ("sum", "prod"):
            mpi_op = MPI.SUM if op == "sum" else MPI.PROD
            if g.rank == 0:
                g.comm.Reduce(MPI.IN_PLACE, flat, op=mpi_op, root=0)
            else:
                g.comm.Reduce(flat, None, op=mpi_op, root=0)
            g.comm.Bcast(flat, root=0)
        else:
            g.comm.Allreduce(MPI.IN_PLACE, flat, op=MPI.MAX if op == "max" else MPI.MIN)
    if scale != 1.0:
        # In the buffer's dtype: a float32 gradient times a float32 1/n, as the mean kernel would compute it.
        np.multiply(flat, flat.dtype.type(scale), out=flat, casting="unsafe")
    _unpack(flat, outputs)


def all_gather(inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> None:
    """``outputs[0]`` = the ranks' ``inputs[0]`` concatenated along axis 0, in rank order."""
    (x,), (out,) = inputs, outputs
    if is_initialized() and group().size > 1:
        group().comm.Allgather(np.ascontiguousarray(x), out)
    else:
        np.copyto(out, x.reshape(out.shape))


def broadcast(inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray], root_rank: int = 0) -> None:
    """Every ``outputs[i]`` = rank ``root_rank``'s ``inputs[i]`` (one MPI call per dtype-uniform bucket)."""
    flat = _pack(inputs, outputs)
    if is_initialized() and group().size > 1:
        g = group()
        if not 0 <= root_rank < g.size:
            raise ValueError(f"Broadcast: root_rank {root_rank} is not a rank of a job of {g.size}")
        g.comm.Bcast(flat, root=root_rank)
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
