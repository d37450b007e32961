"""Explain a cache miss: the closest existing entry of the same op and the descriptor fields that differ.

Built on :func:`opbuild.cache.key.diff`, which flattens descriptors into named fields
(``input[0].shape``, ``compiler.version``, ``target.isa``, ...). "Closest" is the committed entry of the same
op with the fewest differing fields; ties go to the most recently used one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..key import diff
from .scan import Entry, Listing, scan

MAX_LIST_ITEMS = 6  # longer list values are shown as what was added and removed


@dataclass
class Explanation:
    """Why a descriptor is not (or is) in the cache."""

    op: str
    name: str | None  # the explained kernel's name, when known
    candidates: int  # committed entries of the same op that were compared
    closest: str | None = None
    changes: list[tuple[str, Any, Any]] = field(default_factory=list)  # (field, closest's value, this value)

    @property
    def identical(self) -> bool:
        """An entry with exactly this descriptor exists (the kernel would be a hit)."""
        return self.closest is not None and not self.changes

    def lines(self) -> list[str]:
        """The differing fields, one ``field old -> new`` line each."""
        return [describe_change(f, old, new) for f, old, new in self.changes]

    def summary(self, max_fields: int = 6) -> str:
        """One line for a log message."""
        if self.closest is None:
            return f"no cached kernel of op {self.op} to compare with"
        if self.identical:
            return f"entry {self.closest} has the same descriptor"
        shown = self.lines()[:max_fields]
        more = len(self.changes) - len(shown)
        return (f"closest entry {self.closest} differs in {len(self.changes)} field(s): " + "; ".join(shown)
                + (f"; and {more} more" if more > 0 else ""))

    def as_dict(self) -> dict:
        """JSON-able form."""
        return {"op": self.op, "kernel": self.name, "candidates": self.candidates, "closest": self.closest,
                "identical": self.identical,
                "changes": [{"field": f, "old": o, "new": n, "text": describe_change(f, o, n)}
                            for f, o, n in self.changes]}


def _value(v: Any) -> str:
    if v is None:
        return "(absent)"
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(",", ":") if isinstance(v, list) else (", ", ": "))


def describe_change(field_name: str, old: Any, new: Any) -> str:
    """``input[0].shape [3] -> [4]``; long lists (ISA features) as ``+added -removed``."""
    if isinstance(old, list) and isinstance(new, list) and max(len(old), len(new)) > MAX_LIST_ITEMS:
        try:
            added = sorted(set(map(str, new)) - set(map(str, old)))
            removed = sorted(set(map(str, old)) - set(map(str, new)))
        except TypeError:
            added = removed = []
        if added or removed:
            parts = [f"+{a}" for a in added] + [f"-{r}" for r in removed]
            return f"{field_name} {len(old)} items -> {len(new)} items ({' '.join(parts)})"
    return f"{field_name} {_value(old)} -> {_value(new)}"


def explain(directory: Path, desc: dict, name: str | None = None,
            listing: Listing | None = None) -> Explanation:
    """Compare descriptor ``desc`` with every committed entry of its op in ``directory`` (except ``name``
    itself) and return the closest one with the differing fields. ``listing``: a recent scan of
    ``directory`` to reuse (its entries keep their parsed ``.info``)."""
    op = str(desc.get("op", "?"))
    prefix = op.lower() + "_"
    listing = scan(directory) if listing is None else listing
    found = [e for e in listing.committed
             if e.name.startswith(prefix) and e.name != name and e.info().get("op") == op]
    result = Explanation(op, name, len(found))
    best: tuple[int, float, Entry, list] | None = None
    for entry in found:
        changes = diff(entry.info(), desc)
        rank = (len(changes), -entry.last_used)
        if best is None or rank < best[:2]:
            best = (*rank, entry, changes)
    if best is not None:
        result.closest, result.changes = best[2].name, best[3]
    return result
