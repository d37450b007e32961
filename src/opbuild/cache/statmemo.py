"""Values derived from files, memoised across processes and keyed by the file's path, size and mtime.

A warm start must know the compiler's ``--version`` output (running it costs milliseconds) and a digest of
every source file that generates C (hashing them costs more than loading a small network) before it can name a single
kernel. Both are pure functions of a file's contents, so they are memoised in ``kernel_meta/.memo.json``
under ``<kind>|<path>|<size>|<mtime_ns>``: the check ccache applies to compilers (``compiler_check=mtime``)
and Python applies to ``.pyc`` files. Any rewrite of the file changes its key and the value is derived
again. The file is an optimisation only: unreadable, damaged or unwritable, it costs the derivation, never
a wrong key, and concurrent writers at worst drop each other's new values.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from . import quarantine
from .fsio import CorruptFile, atomic_write, read_json
from .layout import MEMO_FILE, TMP_DIR

log = logging.getLogger("opbuild.cache")

MAX_VALUES = 512  # old keys (upgraded compilers, edited sources) are dropped beyond this many


def problem(directory: Path) -> str | None:
    """Why the memo file of kernel_meta ``directory`` is unusable (``opbuild cache verify``), or None when it
    is absent or sound. A damaged memo costs the derivations again, never a wrong key."""
    try:
        loaded = read_json(str(Path(directory) / MEMO_FILE))
    except FileNotFoundError:
        return None
    except CorruptFile as e:
        return e.strerror or str(e)
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    if not all(isinstance(v, str) for v in loaded.values()):
        return "holds values that are not strings"
    return None


class StatMemo:
    """The memo of one ``kernel_meta`` directory (``directory`` None: a memo that only lives in memory)."""

    def __init__(self, directory: Path | None):
        self.path = Path(directory) / MEMO_FILE if directory is not None else None
        self._values: dict[str, str] | None = None
        self._damaged = False  # the file was there but unreadable
        self._lock = threading.Lock()

    def _load(self) -> dict[str, str]:
        if self._values is None:
            values: dict[str, str] = {}
            if self.path is not None:
                try:
                    loaded = read_json(str(self.path))  # a JSON object or CorruptFile (an OSError)
                    # Only string values: anything else is not ours (and str() of a nested value may recurse).
                    values = {k: v for k, v in loaded.items() if isinstance(v, str)}
                except FileNotFoundError:
                    pass
                except OSError as e:  # damaged: derive again, and rewrite it (see _save)
                    log.debug("opbuild: memo %s unreadable (%s); deriving its values again", self.path, e)
                    self._damaged = True
            self._values = values
        return self._values

    def get(self, kind: str, file: str, derive: Callable[[], str]) -> str:
        """The value of ``kind`` for ``file``: memoised if the file's size and mtime are unchanged, else
        ``derive()`` (then remembered). OSError from stat-ing ``file`` propagates."""
        st = os.stat(file)
        key = f"{kind}|{file}|{st.st_size}|{st.st_mtime_ns}"
        with self._lock:
            known = self._load().get(key)
        if known is not None:
            return known
        value = derive()
        with self._lock:
            values = self._load()
            values[key] = value
            while len(values) > MAX_VALUES:
                del values[next(iter(values))]
            self._save(values)
        return value

    def recall(self, key: str) -> str | None:
        """The value last remembered under ``key`` (a key of no file: the caller's settings), or None."""
        with self._lock:
            return self._load().get(key)

    def recall_prefixed(self, prefix: str) -> dict[str, str]:
        """Every value remembered under a key starting with ``prefix`` (``cache export``: the toolchain
        records, cache/identity.py)."""
        with self._lock:
            return {k: v for k, v in self._load().items() if k.startswith(prefix)}

    def remember(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key`` (written only when it changes)."""
        with self._lock:
            values = self._load()
            if values.get(key) == value:
                return
            values.pop(key, None)  # re-inserted last: the newest value is the last one dropped
            values[key] = value
            while len(values) > MAX_VALUES:
                del values[next(iter(values))]
            self._save(values)

    def _save(self, values: dict[str, str]) -> None:
        if self.path is None:
            return
        if self._damaged and quarantine.is_regular(self.path) is False:
            # A directory (or FIFO, symlink) in the memo's place: a rename cannot replace a directory, and a
            # symlink must not be written through. Move it aside so the memo works again from now on.
            quarantine.move(self.path.parent, self.path, "memo of file-derived values: not a regular file")
        self._damaged = False
        try:
            atomic_write(self.path, json.dumps(values, indent=1).encode(), fsync=False,
                         tmp_dir=self.path.parent / TMP_DIR)
        except OSError:
            pass  # a read-only or full cache only costs the derivation again next run

    def file_digest(self, file: str) -> str:
        """sha256 (hex) of a file's bytes, memoised."""

        def derive() -> str:
            with open(file, "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()

        return self.get("sha256", file, derive)


__all__ = ["MEMO_FILE", "StatMemo", "problem"]
