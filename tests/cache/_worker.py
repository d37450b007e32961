"""Subprocess worker of the cache tests: build and run one test network, check it, print a JSON result.

Usage: ``python _worker.py '<json>'`` where the JSON object has
  ``net``    the branch list of tests/cache/_net.py (required),
  ``seed``   input seed (default 0),
  ``then``   more networks (branch lists) built and run afterwards in the same process,
  ``kill``   optional deterministic crash point: ``{"module": "fsio"|"local", "func": "replace"|"write"|
             "fsync", "nth": N, "when": "before"|"after"}`` SIGKILLs this process at the N-th call of
             ``os.<func>`` made by that cache module (a real SIGKILL at a chosen point, no hook in opbuild),
  ``enospc_after``  optional: the cache's writes fail with ENOSPC after this many bytes (injected full disk),
  ``readonly``      optional: a directory the cache must see as read-only (injected; root without mount).
The last stdout line is ``{"report": <first build's report>, "reports": [one per network], "warnings": [...],
"info": [...]}`` (reports as ``build_report().as_dict()``, log messages of logger "opbuild"). Outputs
are compared with the NumPy reference; a mismatch exits non-zero.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import signal
import sys
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _net  # noqa: E402


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.warnings: list[str] = []
        self.info: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self.warnings.append(record.getMessage())
        elif record.levelno == logging.INFO:
            self.info.append(record.getMessage())


def _install_kill(spec: dict) -> None:
    """Give the chosen cache module an ``os`` whose ``func`` SIGKILLs the process at its N-th call."""
    from opbuild.cache import fsio, local, quarantine

    module = {"fsio": fsio, "local": local, "quarantine": quarantine}[spec["module"]]
    real = getattr(os, spec["func"])
    calls = [0]

    def wrapper(*args, **kwargs):
        calls[0] += 1
        hit = calls[0] == spec["nth"]
        if hit and spec["when"] == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        result = real(*args, **kwargs)
        if hit:
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    _patch_os(module, **{spec["func"]: wrapper})


def _patch_os(module: types.ModuleType, **funcs) -> None:
    """Give ``module`` a copy of ``os`` with ``funcs`` swapped in (other modules keep the real one)."""
    proxy = types.ModuleType("os_proxy")
    proxy.__dict__.update(os.__dict__)
    proxy.__dict__.update(funcs)
    module.os = proxy


def _install_enospc(budget: int, root: str) -> None:
    """Writes through the cache's write layer to files under ``root`` fail with ENOSPC once ``budget`` bytes
    have been written there: a disk filling up, injected where no small filesystem can be mounted (the
    private temporary store, elsewhere, keeps working as on a real machine)."""
    from opbuild.cache import fsio

    written = [0]
    cache_fds: set[int] = set()

    def open_(path, flags, *args, **kw):
        fd = os.open(path, flags, *args, **kw)
        real = str(Path(path).resolve())
        if real == root or real.startswith(root + os.sep):
            cache_fds.add(fd)
        else:
            cache_fds.discard(fd)
        return fd

    def write(fd, data):
        if fd in cache_fds:
            if written[0] + len(data) > budget:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            written[0] += len(data)
        return os.write(fd, data)

    _patch_os(fsio, open=open_, write=write)


def _install_readonly(root: str) -> None:
    """Everything under ``root`` behaves as on a read-only filesystem (EROFS for anything that would write,
    access() denies W_OK): used only where neither chmod nor a read-only mount can make a directory
    read-only (root without mount rights). The os functions are replaced process-wide, as the kernel
    would refuse the writes whichever module makes them."""
    import builtins

    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

    def under(path) -> bool:
        try:
            real = os.path.realpath(os.fspath(path))
        except TypeError:  # a file descriptor
            return False
        return real == root or real.startswith(root + os.sep)

    def erofs(path) -> OSError:
        return OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    def guard(real, n_paths: int = 1):
        def wrapper(*args, **kwargs):
            if any(under(a) for a in args[:n_paths]):
                raise erofs(args[0])
            return real(*args, **kwargs)
        return wrapper

    real_open, real_access, real_builtin_open = os.open, os.access, builtins.open

    def open_(path, flags, *args, **kwargs):
        if flags & write_flags and under(path):
            raise erofs(path)
        return real_open(path, flags, *args, **kwargs)

    def access(path, mode, **kwargs):
        return False if mode & os.W_OK and under(path) else real_access(path, mode, **kwargs)

    def builtin_open(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+") and under(file):
            raise erofs(file)
        return real_builtin_open(file, mode, *args, **kwargs)

    os.open, os.access, builtins.open = open_, access, builtin_open
    for name, n_paths in (("mkdir", 1), ("rmdir", 1), ("unlink", 1), ("remove", 1), ("utime", 1),
                          ("chmod", 1), ("replace", 2), ("rename", 2), ("link", 2), ("symlink", 2)):
        setattr(os, name, guard(getattr(os, name), n_paths))


def main() -> None:
    cfg = json.loads(sys.argv[1])
    records = _Records()
    logger = logging.getLogger("opbuild")
    logger.addHandler(records)
    logger.setLevel(logging.INFO)

    import opbuild as ms

    if cfg.get("kill"):
        _install_kill(cfg["kill"])
    if cfg.get("enospc_after") is not None:
        _install_enospc(cfg["enospc_after"], os.environ["OPBUILD_CACHE_PATH"])
    if cfg.get("readonly"):
        _install_readonly(cfg["readonly"])
    ms.set_context(mode=ms.GRAPH_MODE)
    reports = []
    for net_cfg in [cfg["net"], *cfg.get("then", [])]:
        arrays = _net.make_inputs(net_cfg, cfg.get("seed", 0))
        outs = _net.make_net(net_cfg)(*[ms.Tensor(a) for a in arrays])
        _net.check_outputs(net_cfg, [o.asnumpy() for o in outs], arrays)
        reports.append(ms.build_report().as_dict())
    result = {"report": reports[0], "reports": reports, "warnings": records.warnings, "info": records.info}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
