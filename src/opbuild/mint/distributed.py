"""``mindspore.mint.distributed``: PyTorch-style process groups, collectives and messages on Tensors, over MPI
(launch with ``mpirun -n N``; see docs/distributed.md). ``ops.communication``'s names, less the three MindSpore
names mint lacks, always in place: ``set_comm_ops_inplace`` switches ``ops.communication``'s forms only, as in
MindSpore. ``TCPStore`` is importable from here too (not in ``__all__``, as in MindSpore)."""

from __future__ import annotations

from ..communication import point_to_point as _p2p
from ..communication import tensor_collectives as _tc
from ..communication.tcp_store import TCPStore  # noqa: F401 (importable, not in __all__, as in MindSpore)
from ..ops import communication as _communication

__all__ = list(_communication.MINT_NAMES)
globals().update({_n: getattr(_tc, _n, None) or getattr(_p2p, _n, None) or getattr(_communication, _n)
                  for _n in __all__})
