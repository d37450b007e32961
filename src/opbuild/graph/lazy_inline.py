"""``lazy_inline``: MindSpore's decorator for a Cell's ``__init__`` asking its graph compiler to compile the
cell's graph once and call it wherever the cell is reused, instead of inlining every copy. opbuild already
builds each kernel once per signature and reuses it through the cache, so the decorator checks its arguments,
marks the function (``_lazy_inline``) and returns it otherwise unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def lazy_inline(fn: Callable | None = None, attrs: Any = None, policy: str | None = None) -> Any:
    """``@lazy_inline`` or ``@lazy_inline(attrs=..., policy=...)`` on a Cell's ``__init__``."""
    if attrs is not None and not isinstance(attrs, (str, list, tuple)):
        raise TypeError(f"lazy_inline: attrs must be a str or a list of str, got {type(attrs).__name__}")
    if policy not in (None, "front", "back"):
        raise ValueError(f"lazy_inline: policy must be None, 'front' or 'back', got {policy!r}")

    def mark(f: Callable) -> Callable:
        if not callable(f):
            raise TypeError(f"lazy_inline: decorates a Cell's __init__, got {type(f).__name__}")
        f._lazy_inline = True  # type: ignore[attr-defined]
        return f

    return mark if fn is None else mark(fn)
