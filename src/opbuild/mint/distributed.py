"""``mindspore.mint.distributed``: PyTorch-style process groups, collectives and messages on Tensors, over MPI
(launch with ``mpirun -n N``; see docs/distributed.md). The same functions as ``ops.communication``, less the
three MindSpore names mint lacks."""

from __future__ import annotations

from ..ops import communication as _communication

__all__ = list(_communication.MINT_NAMES)
globals().update({_n: getattr(_communication, _n) for _n in __all__})
