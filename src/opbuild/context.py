"""``opbuild.context``: MindSpore 1.x's module path for the execution context.

MindSpore 1.x programs write ``import mindspore.context as context`` and
``context.set_context(mode=context.GRAPH_MODE, device_target="CPU")``; 2.x moved the same functions to the top
level. Both spellings reach the one context held by :mod:`opbuild.config` (this module only re-exports), so
they can never disagree.
"""

from __future__ import annotations

from .config import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context


class ParallelMode:
    """The parallel-mode names of ``mindspore.context.ParallelMode`` (also ``mindspore.ParallelMode``).

    opbuild runs one process per rank with no automatic sharding; the constants exist so that programs which
    name a mode (typically ``DATA_PARALLEL`` for ``set_auto_parallel_context``) import and run unchanged.
    """

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "ParallelMode"]


def __getattr__(name: str):
    """``context.set_auto_parallel_context`` and friends (MindSpore 1.x's spelling), from opbuild.communication,
    resolved on use: that package imports ParallelMode from this module."""
    if name in ("set_auto_parallel_context", "get_auto_parallel_context", "reset_auto_parallel_context"):
        from . import communication

        return getattr(communication, name)
    raise AttributeError(f"module 'opbuild.context' has no attribute {name!r}")
