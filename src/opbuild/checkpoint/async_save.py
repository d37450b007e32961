"""``save_checkpoint(..., async_save=True)``'s background writes: each runs in its own thread, the next save
waits for them first (so two writes never interleave and saves finish in call order), and a write that failed
is reported by that next save, or logged at exit, instead of vanishing in its thread.

``running()`` is ``train.async_ckpt_thread_status()``; ``wait()`` is what the next save calls.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable

_log = logging.getLogger("opbuild")
_lock = threading.Lock()
_threads: list[threading.Thread] = []
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
        _threads[:] = [t for t in _threads if t.is_alive()]
        _threads.append(thread)
    thread.start()


def running() -> bool:
    """Whether a background checkpoint write is still in progress."""
    with _lock:
        return any(t.is_alive() for t in _threads)


def wait() -> None:
    """Wait for every background write; raise RuntimeError for the first that failed (each failure is
    reported once)."""
    with _lock:
        threads = list(_threads)
    for t in threads:
        t.join()
    with _lock:
        failures, _failures[:] = list(_failures), []
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
