"""The build's progress bar: tqdm on a terminal for builds that take longer than about a second."""

from __future__ import annotations

import shutil
import sys
import threading

from ..core import config


class Progress:
    """A tqdm bar on a terminal for builds that take longer than DELAY seconds; silent otherwise.

    Batches of several kernels report nothing until they finish, so a ticker thread shows the bar once the
    build has run for DELAY seconds and refreshes it (elapsed time, the kernel compiling) every REFRESH
    seconds, whether or not a kernel finished meanwhile.
    """

    DELAY = 1.0
    REFRESH = 0.5

    def __init__(self, total: int):
        self._bar = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        if total and sys.stderr.isatty() and config.progress_enabled():
            from tqdm import tqdm

            # A terminal that reports no size (a fresh pty, some CI runners) would get no bar at all from tqdm.
            size = shutil.get_terminal_size((100, 24))
            self._bar = tqdm(total=total, desc="opbuild: building kernels", unit="kernel", delay=self.DELAY,
                             leave=False, file=sys.stderr, ncols=size.columns or 100, nrows=size.lines or 24)
            threading.Thread(target=self._tick, name="opbuild-progress", daemon=True).start()

    def _tick(self) -> None:
        wait = self.DELAY
        while not self._closed.wait(wait):
            with self._lock:
                if self._closed.is_set():
                    return
                self._bar.refresh()
            wait = self.REFRESH

    def compiling(self, name: str, n: int) -> None:
        """Show ``name`` (and how many more kernels its batch holds) as the kernel being compiled."""
        if self._bar is not None:
            with self._lock:
                short = name[:name.rfind("_") + 9]  # <op>_<8 hex>: the bar keeps its room on narrow terminals
                self._bar.set_postfix_str(short + (f" (+{n - 1})" if n > 1 else ""), refresh=False)

    def step(self, name: str) -> None:
        """One kernel of the build is done (loaded, fetched, built or failed)."""
        if self._bar is not None:
            with self._lock:
                self._bar.update(1)

    def close(self) -> None:
        """Remove the bar (idempotent)."""
        if self._bar is not None:
            with self._lock:
                self._closed.set()
                self._bar.close()


__all__ = ["Progress"]
