"""Where one kernel's entry stands, for ``opbuild cache explain``: is it there, would a build accept it (its
checksums and, under ``OPBUILD_CACHE_SECRET``, its MAC: cache/signing.py), and why was it quarantined before.

A kernel that a build keeps rebuilding is explained here rather than by the descriptor diff: an entry refused
as unsigned or signed with another secret has the very descriptor asked for.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import fsio, quarantine, signing
from ..entry import name_problem
from ..layout import JSON_SUFFIX, QUARANTINE_DIR
from ..local import FROM_ENV, KernelStore
from .scan import Listing
from .verify import check_entry

MAX_NOTES = 3  # the most recent quarantine notes shown


@dataclass
class Standing:
    """``state``: ``absent``, ``uncommitted``, ``sound`` or ``refused`` (``reason`` says why); ``signed_with``
    the key id its ``.json`` names (None: unsigned); ``checked_with`` the key id of the secret it was checked
    under (``unsigned``: checksums only); ``quarantined``: (note file, reason) of earlier copies, newest first."""

    state: str
    reason: str = ""
    signed_with: str | None = None
    checked_with: str = signing.UNSIGNED
    quarantined: list[tuple[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict:
        """JSON-able form."""
        return {**asdict(self), "quarantined": [{"note": n, "reason": r} for n, r in self.quarantined]}

    def lines(self) -> list[str]:
        """What ``cache explain`` prints about it."""
        if self.state == "sound":
            how = (f"signed with this OPBUILD_CACHE_SECRET (key id {self.checked_with})"
                   if self.checked_with != signing.UNSIGNED else
                   "checksums match; OPBUILD_CACHE_SECRET is unset here, so no MAC was checked"
                   + (f" (it is signed, key id {self.signed_with})" if self.signed_with else ""))
            out = [f"entry    sound: a build loads it ({how})"]
        elif self.state == "refused":
            out = [f"entry    refused: {self.reason}", "         a build quarantines it and rebuilds the kernel"]
        elif self.state == "uncommitted":
            out = ["entry    uncommitted (no .json): being built, or left by an interrupted build"]
        else:
            out = ["entry    not in the cache"]
        out += [f"quarantined {note}: {reason}" for note, reason in self.quarantined]
        return out


def standing(directory: Path, name: str, listing: Listing, binary_suffix: str,
             secret: bytes | None | str = FROM_ENV) -> Standing:
    """Where entry ``name`` of ``directory`` stands (``listing``: a scan of it), checked as a build checks it
    under ``secret`` (default ``OPBUILD_CACHE_SECRET``)."""
    store = KernelStore(directory, create=False, binary_suffix=binary_suffix, secret=secret)
    found = next((e for e in listing.entries if e.name == name), None)
    result = Standing("absent", checked_with=store.key_id, quarantined=_notes(directory, name))
    if found is None:
        return result
    if not found.committed:
        result.state = "uncommitted"
        return result
    reason = check_entry(store, found)
    result.state, result.reason = ("sound", "") if reason is None else ("refused", reason)
    try:
        result.signed_with = signing.signed_key(fsio.read_small(str(found.path(JSON_SUFFIX))))
    except OSError:
        pass  # a .json that cannot be read: refused above already
    return result


def _notes(directory: Path, name: str) -> list[tuple[str, str]]:
    """(note file, reason) of the quarantine notes of entry ``name``, newest first."""
    qdir = Path(directory) / QUARANTINE_DIR
    if name_problem(name) is not None:  # a name from a user's .info file: never a glob pattern
        return []
    try:
        notes = sorted(qdir.glob(f"{name}.*{quarantine.REASON_SUFFIX}"), key=lambda p: p.name, reverse=True)
    except OSError:
        return []
    out = []
    for note in notes[:MAX_NOTES]:
        try:  # a FIFO or link in a note's place is refused, never waited on
            text = fsio.read_small(str(note), 1 << 16).decode("utf-8", "replace").strip()
        except OSError:
            continue
        out.append((note.name, text.splitlines()[0] if text else ""))
    return out


__all__ = ["Standing", "standing"]
