"""Human units for sizes and durations: parsing ``500M`` / ``30d`` and printing ``1.5 MiB`` / ``3h ago``.

Size suffixes are powers of 1024, as ``du -h`` prints them: ``K``, ``M``, ``G``, ``T`` (``KiB``, ``MB``, ``M``
and ``m`` all mean the same); a bare number is bytes. Durations take ``s``, ``m``, ``h``, ``d`` or ``w``.
"""

from __future__ import annotations

import re
import time

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgtp]?)(?:i?b)?\s*$", re.IGNORECASE)
_SIZE_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_AGE_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([smhdw])\s*$", re.IGNORECASE)
_AGE_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_size(text: str) -> int:
    """``"500M"`` -> 524288000. Raises ValueError naming the accepted forms."""
    m = _SIZE_RE.match(str(text))
    if not m:
        raise ValueError(f"invalid size {text!r}: use a number with an optional K, M, G or T suffix "
                         "(e.g. 500M, 2G)")
    return int(float(m.group(1)) * 1024 ** _SIZE_POWERS[m.group(2).lower()])


def parse_age(text: str) -> float:
    """``"30d"`` -> seconds. A unit is required: ``90s``, ``15m``, ``12h``, ``30d``, ``2w``."""
    m = _AGE_RE.match(str(text))
    if not m:
        raise ValueError(f"invalid age {text!r}: use a number with a unit s, m, h, d or w (e.g. 12h, 30d)")
    return float(m.group(1)) * _AGE_SECONDS[m.group(2).lower()]


def format_size(n: float) -> str:
    """Bytes as ``812 B``, ``14.7 KiB``, ``1.2 GiB``."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{int(n)} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def format_duration(seconds: float) -> str:
    """A duration as its largest sensible unit: ``45s``, ``12m``, ``3h``, ``5d``."""
    s = max(0.0, float(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if s >= size:
            return f"{int(s // size)}{unit}"
    return f"{int(s)}s"


def format_ago(timestamp: float | None, now: float | None = None) -> str:
    """How long ago an epoch timestamp was (``just now``, ``12m ago``); ``-`` when unknown."""
    if not timestamp:
        return "-"
    age = (time.time() if now is None else now) - timestamp
    return "just now" if age < 1 else f"{format_duration(age)} ago"


def format_time(timestamp: float | None) -> str:
    """Local wall-clock time ``YYYY-mm-dd HH:MM``; ``-`` when unknown."""
    if not timestamp:
        return "-"
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))
    except (OverflowError, OSError, ValueError):  # a time from a hand-edited file, beyond the platform's time_t
        return "?"
