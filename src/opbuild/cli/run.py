"""``opbuild run SCRIPT.py|MODEL.onnx``: run a script as ``__main__``, or an ONNX model once with timings, then
print the build report of every kernel built or reused."""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from .. import alias
from .. import onnx as opbuild_onnx  # imports the onnx package only when a model is loaded
from ..core import config
from ..core.errors import ConfigError, OpbuildError
from ..runtime.session import session
from .common import EXIT_OK, UsageError
from .format import err, fields, plural, seconds, table


def _run_summary(totals) -> dict:
    """Distinct kernels of the whole run, each with the status of its first build."""
    first: dict[str, Any] = {}
    for k in totals.kernels:
        first.setdefault(k.name, k)
    by_status = {s: sum(1 for k in first.values() if k.status == s) for s in ("built", "reused", "repaired")}
    by_op: dict[str, dict[str, int]] = {}
    for k in first.values():
        row = by_op.setdefault(k.op, {"built": 0, "reused": 0, "repaired": 0})
        row[k.status] = row.get(k.status, 0) + 1
    return {"kernels": len(first), **by_status, "seconds": totals.seconds, "ops": by_op}


def cmd_run(args: argparse.Namespace) -> int:
    """`opbuild run SCRIPT.py [ARGS]` runs a script as __main__; `opbuild run MODEL.onnx [OPTIONS]` runs an ONNX
    model once (random inputs unless given) and times it. Either way the build report is printed at the end."""
    try:  # a bad OPBUILD_* value is a usage error, named before any work (and before the report needs it)
        config.validate_environment()
    except ConfigError as e:
        raise UsageError(str(e)) from None
    script = Path(args.script)
    if not script.is_file():
        raise UsageError(f"no such {'model' if script.suffix == '.onnx' else 'script'}: {script}")
    model_info: dict[str, Any] = {}
    if script.suffix == ".onnx":  # usage errors are raised here, before any work
        onnx_args = _onnx_run_parser().parse_args(args.args)
        given = _onnx_inputs(onnx_args.input)
    code = EXIT_OK
    try:
        if script.suffix == ".onnx":
            code = _run_onnx(script, onnx_args, given, model_info)
        else:
            if getattr(args, "as_mindspore", False):
                _as_mindspore()
            _run_script(script, args.args)
    except UsageError:
        raise
    except OpbuildError as e:
        if script.suffix != ".onnx":
            traceback.print_exc()
        else:  # an unsupported model or bad input: the message says it all
            err(str(e))
        code = 1
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # the script's own error: show it as Python would, then the report
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        summary = _run_summary(session().builder.observer.totals)
        summary["cache"] = str(config.cache_dir()) if config.cache_enabled() else "off (OPBUILD_CACHE=0)"
        if model_info:
            summary["model"] = model_info
        if args.report:
            Path(args.report).write_text(json.dumps(summary, indent=2) + "\n")
        if args.json:
            print(json.dumps(summary), file=sys.stderr)
        else:
            parts = [f"{summary['reused']} reused", f"{summary['built']} built"]
            if summary["repaired"]:
                parts.append(f"{summary['repaired']} repaired")
            print(f"opbuild: {plural(summary['kernels'], 'kernel')}: {', '.join(parts)} "
                  f"({summary['seconds']:.2f} s in builds); cache {summary['cache']}", file=sys.stderr)
            if args.verbose and summary["ops"]:
                rows = [(op, r["built"], r["reused"], r["repaired"])
                        for op, r in sorted(summary["ops"].items())]
                print(table(["OP", "BUILT", "REUSED", "REPAIRED"], rows, right=(1, 2, 3)), file=sys.stderr)
    return code


def _as_mindspore() -> None:
    """``--as-mindspore``: the import alias here, and (through the environment) in the script's children."""
    os.environ[alias.ENV] = "1"
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (alias.sitecustomize_dir(),
                                                           os.environ.get("PYTHONPATH", "")) if p)
    alias.alias_mindspore()


