"""Running a compiler process: bounded in time and in what is kept of its output.

Every call of the compiler (the ``--version`` probe, the OpenMP runtime probe, a compile) goes through
:func:`run_capped`. The process runs in a process group of its own, so that past the deadline the whole group
(the driver and the cc1/as/ld it started) is killed, not just the driver, whose children would otherwise keep
running and hold its output pipes open. Its output is read as it comes, hashed whole, and only its first
``keep`` bytes are kept: a compiler (or a program posing as one) that prints gigabytes costs a hash, not memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field

KEEP_BYTES = 1 << 20  # the most of one stream kept in memory (compiler diagnostics of a failed batch fit)
_CHUNK = 1 << 16


class ProcessTimeout(Exception):
    """The process ran past its deadline and was killed with its process group."""

    def __init__(self, argv: list[str], timeout: float):
        self.argv = list(argv)
        self.timeout = timeout
        super().__init__(f"{argv[0]} ran longer than {timeout:g} s and was killed")


@dataclass
class Stream:
    """What was read from one output stream: the first ``keep`` bytes, the total size and a sha256 of all of it."""

    keep: int
    head: bytearray = field(default_factory=bytearray)
    size: int = 0
    _hash: hashlib._Hash = field(default_factory=hashlib.sha256)

    def add(self, chunk: bytes) -> None:
        self.size += len(chunk)
        self._hash.update(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]

    @property
    def truncated(self) -> bool:
        """Whether more was written than was kept."""
        return self.size > len(self.head)

    @property
    def sha256(self) -> str:
        return self._hash.hexdigest()

    def text(self) -> str:
        """The kept bytes as text (undecodable bytes replaced), with a note of what was dropped."""
        out = self.head.decode("utf-8", errors="replace")
        if self.truncated:
            out += f"\n[... {self.size - len(self.head)} more bytes not kept; sha256 of all {self.size}: {self.sha256}]"
        return out


@dataclass
class Finished:
    """A process that exited: its status and its two output streams."""

    returncode: int
    stdout: Stream
    stderr: Stream


def run_capped(argv: list[str], timeout: float, keep: int = KEEP_BYTES) -> Finished:
    """Run ``argv`` (stdin closed) for at most ``timeout`` seconds. Raises :class:`ProcessTimeout` past it (the
    process group killed), OSError if it cannot be started; an interrupt also kills the group before it
    propagates."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    streams = {proc.stdout: Stream(keep), proc.stderr: Stream(keep)}
    deadline = time.monotonic() + timeout
    try:
        with selectors.DefaultSelector() as selector:
            for pipe in streams:
                selector.register(pipe, selectors.EVENT_READ)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ProcessTimeout(argv, timeout)
                for key, _ in selector.select(left):
                    chunk = os.read(key.fd, _CHUNK)
                    if chunk:
                        streams[key.fileobj].add(chunk)
                    else:
                        selector.unregister(key.fileobj)
        try:
            returncode = proc.wait(max(deadline - time.monotonic(), 0.001))
        except subprocess.TimeoutExpired:  # closed its output, yet kept running
            raise ProcessTimeout(argv, timeout) from None
    except BaseException:  # the timeout, or KeyboardInterrupt: leave no compiler behind either way
        _kill_group(proc)
        raise
    finally:
        for pipe in streams:
            pipe.close()
    return Finished(returncode, streams[proc.stdout], streams[proc.stderr])


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


__all__ = ["KEEP_BYTES", "Finished", "ProcessTimeout", "Stream", "run_capped"]
