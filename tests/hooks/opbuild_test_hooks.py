"""Test hooks patched into opbuild from outside (installed by ``sitecustomize.py`` beside this file).

``OPBUILD_TEST_COMMIT_HOOK=<seconds>:<file>`` (scripts/soak_kill.py, tests/cache/test_soak.py): inside the
commit window of every entry a process publishes (after the binary, and again after the ``.info``, before the
``.json``), it appends ``<pid> <stage> <entry>`` to ``<file>`` and sleeps ``<seconds>``, so that a test can
SIGKILL it exactly there. The window is found from the outside: the store writes each file of an entry through
``fsio.atomic_write`` (or hard-links the binary of a batch with ``KernelStore._link``), binary, ``.info``,
then ``.json``.

``OPBUILD_TEST_COMPILE_DELAY=<seconds>`` (tests/remote): every batch compile sleeps first, while the process
holds the batch's build leases, so a test can kill a lease holder deterministically.
"""

from __future__ import annotations

import functools
import math
import os
import time
from pathlib import Path

BINARY_SUFFIXES = (".so",)  # the binaries of the targets opbuild has (the CPU's shared objects)


def _seconds(name: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0:
        raise SystemExit(f"{name}={raw!r}: expected a number of seconds >= 0")
    return value


def install_commit_hook(raw: str) -> None:
    """Pause inside every entry's commit window (see the module docstring)."""
    from opbuild.cache import fsio, local

    seconds, sep, path = raw.partition(":")
    if not sep or not path:
        raise SystemExit(f"OPBUILD_TEST_COMMIT_HOOK={raw!r}: expected <seconds>:<file>")
    pause = _seconds("OPBUILD_TEST_COMMIT_HOOK", seconds)

    def announce(stage: str, name: str) -> None:
        with open(path, "a") as f:
            f.write(f"{os.getpid()} {stage} {name}\n")
        time.sleep(pause)

    write, link = fsio.atomic_write, local.KernelStore._link

    @functools.wraps(write)
    def atomic_write(target, *args, **kwargs):
        out = write(target, *args, **kwargs)
        suffix = Path(target).suffix
        if suffix == ".info":
            announce("info", Path(target).stem)
        elif suffix in BINARY_SUFFIXES:
            announce("binary", Path(target).stem)
        return out

    @functools.wraps(link)
    def _link(self, source, target):
        linked = link(self, source, target)
        if linked:
            announce("binary", Path(target).stem)
        return linked

    fsio.atomic_write = atomic_write
    local.KernelStore._link = _link


def install_compile_delay(raw: str) -> None:
    """Sleep before every batch compile (see the module docstring)."""
    from opbuild.builder.compile import BatchCompiler

    delay = _seconds("OPBUILD_TEST_COMPILE_DELAY", raw)
    compile_batch = BatchCompiler.compile_batch

    @functools.wraps(compile_batch)
    def delayed(self, *args, **kwargs):
        time.sleep(delay)
        return compile_batch(self, *args, **kwargs)

    BatchCompiler.compile_batch = delayed


def install() -> None:
    """Install the hooks whose variables are set."""
    if os.environ.get("OPBUILD_TEST_COMMIT_HOOK"):
        install_commit_hook(os.environ["OPBUILD_TEST_COMMIT_HOOK"])
    if os.environ.get("OPBUILD_TEST_COMPILE_DELAY"):
        install_compile_delay(os.environ["OPBUILD_TEST_COMPILE_DELAY"])
