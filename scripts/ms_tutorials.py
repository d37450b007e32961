"""Run MindSpore's English tutorials (their Python code blocks, each tutorial as one program) under MindSpore
2.10 on the CPU and under opbuild (through the import alias), compare what each block prints, and report per
tutorial.

    python scripts/ms_tutorials.py record             # MindSpore's outputs (cached)
    python scripts/ms_tutorials.py run [--fresh]      # opbuild's outputs (--fresh: discard earlier ones)
    python scripts/ms_tutorials.py recheck            # MindSpore again where values differ (random?)
    python scripts/ms_tutorials.py report [--md FILE] # per-tutorial table and the causes
    python scripts/ms_tutorials.py all                # the four in turn

Options: ``--match SUBSTRING`` (tutorial names, e.g. ``compile/``), ``--timeout S`` (per tutorial),
``--cache DIR`` (default ``.mstutorials/``, gitignored), ``--mirror DIR`` (a git mirror of MindSpore's docs
repository, default ``/work/.mirror/mindspore-ai+docs/repo``; ``$OPBUILD_MSDOCS_MIRROR``), ``--rev`` (its
revision), ``--ms-python PATH``, ``--src DIR`` (the opbuild tree to measure).

The code is extracted at run time from the mirror (scripts/msdoc/tutorials.py); nothing of the tutorials' text
is stored in the repository. Each tutorial runs in a fresh process of the documented-examples runner
(scripts/msdoc/runner.py): its blocks in order in one module, each block's printed output (and its expression
statements' values) captured on its own, and compared with that harness's rules (scripts/msdoc/compare.py).
Data sets the tutorials download come from scripts/msdoc/offline/download.py, a stand-in for the ``download``
package that writes small generated data sets of the same layout, the same bytes for both frameworks.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from ms_doc_examples import _load_jsonl, run_examples  # noqa: E402
from msdoc import report_md  # noqa: E402
from msdoc.compare import classify_blocks  # noqa: E402
from msdoc.tutorials import extract  # noqa: E402

OFFLINE = REPO / "scripts" / "msdoc" / "offline"
MIRROR = os.environ.get("OPBUILD_MSDOCS_MIRROR", "/work/.mirror/mindspore-ai+docs/repo")
COLUMNS = ("equal", "value differs", "error")


def _ms_ok(rec: dict | None) -> bool:
    return bool(rec) and any(not s["exc"] for s in rec["stmts"])


def report(programs: list[dict], ms: dict, ob: dict, ms2: dict) -> dict[str, list[dict]]:
    """Per tutorial id, the classification of each of its blocks."""
    return {p["id"]: classify_blocks(p, ms.get(p["id"]), ob.get(p["id"]), ms2.get(p["id"])) for p in programs}


def summary(programs: list[dict], rows: dict[str, list[dict]]) -> str:
    """Markdown table: per tutorial, blocks, blocks that run on MindSpore's CPU, equal on opbuild, value
    differs, error; the blocks left out (MindSpore fails) and how many of them opbuild fails the same way."""
    lines = ["| tutorial | blocks | run on MindSpore CPU | equal on opbuild | % | value differs | error "
             "| left out (MindSpore raises) | of which opbuild raises the same |",
             "|---|---|---|---|---|---|---|---|---|"]
    tot: Counter = Counter()
    for p in programs:
        c = Counter(r["status"] for r in rows[p["id"]])
        c["blocks"] = len(p["stmts"])
        c["same"] = sum(bool(r.get("same error")) for r in rows[p["id"]])
        ran = c["equal"] + c["value differs"] + c["error"]
        c["ran"] = ran
        tot.update(c)
        pct = f"{100 * c['equal'] / ran:.0f}%" if ran else "-"
        lines.append(f"| {p['name']} | {c['blocks']} | {ran} | {c['equal']} | {pct} | {c['value differs']} "
                     f"| {c['error']} | {c['left out']} | {c['same']} |")
    pct = f"{100 * tot['equal'] / tot['ran']:.0f}%" if tot["ran"] else "-"
    lines.append(f"| **all** | {tot['blocks']} | {tot['ran']} | {tot['equal']} | {pct} | {tot['value differs']} "
                 f"| {tot['error']} | {tot['left out']} | {tot['same']} |")
    return "\n".join(lines) + "\n"


def causes(rows: dict[str, list[dict]]) -> str:
    """Markdown: the errors by cause (most frequent first), the value differences, the blocks left out."""
    out = []
    cnt: Counter = Counter()
    who = defaultdict(list)
    for tid, blocks in rows.items():
        for i, r in enumerate(blocks):
            if r["status"] == "error":
                cnt[r["cause"]] += 1
                who[r["cause"]].append(f"{tid.split(':', 1)[1]}#{i}")
    out.append(f"## Errors ({sum(cnt.values())} blocks)\n\n| blocks | cause | where |\n|---|---|---|")
    for cause, k in cnt.most_common():
        out.append(f"| {k} | `{cause.replace('|', '/')[:150]}` | {', '.join(who[cause][:5])} |")
    out.append("\n## Values differ\n")
    for tid, blocks in rows.items():
        for i, r in enumerate(blocks):
            if r["status"] == "value differs":
                out.append(f"- `{tid.split(':', 1)[1]}#{i}` {r['detail'][:220]}")
    out.append("\n## Left out: MindSpore raises on the CPU\n")
    for tid, blocks in rows.items():
        for i, r in enumerate(blocks):
            if r["status"] == "left out":
                same = " (opbuild raises the same type)" if r.get("same error") else ""
                out.append(f"- `{tid.split(':', 1)[1]}#{i}` {r['reason']}: {r['detail'][:160]}{same}")
    return "\n".join(out) + "\n"


def _env(extra_path: list[str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPBUILD_AS_MINDSPORE")}
    env.update(OMP_NUM_THREADS="1", GLOG_v="3", MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(extra_path + [str(OFFLINE)]))
    return env


def _run(cmd: list[str], env: dict, ex_path: Path, ids: list[str], results: Path, timeout: float,
         label: str) -> None:
    # One tutorial per process: a tutorial's context settings (GRAPH_MODE, seeds) must not leak into the next.
    # fd-level capture: MindSpore's GRAPH_MODE print writes from C++, not through sys.stdout.
    run_examples(cmd, env, ex_path, ids, results, timeout, label, batch_size=1, runner_args=("--capture-fd",))


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=["record", "run", "recheck", "report", "all"])
    p.add_argument("--match", default="")
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("--cache", default=str(REPO / ".mstutorials"))
    p.add_argument("--mirror", default=MIRROR)
    p.add_argument("--rev", default="HEAD")
    p.add_argument("--ms-python", default="/tmp/ms/bin/python")
    p.add_argument("--fresh", action="store_true")
    p.add_argument("--src", default=str(REPO / "src"), help="the opbuild source tree to measure")
    p.add_argument("--md", default="", help="write the table and the causes to this Markdown file")
    args = p.parse_args(argv)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    ex_path, ms_path, ob_path = cache / "tutorials.json", cache / "mindspore.jsonl", cache / "opbuild.jsonl"
    ms2_path = cache / "mindspore-again.jsonl"
    programs = extract(args.mirror, rev=args.rev)
    ex_path.write_text(json.dumps(programs))
    ids = [e["id"] for e in programs if args.match in e["name"] and e["stmts"]]
    if args.action in ("record", "all"):
        run_examples_ms = [i for i in ids if i not in _load_jsonl(ms_path)]
        _run([args.ms_python], _env([]), ex_path, run_examples_ms, ms_path, args.timeout, "MindSpore")
    if args.action in ("run", "all"):
        if args.fresh:
            old = _load_jsonl(ob_path)
            ob_path.write_text("".join(json.dumps(r) + "\n" for i, r in old.items() if i not in set(ids)))
        ms = _load_jsonl(ms_path)
        ok = [i for i in ids if _ms_ok(ms.get(i))]
        _run([sys.executable], _env([str(Path(args.src).resolve())]), ex_path, ok, ob_path, args.timeout,
             "opbuild")
    rows = report(programs, _load_jsonl(ms_path), _load_jsonl(ob_path), _load_jsonl(ms2_path))
    if args.action in ("recheck", "all"):
        again = [i for i in ids if any(r["status"] == "value differs" for r in rows[i])]
        _run([args.ms_python], _env([]), ex_path, again, ms2_path, args.timeout, "MindSpore again")
        rows = report(programs, _load_jsonl(ms_path), _load_jsonl(ob_path), _load_jsonl(ms2_path))
    if args.action in ("report", "all"):
        shown = [pr for pr in programs if pr["id"] in ids]
        rows = {i: rows[i] for i in ids}
        (cache / "report.json").write_text(json.dumps(rows, indent=1))
        table = summary(shown, rows)
        print(table)
        if args.md:
            report_md.write(args.md, "MindSpore tutorials on opbuild", "ms_tutorials.py", argv, table, causes(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
