"""What the scripts/record_*.py that replay a cases module under MindSpore share: load the cases file of
tests/compat/, run each case (a MindSpore error is recorded as the case's expected refusal), and save inputs,
outputs and the errors into one .npz fixture. Runs under a Python that has MindSpore; opbuild never imports it."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def load_cases(name: str) -> ModuleType:
    """The module tests/compat/<name>.py, loaded by path (tests/ is not a package MindSpore's Python sees)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "tests" / "compat" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def record(cases: dict[str, tuple[Callable, list]], call: Callable[[Callable, list], Any],
           outputs: Callable[[Any], list], arrays: dict[str, np.ndarray], errors: dict[str, str],
           prefix: str = "") -> None:
    """Run every ``name: (fn, inputs)`` of ``cases`` through ``call(fn, inputs)``; store the inputs and the
    ``outputs(result)`` arrays under ``<prefix><name>:in<i>``/``:out<i>``, or the error's first line."""
    for name, (fn, inputs) in cases.items():
        key = f"{prefix}{name}"
        for i, a in enumerate(inputs):
            arrays[f"{key}:in{i}"] = a
        try:
            outs = outputs(call(fn, inputs))
        except Exception as e:  # recorded: opbuild must refuse the case too
            errors[key] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            print(f"{key}: MindSpore raised {errors[key]}")
            continue
        for i, o in enumerate(outs):
            arrays[f"{key}:out{i}"] = o


def record_op_cases(cases_name: str, out: Path, argv: list[str],
                    extra: Callable[[ModuleType, Any, dict, dict], None] | None = None) -> int:
    """The whole of a case recorder: run tests/compat/<cases_name>.py's ``CASES`` (each ``fn(ms, ops, *tensors)``)
    under MindSpore in PyNative mode on the CPU, then ``extra(cases, ms, arrays, errors)`` if given, and write the
    fixture to ``argv[0]`` or ``out``."""
    import mindspore as ms
    from mindspore import ops

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    cases = load_cases(cases_name)
    # A Cell defined inside a case has its construct's free names (ops, ms) resolved by MindSpore in the
    # globals of the case module, where the case functions only receive them as arguments.
    cases.ms, cases.ops = ms, ops
    arrays: dict = {}
    errors: dict[str, str] = {}
    record(cases.CASES, lambda fn, inputs: fn(ms, ops, *[ms.Tensor(a) for a in inputs]), cases.outputs, arrays,
           errors)
    if extra is not None:
        extra(cases, ms, arrays, errors)
    save(Path(argv[0]) if argv else out, arrays, errors, ms.__version__, len(cases.CASES))
    return 0


def save(out: Path, arrays: dict[str, np.ndarray], errors: dict[str, str], version: str, n_cases: int) -> None:
    """Write the fixture, with MindSpore's version and the refused cases in ``__meta__``."""
    arrays["__meta__"] = np.frombuffer(json.dumps({"mindspore": version, "errors": errors}).encode(), dtype=np.uint8)
    np.savez_compressed(out, **arrays)
    shown = out.relative_to(REPO) if out.is_relative_to(REPO) else out
    print(f"{n_cases} cases, {len(errors)} rejected by MindSpore -> {shown}")


def record_programs(cases_name: str, out: Path) -> None:
    """Run each program of tests/compat/<cases_name>.py's ``CASES`` (source text that sets ``result``) under
    MindSpore and write ``{name: {"str": str(result)}}`` (or ``{"error": ...}``) as JSON to ``out``."""
    import mindspore as ms

    cases = load_cases(cases_name)
    data: dict = {"_meta": {"mindspore": ms.__version__}}
    for name, code in cases.CASES.items():
        env = {"ms": ms, "np": np}
        try:
            exec(code, env)  # noqa: S102 - the repository's own programs
            data[name] = {"str": str(env["result"])}
        except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
            data[name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{out}: {len(data) - 1} programs, errors: {[k for k, v in data.items() if 'error' in v]}")
