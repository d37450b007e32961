"""The process group of a data-parallel job: MPI underneath (``mpirun -n N python train.py``).

MindSpore's ``mindspore.communication`` API (``init``, ``get_rank``, ``get_group_size``, ``get_local_rank``,
``release``) over mpi4py's ``COMM_WORLD``. There is one group, the world: every rank runs the same program, and
the collectives of a compiled graph are called in the same order on every rank (the graph is the same).

Two things make a multi-rank job safe to run:

* ``RANK_ID`` follows the MPI rank when the launcher did not set it (``mpirun`` does not), so each rank keeps
  its own build cache ``rank_<rank>/kernel_meta`` instead of all ranks sharing ``rank_0``; ``RANK_SIZE`` follows
  the group size (the shared tier spreads a cold build over the ranks with it).
* A rank whose Python code raises would leave the others blocked in their next collective forever. ``init``
  installs an excepthook that prints the traceback, names the failing rank and calls ``MPI_Abort``: ``mpirun``
  then ends every rank of the job and reports the abort (a rank killed by a signal is reported the same way by
  ``mpirun`` itself).
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from ..core.errors import MissingPackageError

# MindSpore's backend names: on the CPU every one of them is the same transport, MPI, so programs written for
# a device (init("nccl")) run unchanged.
BACKENDS = (None, "mpi", "hccl", "nccl", "mccl")


class GlobalComm:
    """MindSpore's record of the world group (``communication.management.GlobalComm``), with its values before
    ``init`` (``BACKEND`` 'hccl', ``WORLD_COMM_GROUP`` 'hccl_world_group'; recorded): programs pass
    ``GlobalComm.WORLD_COMM_GROUP`` as a group, which opbuild's collectives accept as the world. ``init``
    sets ``INITED`` and, given a device backend name, ``BACKEND`` and that backend's world group name."""

    BACKEND = "hccl"
    WORLD_COMM_GROUP = "hccl_world_group"
    INITED = False
    CHECK_ENVS = True


@dataclass
class _Group:
    comm: Any  # mpi4py.MPI.Comm (COMM_WORLD)
    rank: int
    size: int
    local_rank: int
    local_size: int
    previous_hook: Any


_group: _Group | None = None
_lock = threading.Lock()


def _mpi() -> Any:
    """mpi4py's MPI module, initialising MPI if nobody has (an MPI the program initialised itself is reused)."""
    try:
        from mpi4py import MPI
    except ImportError:  # pragma: no cover - depends on the installation
        raise MissingPackageError("opbuild.communication", "mpi4py", "distributed") from None
    if not MPI.Is_initialized():  # mpi4py.rc.initialize = False: the program left initialisation to us
        MPI.Init_thread(MPI.THREAD_MULTIPLE)
    if MPI.Is_finalized():
        raise RuntimeError("opbuild.communication.init: MPI was already finalized in this process")
    return MPI


def init(backend_name: str | None = None) -> None:
    """Join the job's process group (MindSpore's ``communication.init``). Idempotent.

    ``backend_name`` may be None, "mpi", or one of MindSpore's device backends ("hccl", "nccl", "mccl"), all of
    which mean MPI here. Sets ``RANK_ID``/``RANK_SIZE`` when they are unset (see the module) and installs the
    abort-on-exception hook when the group has more than one rank."""
    global _group
    if backend_name not in BACKENDS:
        raise ValueError(f"init: backend_name must be one of {BACKENDS}, got {backend_name!r}")
    with _lock:
        if _group is not None:
            return
        MPI = _mpi()
        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
        # Ranks on one machine: those sharing memory with this one (portable, unlike launcher variables).
        node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=rank)
        local_rank, local_size = node.Get_rank(), node.Get_size()
        node.Free()
        os.environ.setdefault("RANK_ID", str(rank))
        os.environ.setdefault("RANK_SIZE", str(size))
        previous = sys.excepthook
        if size > 1:
            sys.excepthook = _abort_on_exception
            _report_termination()
        _group = _Group(comm, rank, size, local_rank, local_size, previous)
        GlobalComm.INITED = True
        if backend_name in ("hccl", "nccl", "mccl"):
            GlobalComm.BACKEND, GlobalComm.WORLD_COMM_GROUP = backend_name, f"{backend_name}_world_group"


def _abort_on_exception(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """sys.excepthook of a rank: the traceback, then one line naming this rank, then ``MPI_Abort`` so the other
    ranks do not wait in a collective for a rank that will never come."""
    group = _group
    hook = group.previous_hook if group is not None else sys.__excepthook__
    hook(kind, exc, tb)
    if group is None:
        return
    sys.stderr.write(f"opbuild.communication: rank {group.rank} of {group.size} failed with {kind.__name__}: {exc}; "
                     f"aborting the MPI job (every rank ends)\n")
    sys.stderr.flush()
    sys.stdout.flush()
    group.comm.Abort(1)


def _report_termination() -> None:
    """When another rank dies (an exception's MPI_Abort, or a signal such as SIGKILL), ``mpirun`` ends this rank
    with SIGTERM, most likely while it waits inside an MPI call, where no Python signal handler can run.
    faulthandler's C handler can: it prints where this rank was (typically a collective) and then lets SIGTERM
    end the process as before, so every surviving rank's stderr says that it was ended, and where."""
    import faulthandler
    import signal

    try:
        faulthandler.register(signal.SIGTERM, file=sys.__stderr__, all_threads=True, chain=True)
    except (AttributeError, ValueError, OSError, RuntimeError):  # pragma: no cover - no SIGTERM, or no stderr
        pass


def release() -> None:
    """Leave the process group (MindSpore's ``communication.release``): the excepthook is restored and
    get_rank() needs init() again. MPI itself stays initialised: mpi4py finalizes it at exit, and MPI cannot be
    initialised twice in one process."""
    global _group
    with _lock:
        if _group is not None and sys.excepthook is _abort_on_exception:
            sys.excepthook = _group.previous_hook
        _group = None
        GlobalComm.INITED = False


def is_initialized() -> bool:
    """Whether :func:`init` was called (and :func:`release` was not since)."""
    return _group is not None


def group() -> _Group:
    """The group of :func:`init`; RuntimeError naming the fix before it."""
    if _group is None:
        raise RuntimeError("opbuild.communication: call communication.init() first (launch with mpirun -n N)")
    return _group


def get_rank(group_name: str | None = None) -> int:
    """This process's rank in the job, 0..group size - 1."""
    return group().rank


def get_group_size(group_name: str | None = None) -> int:
    """The number of ranks of the job."""
    return group().size


def get_local_rank(group_name: str | None = None) -> int:
    """This process's rank among the ranks on the same machine."""
    return group().local_rank


def get_local_rank_size(group_name: str | None = None) -> int:
    """The number of ranks on this machine."""
    return group().local_size
