"""Where a cold build's compiler time goes: per batch (translation unit), gcc split into its stages.

    python benchmarks/cold_breakdown.py [--nets mlp,resnet,resnet50,bert] [--quick] [--repeats 5] [--out DIR]

For each network, a fresh process builds it into an empty cache and keeps every translation unit it compiled
with its command line (the batches, as opbuild's build jobs formed them). Then each batch is compiled again
``--repeats`` times per stage, and the compilers' CPU time (``RUSAGE_CHILDREN``: what a busy machine's waiting
does not inflate) and wall time are taken, medians:

  parse     ``-fsyntax-only``: preprocess + parse (+ semantic analysis), no code
  optimise  ``-S`` minus parse: GIMPLE/RTL passes and code generation to assembly
  assemble  ``as`` on that assembly (``-c x.s``)
  link      ``-shared`` of that object into the .so (collect2/ld)
  total     the batch's command exactly as opbuild ran it (all stages in one driver call)

and the baselines: one call of the same flags on an empty file with the full prelude (every header and helper
opbuild's kernels may include), the same with only the core section, and (when the build used one) the same
through opbuild's precompiled header. The figure the issue (#15) judges is the cold build per distinct kernel
against the first baseline. Prints a table per network and writes ``<out>/cold_breakdown.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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

SRC = HERE.parent / "src"


def capture_child(cfg: dict[str, Any], keep: Path) -> dict[str, Any]:
    """In a fresh process with an empty cache: build the network, copying every compiled translation unit and
    its command line into ``keep``. Returns the build's figures and the batches."""
    import build_worker

    from opbuild import build_report
    from opbuild.targets.cpu.compilers import gcc

    batches: list[dict[str, Any]] = []
    inner = gcc.GccLike.compile

    def compile_and_keep(self, source, out_path, workdir, needs_blas, label=""):
        result = inner(self, source, out_path, workdir, needs_blas, label)
        i = len(batches)
        (keep / f"tu{i}.c").write_text(source)
        batches.append({"source": str(keep / f"tu{i}.c"), "cmd": result.cmd, "label": label,
                        "kernels": source.count("OB_EXPORT ") - source.count("#define OB_EXPORT"),
                        "seconds": result.seconds})
        return result

    # Built before the compiler is watched: constructing a network with large weights builds the initializer
    # fills' own kernels (runtime/init_fill.py), which are not the network's build.
    net, x = build_worker._opbuild_net(cfg)
    gcc.GccLike.compile = compile_and_keep
    c0 = build_worker._children_cpu()
    t0 = time.perf_counter()
    net(x).asnumpy()
    wall = time.perf_counter() - t0
    report = build_report()
    from opbuild.core import config as ob_config

    return {"distinct": len(report.kernels), "built": report.built, "build_s": report.seconds, "first_call_s": wall,
            "compiler_cpu_s": build_worker._children_cpu() - c0, "build_jobs": ob_config.build_jobs(),
            "batches": batches}


def timed(cmd: list[str], repeats: int) -> dict[str, float]:
    """Median CPU (user + system of the compiler processes) and wall seconds of ``repeats`` runs of ``cmd``."""
    cpus, walls = [], []
    for _ in range(repeats):
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if out.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr[-3000:]}")
        cpus.append(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime)
    return {"cpu_s": statistics.median(cpus), "wall_s": statistics.median(walls)}


def split_command(cmd: list[str]) -> tuple[list[str], list[str], str]:
    """(compile flags, link-only flags, source path) of one opbuild compiler command: everything before
    ``-o`` is compile flags; after the source come the libraries."""
    o = cmd.index("-o")
    src = cmd[o + 2]
    return cmd[:o], cmd[o + 3:], src


