"""Instructions per call (valgrind's callgrind) of the small calls of bench_call_overhead.py: a count that the
load of a shared machine does not move, where wall and CPU times swing by 2x from one process to the next.

Each tree runs in one process under ``valgrind --tool=callgrind --instr-atstart=no``; per call, after warm-up,
instrumentation is switched on, the counters zeroed, ``--calls`` calls made and the counters dumped (client
requests of a small C helper built with the system's compiler and valgrind's headers). Kernels are built with
``-mno-avx512f`` into their own cache (valgrind does not decode AVX-512): the counts are the Python and C work
around kernels of a few dozen instructions. Prints a table and writes JSON (``--json``, default
benchmarks/results/call_instructions.json). Needs valgrind and its headers (``valgrind/callgrind.h``).

    python benchmarks/bench_call_instructions.py [--baseline-src OTHER/src] [--calls 400]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results" / "call_instructions.json"
HELPER_C = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
void cg_zero(void) { CALLGRIND_ZERO_STATS; }
void cg_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
"""


def worker(helper: str, calls: int) -> None:
    """Under callgrind: each small call of bench_call_overhead.py, counted over ``calls`` calls."""
    import ctypes

    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_call_overhead as overhead

    import opbuild as ms
    from opbuild import Tensor, nn, ops

    cg = ctypes.CDLL(helper)
    counted = overhead.small_call_cases(ms, Tensor, nn, ops, np.random.default_rng(0))
    for name, (mode, fn) in counted.items():
        ms.set_context(mode=mode)
        for _ in range(300):
            fn()
        cg.cg_start()
        for _ in range(50):  # the instrumented code's first runs
            fn()
        cg.cg_zero()
        for _ in range(calls):
            fn()
        cg.cg_dump(name.encode())
        cg.cg_stop()


def _count(src: Path, work: Path, helper: Path, calls: int) -> dict[str, int]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), *filter(None, [env.get("PYTHONPATH")])])
    env["OPBUILD_CACHE_PATH"] = str(work.parent / "cache")
    env["OPBUILD_CFLAGS"] = "-mno-avx512f"
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    work.mkdir()
    out = work / "cg.out"
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                           sys.executable, __file__, "--worker", str(helper), str(calls)],
                          env=env, capture_output=True, text=True, timeout=1800, cwd=work)
    if proc.returncode != 0:
        raise RuntimeError(f"callgrind run of {src} failed:\n{proc.stderr[-3000:]}")
    counts: dict[str, int] = {}
    for dump in sorted(work.glob("cg.out.*"), key=lambda p: int(p.suffix[1:])):  # in the order counted
        text = dump.read_text(errors="replace")
        name = re.search(r"^desc: Trigger: Client Request: (.*)$", text, re.M)
        total = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        if name and total:
            counts[name.group(1)] = int(total.group(1)) // calls
    return counts


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--baseline-src", type=Path, help="another checkout's src folder, counted too")
    p.add_argument("--calls", type=int, default=400, help="calls counted per case (default 400)")
    p.add_argument("--json", type=Path, default=RESULTS, help=f"where to write results (default {RESULTS})")
    p.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker(args.worker[0], int(args.worker[1]))
        return 0
    if args.calls < 1:
        p.error("--calls must be at least 1")
    if args.baseline_src is not None and not (args.baseline_src / "opbuild").is_dir():
        p.error(f"--baseline-src {args.baseline_src}: no opbuild package there (give a checkout's src folder)")
    trees = {"this": REPO / "src"}
    if args.baseline_src is not None:
        trees["baseline"] = args.baseline_src.resolve()
    with tempfile.TemporaryDirectory(prefix="opbuild-instructions-") as tmp:
        helper = Path(tmp) / "libcg.so"
        (Path(tmp) / "cg.c").write_text(HELPER_C)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", str(Path(tmp) / "cg.c"), "-o", str(helper)], check=True)
        counts = {name: _count(src, Path(tmp) / name, helper, args.calls) for name, src in trees.items()}
    print(f"instructions per call (callgrind, {args.calls} calls counted per case)")
    print(f"{'call':18s} {'this tree':>10s}" + (f" {'baseline':>10s} {'ratio':>6s}" if len(trees) > 1 else ""))
    for case, mine in counts["this"].items():
        row = f"{case:18s} {mine:10d}"
        if len(trees) > 1:
            base = counts["baseline"].get(case)
            row += f" {base:10d} {mine / base:6.2f}" if base else f" {'-':>10s} {'-':>6s}"
        print(row)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"trees": {k: str(v) for k, v in trees.items()}, "calls": args.calls,
                                     "instructions": counts}, indent=1))
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