def _run_script(script: Path, argv: list[str]) -> None:
    sys.argv = [str(script), *argv]
    sys.path.insert(0, str(script.resolve().parent))
    runpy.run_path(str(script), run_name="__main__")


def _onnx_run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="opbuild run MODEL.onnx", description=(
        "Run an ONNX model once through opbuild (load, trace, build, run) and time it. Inputs not given are "
        "random: standard normal floats, integers in [0, 2), booleans; symbolic dims are 1."))
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input's value (repeatable); the others are random")
    p.add_argument("--output-dir", metavar="DIR", help="save each output as DIR/<output name>.npy")
    p.add_argument("--repeat", type=int, default=10, metavar="N",
                   help="calls after the first to time the steady state (default 10, 0 to skip)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    return p


def _onnx_inputs(items: list[str]) -> dict[str, Any]:
    """``--input NAME=FILE.npy`` options as arrays by name."""
    given: dict[str, Any] = {}
    for item in items:
        name, sep, file = item.partition("=")
        if not sep or not name or not file:
            raise UsageError(f"--input takes NAME=FILE.npy, got {item!r}")
        try:
            given[name] = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise UsageError(f"--input {name}: cannot read {file}: {e}") from None
    return given


def _run_onnx(path: Path, opts: argparse.Namespace, given: dict[str, Any], info: dict[str, Any]) -> int:
    """Load and run an ONNX model; fills ``info`` (inputs, outputs, timings) for the report."""
    t0 = time.perf_counter()
    model = opbuild_onnx.load(path)
    load_s = time.perf_counter() - t0
    unknown = sorted(set(given) - set(model.input_names))
    if unknown:
        raise UsageError(f"--input {', '.join(unknown)}: the model's inputs are {', '.join(model.input_names)}")
    rng = np.random.default_rng(opts.seed)
    feeds, rows = [], []
    for spec in model.inputs:
        if spec.name in given:
            arr, source = given[spec.name], "given"
        else:
            dims = [d if isinstance(d, int) else 1 for d in (spec.shape or ())]
            if spec.dtype.startswith("float"):
                arr = rng.standard_normal(dims).astype(spec.dtype)
            else:
                arr = rng.integers(0, 2, dims).astype(spec.dtype)
            source = "random"
        feeds.append(arr)
        rows.append(("input", spec.name, f"{arr.dtype}{list(arr.shape)}", source))
    t0 = time.perf_counter()
    outs = model.run(feeds)
    first_s = time.perf_counter() - t0
    steady = []
    for _ in range(max(opts.repeat, 0)):
        t0 = time.perf_counter()
        model.run(feeds)
        steady.append(time.perf_counter() - t0)
    for name, arr in zip(model.output_names, outs, strict=True):
        dest = ""
        if opts.output_dir:
            out_dir = Path(opts.output_dir)
            out_dir.mkdir(parents=True, exist_ok=True)
            dest = str(out_dir / f"{name}.npy")
            np.save(dest, arr)
        rows.append(("output", name, f"{arr.dtype}{list(arr.shape)}", dest))
    print(f"{path}: opset {model.opset}, {model.node_count} nodes, "
          f"{plural(sum(1 for _ in model.get_parameters()), 'parameter')}")
    print(table(["", "NAME", "TYPE", ""], rows))
    timing = [("load", seconds(load_s)), ("first call", f"{seconds(first_s)} (trace, build, run)")]
    if steady:
        timing.append(("steady state", f"{seconds(float(np.median(steady)))} per call (median of {len(steady)})"))
    print(fields(timing))
    info.update({"path": str(path), "inputs": {r[1]: r[2] for r in rows if r[0] == "input"},
                 "outputs": {r[1]: r[2] for r in rows if r[0] == "output"}, "load_seconds": load_s,
                 "first_call_seconds": first_s, "steady_seconds": float(np.median(steady)) if steady else None})
    return EXIT_OK
