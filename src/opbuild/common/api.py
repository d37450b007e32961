"""``mindspore.common.api``: ``jit`` and its companions under MindSpore's module path (jit.py, api_extras.py)."""

from __future__ import annotations

from ..api_extras import jit_class, ms_memory_recycle
from ..jit import jit

__all__ = ["jit", "jit_class", "ms_memory_recycle"]
