"""The one quarantine writer: every damaged or unexplained file of kernel_meta goes into ``quarantine/``, never
deleted, under one naming scheme.

Whatever is moved (the parts of a broken entry, a dead process's temporary, an orphan file or folder, a
directory, FIFO or symbolic link found in the place of the statistics, the memo, a graph manifest or a lock
file) lands at ``quarantine/<original name>.<stamp>``, where the stamp is ``<YYYYmmddTHHMMSS>.<pid>.<4 hex>``
(two processes may move the same name in the same second), beside a note ``<what>.<stamp>.reason`` saying why.
The parts of one entry share one stamp and one note, ``<entry name>.<stamp>.reason``. Moves are renames
within kernel_meta (one filesystem), so each is atomic and needs no free space; the note is best effort.

Files the cache rewrites (statistics, memo, manifests, locks) are replaced by atomic renames, and a rename
cannot replace a directory, nor must a symbolic link or FIFO in their place be written through: so whatever
is found there that is not a regular file is moved here first, exactly as a broken entry is. The user can
still look at it, and nobody has to delete anything by hand.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from .layout import QUARANTINE_DIR

log = logging.getLogger("opbuild.cache")

REASON_SUFFIX = ".reason"


def is_regular(path: str | Path) -> bool | None:
    """Whether ``path`` is a regular file (never following a symbolic link); None if it does not exist."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None
    except OSError:
        return False


def stamp() -> str:
    """The suffix that makes a quarantined name unique: time, pid and a random part."""
    return f"{time.strftime('%Y%m%dT%H%M%S')}.{os.getpid()}.{secrets.token_hex(2)}"


def quarantine_dir(kernel_meta: str | Path) -> tuple[Path, Path | None]:
    """The quarantine folder of ``kernel_meta``, created if needed: (its path, where a foreign file that stood in
    its place went, or None). Whatever is found under that name that is not a directory (a regular file, a
    symbolic link, a FIFO) is first renamed aside, then moved into the new folder: quarantining must not fail
    with "File exists" until someone deletes it by hand, nor move the cache's files through a link. OSError if
    the folder cannot be made."""
    qdir = Path(kernel_meta) / QUARANTINE_DIR
    try:
        if stat.S_ISDIR(os.lstat(qdir).st_mode):
            return qdir, None
    except FileNotFoundError:
        qdir.mkdir(exist_ok=True)
        return qdir, None
    displaced = qdir.with_name(f"{QUARANTINE_DIR}.{stamp()}")
    os.replace(qdir, displaced)
    qdir.mkdir(exist_ok=True)
    dest = qdir / displaced.name
    os.replace(displaced, dest)
    log.warning("opbuild: %s was not a directory; moved it to %s", qdir, dest)
    return qdir, dest


def move_all(kernel_meta: str | Path, paths: Sequence[str | Path], reason: str, label: str | None = None) -> list[Path]:
    """Move each of ``paths`` (files, directories, FIFOs or symbolic links inside ``kernel_meta``) into its
    quarantine folder, in order, under one stamp, and write one note ``<label>.<stamp>.reason`` (``label``
    defaults to the first path's name). Returns where each moved path went; a path already gone is skipped,
    one that cannot be moved stays where it is (logged at debug level). Never raises."""
    try:
        qdir, displaced = quarantine_dir(kernel_meta)
    except OSError as e:
        log.debug("opbuild: cannot create %s: %s", Path(kernel_meta) / QUARANTINE_DIR, e)
        return []
    suffix = stamp()
    moved: list[Path] = []
    for path in map(Path, paths):
        if displaced is not None and path == qdir:  # the file in the folder's place: moved already
            moved.append(displaced)
            continue
        dest = qdir / f"{path.name}.{suffix}"
        try:
            os.replace(path, dest)
        except FileNotFoundError:
            continue
        except OSError as e:
            log.debug("opbuild: cannot move %s to quarantine: %s", path, e)
            continue
        moved.append(dest)
    if moved:
        note = qdir / f"{label or Path(paths[0]).name}.{suffix}{REASON_SUFFIX}"
        try:
            note.write_text(reason + "\n")
        except OSError as e:  # a full disk: the move is what matters
            log.debug("opbuild: cannot write the quarantine note %s: %s", note, e)
    return moved


def move(kernel_meta: str | Path, path: str | Path, reason: str) -> Path | None:
    """Move one ``path`` into quarantine (see :func:`move_all`); returns where it went, or None if it was
    already gone or cannot be moved (the caller carries on without the file, as with an unreadable one)."""
    moved = move_all(kernel_meta, [path], reason)
    return moved[0] if moved else None


__all__ = ["REASON_SUFFIX", "is_regular", "move", "move_all", "quarantine_dir", "stamp"]
