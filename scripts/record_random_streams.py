#!/usr/bin/env python3
"""Record MindSpore 2.10's random streams after ``set_seed`` into tests/fixtures/mindspore/random_streams.json:
sequences of calls of ``ops.rand``, ``ops.randn``, ``ops.randint``, ``ops.standard_normal``, ``ops.uniform``,
``ops.multinomial``, ``ops.shuffle``, ``ops.laplace``, ``ops.randperm``, ``ops.bernoulli``, ``mindspore.numpy``'s
``rand``/``randn``/``randint`` and of ``UniformReal``/``UniformInt``/``StandardNormal``/``Multinomial``/
``RandomShuffle``/``StandardLaplace`` objects, in PYNATIVE_MODE. Run with a Python that has MindSpore 2.10
(CPU):

    /path/to/ms-venv/bin/python scripts/record_random_streams.py [out.json]

Each scenario runs in a fresh process (MindSpore's op-seed counters are process-wide). A step is
``["set_seed", s]``, ``["call", fn, args, kwargs]`` (a functional op; ``"skip"`` for a call whose values
MindSpore leaves unseeded, not recorded), ``["np", fn, args, kwargs]`` (a ``mindspore.numpy`` function),
``["new", id, cls, seed, seed2]`` or ``["new", id, cls, kwargs]`` (a primitive object) or ``["prim", id, args]``
(a call of that object); an argument ``{"tensor": v, "dtype": d}`` is a Tensor, ``{"arange": [start, stop,
step], "dtype": d}`` the Tensor of ``numpy.arange(start, stop, step)``.
tests/compat/test_random_streams.py replays the steps on opbuild and compares every bit. Outputs are stored
as their values (up to FULL_LIMIT) or as a SHA-256 of their bytes plus the first values.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "random_streams.json"
FULL_LIMIT = 64


def _t(v, dtype):
    return {"tensor": v, "dtype": dtype}


def _arange(start: int, stop: int, step: int, dtype: str) -> dict:
    return {"arange": [start, stop, step], "dtype": dtype}


def tensor_values(v: dict):
    """The NumPy values of a step's tensor argument (see the module docstring)."""
    import numpy as np
    if "arange" in v:
        return np.arange(*v["arange"]).astype(v["dtype"])
    return np.asarray(v["tensor"], v["dtype"])


_W24 = _t([[1.0, 2.0, 3.0, 4.0], [0.0, 5.0, 1.0, 0.0]], "float32")
_W34 = _t([[1.0, 2.0, 3.0, 4.0], [0.0, 5.0, 1.0, 0.0], [2.0, 0.0, 0.0, 2.0]], "float32")
_W5 = _t([0.5, 1.0, 0.0, 2.0, 0.25], "float32")
_A10 = _t([float(i) for i in range(10)], "float32")
_Z16 = _t([0.0] * 16, "float32")
_L24 = _t([[0.5, -1.0, 2.0, 0.0], [3.0, 3.0, -2.0, 1.0]], "float32")

