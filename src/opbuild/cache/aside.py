"""Moving a damaged file of kernel_meta out of the way: into ``quarantine/``, never deleted.

Entries have :meth:`KernelStore.quarantine`. The other files a cache reads (statistics, the memo, graph
manifests, lock files) are replaced by atomic renames, and a rename cannot replace a directory; nor must a
symbolic link or a FIFO in their place be written through. So whatever is found in place of one of them that
is not a regular file (or cannot be parsed) is moved into ``quarantine/`` first, with a ``.reason`` note,
exactly as a broken entry is: the user can still look at it, and nobody has to delete anything by hand.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
import time
from pathlib import Path

from .layout import QUARANTINE_DIR

log = logging.getLogger("opbuild.cache")


def is_regular(path: str | Path) -> bool | None:
    """Whether ``path`` is a regular file (never following a symbolic link); None if it does not exist."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None
    except OSError:
        return False


def _stamped(name: str) -> str:
    # A random part: two processes may move aside the same name in the same second.
    return f"{name}.{time.strftime('%Y%m%dT%H%M%S')}.{os.getpid()}.{secrets.token_hex(2)}"


def quarantine_dir(kernel_meta: str | Path) -> tuple[Path, Path | None]:
    """The quarantine folder of ``kernel_meta``, created if needed: (its path, where a foreign file that stood in
    its place went, or None). Whatever is found under that name that is not a directory (a regular file, a
    symbolic link, a FIFO) is first renamed aside, then moved into the new folder: quarantining must not fail
    with "File exists" until someone deletes it by hand. OSError if the folder cannot be made."""
    qdir = Path(kernel_meta) / QUARANTINE_DIR
    try:
        if stat.S_ISDIR(os.lstat(qdir).st_mode):
            return qdir, None
    except FileNotFoundError:
        qdir.mkdir(exist_ok=True)
        return qdir, None
    displaced = qdir.with_name(_stamped(QUARANTINE_DIR))
    os.replace(qdir, displaced)
    qdir.mkdir(exist_ok=True)
    dest = qdir / displaced.name
    os.replace(displaced, dest)
    log.warning("opbuild: %s was not a directory; moved it to %s", qdir, dest)
    return qdir, dest


def move_aside(kernel_meta: str | Path, path: str | Path, reason: str) -> Path | None:
    """Move ``path`` (a file, directory, FIFO or symbolic link inside ``kernel_meta``) into its quarantine
    folder; returns where it went, or None if it was already gone or cannot be moved (logged at debug level:
    the caller carries on without the file, as it would with an unreadable one)."""
    path = Path(path)
    try:
        qdir, displaced = quarantine_dir(kernel_meta)
        if displaced is not None and path == qdir:  # ``path`` was the file in the folder's place: moved already
            path, dest = displaced, displaced
        else:
            dest = qdir / _stamped(path.name)
            os.replace(path, dest)
    except FileNotFoundError:
        return None
    except OSError as e:
        log.debug("opbuild: cannot move %s to quarantine: %s", path, e)
        return None
    try:
        (qdir / f"{dest.name}.reason").write_text(reason + "\n")
    except OSError as e:  # a full disk: the move is what matters
        log.debug("opbuild: cannot write the quarantine note of %s: %s", path, e)
    return dest


__all__ = ["is_regular", "move_aside", "quarantine_dir"]
