"""Collective operators (MindSpore's ``ops.AllReduce``, ``ops.AllGather``, ``ops.Broadcast``): graph nodes that
the runtime executes between kernels through MPI (``OpDef.host``), never compiled.

A collective is a node like any other for tracing, autodiff and memory planning (its outputs get arena
buffers; an AllReduce of one tensor may run in place on its input's buffer, as an elementwise map: element
``o`` of the result depends on element ``o`` of the input alone). What differs is execution: the executor
calls :mod:`opbuild.communication.collective` on the node's buffers where it would call a kernel, in graph
order, which is the same order on every rank because every rank traces the same program.

``AllReduce`` takes several tensors of one dtype in one node: the gradient reducer (nn/distributed.py) puts a
bucket of gradients in one node, which is one flat buffer and one MPI call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..communication import collective as mpi
from ..communication.groups import WORLD_NAMES, resolve
from ..communication.management import is_initialized
from ..core.errors import ShapeError
from ..core.ir import TensorType
from .primitive import Primitive, apply, declare
from .registry import HostFn, OpDef, grad_rule, no_grad, same_dtype

DTYPES = ("float32", "float64", "int32", "int64")


class ReduceOp:
    """The reductions of ``AllReduce`` (MindSpore's ``ops.ReduceOp``)."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def _reference(host: HostFn) -> Any:
    """The NumPy reference of a collective is its host function on fresh outputs (with one rank, or outside a
    job, that is the local result: a sum over one rank)."""

    def run(attrs: dict, *arrays: np.ndarray) -> list[np.ndarray]:
        ins = [np.ascontiguousarray(a) for a in arrays]
        outs = [np.empty_like(a) for a in ins] if "rank_size" not in attrs else \
            [np.empty((ins[0].shape[0] * attrs["rank_size"], *ins[0].shape[1:]), ins[0].dtype)]
        host(attrs, ins, outs)
        return outs

    return run


def _same_types(op: str, ins: Sequence[TensorType]) -> list[TensorType]:
    if not ins:
        raise ShapeError(op, "needs at least one tensor", [])
    same_dtype(op, ins, DTYPES)  # one flat buffer per node: one MPI datatype
    return list(ins)


def _group_attr(op: str, attrs: dict, ins: Sequence[TensorType]) -> str:
    """``attrs["group"]``: the name of the group the collective runs over (default: the world)."""
    group = attrs.get("group", "world_group")
    if not isinstance(group, str) or not group:
        raise ShapeError(op, f"group must be a group's name (a str), got {group!r}", list(ins))
    return group


def _group_size(group: str) -> int:
    """The number of ranks of ``group``; 1 for the world of a process that never joined a job."""
    if group in WORLD_NAMES and not is_initialized():
        return 1
    return resolve(group).size


# ---- AllReduce -----------------------------------------------------------------------------------------------

def _allreduce_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    op = attrs.get("op", ReduceOp.SUM)
    if op not in mpi.REDUCE_OPS:
        raise ShapeError("AllReduce", f"op must be one of {mpi.REDUCE_OPS}, got {op!r}", list(ins))
    scale = float(attrs.get("scale", 1.0))
    if scale != 1.0 and op != ReduceOp.SUM:
        raise ShapeError("AllReduce", "scale (the mean's 1/degree) applies to op='sum' only", list(ins))
    return {"op": op, "scale": scale, "group": _group_attr("AllReduce", attrs, ins)}


def _allreduce_host(attrs: dict, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray]) -> None:
    mpi.all_reduce(ins, outs, attrs["op"], attrs["scale"], attrs["group"])


def _allreduce_init(self: Primitive, op: str = ReduceOp.SUM, group: str = "world_group") -> None:
    Primitive.__init__(self, op=op, group=group)


def _allreduce_call(self: Primitive, x: Any) -> Any:
    return apply("AllReduce", {"op": self.attrs["op"], "scale": 1.0, "group": self.attrs["group"]}, [x])


