"""Messages between two ranks (``send``/``recv``, their non-blocking forms, ``batch_isend_irecv``) and the
collectives of picklable Python objects, the rest of ``mint.distributed`` / ``ops.communication``
(tensor_collectives.py has the collectives on Tensors; the same conventions hold: world ranks, named groups).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.tensor import Tensor
from .groups import Group, resolve
from .management import _mpi
from .tensor_collectives import CommHandle, _buffer, _bytes


def _tag(fn: str, tag: Any) -> int:
    if isinstance(tag, bool) or not isinstance(tag, int) or tag < 0:
        raise ValueError(f"{fn}: tag must be a non-negative int, got {tag!r}")
    return tag


def _peer(fn: str, g: Group, rank: Any, what: str) -> int:
    peer = g.group_rank(rank, f"{fn}: {what}")
    if peer == g.rank:
        raise ValueError(f"{fn}: {what} {rank} is this rank; a message needs another rank")
    return peer


def send(tensor: Tensor, dst: int = 0, group: str | None = None, tag: int = 0) -> None:
    """Send ``tensor`` to world rank ``dst`` (blocks until it may be reused)."""
    g = resolve(group)
    g.comm.Send(_bytes(_buffer(tensor, "send", "tensor")), dest=_peer("send", g, dst, "dst"), tag=_tag("send", tag))


def recv(tensor: Tensor, src: int = 0, group: str | None = None, tag: int = 0) -> int:
    """Receive into ``tensor`` (its shape and dtype are the message's) from world rank ``src``; returns 0."""
    g = resolve(group)
    buf = _buffer(tensor, "recv", "tensor")
    _receive(g, "recv", buf, _peer("recv", g, src, "src"), _tag("recv", tag))
    return 0


def _receive(g: Group, fn: str, buf: Any, peer: int, tag: int) -> None:
    MPI = _mpi()
    status = MPI.Status()
    g.comm.Recv(_bytes(buf), source=peer, tag=tag, status=status)
    if status.Get_count(MPI.BYTE) != buf.nbytes:
        raise ValueError(f"{fn}: received {status.Get_count(MPI.BYTE)} bytes from rank {g.ranks[peer]}, but tensor "
                         f"holds {buf.nbytes} ({buf.shape} {buf.dtype}): give recv a tensor of the sent shape and "
                         "dtype")


def isend(tensor: Tensor, dst: int = 0, group: str | None = None, tag: int = 0) -> CommHandle:
    """Start sending ``tensor`` to world rank ``dst``; ``wait()`` on the handle before changing it."""
    g = resolve(group)
    buf = _buffer(tensor, "isend", "tensor")
    return CommHandle([g.comm.Isend(_bytes(buf), dest=_peer("isend", g, dst, "dst"), tag=_tag("isend", tag))], buf)


def irecv(tensor: Tensor, src: int = 0, group: str | None = None, tag: int = 0) -> CommHandle:
    """Start receiving into ``tensor`` from world rank ``src``; its values are there after ``wait()``."""
    g = resolve(group)
    buf = _buffer(tensor, "irecv", "tensor")
    return CommHandle([g.comm.Irecv(_bytes(buf), source=_peer("irecv", g, src, "src"), tag=_tag("irecv", tag))], buf)


class P2POp:
    """One message of :func:`batch_isend_irecv`: ``op`` is ``isend`` or ``irecv`` (the functions, or their
    names), ``peer`` a world rank."""

    def __init__(self, op: Callable[..., Any] | str, tensor: Tensor, peer: int, group: str | None = None,
                 tag: int = 0) -> None:
        name = op if isinstance(op, str) else getattr(op, "__name__", "")
        if name not in ("isend", "irecv"):
            raise ValueError(f"P2POp: op must be isend or irecv, got {op!r}")
        if not isinstance(tensor, Tensor):
            raise TypeError(f"P2POp: tensor must be a Tensor, got {type(tensor).__name__}")
        self.op, self.tensor, self.peer, self.group, self.tag = name, tensor, peer, group, tag

    def start(self) -> CommHandle:
        return (isend if self.op == "isend" else irecv)(self.tensor, self.peer, self.group, self.tag)


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[CommHandle]:
    """Start every message of ``p2p_op_list`` (in order, none waiting for another); one handle each."""
    if not isinstance(p2p_op_list, (list, tuple)) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError("batch_isend_irecv: p2p_op_list must be a list of P2POp")
    return [p.start() for p in p2p_op_list]


def _object_list(fn: str, v: Any, what: str) -> list:
    if not isinstance(v, list):
        raise TypeError(f"{fn}: {what} must be a list, got {type(v).__name__}")
    return v


def all_gather_object(object_list: list, obj: Any, group: str | None = None) -> None:
    """``object_list[i]`` = group rank ``i``'s ``obj`` (pickled); ``object_list`` holds one slot per rank."""
    g = resolve(group)
    out = _object_list("all_gather_object", object_list, "object_list")
    if len(out) != g.size:
        raise ValueError(f"all_gather_object: object_list must have {g.size} slots (one per rank), got {len(out)}")
    out[:] = g.comm.allgather(obj)


def broadcast_object_list(object_list: list, src: int = 0, group: str | None = None, device: Any = None) -> None:
    """Every rank's ``object_list`` = world rank ``src``'s (the same length on every rank)."""
    g = resolve(group)
    out = _object_list("broadcast_object_list", object_list, "object_list")
    got = g.comm.bcast(list(out), root=g.group_rank(src, "broadcast_object_list: src"))
    if len(got) != len(out):
        raise ValueError(f"broadcast_object_list: rank {src} sent {len(got)} objects, this rank's list has "
                         f"{len(out)} slots")
    out[:] = got


def gather_object(obj: Any, object_gather_list: list | None = None, dst: int = 0, group: str | None = None) -> None:
    """On world rank ``dst``: ``object_gather_list[i]`` = group rank ``i``'s ``obj``."""
    g = resolve(group)
    root = g.group_rank(dst, "gather_object: dst")
    if g.rank == root:
        out = _object_list("gather_object", object_gather_list, "object_gather_list")
        if len(out) != g.size:
            raise ValueError(f"gather_object: object_gather_list must have {g.size} slots, got {len(out)}")
    got = g.comm.gather(obj, root=root)
    if g.rank == root:
        out[:] = got


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list: list | None,
                        src: int = 0, group: str | None = None) -> None:
    """``scatter_object_output_list[0]`` = world rank ``src``'s ``scatter_object_input_list[r]`` on group
    rank ``r``."""
    g = resolve(group)
    out = _object_list("scatter_object_list", scatter_object_output_list, "scatter_object_output_list")
    if not out:
        raise ValueError("scatter_object_list: scatter_object_output_list needs at least one slot")
    root = g.group_rank(src, "scatter_object_list: src")
    items = None
    if g.rank == root:
        items = _object_list("scatter_object_list", scatter_object_input_list, "scatter_object_input_list")
        if len(items) != g.size:
            raise ValueError(f"scatter_object_list: scatter_object_input_list must have {g.size} objects, got "
                             f"{len(items)}")
    out[0] = g.comm.scatter(items, root=root)


def send_object_list(object_list: list, dst: int, group: str | None = None, device: Any = None) -> None:
    """Send the (picklable) objects of ``object_list`` to world rank ``dst``."""
    g = resolve(group)
    g.comm.send(list(_object_list("send_object_list", object_list, "object_list")),
                dest=_peer("send_object_list", g, dst, "dst"))


def recv_object_list(object_list: list, src: int = 0, group: str | None = None, device: Any = None) -> int:
    """Fill ``object_list`` with the objects world rank ``src`` sent (as many as it has slots); returns 0."""
    g = resolve(group)
    out = _object_list("recv_object_list", object_list, "object_list")
    got = g.comm.recv(source=_peer("recv_object_list", g, src, "src"))
    if len(got) != len(out):
        raise ValueError(f"recv_object_list: rank {src} sent {len(got)} objects, object_list has {len(out)} slots")
    out[:] = got
    return 0


__all__ = ["P2POp", "all_gather_object", "batch_isend_irecv", "broadcast_object_list", "gather_object", "irecv",
           "isend", "recv", "recv_object_list", "scatter_object_list", "send", "send_object_list"]
