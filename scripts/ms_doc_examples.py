"""Run MindSpore 2.10's documented examples (the ``>>>`` examples of its public API's docstrings) under real
MindSpore on the CPU and under opbuild (through the import alias), compare the printed values, and report per
API group.

    python scripts/ms_doc_examples.py record             # MindSpore's outputs (slow; incremental, cached)
    python scripts/ms_doc_examples.py run [--fresh]      # opbuild's outputs (--fresh: discard earlier ones)
    python scripts/ms_doc_examples.py recheck            # MindSpore again where values differ (random?)
    python scripts/ms_doc_examples.py report [--md FILE] # compare: JSON report + summary table
    python scripts/ms_doc_examples.py all                # the three in turn

Options: ``--groups "Tensor,top level"``, ``--match SUBSTRING`` (example ids), ``--timeout S`` (per example),
``--cache DIR`` (default ``.msdoc/`` in the repository, gitignored; also ``$OPBUILD_MSDOC_CACHE``),
``--ms-python PATH`` (default ``/tmp/ms/bin/python``), ``--src DIR`` (the opbuild tree to measure, default this
repository's ``src``). The examples are extracted at run time from the
installed MindSpore (scripts/msdoc/extract.py); nothing of its text is stored in the repository. Runs one
framework process at a time, a batch of examples per process; an example that hangs or kills its process is
recorded as ``timeout``/``crash`` and the batch goes on after it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from msdoc import report_md  # noqa: E402
from msdoc.compare import classify  # noqa: E402

RUNNER = REPO / "scripts" / "msdoc" / "runner.py"
EXTRACT = REPO / "scripts" / "msdoc" / "extract.py"
GROUP_ORDER = ["top level", "Tensor", "Cell", "dataset", "train", "amp", "initializer",
               "ops functions", "ops primitives", "nn", "numpy"]
BATCH = 60


def _load_jsonl(path: Path) -> dict[str, dict]:
    out: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by a kill
                out[rec["id"]] = rec
    return out


def _append(path: Path, rec: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(rec) + "\n")


# Examples that start a distributed job (collective communication, parameter servers) wait for peers that a
# single process never gets: recorded as needing a distributed launch without running them.
_DISTRIBUTED = re.compile(r"\binit\(\s*\)|communication import|mpirun|msrun|get_rank\(|get_group_size\(")


def needs_launch(example: dict) -> bool:
    """True for an example that initialises collective communication."""
    return any(_DISTRIBUTED.search(s["source"]) for s in example["stmts"])


def run_examples(cmd: list[str], env: dict, examples_path: Path, ids: list[str], results: Path,
                 timeout: float, label: str, batch_size: int = BATCH, runner_args: tuple = ()) -> None:
    """Run ``ids`` through the runner (``cmd`` + runner arguments), a batch per process; writes ``results``."""
    by_id = {e["id"]: e for e in json.loads(examples_path.read_text())}
    done0 = _load_jsonl(results)
    for i in ids:
        if i not in done0 and needs_launch(by_id[i]):
            _append(results, {"id": i, "stmts": [], "fail": "needs a distributed launch"})
    todo = [i for i in ids if i not in _load_jsonl(results)]
    total = len(todo)
    t_start = time.time()
    while todo:
        batch = todo[:batch_size]
        with tempfile.TemporaryDirectory(prefix="msdoc_") as work:
            ids_file, progress = Path(work) / "ids.txt", Path(work) / "progress.txt"
            ids_file.write_text("\n".join(batch) + "\n")
            progress.write_text("")
            proc = subprocess.Popen(cmd + [str(RUNNER), str(examples_path), str(ids_file), str(results),
                                           str(progress)] + (["--opbuild"] if label == "opbuild" else [])
                                    + list(runner_args),
                                    cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True)
            current, since, fail = None, time.time(), None
            while proc.poll() is None:
                time.sleep(0.2)
                lines = progress.read_text().split()
                last = lines[-1] if lines else None
                if last != current:
                    current, since = last, time.time()
                if time.time() - since > timeout:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    fail = "timeout"
            done = _load_jsonl(results)
            lines = progress.read_text().split()
            current = lines[-1] if lines else None
            if current and current not in done:
                # The statements that finished before the kill (the runner rewrites them after each one).
                partial = Path(str(progress) + ".stmts")
                try:
                    stmts = json.loads(partial.read_text()) if partial.exists() else []
                except json.JSONDecodeError:
                    stmts = []
                _append(results, {"id": current, "stmts": stmts,
                                  "fail": fail or f"crash (exit {proc.returncode})"})
                done[current] = {}
            elif not lines:  # the interpreter failed before the first example
                raise SystemExit(f"{label}: the runner did not start (exit {proc.returncode}); try it by hand")
        todo = [i for i in todo if i not in done]
        n = total - len(todo)
        print(f"{label}: {n}/{total} examples, {time.time() - t_start:.0f} s", flush=True)


def _select(examples: list[dict], args) -> list[str]:
    groups = set(args.groups.split(",")) if args.groups else None
    return [e["id"] for e in examples if (groups is None or e["group"] in groups)
            and (not args.match or args.match in e["id"])]


def report(examples: list[dict], ms: dict, ob: dict, ids: list[str], ms2: dict | None = None) -> dict:
    """The classification of every example of ``ids``."""
    by_id = {e["id"]: e for e in examples}
    rows = {}
    for i in ids:
        ex = by_id[i]
        c = classify(ex, ms.get(i), ob.get(i), (ms2 or {}).get(i))
        c["group"] = ex["group"]
        rows[i] = c
    return rows


def summary(rows: dict) -> str:
    """Markdown table: per group, examples, run on MindSpore's CPU, passes, and the failure classes."""
    stat = defaultdict(Counter)
    for r in rows.values():
        stat[r["group"]][r["status"]] += 1
        stat[r["group"]]["random"] += bool(r.get("random"))
    lines = ["| API group | examples | run on MindSpore CPU | pass on opbuild | % | of which random | value differs "
             "| missing name | error |", "|---|---|---|---|---|---|---|---|---|"]
    tot = Counter()
    for g in GROUP_ORDER:
        if g not in stat:
            continue
        s = stat[g]
        n = sum(s.values()) - s["random"]
        ran = n - s["skipped"] - s["not recorded"] - s["not run"]
        tot.update(s)
        pct = f"{100 * s['passes'] / ran:.0f}%" if ran else "-"
        lines.append(f"| {g} | {n} | {ran} | {s['passes']} | {pct} | {s['random']} | {s['value differs']} "
                     f"| {s['missing name']} | {s['error']} |")
    n = sum(tot.values()) - tot["random"]
    ran = n - tot["skipped"] - tot["not recorded"] - tot["not run"]
    pct = f"{100 * tot['passes'] / ran:.0f}%" if ran else "-"
    lines.append(f"| **all** | {n} | {ran} | {tot['passes']} | {pct} | {tot['random']} | {tot['value differs']} | "
                 f"{tot['missing name']} | {tot['error']} |")
    return "\n".join(lines) + "\n"


