"""Build-time benchmark: opbuild's cold, warm and incremental builds and first-call latencies on four networks,
side by side with torch.compile (Inductor, CPU) and jax.jit (persistent compilation cache).

    python benchmarks/bench_build.py [--quick] [--nets mlp,resnet,resnet50,bert] [--no-peers] [--out DIR]
                                     [--repeats N] [--threads N] [--keep]

Networks (benchmarks/netspec.py): the examples' MLP, the ResNet-style CNN, ResNet-50 (224x224, batch 1) and a
BERT-base encoder (12 layers, hidden 768, sequence 128, batch 1). ``--quick`` keeps the MLP and the small
ResNet, and shrinks ResNet-50 (width 16, 64x64) and BERT (4 layers, hidden 256) so the peers' cold compiles
take seconds; the default is the honest full size.

Every measurement runs in a fresh process (benchmarks/build_worker.py) with its own caches:
  opbuild  OPBUILD_CACHE_PATH = an empty temporary directory for the cold run, the same one for warm runs.
           cold build = BuildReport.seconds when every kernel is built; warm build = BuildReport.seconds when
           every kernel is reused (the whole build phase: descriptors, lookups, verification, loading);
           loader floor = reading + sha256 + dlopen of the same binaries and one dlsym per kernel, nothing
           else (its own fresh process); incremental = one layer's width changed, rebuilt on the warm cache.
  torch    torch.compile(model) (Inductor, default mode), TORCHINDUCTOR_CACHE_DIR and TMPDIR empty for the
           cold run (Inductor keeps a precompiled header in TMPDIR), the same ones for warm runs.
  jax      jax.jit with the persistent compilation cache (jax_compilation_cache_dir,
           jax_persistent_cache_min_compile_time_secs = 0), empty for the cold run.
first call = the first forward call of the process (trace + build/compile/load + one execution); latency =
import + first call; steady = median per call after warm-up. Warm figures are medians over ``--repeats``
fresh processes. All frameworks run with ``--threads`` intra-op threads (default 1: the machine is shared,
and spinning BLAS threads on busy cores make every timing erratic).

Prints the tables, writes ``<out>/build.json``, ``<out>/build.md`` (the tables in markdown) and
``<out>/build.png`` (bar chart). Peers that are not installed
(``pip install -e '.[bench]'``) are skipped with a note.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import netspec  # noqa: E402  (benchmarks/ is not a package)

WORKER = HERE / "build_worker.py"
SRC = HERE.parent / "src"
PEERS = ("torch", "jax")

# Targets of the issue, per distinct kernel and against the peers.
COLD_MS_PER_KERNEL = 15.0
WARM_MS_PER_KERNEL = 0.1
# The issue sets the warm target for these two; for the others it is shown for information (the MLP's 8
# kernels sit under a floor of ~0.13 ms each, BERT-base's 26 kernels serve 592 graph nodes).
WARM_TARGET_NETS = ("resnet", "resnet50")


class WorkerError(RuntimeError):
    """A worker process failed; carries its command and output tail."""


def worker_env(threads: int, extra: dict[str, str]) -> dict[str, str]:
    """The environment of a worker: thread counts pinned, this checkout's src first on PYTHONPATH."""
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    if threads == 1:
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                            " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").strip()
    if SRC.is_dir():
        env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [env.get("PYTHONPATH")])])
    env["OPBUILD_PROGRESS"] = "0"
    env.update(extra)
    return env


