"""Record MindSpore's results for the framework-surface programs into tests/fixtures/mindspore/surface.json.

Run with the interpreter of a real MindSpore 2.10 install (its own virtualenv, numpy<2)::

    /tmp/ms/bin/python scripts/record_ms_surface.py            # every program
    /tmp/ms/bin/python scripts/record_ms_surface.py tensor_setitem

The programs are tests/compat/ms_surface_programs.py (each a function of the framework module); each runs in a
fresh process, so one program's context changes (``set_context``) cannot leak into the next. opbuild's tests
(tests/compat/test_ms_surface.py) run the same programs on opbuild and compare with what is written here.
The scripts of tests/compat/zoo/ are whole programs in MindSpore's style; tests/compat/test_alias.py runs them
with ``opbuild run --as-mindspore`` and compares.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROGRAMS = REPO / "tests" / "compat" / "ms_surface_programs.py"
OUT = REPO / "tests" / "fixtures" / "mindspore" / "surface.json"
# Whole programs written for MindSpore (run unmodified by opbuild through the import alias); each prints one
# JSON line of results, recorded under "script:<file name>".
SCRIPTS = sorted((REPO / "tests" / "compat" / "zoo").glob("*.py"))


def _load_programs():
    spec = importlib.util.spec_from_file_location("ms_surface_programs", str(PROGRAMS))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _child(name: str) -> None:
    """Run one program under MindSpore and print its encoded results as JSON (the parent collects them)."""
    import mindspore

    programs = _load_programs()
    print(json.dumps(programs.record(mindspore, name)))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        _child(argv[1])
        return 0
    import mindspore  # noqa: F401 - fail early, with MindSpore's own message, when run by the wrong interpreter

    names = argv or [*_load_programs().PROGRAMS, *(f"script:{s.name}" for s in SCRIPTS)]
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    data["_meta"] = {"mindspore": mindspore.__version__, "programs": str(PROGRAMS.relative_to(REPO))}
    for name in names:
        command = ([sys.executable, str(REPO / "tests" / "compat" / "zoo" / name[len("script:"):])]
                   if name.startswith("script:") else [sys.executable, __file__, "--child", name])
        # In a scratch directory: MindSpore writes its kernel caches (akg_kernel_meta/, rank_0/) into the cwd.
        with tempfile.TemporaryDirectory(prefix="ms-record-") as scratch:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False, cwd=scratch)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            print(f"{name}: failed (exit {proc.returncode})\n{proc.stderr[-2000:]}", file=sys.stderr)
            return 1
        data[name] = json.loads(lines[-1])
        errors = [k for k, v in data[name].items() if isinstance(v, dict) and "error" in v]
        print(f"{name}: {len(data[name])} results" + (f", errors in {errors}" if errors else ""))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