def causes(rows: dict, top: int = 80) -> str:
    """Markdown: every missing name and the ``top`` most frequent error causes, most frequent first, with the
    examples they block."""
    out = []
    for status, title in (("missing name", "Missing names"), ("error", "Errors (type: first line)")):
        cnt: Counter = Counter()
        who = defaultdict(list)
        for i, r in rows.items():
            if r["status"] == status:
                cnt[r["cause"]] += 1
                who[r["cause"]].append(i)
        out.append(f"## {title} ({sum(cnt.values())} examples, {len(cnt)} distinct)\n")
        out.append("| examples | cause | groups | some examples |\n|---|---|---|---|")
        for cause, k in cnt.most_common(None if status == "missing name" else top):
            groups = Counter(rows[i]["group"] for i in who[cause])
            gtxt = ", ".join(f"{g} {n}" for g, n in groups.most_common())
            ex = ", ".join(i.split(":", 1)[1] for i in who[cause][:4])
            out.append(f"| {k} | `{cause.replace('|', '/')[:120]}` | {gtxt} | {ex} |")
        out.append("")
    diff = [(i, r) for i, r in rows.items() if r["status"] == "value differs"]
    out.append(f"## Values differ ({len(diff)} examples)\n")
    for i, r in sorted(diff, key=lambda x: (GROUP_ORDER.index(x[1]["group"]), x[0])):
        out.append(f"- `{i}` {r['detail'][:200]}")
    skipped = Counter(r.get("reason", "") for r in rows.values() if r["status"] == "skipped")
    out.append("\n## Skipped: MindSpore itself fails on the CPU\n")
    out += [f"- {k}: {n}" for k, n in skipped.most_common()]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("action", choices=["record", "run", "recheck", "report", "all"])
    p.add_argument("--groups", default="")
    p.add_argument("--match", default="")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--cache", default=os.environ.get("OPBUILD_MSDOC_CACHE", str(REPO / ".msdoc")))
    p.add_argument("--ms-python", default="/tmp/ms/bin/python")
    p.add_argument("--fresh", action="store_true")
    p.add_argument("--src", default=str(REPO / "src"), help="the opbuild source tree to measure")
    p.add_argument("--md", default="", help="write the summary and the causes to this Markdown file")
    args = p.parse_args(argv)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    ex_path, ms_path, ob_path = cache / "examples.json", cache / "mindspore.jsonl", cache / "opbuild.jsonl"
    ms2_path = cache / "mindspore-again.jsonl"
    if not ex_path.exists():
        subprocess.run([args.ms_python, str(EXTRACT), str(ex_path)], check=True, cwd=tempfile.gettempdir())
    examples = json.loads(ex_path.read_text())
    ids = _select(examples, args)
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "OPBUILD_AS_MINDSPORE")}
    base_env.update(OMP_NUM_THREADS="1", GLOG_v="3")
    if args.action in ("record", "all"):
        run_examples([args.ms_python], base_env, ex_path, ids, ms_path, args.timeout, "MindSpore")
    if args.action in ("run", "all"):
        if args.fresh:
            old = _load_jsonl(ob_path)
            keep = [r for i, r in old.items() if i not in set(ids)]
            ob_path.write_text("".join(json.dumps(r) + "\n" for r in keep))
        ms = _load_jsonl(ms_path)
        # Only what ran on MindSpore's CPU is worth running on opbuild.
        ok = [i for i in ids if i in ms and not ms[i].get("fail") and not any(s["exc"] for s in ms[i]["stmts"])]
        env = dict(base_env, PYTHONPATH=str(Path(args.src).resolve()))
        run_examples([sys.executable], env, ex_path, ok, ob_path, args.timeout, "opbuild")
    if args.action in ("recheck", "all"):
        rows = report(examples, _load_jsonl(ms_path), _load_jsonl(ob_path), ids)
        again = [i for i, r in rows.items() if r["status"] == "value differs"]
        run_examples([args.ms_python], base_env, ex_path, again, ms2_path, args.timeout, "MindSpore again")
    if args.action in ("report", "all"):
        rows = report(examples, _load_jsonl(ms_path), _load_jsonl(ob_path), ids, _load_jsonl(ms2_path))
        (cache / "report.json").write_text(json.dumps(rows, indent=1))
        table = summary(rows)
        print(table)
        if args.md:
            report_md.write(args.md, "MindSpore documented examples on opbuild", "ms_doc_examples.py", argv, table,
                            causes(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
