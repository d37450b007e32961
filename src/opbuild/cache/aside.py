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


def move_aside(kernel_meta: str | Path, path: str | Path, reason: str) -> Path | None:
    """Move ``path`` (a file, directory, FIFO or symbolic link inside ``kernel_meta``) into its quarantine
    folder; returns where it went, or None if it was already gone or cannot be moved (logged at debug level:
    the caller carries on without the file, as it would with an unreadable one)."""
    path = Path(path)
    qdir = Path(kernel_meta) / QUARANTINE_DIR
    # A random part: two processes may move aside the same name in the same second.
    dest = qdir / f"{path.name}.{time.strftime('%Y%m%dT%H%M%S')}.{os.getpid()}.{secrets.token_hex(2)}"
    try:
        qdir.mkdir(exist_ok=True)
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


__all__ = ["is_regular", "move_aside"]
