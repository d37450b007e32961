#!/usr/bin/env python3
"""Record MindSpore 2.10's ``experimental.optim`` values (tests/compat/experimental_optim_cases.py) into
tests/fixtures/mindspore/experimental_optim.npz (PyNative, CPU, where all of them run): the parameters after
each of a few steps with fixed gradients, and each scheduler's learning rates over its first steps. Run with
MindSpore's Python:

    /tmp/ms/bin/python scripts/record_experimental_optim.py
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor
from mindspore.experimental import optim
from mindspore.experimental.optim import lr_scheduler

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "mindspore" / "experimental_optim.npz"


def _cases():
    spec = importlib.util.spec_from_file_location("experimental_optim_cases",
                                                  REPO / "tests" / "compat" / "experimental_optim_cases.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _params(c):
    return [Parameter(Tensor(v.copy()), name=k) for k, v in c.PARAMS.items()]


def _lrs(s) -> list[float]:
    return [float(v.asnumpy()) for v in s.get_last_lr()]


def main() -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    c = _cases()
    arrays: dict = {}
    for key, (cls, kw, groups) in c.OPTIMIZERS.items():
        ps = _params(c)
        given = [{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}] if groups else ps
        opt = getattr(optim, cls)(given, **kw)
        rows = []
        for g in c.GRADS:
            opt(tuple(Tensor(a) for a in g))
            rows.append(np.concatenate([p.asnumpy().ravel() for p in ps]))
        arrays[f"opt/{key}"] = np.stack(rows)
    for key, (cls, kw) in c.SCHEDULERS.items():
        ps = _params(c)
        opt = optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.05}], lr=0.1)
        s = getattr(lr_scheduler, cls)(opt, **kw)
        rows = [_lrs(s)]
        for _ in range(c.STEPS):
            s.step()
            rows.append(_lrs(s))
        arrays[f"sched/{key}"] = np.array(rows, np.float64)
    ps = _params(c)
    opt = optim.SGD(ps, lr=0.1)
    seq = lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2),
                                          lr_scheduler.ExponentialLR(opt, gamma=0.7)], milestones=[3])
    rows = [_lrs(seq)]
    for _ in range(c.STEPS):
        seq.step()
        rows.append(_lrs(seq))
    arrays["sched/sequential"] = np.array(rows, np.float64)
    opt = optim.SGD(_params(c), lr=0.1)
    plateau = lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1, min_lr=0.02)
    rows = []
    for m in c.PLATEAU_METRICS:
        plateau.step(Tensor(np.float32(m)))
        rows.append(_lrs(plateau))
    arrays["sched/plateau"] = np.array(rows, np.float64)
    arrays["__names__"] = np.array(json.dumps({"optim": list(optim.__all__),
                                               "lr_scheduler": list(lr_scheduler.__all__)}))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez(OUT, **arrays)
    print(f"wrote {OUT}: {len(arrays)} arrays")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
