"""Kill soak of the kernel cache: SIGKILL builds at random moments and inside the commit window, then check.

Each trial starts 1 to ``--procs`` worker processes (concurrently, on one shared cache), each running a small
elementwise network of random widths (so most of its kernels are new and get compiled), and SIGKILLs them:

  * ``random`` trials: each worker is killed after a random delay (0 to 1.2x a typical run); a kill counts
    only if the worker was still running;
  * ``commit`` trials: the workers run with the test hook ``OPBUILD_TEST_COMMIT_HOOK``
    (tests/hooks/opbuild_test_hooks.py, patched in from outside the package), which makes every publish
    announce itself and pause after writing an entry's binary and after its ``.info``,
    before the ``.json`` commits it; each worker is killed at a random announcement, inside that window.

After every trial a clean worker runs all of the trial's networks (its outputs must match NumPy; entries the
kills left broken must be repaired) and then verifies the whole kernel_meta (``opbuild cache verify``'s
check, in that process) which must find nothing. A worker that was not killed must exit 0 too. The cache is
started afresh every ``--reset-every`` trials so the verification stays cheap.

Prints a table and writes JSON to ``--out`` (default benchmarks/results/soak_kill.json). Exit status 1 if
any check failed. ``python scripts/soak_kill.py --kills 1000 --procs 3``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOOK_PAUSE = 0.2  # seconds a hooked worker waits in each commit window: the parent polls every 5 ms


# ---- worker (runs in the child processes) ----------------------------------------------------------------
def _worker(cfg: dict) -> int:
    """Build and run one network per ``cfg["nets"]`` (lists of widths), check its outputs against NumPy;
    with ``cfg["verify"]`` also verify the whole cache. Prints one JSON line."""
    import numpy as np

    import opbuild as ms
    import opbuild.nn as nn
    import opbuild.ops as ops
    from opbuild.cache.admin import verify

    class Branches(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.sigmoid, self.tanh, self.relu = ops.Sigmoid(), ops.Tanh(), ops.ReLU()
            self.mul, self.add = ops.Mul(), ops.Add()

        def construct(self, *xs):
            return tuple(self.relu(self.add(self.mul(self.sigmoid(x), self.tanh(x)), x)) for x in xs)

    repaired = built = 0
    rng = np.random.default_rng(0)
    for widths in cfg["nets"]:
        xs = [rng.uniform(-3, 3, (2, w)).astype(np.float32) for w in widths]
        outs = Branches()(*[ms.Tensor(x) for x in xs])
        outs = outs if isinstance(outs, tuple) else (outs,)
        for x, y in zip(xs, outs, strict=True):
            want = np.maximum((1 / (1 + np.exp(-x))) * np.tanh(x) + x, 0)
            np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5, atol=1e-6)
        report = ms.build_report()
        repaired += report.repaired
        built += report.built
    result = {"repaired": repaired, "built": built}
    if cfg.get("verify"):
        from opbuild.core import config

        found = verify.verify(config.cache_dir())
        result["problems"] = [f"{p.kind} {p.path}: {p.detail}" for p in found.problems]
        result["in_progress"] = found.in_progress
    print(json.dumps(result))
    return 0


# ---- driver ------------------------------------------------------------------------------------------------
def _env(root: Path, hook: Path | None) -> dict:
    env = dict(os.environ)
    # tests/hooks first: its sitecustomize installs the commit hook (the package reads no test hook itself).
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tests" / "hooks"), str(ROOT / "src"),
                                         *filter(None, [env.get("PYTHONPATH")])])
    env.update(OPBUILD_CACHE_PATH=str(root), RANK_ID="", OPBUILD_BUILD_JOBS="2", OPBUILD_PROGRESS="0")
    env.pop("OPBUILD_TEST_COMMIT_HOOK", None)
    if hook is not None:
        env["OPBUILD_TEST_COMMIT_HOOK"] = f"{HOOK_PAUSE}:{hook}"
    return env


def _start(cfg: dict, env: dict) -> subprocess.Popen:
    # Its own session: the kill takes the compilers it started with it, as a real crash of a job would not,
    # but a leftover compiler would only add load to this shared machine.
    return subprocess.Popen([sys.executable, __file__, "--worker", json.dumps(cfg)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _kill(proc: subprocess.Popen) -> bool:
    """SIGKILL the worker's process group; whether it was still running."""
    if proc.poll() is not None:
        return False
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def _announcements(path: Path) -> list[tuple[int, str, str]]:
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[0].isdigit():
            out.append((int(parts[0]), parts[1], parts[2]))
    return out