def stages(cmd: list[str], source: str, work: Path, repeats: int) -> dict[str, Any]:
    """CPU/wall of each gcc stage of one batch's command, on the kept copy ``source`` of its file."""
    o = cmd.index("-o")
    cmd = cmd[:o] + ["-o", str(work / "x.so"), source] + cmd[o + 3:]
    flags, libs, src = split_command(cmd)
    exe, opts = flags[0], [f for f in flags[1:] if f != "-shared"]
    asm, obj, so = work / "x.s", work / "x.o", work / "x.so"
    out: dict[str, Any] = {
        "total": timed(cmd, repeats),
        "parse": timed([exe, *opts, "-fsyntax-only", src], repeats),
        "to_asm": timed([exe, *opts, "-S", "-o", str(asm), src], repeats),
    }
    out["assemble"] = timed([exe, *opts, "-c", "-o", str(obj), str(asm)], repeats)
    out["link"] = timed([exe, *[f for f in flags[1:] if f.startswith(("-f", "-m", "-W", "-shared", "-pipe"))],
                         "-shared", "-o", str(so), str(obj), *libs], repeats)
    out["optimise"] = {k: out["to_asm"][k] - out["parse"][k] for k in ("cpu_s", "wall_s")}
    return out


def baselines(cmd: list[str], work: Path, repeats: int) -> dict[str, Any]:
    """One call of ``cmd``'s flags on an empty file: with every prelude section, with the core only, and
    through the precompiled header when ``cmd`` used one."""
    sys.path.insert(0, str(SRC))
    from opbuild.targets.cpu import codegen

    flags, libs, _ = split_command(cmd)
    flags = [f for f in flags if not f.startswith("-include") and "ob_prelude" not in f]
    flags = [f for i, f in enumerate(flags) if not (i and flags[i - 1] == "-include")]
    out = {}
    for name, text in (("empty_full_prelude", codegen.PRELUDE), ("empty_core_only", codegen.PRELUDE_CORE),
                       ("empty_no_headers", "")):
        src = work / f"{name}.c"
        src.write_text(text)
        out[name] = timed([*flags, "-o", str(work / f"{name}.so"), str(src), *libs], repeats)
    return out


