#!/usr/bin/env python3
"""Record MindSpore 2.10's results for the cases of tests/compat/mint_cases.py (the ``mint`` functions, layers
and optimizers added in the eleventh session) into tests/fixtures/mindspore/mint.npz: inputs and outputs of
``FUNCS``; for ``LAYERS`` the parameter names, shapes and dtypes (in ``__meta__``), the outputs with the
parameters set from ``param_value``, then the non-trainable parameters after a training call; for ``OPTIMS``
the parameters after the steps of ``GRADS`` and the optimizer's parameter names. A refusal (MindSpore's CPU has
no kernel for many mint names) is recorded as the case's error; after an error the next cases run in a new
process, as MindSpore's PyNative state after an error can fail the next case with the same message.

    /tmp/ms/bin/python scripts/record_mint.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from ms_case_recorder import REPO, load_cases, save

OUT = REPO / "tests" / "fixtures" / "mindspore" / "mint.npz"


def _error(e: Exception) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def _keys(cases) -> list[str]:
    return ([f"func:{n}" for n in cases.FUNCS] + [f"layer:{n}" for n in cases.LAYERS]
            + [f"optim:{n}" for n in cases.OPTIMS])


def _layer(ms, cases, name: str, arrays: dict, meta: dict) -> None:
    ctor, inputs, train = cases.LAYERS[name]
    cell = eval(ctor, {"ms": ms})  # noqa: S307 - the repository's own constructors
    params = list(cell.get_parameters())
    meta[name] = [[p.name, list(p.shape), str(p.dtype).lower(), bool(p.requires_grad)] for p in params]
    for p in params:
        p.set_data(ms.Tensor(cases.param_value(name, p.name, tuple(p.shape), str(p.dtype).lower())))
    cell.set_train(train)
    outs = cases.outputs(cell(*[ms.Tensor(a) for a in inputs]))
    if train:
        outs += [p.asnumpy() for p in params if not p.requires_grad]
    for i, o in enumerate(outs):
        arrays[f"layer:{name}:out{i}"] = o


def _optim(ms, cases, name: str, arrays: dict, meta: dict) -> None:
    params = [ms.Parameter(ms.Tensor(cases.W0), name="w"), ms.Parameter(ms.Tensor(cases.BIAS0), name="b")]
    opt = eval(cases.OPTIMS[name], {"ms": ms, "params": params})  # noqa: S307 - the repository's own constructors
    meta[name] = [p.name for p in opt.get_parameters()]
    for grads in cases.GRADS:
        opt(tuple(ms.Tensor(g) for g in grads))
    if np.array_equal(params[0].asnumpy(), cases.W0):
        # MindSpore 2.10's CPU runs Adam and SGD without error in PyNative but leaves the parameters as they
        # were: recorded as a refusal, so the test compares with torch's update instead of this no-op.
        raise RuntimeError("MindSpore 2.10's CPU left the parameters unchanged (no update)")
    arrays[f"optim:{name}:out0"], arrays[f"optim:{name}:out1"] = params[0].asnumpy(), params[1].asnumpy()


def _run_from(start: int, part: Path) -> None:
    """Run the cases from index ``start`` until one raises (MindSpore's PyNative state after an error can make
    the next case fail with the same message, so the parent goes on in a new process); save what ran."""
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    cases = load_cases("mint_cases")
    arrays: dict = {}
    errors: dict = {}
    meta: dict = {}
    keys = _keys(cases)
    k = start
    for k in range(start, len(keys)):
        kind, name = keys[k].split(":", 1)
        try:
            if kind == "func":
                fn, inputs = cases.FUNCS[name]
                outs = cases.outputs(fn(ms, *[ms.Tensor(a) for a in inputs]))
                arrays.update({f"{name}:out{i}": o for i, o in enumerate(outs)})
            elif kind == "layer":
                _layer(ms, cases, name, arrays, meta)
            else:
                _optim(ms, cases, name, arrays, meta)
        except Exception as e:  # noqa: BLE001 - recorded: the test compares with torch instead
            errors[name if kind == "func" else keys[k]] = _error(e)
            print(f"{keys[k]}: MindSpore raised {_error(e)}")
            break
    arrays["__part__"] = np.frombuffer(json.dumps({"next": k + 1, "errors": errors, "params": meta,
                                                   "version": ms.__version__}).encode(), dtype=np.uint8)
    np.savez(part, **arrays)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--from"]:
        _run_from(int(argv[1]), Path(argv[2]))
        return 0
    cases = load_cases("mint_cases")
    arrays: dict = {}
    for name, (_, inputs) in cases.FUNCS.items():
        arrays.update({f"{name}:in{i}": a for i, a in enumerate(inputs)})
    for name, (_, inputs, _) in cases.LAYERS.items():
        arrays.update({f"layer:{name}:in{i}": a for i, a in enumerate(inputs)})
    errors: dict = {}
    params: dict = {}
    start, version = 0, "?"
    with tempfile.TemporaryDirectory() as tmp:
        part = Path(tmp) / "part.npz"
        while start < len(_keys(cases)):
            subprocess.run([sys.executable, __file__, "--from", str(start), str(part)], check=True, timeout=600)
            data = np.load(part)
            info = json.loads(bytes(data["__part__"]).decode())
            arrays.update({k: data[k] for k in data.files if k != "__part__"})
            errors.update(info["errors"])
            params.update(info["params"])
            start, version = info["next"], info["version"]
    errors["__params__"] = params  # type: ignore[assignment] - carried in __meta__ beside the refusals
    save(Path(argv[0]) if argv else OUT, arrays, errors, version, len(_keys(cases)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
