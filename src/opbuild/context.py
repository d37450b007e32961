"""``opbuild.context``: MindSpore 1.x's module path for the execution context.

MindSpore 1.x programs write ``import mindspore.context as context`` and
``context.set_context(mode=context.GRAPH_MODE, device_target="CPU")``; 2.x moved the same functions to the top
level. Both spellings reach the one context held by :mod:`opbuild.core.config` (this module only re-exports), so
they can never disagree.
"""

from __future__ import annotations

from .communication.auto_parallel import (
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from .core.config import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "ParallelMode", "set_auto_parallel_context",
           "get_auto_parallel_context", "reset_auto_parallel_context"]