def measure_net(net: str, cfg: dict[str, Any], repeats: int, env: dict[str, str]) -> dict[str, Any]:
    """Capture one network's cold build, then time its batches stage by stage."""
    work = Path(tempfile.mkdtemp(prefix=f"cold-{net}-"))
    try:
        keep = work / "tus"
        keep.mkdir()
        child_env = dict(env, OPBUILD_CACHE_PATH=str(work / "cache"), TMPDIR=str(work))
        out = subprocess.run([sys.executable, __file__, "--child", json.dumps(cfg), "--keep", str(keep)],
                             env=child_env, capture_output=True, text=True, timeout=1800)
        lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
        if out.returncode != 0 or not lines:
            raise RuntimeError(f"capture of {net} failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
        cold = json.loads(lines[-1][len("RESULT "):])
        for b in cold["batches"]:
            b.update(stages(b["cmd"], b["source"], work, repeats))
        cold["baselines"] = baselines(cold["batches"][0]["cmd"], work, repeats)
        return cold
    finally:
        shutil.rmtree(work, ignore_errors=True)


def print_net(net: str, cfg: dict[str, Any], r: dict[str, Any]) -> None:
    """The table of one network: per batch, each stage's CPU (wall) in ms."""
    base = r["baselines"]["empty_full_prelude"]
    print(f"\n{net} ({netspec.describe(cfg)}): {r['distinct']} distinct kernels, {len(r['batches'])} batches on "
          f"{r['build_jobs']} jobs; cold build {r['build_s'] * 1e3:.0f} ms wall = "
          f"{r['build_s'] * 1e3 / r['distinct']:.1f} ms/kernel = {r['build_s'] / r['distinct'] / base['wall_s']:.2f}x "
          f"the empty call; compilers' CPU {r['compiler_cpu_s'] * 1e3:.0f} ms = "
          f"{r['compiler_cpu_s'] / r['distinct'] / base['cpu_s']:.2f}x per kernel")
    cols = ("parse", "optimise", "assemble", "link", "total")
    print(f"{'batch':<6}{'kernels':>8}" + "".join(f"{c + ' CPU(wall) ms':>22}" for c in cols))
    for i, b in enumerate(r["batches"]):
        print(f"{i:<6}{b['kernels']:>8}" + "".join(
            f"{b[c]['cpu_s'] * 1e3:>13.1f} ({b[c]['wall_s'] * 1e3:5.1f})" for c in cols))
    for name, v in r["baselines"].items():
        print(f"  baseline {name:<22} CPU {v['cpu_s'] * 1e3:6.1f} ms, wall {v['wall_s'] * 1e3:6.1f} ms")


def compare(nets: list[str], quick: bool, variants: list[str], repeats: int, env: dict[str, str]) -> dict[str, Any]:
    """Interleaved cold builds (fresh process, empty cache each) of every variant ``NAME:VAR=VALUE;VAR=VALUE``
    (environment settings; ``NAME:`` alone is the unchanged baseline), ``repeats`` rounds, then the steady time
    per call of each variant's last build. Medians; the same rounds see the same machine load."""
    import bench_build

    parsed = []
    for v in variants:
        name, _, settings = v.partition(":")
        parsed.append((name, dict(kv.split("=", 1) for kv in settings.split(";") if kv)))
    out: dict[str, Any] = {}
    for net in nets:
        cfg = json.dumps(netspec.config(net, quick))
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in parsed}
        for r in range(repeats):
            for name, extra in parsed:
                with tempfile.TemporaryDirectory(prefix="cold-ab-") as tmp:
                    args = ["opbuild", "--config", cfg, *(["--steady", "0.5"] if r == repeats - 1 else [])]
                    runs[name].append(bench_build.run_worker(
                        args, dict(env, OPBUILD_CACHE_PATH=tmp, TMPDIR=tmp, OPBUILD_PROGRESS="0", **extra), 1800))
        out[net] = {}
        for name, _ in parsed:
            rs = runs[name]
            k = rs[0]["distinct"]
            row = {"distinct": k, "build_ms_per_kernel": 1e3 * statistics.median(x["build_s"] for x in rs) / k,
                   "compiler_cpu_ms_per_kernel": 1e3 * statistics.median(x["compiler_cpu_s"] for x in rs) / k,
                   "first_call_ms": 1e3 * statistics.median(x["first_call_s"] for x in rs),
                   "steady_ms": 1e3 * rs[-1]["steady_s"]}
            out[net][name] = row
            print(f"{net:<9}{name:<14}{k:>5} kernels  build {row['build_ms_per_kernel']:6.1f} ms/kernel  compiler CPU "
                  f"{row['compiler_cpu_ms_per_kernel']:6.1f} ms/kernel  first call {row['first_call_ms']:7.0f} ms  "
                  f"steady {row['steady_ms']:8.3f} ms", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    """Capture and measure each network, print the tables, write the JSON."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nets", default=",".join(netspec.NET_NAMES))
    p.add_argument("--quick", action="store_true", help="the smaller ResNet-50 and BERT of netspec.py")
    p.add_argument("--repeats", type=int, default=5, help="runs per stage (median)")
    p.add_argument("--out", type=Path, default=HERE / "results")
    p.add_argument("--compare", nargs="+", metavar="NAME:VAR=VALUE;...",
                   help="instead of the breakdown: interleaved cold builds of environment variants (A/B)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--keep", type=Path, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print("RESULT " + json.dumps(capture_child(json.loads(a.child), a.keep)))
        return 0
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    results = {"load_before": os.getloadavg(), "quick": a.quick, "repeats": a.repeats, "nets": {}}
    if a.compare:
        results["compare"] = compare(a.nets.split(","), a.quick, a.compare, a.repeats, env)
        results["load_after"] = os.getloadavg()
        print(f"load average before {results['load_before'][0]:.1f}, after {results['load_after'][0]:.1f}")
        a.out.mkdir(parents=True, exist_ok=True)
        (a.out / "cold_compare.json").write_text(json.dumps(results, indent=1))
        return 0
    for net in a.nets.split(","):
        cfg = netspec.config(net, a.quick)
        results["nets"][net] = measure_net(net, cfg, a.repeats, env)
        print_net(net, cfg, results["nets"][net])
    results["load_after"] = os.getloadavg()
    print(f"\nload average before {results['load_before'][0]:.1f}, after {results['load_after'][0]:.1f}")
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "cold_breakdown.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