def _trial(rng: random.Random, root: Path, procs: int, mode: str, typical: float, width_pool: int) -> dict:
    n = rng.randint(1, procs)
    shared = [rng.randint(1, width_pool) for _ in range(4)]  # workers of a trial overlap: same kernels at once
    nets = [[rng.choice(shared), rng.randint(1, width_pool), rng.randint(1, width_pool)] for _ in range(n)]
    hook = root / f".soak-hook-{os.getpid()}" if mode == "commit" else None
    if hook is not None:
        hook.unlink(missing_ok=True)
    env = _env(root, hook)
    workers = [_start({"nets": [net]}, env) for net in nets]
    t0 = time.monotonic()
    kills = window_kills = 0
    if mode == "random":
        for proc, at in sorted(zip(workers, (rng.uniform(0, 1.2 * typical) for _ in workers)), key=lambda p: p[1]):
            time.sleep(max(0.0, at - (time.monotonic() - t0)))
            kills += _kill(proc)
    else:
        target = {w.pid: rng.randint(1, 6) for w in workers}  # the k-th announcement of each worker
        seen: dict[int, int] = {}
        done: set[int] = set()
        killed: set[int] = set()
        while len(done) < len(workers) and time.monotonic() - t0 < 120:
            for pid, _, _ in _announcements(hook)[sum(seen.values()):]:
                seen[pid] = seen.get(pid, 0) + 1
                proc = next(w for w in workers if w.pid == pid)
                if pid not in done and seen[pid] >= target[pid]:
                    done.add(pid)
                    if _kill(proc):
                        killed.add(pid)
                        kills += 1
                        window_kills += 1
            for w in workers:
                if w.poll() is not None:
                    done.add(w.pid)
            time.sleep(0.005)
        for w in workers:
            # A worker that never reached its k-th window (it published fewer entries) and still runs; never
            # one killed above (not yet reaped, killpg would "succeed" again on it and count it twice).
            if w.pid not in killed:
                kills += _kill(w)
    failures = []
    for w, net in zip(workers, nets, strict=True):
        out, err = w.communicate()
        if w.returncode not in (0, -signal.SIGKILL):
            failures.append(f"worker {net} exited {w.returncode}: {err.strip()[-500:]}")
    t_check = time.monotonic()
    check = subprocess.run([sys.executable, __file__, "--worker", json.dumps({"nets": nets, "verify": True})],
                           env=_env(root, None), capture_output=True, text=True, timeout=600)
    check_seconds = time.monotonic() - t_check
    result = {"procs": n, "mode": mode, "kills": kills, "window_kills": window_kills, "failures": failures,
              "repaired": 0, "problems": [], "check_seconds": check_seconds}
    if check.returncode != 0 or "Traceback" in check.stderr:
        failures.append(f"clean run of {nets} failed ({check.returncode}): {check.stderr.strip()[-1000:]}")
    else:
        got = json.loads(check.stdout.strip().splitlines()[-1])
        result["repaired"] = got["repaired"]
        result["problems"] = got["problems"]
        if got["problems"]:
            failures.append(f"verify after the clean run: {got['problems'][:3]}")
    if hook is not None:
        hook.unlink(missing_ok=True)
    return result


