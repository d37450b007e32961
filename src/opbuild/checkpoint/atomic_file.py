"""Files written whole or not at all: checkpoints and safetensors files are written to a temporary beside
the destination and renamed over it, so a write that fails or is killed part way (a full disk, Ctrl-C,
SIGKILL) leaves the file that was there intact rather than a cut copy. A killed writer's temporary is swept by
the next write of the same file."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import secrets
from collections.abc import Iterable

from ..core import owners

log = logging.getLogger("opbuild")


def _temp_pattern(final: str) -> re.Pattern:
    return re.compile(re.escape(f".{os.path.basename(final)}.") + r"[A-Za-z0-9_]+\.(" + owners.PID_PATTERN + r")\.tmp")


def sweep_stale_temporaries(final: str) -> None:
    """Remove temporaries of earlier writes of ``final`` whose process no longer runs (a killed write). The pid
    in a name is parsed as data (core/owners.py): a name with a malformed pid is not ours and stays."""
    directory = os.path.dirname(final)
    pattern = _temp_pattern(final)
    with contextlib.suppress(OSError):
        for entry in os.listdir(directory):
            m = pattern.fullmatch(entry)
            if m and owners.dead_here(owners.parse_pid(m.group(1))):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(directory, entry))
                    log.info("removed %s, left behind by a save that did not finish", entry)


def write_atomically(final: str, chunks: Iterable[bytes], who: str, private: bool) -> None:
    """Write ``chunks`` to the absolute path ``final`` atomically: a temporary in the same directory (the
    rename must not cross file systems), fsync, rename, then fsync of the directory so the rename itself is
    durable. ``private`` files are created 0600 (save_checkpoint's, as mkstemp makes them); others get the
    umask's permissions, as ``open`` gives. ``who`` names the caller in errors."""
    directory = os.path.dirname(final)
    sweep_stale_temporaries(final)
    # The pid in the name lets a later write tell a dead writer's leftover from a concurrent live one.
    tmp = os.path.join(directory, f".{os.path.basename(final)}.{secrets.token_hex(6)}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o600 if private else 0o666)
    except OSError as e:  # name the user's file and folder, not the temporary they never asked for
        raise OSError(e.errno, f"{who}: cannot create a file in the folder {directory} ({e.strerror}); "
                               "create the folder or choose another path", final) from None
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # not every file system lets a directory be opened for fsync
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
