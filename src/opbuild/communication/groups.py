"""Named process groups: the world and the sub-groups a program creates (MindSpore's ``create_group`` and
``mint.distributed.new_group``), each an MPI communicator over some of the world's ranks.

A group is named by a string, as in MindSpore. ``None`` and every world name MindSpore uses
(``"hccl_world_group"``, ``"nccl_world_group"``, ``"mccl_world_group"``) and opbuild's ``"world_group"`` mean the
world. A created group is known only to its members: creating one is collective over the ranks it lists (MPI's
``Comm.Create_group``), which is how MindSpore's ``create_group`` is called (by the listed ranks). Ranks are
always world ranks at the API (``src``, ``dst``, ``peer``), translated here to ranks in the group.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from .management import _mpi
from .management import group as world

#: Every name of the world group (MindSpore's per backend, and opbuild's own).
WORLD_NAMES = ("hccl_world_group", "nccl_world_group", "mccl_world_group", "world_group")


@dataclass(frozen=True)
class Group:
    """A process group: its name, its MPI communicator and its members' world ranks (in group-rank order)."""

    name: str
    comm: Any
    ranks: tuple[int, ...]
    local_rank: int = 0  # among the group's ranks on this machine
    local_size: int = 1

    @property
    def rank(self) -> int:
        """This process's rank in the group."""
        return self.comm.Get_rank()

    @property
    def size(self) -> int:
        return len(self.ranks)

    def group_rank(self, world_rank: int, what: str = "rank") -> int:
        """The rank in this group of world rank ``world_rank``; ValueError if it is not a member."""
        if isinstance(world_rank, bool) or not isinstance(world_rank, int):
            raise TypeError(f"{what} must be an int (a world rank), got {world_rank!r}")
        try:
            return self.ranks.index(world_rank)
        except ValueError:
            raise ValueError(f"{what} {world_rank} is not a rank of group {self.name!r} (its world ranks: "
                             f"{list(self.ranks)})") from None


_created: dict[str, Group] = {}
_lock = threading.Lock()


def resolve(name: str | None) -> Group:
    """The group called ``name`` (None: the world). RuntimeError before ``init``; ValueError for a name this
    process does not know (never created here, destroyed, or created without this rank)."""
    if name is None or name in WORLD_NAMES:
        g = world()
        return Group(name or WORLD_NAMES[0], g.comm, tuple(range(g.size)), g.local_rank, g.local_size)
    if not isinstance(name, str):
        raise TypeError(f"group must be a str (a group's name) or None, got {type(name).__name__}")
    with _lock:
        found = _created.get(name)
    if found is None:
        raise ValueError(f"no communication group named {name!r} on rank {world().rank}: create it first with "
                         "create_group(name, rank_ids) (or mint.distributed.new_group) on every rank it lists")
    return found


def create(name: str, rank_ids: Any) -> Group:
    """Create group ``name`` of the world ranks ``rank_ids`` (distinct, at least one). Collective over those
    ranks: each of them must call it, the others must not (they would wait for nothing)."""
    g = world()
    if not isinstance(name, str) or not name:
        raise TypeError(f"create_group: group must be a non-empty str, got {name!r}")
    if name in WORLD_NAMES:
        raise ValueError(f"create_group: {name!r} is the world group's name; choose another name")
    if not isinstance(rank_ids, (list, tuple)) or not rank_ids:
        raise TypeError(f"create_group: rank_ids must be a non-empty list of world ranks, got {rank_ids!r}")
    ranks = tuple(rank_ids)
    if any(isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < g.size for r in ranks):
        raise ValueError(f"create_group: rank_ids must be ranks in [0, {g.size}), got {list(ranks)}")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"create_group: rank_ids repeats a rank: {list(ranks)}")
    if g.rank not in ranks:
        raise ValueError(f"create_group: rank {g.rank} is not in rank_ids {list(ranks)}; only the ranks of a "
                         "group create it")
    with _lock:
        if name in _created:
            raise ValueError(f"create_group: a group named {name!r} exists; destroy_group it first or choose "
                             "another name")
    mpi_group = g.comm.Get_group().Incl(list(ranks))
    comm = g.comm.Create_group(mpi_group)
    mpi_group.Free()
    node = comm.Split_type(_mpi().COMM_TYPE_SHARED, key=comm.Get_rank())  # the members on this machine
    made = Group(name, comm, ranks, node.Get_rank(), node.Get_size())
    node.Free()
    with _lock:
        _created[name] = made
    return made


def destroy(name: str) -> None:
    """Free group ``name`` (not the world). ValueError for an unknown name."""
    if name in WORLD_NAMES or name is None:
        raise ValueError("destroy_group: the world group cannot be destroyed (communication.release() leaves it)")
    found = resolve(name)
    with _lock:
        _created.pop(found.name, None)
    found.comm.Free()


def destroy_all() -> None:
    """Free every created group (the process group is being left)."""
    with _lock:
        groups = list(_created.values())
        _created.clear()
    for g in groups:
        g.comm.Free()


__all__ = ["WORLD_NAMES", "Group", "create", "destroy", "destroy_all", "resolve"]