def _cli_verify(root: Path) -> tuple[int, str]:
    """``opbuild cache verify`` itself, as a user would run it."""
    proc = subprocess.run([sys.executable, "-m", "opbuild", "cache", "verify"], env=_env(root, None),
                          capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()


def main(argv: list[str] | None = None) -> int:
    """Run the soak (see the module doc); 0 if every check passed."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=1000, help="stop after this many SIGKILLs (default 1000)")
    ap.add_argument("--procs", type=int, default=3, choices=(1, 2, 3), help="most concurrent workers per trial")
    ap.add_argument("--commit-share", type=float, default=0.3,
                    help="share of trials whose kills are forced inside the commit window, evenly interleaved "
                         "(default 0.3)")
    ap.add_argument("--reset-every", type=int, default=20, help="start a fresh cache every N trials (default 20)")
    ap.add_argument("--widths", type=int, default=300, help="branch widths are drawn from 1..N (default 300)")
    ap.add_argument("--max-minutes", type=float, default=0, help="stop earlier after this long (0: no limit)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--root", type=Path, help="cache root (default: a temporary directory, removed at the end)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "soak_kill.json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is not None:
        return _worker(json.loads(args.worker))
    if args.kills < 1 or not 0 <= args.commit_share <= 1 or args.reset_every < 1 or args.widths < 1:
        ap.error("--kills, --reset-every and --widths must be >= 1 and --commit-share in [0, 1]")

    rng = random.Random(args.seed)
    base = args.root or Path(tempfile.mkdtemp(prefix="opbuild-soak-"))
    t0 = time.monotonic()
    trials: list[dict] = []
    typical = 1.5  # seconds of a worker's run; updated from the clean runs
    try:
        while sum(t["kills"] for t in trials) < args.kills:
            if args.max_minutes and time.monotonic() - t0 > args.max_minutes * 60:
                break
            root = base / f"cache{len(trials) // args.reset_every}"
            if len(trials) % args.reset_every == 0 and len(trials):
                shutil.rmtree(base / f"cache{len(trials) // args.reset_every - 1}", ignore_errors=True)
            i = len(trials)  # commit-window trials evenly interleaved: --commit-share 0.5 alternates
            mode = "commit" if int((i + 1) * args.commit_share) > int(i * args.commit_share) else "random"
            t = _trial(rng, root, args.procs, mode, typical, args.widths)
            typical = 0.8 * typical + 0.2 * t["check_seconds"]
            trials.append(t)
            if t["failures"]:
                print(f"trial {len(trials)}: FAILED: {t['failures']}", file=sys.stderr)
            if len(trials) % 10 == 0:
                print(f"... {len(trials)} trials, {sum(x['kills'] for x in trials)} kills, "
                      f"{sum(bool(x['failures']) for x in trials)} failed", file=sys.stderr, flush=True)
        cli_rc, cli_line = _cli_verify(base / f"cache{max(0, len(trials) - 1) // args.reset_every}")
    finally:
        if args.root is None:
            shutil.rmtree(base, ignore_errors=True)
    wall = time.monotonic() - t0
    summary = {
        "trials": len(trials),
        "kills": sum(t["kills"] for t in trials),
        "commit_window_kills": sum(t["window_kills"] for t in trials),
        "random_kills": sum(t["kills"] for t in trials if t["mode"] == "random"),
        "trials_by_procs": {str(p): sum(t["procs"] == p for t in trials) for p in (1, 2, 3)},
        "kernels_repaired": sum(t["repaired"] for t in trials),
        "failed_trials": sum(bool(t["failures"]) for t in trials),
        "verify_problems": sum(len(t["problems"]) for t in trials),
        "final_cli_verify_rc": cli_rc,
        "wall_s": round(wall, 1),
    }
    rows = [("trials", summary["trials"]), ("SIGKILLs", summary["kills"]),
            ("  inside the commit window", summary["commit_window_kills"]),
            ("  at random moments", summary["random_kills"]),
            ("trials with 1/2/3 workers", "/".join(str(summary["trials_by_procs"][p]) for p in "123")),
            ("kernels repaired by clean runs", summary["kernels_repaired"]),
            ("failed trials (wrong output, crash, verify)", summary["failed_trials"]),
            ("verify problems after clean runs", summary["verify_problems"]),
            ("final `opbuild cache verify`", f"rc {cli_rc}: {cli_line}"), ("wall time (s)", summary["wall_s"])]
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items() if k != "worker"},
                                    "summary": summary, "trials": trials}, indent=1) + "\n")
    print(f"written to {args.out}")
    return 0 if summary["failed_trials"] == 0 and cli_rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
