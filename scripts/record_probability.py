#!/usr/bin/env python3
"""Record MindSpore 2.10's ``nn.probability`` values (tests/compat/probability_cases.py) into
tests/fixtures/mindspore/probability.npz (PyNative, CPU): each distribution method on fixed inputs, each
bijector method, and the transformed distribution of a Normal through Exp. A method MindSpore refuses is
recorded as refused. Run with MindSpore's Python:

    /tmp/ms/bin/python scripts/record_probability.py
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import mindspore as ms
import mindspore.nn.probability.bijector as msb
import mindspore.nn.probability.distribution as msd
import numpy as np
from mindspore import Tensor

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "mindspore" / "probability.npz"


def _cases():
    spec = importlib.util.spec_from_file_location("probability_cases",
                                                  REPO / "tests" / "compat" / "probability_cases.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _call(arrays, refused, key, fn, *args):
    try:
        arrays[key] = np.asarray(fn(*args).asnumpy())
    except Exception as e:  # recorded: the test expects opbuild to refuse the same call
        refused[key] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def main() -> int:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    c = _cases()
    arrays: dict = {}
    refused: dict = {}
    for key, (cls, args, value, other) in c.DISTRIBUTIONS.items():
        dist = getattr(msd, cls)(*[Tensor(a) for a in args], dtype=ms.float32)
        v = Tensor(value)
        for m in c.VALUE_METHODS:
            _call(arrays, refused, f"{key}/{m}", getattr(dist, m), v)
        for m in c.STAT_METHODS:
            _call(arrays, refused, f"{key}/{m}", getattr(dist, m))
        for m in c.PAIR_METHODS:
            _call(arrays, refused, f"{key}/{m}", getattr(dist, m), cls, *[Tensor(a) for a in other])
        # Parameters given at the call instead of the constructor.
        if cls not in ("Gumbel", "LogNormal"):  # these two need their parameters at construction
            bare = getattr(msd, cls)(dtype=ms.float32)
            _call(arrays, refused, f"{key}/log_prob_args", bare.log_prob, v, *[Tensor(a) for a in args])
    for key, (cls, args, x, y) in c.BIJECTORS.items():
        bij = getattr(msb, cls)(*args)
        for m in c.BIJECTOR_METHODS:
            arg = x if m.startswith("forward") else y
            _call(arrays, refused, f"bij/{key}/{m}", getattr(bij, m), Tensor(arg))
        inv = msb.Invert(bij)
        for m in c.BIJECTOR_METHODS:
            arg = y if m.startswith("forward") else x
            _call(arrays, refused, f"invert/{key}/{m}", getattr(inv, m), Tensor(arg))
    td = msd.TransformedDistribution(msb.Exp(), msd.Normal(Tensor(np.float32(0.5)), Tensor(np.float32(1.5)),
                                                             dtype=ms.float32))
    y = Tensor(np.array([0.5, 2.0, 4.0], np.float32))
    for m in ["prob", "log_prob", "cdf", "log_cdf", "survival_function"]:
        _call(arrays, refused, f"transformed/{m}", getattr(td, m), y)
    for m in ["mean"]:
        _call(arrays, refused, f"transformed/{m}", getattr(td, m))
    affine = msd.TransformedDistribution(msb.ScalarAffine(-2.0, 1.0), msd.Normal(Tensor(np.float32(0.5)),
                                                                                Tensor(np.float32(1.5)),
                                                                                dtype=ms.float32))
    for m in ["prob", "log_prob", "cdf", "survival_function"]:
        _call(arrays, refused, f"affine/{m}", getattr(affine, m), y)
    _call(arrays, refused, "affine/mean", affine.mean)
    arrays["__refused__"] = np.array(json.dumps(refused, sort_keys=True))
    arrays["__names__"] = np.array(json.dumps({"distribution": list(msd.__all__), "bijector": list(msb.__all__)}))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez(OUT, **arrays)
    print(f"wrote {OUT}: {len(arrays) - 1} values, {len(refused)} refused")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
