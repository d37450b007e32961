"""``save_checkpoint(..., async_save=True)``'s background writes: each runs in its own thread, the next save
waits for them first (so two writes never interleave and saves finish in call order), and a write that failed
is reported by that next save, or logged at exit, instead of vanishing in its thread.

``running()`` is ``train.async_ckpt_thread_status()``; ``wait()`` is what the next save calls;
``wait_for(path)`` is what a load of ``path`` calls, so that it never reads the file a write in flight is about
to replace (the previous checkpoint, silently).
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable

_log = logging.getLogger("opbuild")
_lock = threading.Lock()
_threads: list[tuple[str, threading.Thread]] = []
_failures: list[tuple[str, BaseException]] = []


def start(path: str, write: Callable[[], None]) -> None:
    """Run ``write`` (which writes ``path``) in a background thread."""
    def run() -> None:
        try:
            write()
        except BaseException as e:  # noqa: BLE001 - kept for the next save (or the exit log) to report
            with _lock:
                _failures.append((path, e))

    thread = threading.Thread(target=run, name="opbuild-save-checkpoint")
    with _lock:
        _threads[:] = [(p, t) for p, t in _threads if t.is_alive()]
        _threads.append((path, thread))
    thread.start()


def running() -> bool:
    """Whether a background checkpoint write is still in progress."""
    with _lock:
        return any(t.is_alive() for _, t in _threads)


def wait() -> None:
    """Wait for every background write; raise RuntimeError for the first that failed (each failure is
    reported once)."""
    _join(None)
    with _lock:
        failures, _failures[:] = list(_failures), []
    _raise_first(failures)


def wait_for(path: str) -> None:
    """Wait for the background writes of ``path``; raise RuntimeError if one failed (the file then still holds
    what it held before, which a load must not return as the checkpoint just saved)."""
    _join(path)
    with _lock:
        failures = [(p, e) for p, e in _failures if p == path]
        _failures[:] = [(p, e) for p, e in _failures if p != path]
    _raise_first(failures)


def _join(path: str | None) -> None:
    with _lock:
        threads = [t for p, t in _threads if path is None or p == path]
    for t in threads:
        t.join()


def _raise_first(failures: list[tuple[str, BaseException]]) -> None:
    if failures:
        path, err = failures[0]
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        raise RuntimeError(f"save_checkpoint(async_save=True) of {path} failed{more}: {type(err).__name__}: {err}; "
                           "that checkpoint was not written") from err


@atexit.register
def _report_at_exit() -> None:
    try:
        wait()
    except RuntimeError as e:
        _log.error("opbuild: %s", e)
