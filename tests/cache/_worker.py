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
    from opbuild.cache import fsio, local

    module = {"fsio": fsio, "local": local}[spec["module"]]
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
        if str(Path(path).resolve()).startswith(root):
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
    """Everything under ``root`` behaves as on a read-only filesystem for the cache (access() says no,
    creating files or directories fails with EROFS): used only where neither chmod nor a read-only mount
    can make a directory read-only (root without mount rights)."""
    from opbuild.cache import fsio, local

    def under(path) -> bool:
        return str(Path(path).resolve()).startswith(root)

    def access(path, mode, **kw):
        return False if (mode & os.W_OK and under(path)) else os.access(path, mode, **kw)

    def erofs(path) -> OSError:
        return OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    def open_(path, flags, *args, **kw):
        if flags & os.O_CREAT and under(path):
            raise erofs(path)
        return os.open(path, flags, *args, **kw)

    def replace(src, dst, **kw):
        if under(dst):
            raise erofs(dst)
        return os.replace(src, dst, **kw)

    def mkdir(self, *args, **kw):
        if under(self):
            raise erofs(self)
        return real_mkdir(self, *args, **kw)

    real_mkdir = Path.mkdir
    Path.mkdir = mkdir
    _patch_os(local, access=access, replace=replace)
    _patch_os(fsio, open=open_, replace=replace)


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
