"""``opbuild.context``: MindSpore 1.x's module path for the execution context.

MindSpore 1.x programs write ``import mindspore.context as context`` and
``context.set_context(mode=context.GRAPH_MODE, device_target="CPU")``; 2.x moved the same functions to the top
level. Both spellings reach the one context held by :mod:`opbuild.core.config` (this module only re-exports), so
they can never disagree.
"""

from __future__ import annotations

from .api_extras import get_ps_context, set_ps_context
from .communication.auto_parallel import (
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from .core.config import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context

# MindSpore's values of set_context(jit_syntax_level=...): accepted and recorded (opbuild traces construct,
# core/context_keys.py).
STRICT, COMPATIBLE, LAX = 0, 1, 2

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "ParallelMode", "set_auto_parallel_context",
           "get_auto_parallel_context", "reset_auto_parallel_context", "STRICT", "COMPATIBLE", "LAX", "get_ps_context",
           "set_ps_context"]

