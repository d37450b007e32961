"""Subprocess worker of the cache tests: build and run one test network, check it, print a JSON result.

Usage: ``python _worker.py '<json>'`` where the JSON object has
  ``net``    the branch list of tests/cache/_net.py (required),
  ``seed``   input seed (default 0),
  ``kill``   optional deterministic crash point: ``{"module": "fsio"|"local", "func": "replace"|"write"|
             "fsync", "nth": N, "when": "before"|"after"}`` SIGKILLs this process at the N-th call of
             ``os.<func>`` made by that cache module (a real SIGKILL at a chosen point, no hook in opbuild).
The last stdout line is ``{"report": build_report().as_dict(), "warnings": [...], "info": [...]}``. Outputs
are compared with the NumPy reference; a mismatch exits non-zero.
"""

from __future__ import annotations

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

    proxy = types.ModuleType("os_proxy")
    proxy.__dict__.update(os.__dict__)
    setattr(proxy, spec["func"], wrapper)
    module.os = proxy


def main() -> None:
    cfg = json.loads(sys.argv[1])
    records = _Records()
    logger = logging.getLogger("opbuild")
    logger.addHandler(records)
    logger.setLevel(logging.INFO)

    import opbuild as ms

    if cfg.get("kill"):
        _install_kill(cfg["kill"])
    ms.set_context(mode=ms.GRAPH_MODE)
    net_cfg = cfg["net"]
    arrays = _net.make_inputs(net_cfg, cfg.get("seed", 0))
    outs = _net.make_net(net_cfg)(*[ms.Tensor(a) for a in arrays])
    _net.check_outputs(net_cfg, [o.asnumpy() for o in outs], arrays)
    result = {"report": ms.build_report().as_dict(), "warnings": records.warnings, "info": records.info}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