SCENARIOS: dict[str, list] = {
    "functional_seed7": [
        ["set_seed", 7],
        ["call", "rand", [4], {}], ["call", "rand", [4], {}], ["call", "rand", [2, 3], {}],
        ["call", "randn", [5], {}], ["call", "randn", [5], {}], ["call", "randn", [3], {}],
        ["call", "standard_normal", [[4]], {}], ["call", "standard_normal", [[2, 2]], {}],
        ["call", "randint", [0, 10, [6]], {}], ["call", "randint", [0, 10, [6]], {}],
        ["call", "randint", [-5, 1000000, [7]], {"dtype": "int32"}],
        ["call", "uniform", [[4], _t(1.0, "float32"), _t(2.0, "float32")], {}],
        ["call", "uniform", [[2, 3], _t(-3.0, "float32"), _t(5.5, "float32")], {}],
        ["call", "uniform", [[5], _t(1, "int32"), _t(100, "int32")], {"dtype": "int32"}],
        ["call", "uniform", [[2, 3], _t([0.0, 1.0, 2.0], "float32"), _t(4.0, "float32")], {}],
        ["call", "uniform", [[3], _t([[0.0], [10.0]], "float32"), _t(20.0, "float32")], {}],
        ["call", "rand", [3], {"seed": 3}], ["call", "rand", [3], {"seed": 3}], ["call", "randn", [3], {"seed": 3}],
        ["call", "rand", [4], {"dtype": "float64"}], ["call", "randn", [4], {"dtype": "float16"}],
        ["set_seed", 7],
        ["call", "rand", [4], {}], ["call", "randn", [5], {}], ["call", "rand", [3], {"seed": 3}],
    ],
    "normal_and_like": [
        ["set_seed", 5],
        ["call", "rand_like", [_t([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float32")], {}],
        ["call", "rand", [6], {}], ["call", "rand_like", [_t([0.0, 0.0], "float32")], {"seed": 2}],
        ["call", "randn_like", [_t([0.0, 0.0, 0.0], "float32")], {}], ["call", "randn", [3], {}],
        ["call", "randint_like", [_t([0, 0, 0, 0], "int32"), 0, 100], {}], ["call", "randint", [0, 100, [4]], {}],
        ["call", "normal", [[4], _t(1.0, "float32"), _t(2.0, "float32")], {}],
        ["call", "normal", [[3], _t([[0.0], [5.0]], "float32"), _t(0.5, "float32")], {"seed": 8}],
        ["call", "normal", [[4], _t(1.0, "float32"), _t(2.0, "float32")], {}],
    ],
    "functional_other_seeds": [
        ["set_seed", 0], ["call", "rand", [3], {}], ["call", "randn", [4], {}], ["call", "randint", [3, 9, [5]], {}],
        ["set_seed", 4000000000], ["call", "rand", [3], {}], ["call", "randn", [4], {}],
        ["set_seed", 2147483647], ["skip", "rand", [3], {}], ["call", "rand", [3], {}],
        ["call", "randn", [3], {"seed": 11}],
        ["set_seed", 123456], ["call", "rand", [10000], {}], ["call", "randn", [10001], {}],
        ["call", "randn", [20000], {}], ["call", "randint", [-2147483648, 2147483647, [3000]], {"dtype": "int32"}],
        ["call", "randint", [0, 3, [3000]], {"dtype": "int32"}],
        ["call", "randint", [0, 1500000000, [3000]], {"dtype": "int32"}],
    ],
    "unseeded_with_op_seed": [
        ["call", "rand", [4], {"seed": 5}], ["call", "rand", [4], {"seed": 5}], ["call", "randn", [3], {"seed": 5}],
        ["call", "randint", [0, 50, [4]], {"seed": 2}],
    ],
    "primitives": [
        ["set_seed", 7],
        ["new", "u", "UniformReal", 3, 5], ["prim", "u", [[4]]], ["prim", "u", [[2, 3]]], ["prim", "u", [[4]]],
        ["new", "n", "StandardNormal", 1, 2], ["prim", "n", [[5]]], ["prim", "n", [[3]]], ["prim", "n", [[1000]]],
        ["prim", "n", [[5]]], ["prim", "n", [[5]]],
        ["new", "i", "UniformInt", 0, 9],
        ["prim", "i", [[10], _t(0, "int32"), _t(7, "int32")]],
        ["prim", "i", [[3], _t(-100, "int32"), _t(2147483647, "int32")]],
        ["prim", "i", [[4], _t(5, "int32"), _t(6, "int32")]],
        ["prim", "i", [[10], _t(-3, "int32"), _t(3, "int32")]],
        ["new", "u2", "UniformReal", 0, 4], ["prim", "u2", [[3]]],
        ["new", "u3", "UniformReal", 3, 5], ["prim", "u3", [[4]]],
        ["set_seed", 99], ["prim", "u", [[4]]], ["new", "u4", "UniformReal", 3, 5], ["prim", "u4", [[4]]],
        ["new", "n3", "StandardNormal", 1, 2], ["prim", "n3", [[5]]],
        ["new", "n2", "StandardNormal", 7, 0], ["prim", "n2", [[2]]], ["prim", "n2", [[2]]],
    ],
    "multinomial": [
        ["set_seed", 7],
        ["call", "multinomial", [_W24, 8], {}], ["call", "multinomial", [_W24, 8], {}],
        ["call", "multinomial", [_W5, 6], {"seed": 3}], ["call", "multinomial", [_W24, 3, False], {}],
        ["call", "multinomial", [_W5, 4], {"replacement": False, "seed": 2}],
        ["call", "multinomial", [_arange(1, 301, 1, "float32"), 500], {}],
        ["call", "multinomial", [_arange(300, 0, -1, "float32"), 200, False], {}],
        ["call", "multinomial", [_t([[1.0, 2.0, 3.0, 4.0], [0.0, 5.0, 1.0, 0.0]], "float64"), 5], {}],
        ["new", "m", "Multinomial", 3, 5], ["prim", "m", [_W24, 8]], ["prim", "m", [_W24, 8]],
        ["prim", "m", [_W34, 8]], ["prim", "m", [_W24, 3]], ["prim", "m", [_W24, 8]],
        ["new", "m2", "Multinomial", 0, 5], ["prim", "m2", [_W5, 5]],
    ],
    "shuffle": [
        ["set_seed", 7],
        ["call", "shuffle", [_A10], {}], ["call", "shuffle", [_A10], {}],
        ["call", "shuffle", [_t([[i, i + 1, i + 2] for i in range(0, 15, 3)], "int32")], {}],
        ["call", "shuffle", [_A10], {"seed": 4}], ["call", "shuffle", [_arange(0, 1000, 1, "int32")], {}],
        ["call", "shuffle", [_arange(0, 50000, 1, "int32")], {}],
        ["new", "s", "RandomShuffle", 3, 5], ["prim", "s", [_A10]], ["prim", "s", [_A10]],
        ["prim", "s", [_t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "float32")]], ["prim", "s", [_A10]],
        ["new", "s2", "RandomShuffle", 0, 5], ["prim", "s2", [_A10]],
    ],
    "laplace": [
        ["set_seed", 7],
        ["call", "laplace", [[4], _t(1.0, "float32"), _t(2.0, "float32")], {}],
        ["call", "laplace", [[4], _t(1.0, "float32"), _t(2.0, "float32")], {}],
        ["call", "laplace", [[2, 3], _t([0.0, 1.0, 2.0], "float32"), _t(0.5, "float32")], {"seed": 3}],
        ["call", "laplace", [[5000], _t(0.0, "float32"), _t(1.0, "float32")], {}],
        ["new", "l", "StandardLaplace", 3, 5], ["prim", "l", [[6]]], ["prim", "l", [[6]]], ["prim", "l", [[2, 3]]],
        ["prim", "l", [[6]]], ["new", "l2", "StandardLaplace", 0, 5], ["prim", "l2", [[6]]],
    ],
    "numpy_random": [
        ["set_seed", 7],
        ["np", "rand", [3], {}], ["np", "rand", [3], {}], ["np", "randn", [2, 2], {}],
        ["np", "randint", [0, 10, [4]], {}], ["np", "randint", [5], {}], ["np", "rand", [2], {"dtype": "float64"}],
        ["call", "rand", [3], {}],
        ["set_seed", 0], ["np", "rand", [3], {}], ["np", "randn", [3], {}],
        ["np", "randint", [-100, 2147483647, [5]], {}], ["np", "randn", [3, 1000], {}],
    ],
    "bernoulli": [
        ["call", "bernoulli", [_Z16, 0.5], {"seed": 5}], ["call", "bernoulli", [_Z16, 0.5], {"seed": 5}],
        ["call", "bernoulli", [_Z16, _t([0.03 + i * 0.94 / 15 for i in range(16)], "float32")], {"seed": 5}],
        ["call", "bernoulli", [_t([[0] * 8, [0] * 8], "int32"), 0.5], {"seed": 5}],
        ["call", "bernoulli", [_Z16, 0.5], {"seed": 2**33 + 7}],
        ["call", "bernoulli", [_arange(0, 3000, 1, "float32"), 0.3], {"seed": 11}],
        ["call", "bernoulli", [_t([0.0] * 6, "float64"), _t([0.1, 0.3, 0.5, 0.7, 0.9, 0.99], "float64")],
         {"seed": 1}],
        ["set_seed", 3], ["call", "bernoulli", [_Z16, 0.5], {"seed": 5}],
    ],
    "random_categorical": [
        ["set_seed", 7],
        ["call", "random_categorical", [_L24, 10], {"seed": 5}],
        ["call", "random_categorical", [_L24, 10], {"seed": 5}],
        ["call", "random_categorical", [_L24, 6], {"seed": 7, "dtype": "int32"}],
        ["call", "random_categorical", [_t([[0.0] * 1000, [0.0] * 1000], "float32"), 10], {"seed": 5}],
        ["call", "random_categorical", [_t([[i / 50.0 for i in range(300)]] * 3, "float32"), 400], {"seed": 3}],
        ["call", "random_categorical", [_t([[0.5, -1.0, 2.0, 0.0]], "float64"), 8], {"seed": 2}],
        ["new", "c", "RandomCategorical", {"dtype": "int64"}],
        ["prim", "c", [_L24, 8, 5]], ["prim", "c", [_L24, 8, 5]], ["prim", "c", [_L24, 8, 7]],
        ["prim", "c", [_L24, 8, 5]], ["prim", "c", [_L24, 4, 5]], ["prim", "c", [_L24, 8, 5]],
    ],
    "randperm": [
        ["call", "randperm", [10], {}], ["call", "randperm", [10], {"seed": 5}],
        ["call", "randperm", [10], {"seed": 5, "offset": 3}], ["call", "randperm", [11], {"seed": 5}],
        ["call", "randperm", [7], {"seed": 2**32 + 5}], ["call", "randperm", [100000], {"seed": 1}],
        ["call", "randperm", [12], {"seed": 3, "dtype": "int32"}],
        ["call", "randperm", [9], {"seed": 9, "offset": 2, "dtype": "float32"}],
        ["set_seed", 7], ["call", "randperm", [10], {"seed": 5}],
    ],
}


def _arg(ms, v):
    if isinstance(v, dict):
        return ms.Tensor(tensor_values(v))
    return tuple(v) if isinstance(v, list) else v


def _out(x) -> dict:
    return array_record(x.asnumpy())


def array_record(a) -> dict:
    """An output's dtype and shape, with its values (up to FULL_LIMIT) or its SHA-256 and first values."""
    rec = {"dtype": str(a.dtype), "shape": list(a.shape)}
    flat = a.reshape(-1)
    if flat.size <= FULL_LIMIT:
        rec["values"] = flat.astype(float).tolist() if a.dtype.kind == "f" else flat.tolist()
    else:
        rec["sha256"] = hashlib.sha256(flat.tobytes()).hexdigest()
        rec["first"] = flat[:8].astype(float).tolist() if a.dtype.kind == "f" else flat[:8].tolist()
    return rec


def new_prim(ms, ops, step: list):
    """A ``new`` step's object: ``cls(seed=, seed2=)``, or ``cls(**kwargs)`` (a dtype given by name)."""
    if isinstance(step[3], dict):
        return getattr(ops, step[2])(**{k: (getattr(ms, v) if k == "dtype" else v) for k, v in step[3].items()})
    return getattr(ops, step[2])(seed=step[3], seed2=step[4])


def run_scenario(name: str) -> list:
    import mindspore as ms
    import mindspore.numpy as mnp
    from mindspore import ops
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    prims, outs = {}, []
    for step in SCENARIOS[name]:
        if step[0] == "set_seed":
            ms.set_seed(step[1])
        elif step[0] == "new":
            prims[step[1]] = new_prim(ms, ops, step)
        else:
            fn = prims[step[1]] if step[0] == "prim" else getattr(mnp if step[0] == "np" else ops, step[1])
            args = [_arg(ms, v) for v in step[2]]
            kwargs = {k: (getattr(ms, v) if k == "dtype" else v) for k, v in (step[3] if step[0] != "prim"
                                                                                else {}).items()}
            out = fn(*args, **kwargs)
            if step[0] != "skip":
                outs.append(_out(out))
    return outs


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--scenario":
        print(json.dumps(run_scenario(sys.argv[2])))
        return
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    result = {}
    for name in SCENARIOS:
        done = subprocess.run([sys.executable, __file__, "--scenario", name], capture_output=True, text=True,
                              check=True)
        result[name] = {"steps": SCENARIOS[name], "outputs": json.loads(done.stdout.strip().splitlines()[-1])}
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
