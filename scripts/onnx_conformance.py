#!/usr/bin/env python3
"""Run ONNX's node tests for every operator opbuild's importer supports and print the conformance table:
op, cases, passed (and how many fail for a documented reason).

    python scripts/onnx_conformance.py                 # the table
    python scripts/onnx_conformance.py --failures      # plus every failing test and its error
    python scripts/onnx_conformance.py --markdown docs/onnx-conformance.md   # regenerate the document
    python scripts/onnx_conformance.py --json out.json -k gather             # machine-readable, a subset

Needs the ``onnx`` extra. Kernels go to the usual cache (OPBUILD_CACHE_PATH), so a second run is fast.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO)]  # the harness is a test helper: tests/onnx/conformance.py

from tests.onnx import conformance as conf  # noqa: E402

from opbuild.core.errors import OpbuildError  # noqa: E402
from opbuild.frontends.onnx_ops import CONVERTERS  # noqa: E402


def run(pattern: str | None) -> list[dict]:
    """Run the selected node tests (matching ``pattern``); one result dict per test."""
    by_name = {c.name: c for c in conf.node_tests()}
    results = []
    for case in conf.selected_tests():
        if pattern and not re.search(pattern, case.name):
            continue
        t0 = time.perf_counter()
        error = None
        try:
            conf.run_case(case)
        except Exception as e:  # a failing test is a result to report, not a reason to stop
            error = f"{type(e).__name__}: {e}".strip()
            if not isinstance(e, AssertionError | OpbuildError):  # a bug: show where it happened
                error += "\n" + "".join(traceback.format_exception(e)[-3:])
        results.append({"test": case.name, "op": conf.case_op(case, by_name), "passed": error is None,
                        "exception": conf.exception_reason(case.name), "error": error,
                        "seconds": round(time.perf_counter() - t0, 3)})
    return results


def table(results: list[dict]) -> list[tuple[str, int, int, int]]:
    """(op, cases, passed, documented exceptions) per op, sorted by op."""
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in results:
        row = rows[r["op"]]
        row[0] += 1
        row[1] += r["passed"]
        row[2] += (not r["passed"]) and r["exception"] is not None
    return [(op, *counts) for op, counts in sorted(rows.items(), key=lambda kv: kv[0].lower())]


def format_table(rows: list[tuple[str, int, int, int]]) -> str:
    """Plain-text table with a total line."""
    head = ("op", "cases", "passed", "documented")
    total = ("TOTAL", *(sum(r[i] for r in rows) for i in (1, 2, 3)))
    cells = [head, *rows, total]
    widths = [max(len(str(c[i])) for c in cells) for i in range(4)]
    lines = ["  ".join(str(c[i]).ljust(widths[i]) if i == 0 else str(c[i]).rjust(widths[i]) for i in range(4))
             for c in cells]
    lines.insert(1, "-" * len(lines[0]))
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    return "\n".join(lines)


def markdown(results: list[dict], rows: list[tuple[str, int, int, int]]) -> str:
    """docs/onnx-conformance.md: how the suite is chosen, the table, every exception with its reason."""
    import onnx

    out = [
        "# ONNX conformance",
        "",
        "opbuild's ONNX importer (`opbuild.onnx.load`, optional extra `onnx`) is tested with ONNX's own node tests",
        f"(`onnx.backend.test`, onnx {onnx.__version__}): every node test whose graph uses only supported operators",
        "runs through `OpbuildBackend` (tests/onnx/conformance.py) in tests/onnx/test_conformance.py,",
        "including the `*_expanded` tests of ONNX functions that decompose into supported operators. Each test",
        "passes, or is listed below with the reason it cannot; the test suite checks both (an excepted test that",
        "starts passing fails the suite, so this list stays exact).",
        "",
        "Regenerate this file with `python scripts/onnx_conformance.py --markdown docs/onnx-conformance.md`.",
        "",
        f"Supported operators ({len(CONVERTERS)}): {', '.join(f'`{op}`' for op in sorted(CONVERTERS))}.",
        "",
        "## Results",
        "",
        "| op | cases | passed | documented exceptions |",
        "| --- | ---: | ---: | ---: |",
    ]
    out += [f"| {op} | {n} | {p} | {x} |" for op, n, p, x in rows]
    tot = [sum(r[i] for r in rows) for i in (1, 2, 3)]
    out += [f"| **total** | **{tot[0]}** | **{tot[1]}** | **{tot[2]}** |", "", "## Exceptions", ""]
    by_reason: dict[str, list[str]] = defaultdict(list)
    for r in results:
        if r["exception"] is not None:
            by_reason[r["exception"]].append(r["test"])
    for reason, tests in by_reason.items():
        out += [f"### {len(tests)} test(s): {reason}", ""]
        out += [f"- `{t}`" for t in sorted(tests)]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", metavar="REGEX", help="only tests whose name matches REGEX")
    parser.add_argument("--failures", action="store_true", help="list every failing test with its error")
    parser.add_argument("--json", metavar="FILE", help="write every result as JSON to FILE")
    parser.add_argument("--markdown", metavar="FILE", help="write the conformance document to FILE")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    results = run(args.k)
    rows = table(results)
    print(format_table(rows))
    unexpected = [r for r in results if r["passed"] == (r["exception"] is not None)]
    print(f"\n{len(results)} node tests in {time.perf_counter() - t0:.1f} s; "
          f"{sum(r['passed'] for r in results)} passed, "
          f"{sum(not r['passed'] and r['exception'] is not None for r in results)} documented exceptions, "
          f"{len(unexpected)} unexpected (failing without a documented reason, or excepted but passing)")
    if args.failures:
        for r in results:
            if not r["passed"]:
                tag = "documented" if r["exception"] else "UNEXPECTED"
                print(f"\n[{tag}] {r['test']} ({r['op']}): {r['error']}")
    for r in unexpected:
        if r["passed"]:
            print(f"excepted but passing: {r['test']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(markdown(results, rows))
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