AllReduce = declare(OpDef("AllReduce", lambda a, ins: _same_types("AllReduce", ins), _reference(_allreduce_host),
                          normalize=_allreduce_normalize, host=_allreduce_host, reuse_input=True),
                    "``AllReduce(op=ReduceOp.SUM)(x)``: the reduction of ``x`` over every rank of the job, on "
                    "every rank (sum, max, min, prod).", call=_allreduce_call, init=_allreduce_init)


@grad_rule("AllReduce")
def _allreduce_grad(attrs: dict, inputs: Sequence[Any], outputs: Sequence[Any], douts: Sequence[Any]) -> list:
    """d(sum over ranks of x)/dx on each rank is the sum over ranks of the cotangents (MindSpore's bprop of
    AllReduce sum). Max and min have no gradient rule here: refuse rather than guess which rank won."""
    if attrs["op"] != ReduceOp.SUM:
        raise NotImplementedError(f"AllReduce(op={attrs['op']!r}) has no gradient rule (only 'sum' does)")
    present = [d for d in douts if d is not None]
    if len(present) != len(douts):
        raise NotImplementedError("AllReduce: gradient of a bucket whose outputs are not all used")
    out = apply("AllReduce", dict(attrs), present)
    return list(out) if isinstance(out, tuple) else [out]


# ---- AllGather -----------------------------------------------------------------------------------------------

def _allgather_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    if len(ins) != 1 or ins[0].rank == 0:
        raise ShapeError("AllGather", "takes one tensor of rank >= 1 (gathered along axis 0)", list(ins))
    (x,) = _same_types("AllGather", ins)
    return [TensorType((x.shape[0] * attrs["rank_size"], *x.shape[1:]), x.dtype)]


def _allgather_host(attrs: dict, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray]) -> None:
    mpi.all_gather(ins, outs, attrs.get("group", "world_group"))


def _allgather_init(self: Primitive, group: str = "world_group") -> None:
    # The output's shape depends on the number of ranks: fixed when the primitive is made, as in MindSpore
    # (its rank_size attribute), so a graph is traced with static types.
    Primitive.__init__(self, rank_size=_group_size(group), group=group)


AllGather = declare(OpDef("AllGather", _allgather_infer, _reference(_allgather_host), n_inputs=1,
                          host=_allgather_host),
                    "``AllGather()(x)``: every rank's ``x`` concatenated along axis 0 in rank order.",
                    init=_allgather_init)


# ---- Broadcast -----------------------------------------------------------------------------------------------

def _broadcast_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    root = attrs.get("root_rank", 0)
    if isinstance(root, bool) or not isinstance(root, int) or root < 0:
        raise ShapeError("Broadcast", f"root_rank must be an int >= 0, got {root!r}", list(ins))
    return {"root_rank": root, "group": _group_attr("Broadcast", attrs, ins)}


def _broadcast_host(attrs: dict, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray]) -> None:
    mpi.broadcast(ins, outs, attrs["root_rank"], attrs["group"])


def _broadcast_init(self: Primitive, root_rank: int, group: str = "world_group") -> None:
    Primitive.__init__(self, root_rank=root_rank, group=group)


def _broadcast_call(self: Primitive, inputs: Any) -> Any:
    """MindSpore's Broadcast takes a tuple of tensors and returns a tuple."""
    tensors = list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]
    return apply("Broadcast", self.attrs, tensors)


Broadcast = declare(OpDef("Broadcast", lambda a, ins: _same_types("Broadcast", ins), _reference(_broadcast_host),
                          normalize=_broadcast_normalize, host=_broadcast_host, multi_output=True),
                    "``Broadcast(root_rank)((x, ...))``: rank ``root_rank``'s tensors, on every rank.",
                    call=_broadcast_call, init=_broadcast_init)

no_grad("Broadcast")  # MindSpore's bprop gives Broadcast's input zeros; AllGather's rule: ops/backward_grads.py

PRIMITIVES: dict[str, type[Primitive]] = {"AllReduce": AllReduce, "AllGather": AllGather, "Broadcast": Broadcast}
