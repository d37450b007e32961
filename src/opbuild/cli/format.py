"""Output formatting of the ``opbuild`` command: aligned tables, label/value lines, JSON, counts in words."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[int] = ()) -> str:
    """Rows as an aligned plain-text table (columns in ``right`` right-aligned); no trailing spaces."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for r in cells:
        parts = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def fields(pairs: Sequence[tuple[str, Any]]) -> str:
    """``label  value`` lines with the values aligned."""
    width = max(len(k) for k, _ in pairs)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in pairs)


def print_json(obj: Any) -> None:
    """``obj`` as indented JSON on stdout (``--json``)."""
    print(json.dumps(obj, indent=2, sort_keys=False, default=str))


def err(message: str) -> None:
    """``opbuild: message`` on stderr."""
    print(f"opbuild: {message}", file=sys.stderr)


def plural(n: int, word: str, plural: str | None = None) -> str:
    """``1 kernel``, ``2 kernels`` (or the given plural)."""
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def entries(n: int, adjective: str = "") -> str:
    """``1 entry``, ``3 cache entries``."""
    word = f"{adjective} entr" if adjective else "entr"
    return plural(n, word + "y", word + "ies")


def seconds(s: float) -> str:
    """A short duration: ``412 us``, ``3.41 ms``, ``1.25 s``."""
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.2f} s"


__all__ = ["entries", "err", "fields", "plural", "print_json", "seconds", "table"]


def short_signature(info: dict, signature: Callable[[dict], str], width: int = 100) -> str:
    """A ``cache ls`` row's SHAPES cell: ``signature(info)``, except that a fused kernel's ``members`` attribute
    (a list of hundreds of characters) is shown as its member ops, and the cell is cut to ``width`` characters
    ("..." at the end). ``--json`` keeps the full signature."""
    attrs = info.get("attrs") if isinstance(info, dict) else None
    members = attrs.get("members") if isinstance(attrs, dict) else None
    if isinstance(members, list) and members:
        ops = ",".join(str(m.get("op", "?")) if isinstance(m, dict) else "?" for m in members)
        text = signature({**info, "attrs": {**attrs, "members": f"{len(members)} ops: {ops}"}})
    else:
        text = signature(info)
    return text if len(text) <= width else text[:width - 3] + "..."