def run_worker(args: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Run build_worker.py in a fresh interpreter and return its RESULT."""
    cmd = [sys.executable, str(WORKER), *args]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    tail = (proc.stderr + proc.stdout)[-3000:]
    raise WorkerError(f"worker {' '.join(args[:1])} failed (exit {proc.returncode}):\n{tail}")


def median_of(runs: list[dict[str, Any]], keys: list[str]) -> dict[str, Any]:
    """Per-key medians over runs (keys missing from a run are skipped)."""
    out: dict[str, Any] = {}
    for k in keys:
        vals = [r[k] for r in runs if k in r]
        if vals:
            out[k] = statistics.median(vals)
    return out


TIMES = ["import_s", "init_s", "first_call_s", "latency_s", "build_s", "build_thread_cpu_s", "compiler_cpu_s"]


def bench_opbuild(cfg: dict, change: tuple[dict, str], a: argparse.Namespace, root: Path) -> dict[str, Any]:
    """Cold, warm x repeats, loader floor x repeats and incremental builds of one network."""
    cache, tmp = root / "cache", root / "tmp"
    tmp.mkdir(parents=True)
    env = worker_env(a.threads, {"OPBUILD_CACHE_PATH": str(cache), "TMPDIR": str(tmp)})
    conf = json.dumps(cfg)
    colds = [run_worker(["opbuild", "--config", conf], env, a.timeout)]
    for i in range(1, a.repeats):  # more cold builds, each into its own empty cache
        more = {"OPBUILD_CACHE_PATH": str(root / f"cache-cold{i}")}
        colds.append(run_worker(["opbuild", "--config", conf], worker_env(a.threads, {**env, **more}), a.timeout))
    cold = dict(colds[0], **median_of(colds, TIMES))
    cold["best_build_s"] = min(c["build_s"] for c in colds)
    cold["built"] = min(c["built"] for c in colds)
    cold["runs"] = [_slim(c) for c in colds]
    warms = [run_worker(["opbuild", "--config", conf, *(["--steady", str(a.steady)] if i == 0 else [])],
                        env, a.timeout) for i in range(a.repeats)]
    names = root / "names.json"
    names.write_text(json.dumps(warms[0]["kernels"]))
    floors = [run_worker(["floor", "--dir", warms[0]["cache_dir"], "--names", str(names)], env, a.timeout)
              for _ in range(a.repeats)]
    incr = run_worker(["opbuild", "--config", json.dumps(change[0])], env, a.timeout)
    distinct = cold["distinct"]
    warm = median_of(warms, TIMES)
    warm.update({k: warms[0][k] for k in ("steady_s", "steady_min_s", "steady_calls") if k in warms[0]})
    warm.update({"reused": min(w["reused"] for w in warms), "built": max(w["built"] for w in warms),
                 "repaired": max(w["repaired"] for w in warms), "runs": [_slim(w) for w in warms]})
    floor = median_of(floors, ["floor_s", "floor_cpu_s", "meta_read_s"])
    floor.update(binaries=floors[0]["binaries"], runs=floors)
    return {
        "distinct_kernels": distinct, "graph_nodes": cold["graph_nodes"], "build_jobs": cold["build_jobs"],
        "cold": _slim(cold), "warm": warm, "floor": floor,
        "incremental": {"change": change[1], **_slim(incr)},
        "cold_ms_per_kernel": 1e3 * cold["build_s"] / distinct,
        "cold_best_ms_per_kernel": 1e3 * cold["best_build_s"] / distinct,
        "cold_cpu_ms_per_kernel": 1e3 * cold["compiler_cpu_s"] / distinct,
        "warm_ms_per_kernel": 1e3 * warm["build_s"] / distinct,
        "warm_ms_per_node": 1e3 * warm["build_s"] / cold["graph_nodes"],
        "warm_best_ms_per_kernel": 1e3 * min(w["build_s"] for w in warms) / distinct,
        "warm_cpu_ms_per_kernel": 1e3 * warm["build_thread_cpu_s"] / distinct,
        "floor_ms_per_kernel": 1e3 * floor["floor_s"] / distinct,
        "warm_over_floor": warm["build_s"] / floor["floor_s"],
        "warm_over_floor_cpu": warm["build_thread_cpu_s"] / floor["floor_cpu_s"],
    }


def _slim(r: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in r.items() if k not in ("kernels", "cache_dir")}


def bench_peer(peer: str, cfg: dict, a: argparse.Namespace, root: Path) -> dict[str, Any]:
    """Cold (empty caches) and warm x repeats (same caches) first calls of one peer on one network."""
    tmp = root / "tmp"
    tmp.mkdir(parents=True)
    extra = {"TMPDIR": str(tmp)}
    if peer == "torch":
        extra["TORCHINDUCTOR_CACHE_DIR"] = str(root / "inductor")
    else:
        extra["BENCH_JAX_CACHE"] = str(root / "jax")
    env = worker_env(a.threads, extra)
    conf = json.dumps(cfg)
    base = [peer, "--config", conf, "--threads", str(a.threads)]
    cold = run_worker(base, env, a.timeout)
    warms = [run_worker(base + (["--steady", str(a.steady)] if i == 0 else []), env, a.timeout)
             for i in range(a.repeats)]
    warm = median_of(warms, TIMES)
    warm.update({k: warms[0][k] for k in ("steady_s", "steady_min_s", "steady_calls") if k in warms[0]})
    warm["runs"] = warms
    return {"cold": cold, "warm": warm}


def peer_versions() -> tuple[dict[str, str], dict[str, str]]:
    """Installed peers' versions and notes for the missing ones (without importing them here)."""
    found, notes = {}, {}
    from importlib import metadata

    for peer, dist in (("torch", "torch"), ("jax", "jaxlib")):
        if importlib.util.find_spec(peer) is None:
            notes[peer] = f"{peer} is not installed: skipped (pip install -e '.[bench]')"
            continue
        try:
            found[peer] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[peer] = "unknown"
    return found, notes


# ---- evaluation --------------------------------------------------------------------------------------------

def evaluate(net: str, r: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets for one network: value, limit, met."""
    ob = r["opbuild"]
    out = [
        {"net": net, "target": f"cold build <= {COLD_MS_PER_KERNEL:g} ms per distinct kernel",
         "value": ob["cold_ms_per_kernel"], "unit": "ms/kernel", "met": ob["cold_ms_per_kernel"] <= COLD_MS_PER_KERNEL},
        # Judged per DISTINCT kernel (the strict reading); per graph node (every kernel instance the build
        # hands out) is shown alongside.
        {"net": net, "target": f"warm build <= {WARM_MS_PER_KERNEL:g} ms per kernel",
         "value": ob["warm_ms_per_kernel"],
         "unit": f"ms/distinct kernel ({ob['warm_ms_per_node']:.3f} ms per graph node)",
         "met": ob["warm_ms_per_kernel"] <= WARM_MS_PER_KERNEL if net in WARM_TARGET_NETS else None},
    ]
    jx = r.get("jax", {})
    if "warm" in jx:
        ratio = ob["warm"]["latency_s"] / jx["warm"]["latency_s"]
        out.append({"net": net, "target": "warm first-call latency (import incl.) below JAX's warm",
                    "value": ratio, "unit": "x JAX", "met": ratio < 1})
    th = r.get("torch", {})
    if "warm" in th:
        ratio = ob["cold"]["first_call_s"] / th["warm"]["first_call_s"]
        out.append({"net": net, "target": "cold first call (trace+build+run) faster than torch.compile warm first call",
                    "value": ratio, "unit": "x torch", "met": ratio < 1})
    return out


# ---- output ------------------------------------------------------------------------------------------------

def _ms(s: float | None) -> str:
    """Seconds as milliseconds with three significant digits."""
    if s is None:
        return "-"
    ms = s * 1e3
    return f"{ms:.3g}" if ms < 100 else f"{ms:.0f}"


def print_tables(result: dict[str, Any]) -> None:
    """The opbuild table, the side-by-side table and the targets."""
    print("\nopbuild: build phase (BuildReport.seconds) and fresh-process first calls; ms unless noted")
    head = (f"{'net':<9} {'kernels':>7} {'cold':>7} {'best':>6} {'ms/k':>5} {'cpu/k':>5} {'warm':>6} {'ms/k':>6} "
            f"{'cpu/k':>6} {'floor':>6} {'w/fl':>5} {'incremental':>18} {'1st cold':>8} {'1st warm':>8} "
            f"{'steady':>7}")
    print(head)
    print("-" * len(head))
    for net, r in result["nets"].items():
        ob = r["opbuild"]
        inc = ob["incremental"]
        incr = f"{_ms(inc['build_s'])} ({inc['built']}b/{inc['reused']}r)"
        cells = [net.ljust(9), f"{ob['distinct_kernels']:>7}", f"{_ms(ob['cold']['build_s']):>7}",
                 f"{_ms(ob['cold']['best_build_s']):>6}", f"{ob['cold_ms_per_kernel']:>5.1f}",
                 f"{ob['cold_cpu_ms_per_kernel']:>5.1f}", f"{_ms(ob['warm']['build_s']):>6}",
                 f"{ob['warm_ms_per_kernel']:>6.3f}", f"{ob['warm_cpu_ms_per_kernel']:>6.3f}",
                 f"{_ms(ob['floor']['floor_s']):>6}", f"{ob['warm_over_floor']:>5.1f}", f"{incr:>18}",
                 f"{_ms(ob['cold']['latency_s']):>8}", f"{_ms(ob['warm']['latency_s']):>8}",
                 f"{_ms(ob['warm'].get('steady_s')):>7}"]
        print(" ".join(cells))
    print("  cold/warm: medians over fresh processes, best = fastest cold build; ms/k: per distinct kernel;\n"
          "  cold cpu/k: compiler CPU per kernel; warm cpu/k: CPU of the build phase per kernel;\n"
          "  floor: read + sha256 + dlopen of the binaries alone; w/fl = warm / floor;\n"
          "  incremental: one layer changed (built/reused); 1st: first-call latency of a fresh process,\n"
          "  import included; steady: median per call")

    print("\nside by side (ms; first call excludes import, latency includes it; ratios = peer / opbuild)")
    head = (f"{'net':<9} {'framework':<9} {'1st cold':>9} {'1st warm':>9} {'lat cold':>9} {'lat warm':>9} "
            f"{'steady':>8} {'x 1st cold':>10} {'x 1st warm':>10} {'x lat warm':>10}")
    print(head)
    print("-" * len(head))
    for net, r in result["nets"].items():
        ob = r["opbuild"]
        for fw in ("opbuild", *PEERS):
            p = r.get(fw)
            if p is None or "cold" not in p:
                if p is not None:
                    print(f"{net:<9} {fw:<9} {p.get('skipped', p.get('error', 'n/a'))[:80]}")
                continue
            c, w = p["cold"], p["warm"]
            ratios = ("", "", "") if fw == "opbuild" else (
                f"{c['first_call_s'] / ob['cold']['first_call_s']:.1f}",
                f"{w['first_call_s'] / ob['warm']['first_call_s']:.1f}",
                f"{w['latency_s'] / ob['warm']['latency_s']:.1f}")
            print(f"{net:<9} {fw:<9} {_ms(c['first_call_s']):>9} {_ms(w['first_call_s']):>9} "
                  f"{_ms(c['latency_s']):>9} {_ms(w['latency_s']):>9} {_ms(w.get('steady_s')):>8} "
                  f"{ratios[0]:>10} {ratios[1]:>10} {ratios[2]:>10}")

    print("\ntargets")
    for t in result["targets"]:
        verdict = "info  " if t["met"] is None else "met   " if t["met"] else "MISSED"
        print(f"  {verdict} {t['net']:<9} {t['target']}: {t['value']:.3g} {t['unit']}")
    for note in result["meta"]["notes"]:
        print(f"note: {note}")


def markdown(result: dict[str, Any]) -> str:
    """The same tables as README-ready markdown (times in ms unless noted)."""
    meta = result["meta"]
    lines = [f"Run {meta['date']}: {'quick' if meta['quick'] else 'full-size'} networks, {meta['cpu_count']} cores, "
             f"load average {meta['load_before'][0]:.1f} before and {meta['load_after'][0]:.1f} after, "
             f"{meta['threads']} intra-op thread(s), {meta['repeats']} fresh processes per cold/warm figure, "
             f"{meta['wall_s']:.0f} s in all. Peers: "
             + (", ".join(f"{k} {v}" for k, v in meta["peers"].items()) or "none") + ".", "",
             "| network | kernels | cold build | cold / kernel | compiler CPU / kernel | warm build | warm / kernel "
             "| loader floor | warm / floor | incremental (built / reused) | first call cold | first call warm "
             "| steady / call |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for net, r in result["nets"].items():
        ob = r["opbuild"]
        inc = ob["incremental"]
        lines.append(
            f"| {net}: {r['describe']} | {ob['distinct_kernels']} ({ob['graph_nodes']} nodes) "
            f"| {_ms(ob['cold']['build_s'])} (best {_ms(ob['cold']['best_build_s'])}) | {ob['cold_ms_per_kernel']:.1f} "
            f"| {ob['cold_cpu_ms_per_kernel']:.1f} | {_ms(ob['warm']['build_s'])} | {ob['warm_ms_per_kernel']:.3f} "
            f"| {_ms(ob['floor']['floor_s'])} ({ob['floor']['binaries']} binaries) | {ob['warm_over_floor']:.1f}x "
            f"| {_ms(inc['build_s'])} ({inc['built']} / {inc['reused']}) | {_ms(ob['cold']['latency_s'])} "
            f"| {_ms(ob['warm']['latency_s'])} | {_ms(ob['warm'].get('steady_s'))} |")
    lines += ["", "| network | framework | first call cold | first call warm | latency cold (import incl.) "
              "| latency warm (import incl.) | steady / call | cold first call, peer / opbuild "
              "| warm first call, peer / opbuild | warm latency, peer / opbuild |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for net, r in result["nets"].items():
        ob = r["opbuild"]
        for fw in ("opbuild", *PEERS):
            p = r.get(fw)
            if p is None or "cold" not in p:
                if p is not None:
                    lines.append(f"| {net} | {fw} | {p.get('skipped', p.get('error', 'n/a')).splitlines()[0]} "
                                 "| | | | | | | |")
                continue
            c, w = p["cold"], p["warm"]
            ratios = ("", "", "") if fw == "opbuild" else (
                f"{c['first_call_s'] / ob['cold']['first_call_s']:.1f}x",
                f"{w['first_call_s'] / ob['warm']['first_call_s']:.1f}x",
                f"{w['latency_s'] / ob['warm']['latency_s']:.1f}x")
            name = {"opbuild": "opbuild", "torch": "torch.compile", "jax": "jax.jit"}[fw]
            lines.append(f"| {net} | {name} | {_ms(c['first_call_s'])} | {_ms(w['first_call_s'])} "
                         f"| {_ms(c['latency_s'])} | {_ms(w['latency_s'])} | {_ms(w.get('steady_s'))} "
                         f"| {ratios[0]} | {ratios[1]} | {ratios[2]} |")
    lines += ["", "| network | target | value | met |", "|---|---|---:|---|"]
    for t in result["targets"]:
        met = "(not a target here)" if t["met"] is None else "yes" if t["met"] else "**no**"
        lines.append(f"| {t['net']} | {t['target']} | {t['value']:.3g} {t['unit']} | {met} |")
    return "\n".join(lines) + "\n"


def draw(result: dict[str, Any], path: Path) -> str | None:
    """Bar chart (log scale) of cold first call, warm first call and warm latency per network and framework."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no chart (pip install -e '.[bench]')"
    nets = list(result["nets"])
    fws = [fw for fw in ("opbuild", *PEERS) if any("cold" in result["nets"][n].get(fw, {}) for n in nets)]
    panels = [("cold start: first call (s)", "cold", "first_call_s"),
              ("warm start: first call (s)", "warm", "first_call_s"),
              ("warm first-call latency, import incl. (s)", "warm", "latency_s")]
    colors = {"opbuild": "#2b6cb0", "torch": "#dd6b20", "jax": "#38a169"}
    labels = {"opbuild": "opbuild", "torch": "torch.compile", "jax": "jax.jit"}
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    width = 0.8 / max(1, len(fws))
    for ax, (title, phase, key) in zip(axes, panels):
        for i, fw in enumerate(fws):
            xs, ys = [], []
            for j, n in enumerate(nets):
                p = result["nets"][n].get(fw, {})
                if phase in p:
                    xs.append(j + (i - (len(fws) - 1) / 2) * width)
                    ys.append(p[phase][key])
            bars = ax.bar(xs, ys, width, label=labels[fw], color=colors[fw])
            for b, y in zip(bars, ys):
                ax.annotate(f"{y:.3g}", (b.get_x() + b.get_width() / 2, y), ha="center", va="bottom", fontsize=6)
        ax.set_yscale("log")
        ax.set_xticks(range(len(nets)), nets)
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=len(fws), fontsize=9, frameon=False)
    meta = result["meta"]
    fig.suptitle(f"opbuild vs torch.compile vs jax.jit ({'quick' if meta['quick'] else 'full-size'} networks, "
                 f"{meta['cpu_count']} cores, load {meta['load_before'][0]:.1f})", fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the tables, write the JSON and the chart."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller ResNet-50 and BERT (see netspec.py)")
    p.add_argument("--nets", default=",".join(netspec.NET_NAMES), help="comma-separated subset of "
                   + ", ".join(netspec.NET_NAMES))
    p.add_argument("--no-peers", action="store_true", help="opbuild only")
    p.add_argument("--out", type=Path, default=HERE / "results", help="output folder (build.json, build.png)")
    p.add_argument("--repeats", type=int, default=3, help="fresh processes per warm measurement (median)")
    p.add_argument("--threads", type=int, default=1, help="intra-op threads of every framework (default 1)")
    p.add_argument("--steady", type=float, default=None, help="seconds of steady-state calls (2, quick 0.5)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds before a worker is abandoned")
    p.add_argument("--keep", action="store_true", help="keep the temporary caches (printed)")
    a = p.parse_args(argv)
    a.steady = a.steady if a.steady is not None else (0.5 if a.quick else 2.0)
    nets = [n.strip() for n in a.nets.split(",") if n.strip()]
    for n in nets:
        netspec.config(n, a.quick)  # exits on an unknown name
    if a.repeats < 1:
        p.error("--repeats must be >= 1")

    peers, notes = ({}, {}) if a.no_peers else peer_versions()
    t_start = time.perf_counter()
    meta: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S"), "quick": a.quick, "threads": a.threads, "repeats": a.repeats,
        "cpu_count": os.cpu_count(), "machine": platform.machine(), "python": platform.python_version(),
        "load_before": os.getloadavg(), "peers": peers, "notes": list(notes.values()),
        "command": " ".join(["python", "benchmarks/bench_build.py", *(argv if argv is not None else sys.argv[1:])]),
    }
    work = Path(tempfile.mkdtemp(prefix="opbuild-bench-"))
    result: dict[str, Any] = {"meta": meta, "nets": {}, "targets": []}
    try:
        for net in nets:
            cfg = netspec.config(net, a.quick)
            change = netspec.changed(cfg)
            r: dict[str, Any] = {"config": cfg, "describe": netspec.describe(cfg)}
            t0 = time.perf_counter()
            print(f"[{net}] {r['describe']}: opbuild ...", flush=True)
            r["opbuild"] = bench_opbuild(cfg, change, a, work / net / "opbuild")
            meta.setdefault("opbuild", {k: r["opbuild"]["cold"][k] for k in ("version", "module")})
            for peer in PEERS:
                if a.no_peers:
                    continue
                if peer not in peers:
                    r[peer] = {"skipped": notes[peer]}
                    continue
                print(f"[{net}] {peer} ...", flush=True)
                try:
                    r[peer] = bench_peer(peer, cfg, a, work / net / peer)
                except (WorkerError, subprocess.TimeoutExpired) as e:
                    r[peer] = {"error": str(e)}
                    meta["notes"].append(f"{net}/{peer}: {str(e).splitlines()[0]}")
                    print(f"[{net}] {peer} failed: {e}", flush=True)
            r["seconds"] = time.perf_counter() - t0
            result["nets"][net] = r
            result["targets"] += evaluate(net, r)
    finally:
        if a.keep:
            print(f"caches kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    meta["load_after"] = os.getloadavg()
    meta["wall_s"] = time.perf_counter() - t_start
    print_tables(result)
    a.out.mkdir(parents=True, exist_ok=True)
    note = draw(result, a.out / "build.png")
    if note:
        meta["notes"].append(note)
        print(f"note: {note}")
    (a.out / "build.json").write_text(json.dumps(result, indent=1) + "\n")
    (a.out / "build.md").write_text(markdown(result))
    print(f"\ntotal {meta['wall_s']:.0f} s; load average before {meta['load_before'][0]:.1f}, after "
          f"{meta['load_after'][0]:.1f} on {meta['cpu_count']} cores")
    print(f"wrote {a.out / 'build.json'}, {a.out / 'build.md'}" + ("" if note else f" and {a.out / 'build.png'}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
