"""Run documented examples in this interpreter and write what each statement printed.

    python runner.py EXAMPLES.json IDS_FILE RESULTS.jsonl PROGRESS [--opbuild] [--capture-fd]

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
# With ``--capture-fd`` a statement's output is read from file descriptor 1 instead of ``sys.stdout``, so that
# what a framework's native code prints (MindSpore's GRAPH_MODE ``print`` writes from C++) is captured too,
# in order with Python's prints.
CAPTURE_FD = False
# Called at the end of each statement under CAPTURE_FD: the framework's ``runtime.synchronize``, so that what a
# graph prints asynchronously is written before the statement's output is read.
SYNC = None


@contextlib.contextmanager
def _fd_stdout(buf: io.StringIO):
    """Send fd 1 (and ``sys.stdout``, line by line) to a temporary file; its text goes to ``buf`` at exit."""
    import ctypes
    import tempfile

    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        out = io.TextIOWrapper(os.fdopen(os.dup(1), "wb"), line_buffering=True, write_through=True)
        try:
            with contextlib.redirect_stdout(out):
                yield
                if SYNC is not None:
                    SYNC()
        finally:
            out.flush()
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            out.close()
            tmp.seek(0)
            buf.write(tmp.read().decode("utf-8", "replace"))


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


def run_example(example: dict, workdir: str, partial: str | None = None) -> list[dict]:
    """What each statement of ``example`` printed (``out``) and the exception it raised (``exc``). With
    ``partial`` (a path), the results so far are rewritten there after each statement, so that a driver that
    kills a hung or crashed program keeps what its earlier statements printed."""
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
            stdout = _fd_stdout(buf) if CAPTURE_FD else contextlib.redirect_stdout(buf)
            with stdout, contextlib.redirect_stderr(io.StringIO()), \
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
        if partial:
            with open(partial, "w") as f:
                json.dump(results, f)
    sys.modules.pop(MODULE, None)
    return results


def main(argv: list[str]) -> int:
    global CAPTURE_FD, SYNC
    examples_path, ids_path, results_path, progress_path = argv[:4]
    CAPTURE_FD = "--capture-fd" in argv
    if "--opbuild" in argv:
        import opbuild

        opbuild.alias_mindspore()
    import mindspore

    SYNC = getattr(getattr(mindspore, "runtime", None), "synchronize", None) if CAPTURE_FD else None
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
        partial = progress_path + ".stmts"
        if os.path.exists(partial):
            os.remove(partial)
        results = run_example(examples[ex_id], workdir, partial)
        gc.collect()
        with open(results_path, "a") as f:
            f.write(json.dumps({"id": ex_id, "stmts": results, "seconds": round(time.time() - t0, 2)}) + "\n")
    sys.stdout.flush()
    real_exit(0)  # skip interpreter teardown (MindSpore's can hang); results are on disk
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
