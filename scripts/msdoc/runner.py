"""Run documented examples in this interpreter and write what each statement printed.

    python runner.py EXAMPLES.json IDS_FILE RESULTS.jsonl PROGRESS [--opbuild]

Runs in either framework's interpreter and imports neither at top level: with ``--opbuild`` it installs
opbuild's import alias first, so the examples' ``import mindspore`` is opbuild. Each example's program is
written to a file and run statement by statement from that file's parsed code, so functions and cells it
defines have source (GRAPH_MODE parses it) and expression statements print their value as doctest does. One
JSON line per example goes to RESULTS; PROGRESS gets the example's id before it starts (the driver uses it to
time out or skip an example that hangs or kills the process).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import gc
import io
import json
import os
import sys
import time
import types
import warnings

MODULE = "__msdoc_example__"


def _exc(e: BaseException) -> dict:
    msg = str(e).strip().splitlines()
    return {"type": type(e).__name__, "msg": msg[0][:300] if msg else ""}


def _program(example: dict) -> tuple[str, list[int]]:
    lines: list[str] = []
    starts = []
    for stmt in example["stmts"]:
        starts.append(len(lines))
        lines += stmt["source"].rstrip("\n").split("\n")
    return "\n".join(lines) + "\n", starts


def run_example(example: dict, workdir: str) -> list[dict]:
    """What each statement of ``example`` printed (``out``) and the exception it raised (``exc``)."""
    text, starts = _program(example)
    path = os.path.join(workdir, "example_" + "".join(c if c.isalnum() else "_" for c in example["id"])[:80] + ".py")
    with open(path, "w") as f:
        f.write(text)
    module = types.ModuleType(MODULE)
    module.__file__ = path
    module.__dict__["__builtins__"] = builtins
    sys.modules[MODULE] = module
    results = []
    for stmt, start in zip(example["stmts"], starts):
        buf = io.StringIO()
        exc = None
        try:
            tree = ast.parse("\n" * start + stmt["source"], path)
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()), \
                    warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for node in tree.body:
                    if isinstance(node, ast.Expr):
                        code = compile(ast.Interactive(body=[node]), path, "single")
                    else:
                        code = compile(ast.Module(body=[node], type_ignores=[]), path, "exec")
                    exec(code, module.__dict__)
        except BaseException as e:  # noqa: BLE001 - every failure of an example is a result
            if isinstance(e, KeyboardInterrupt):
                raise
            exc = _exc(e)
        results.append({"out": buf.getvalue()[:20000], "exc": exc})
    sys.modules.pop(MODULE, None)
    return results


def main(argv: list[str]) -> int:
    examples_path, ids_path, results_path, progress_path = argv[:4]
    if "--opbuild" in argv:
        import opbuild

        opbuild.alias_mindspore()
    import mindspore

    mode = mindspore.get_context("mode")
    with open(examples_path) as f:
        examples = {e["id"]: e for e in json.load(f)}
    with open(ids_path) as f:
        ids = [line.strip() for line in f if line.strip()]
    workdir = os.getcwd()
    real_exit = os._exit
    for ex_id in ids:
        with open(progress_path, "a") as f:
            f.write(ex_id + "\n")
        t0 = time.time()
        try:
            mindspore.set_context(mode=mode)
        except Exception:  # noqa: BLE001 - a context an earlier example left broken
            pass
        results = run_example(examples[ex_id], workdir)
        gc.collect()
        with open(results_path, "a") as f:
            f.write(json.dumps({"id": ex_id, "stmts": results, "seconds": round(time.time() - t0, 2)}) + "\n")
    sys.stdout.flush()
    real_exit(0)  # skip interpreter teardown (MindSpore's can hang); results are on disk
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
