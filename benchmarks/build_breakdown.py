"""Where a build's time goes, step by step.

    python benchmarks/build_breakdown.py [--nets resnet,resnet50] [--quick] [--repeats 9] [--cold]

Warm (default): builds each network once into a temporary cache, then runs ``--repeats`` fresh processes that
time the warm build with every internal step wrapped (``time.thread_time``: CPU of the building thread, so
waiting for a core on a busy machine does not count), and as many fresh processes that measure the loader
floor (read + sha256 + dlopen of the same binaries). Prints medians per step, in ms and in us per kernel.

``--cold``: ``--repeats`` cold builds, each in a fresh process into an empty cache, with the compiler calls,
the entry writes (publish: atomic writes + fsyncs) and the batches timed (wall clock, summed over the build
threads), plus the compilers' CPU time.

This instruments private functions of opbuild (build.driver.Builder, cache.local.KernelStore, cache.locks, ...): it
is a profiling aid that follows the code, not a stable benchmark. The wrappers cost ~1 us per call, which
shows up mostly as "rest of Builder.build".
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_build  # noqa: E402  (benchmarks/ is not a package)
import netspec  # noqa: E402

# (label, module, attribute path, nested under): top-level steps are called by Builder.build itself.
STEPS = [
    ("stores (kernel_meta, writable?)", "opbuild.builder.stores", "Stores.select", None),
    ("compiler identity", "opbuild.builder.toolchain", "Toolchains.identity", None),
    ("find compiler (PATH, CC, CFLAGS)", "opbuild.targets.cpu", "find_compiler", "compiler identity"),
    ("version memo + BLAS identity", "opbuild.targets.cpu.compilers.gcc", "GccLike.identity", "compiler identity"),
    ("memo keys (one per graph node)", "opbuild.ops.registry", "KernelSpec.memo_key", None),
    ("descriptors (.info bytes + name)", "opbuild.builder.driver", "Builder.request", None),
    ("codegen hash (per op type)", "opbuild.targets.cpu.kernels", "codegen_hash",
     "descriptors (.info bytes + name)"),
    ("target identity (/proc/cpuinfo)", "opbuild.targets.cpu", "CpuTarget.identity",
     "descriptors (.info bytes + name)"),
    ("encode descriptor", "opbuild.cache.key", "InfoEncoder.encode", "descriptors (.info bytes + name)"),
    ("sha256 name", "opbuild.cache.key", "kernel_name", "descriptors (.info bytes + name)"),
    ("sweep stray temporaries (scandir)", "opbuild.cache.local", "KernelStore.sweep_temporaries", None),
    ("load lock (one shared flock per build)", "opbuild.cache.locks", "loading.__enter__", None),
    ("preload BLAS (lazily bound dlopen)", "opbuild.targets.cpu.loader", "preload", None),
    ("graph manifest: fingerprint (stats)", "opbuild.cache.manifest", "fingerprint", None),
    ("graph manifest: read", "opbuild.cache.manifest", "read", None),
    ("check entry against the manifest", "opbuild.cache.local", "KernelStore.check", None),
    ("lookup: read+verify .json/.info/binary", "opbuild.cache.local", "KernelStore.lookup", None),
    ("load: dlopen + dlsym", "opbuild.builder.memory", "KernelMemory.load", None),
    ("statistics (after_build)", "opbuild.cache.usage", "UsageRecorder.after_build", None),
]


def child(cfg: dict) -> dict:
    """In a fresh process: wrap the steps, trace the network, run the warm build, return CPU per step."""
    import importlib

    spent: dict[str, float] = {}
    for label, module, attr, _ in STEPS:
        owner = importlib.import_module(module)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        inner = getattr(owner, name)

        def wrapped(*args, _inner=inner, _label=label, **kwargs):
            c0 = time.thread_time()
            try:
                return _inner(*args, **kwargs)
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.thread_time() - c0

        setattr(owner, name, wrapped)

    from build_worker import _opbuild_net

    from opbuild.core import trace
    from opbuild.ops.registry import get
    from opbuild.runtime.session import session

    net, x = _opbuild_net(cfg)
    graph, _ = trace.trace(net.construct, (x,))
    spent.clear()  # tracing computed nothing that the build would (specs are made below)
    specs = [n.spec or get(n.op).spec(n.attrs, [v.type for v in n.inputs]) for n in graph.nodes]
    c0 = time.thread_time()
    _, report = session().builder.build(specs)
    total = time.thread_time() - c0
    assert report.reused == len(report.kernels), report.summary()
    return {"total": total, "wall": report.seconds, "kernels": len(report.kernels), "nodes": len(specs),
            "steps": spent, "names": [k.name for k in report.kernels]}


COLD_STEPS = [
    ("batches (compile_batch: codegen, compile, publish)", "opbuild.builder.compile", "BatchCompiler.compile_batch"),
    ("compiler calls (gcc)", "opbuild.targets.cpu.compilers.gcc", "GccLike.compile"),
    ("publish entries (.info/.json writes, fsyncs, links)", "opbuild.cache.local", "KernelStore.publish"),
    ("stage batch binary (write + fsync)", "opbuild.cache.local", "KernelStore.stage_binary"),
]


def cold_child(cfg: dict) -> dict:
    """In a fresh process with an empty cache: time the cold build's batches, compiles and writes."""
    import importlib
    import resource
    import threading

    spent: dict[str, list[float]] = {}
    lock = threading.Lock()
    for label, module, attr in COLD_STEPS:
        owner = importlib.import_module(module)
        cls, name = attr.split(".")
        owner = getattr(owner, cls)
        inner = getattr(owner, name)

        def wrapped(*args, _inner=inner, _label=label, **kwargs):
            t0 = time.perf_counter()
            try:
                return _inner(*args, **kwargs)
            finally:
                with lock:
                    spent.setdefault(_label, []).append(time.perf_counter() - t0)

        setattr(owner, name, wrapped)

    from build_worker import _opbuild_net

    from opbuild.core import trace
    from opbuild.ops.registry import get
    from opbuild.runtime.session import session

    net, x = _opbuild_net(cfg)
    graph, _ = trace.trace(net.construct, (x,))
    specs = [n.spec or get(n.op).spec(n.attrs, [v.type for v in n.inputs]) for n in graph.nodes]
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    _, report = session().builder.build(specs)
    ru2 = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert report.built == len(report.kernels), report.summary()
    return {"wall": report.seconds, "kernels": len(report.kernels),
            "compiler_cpu": ru2.ru_utime + ru2.ru_stime - ru.ru_utime - ru.ru_stime,
            "steps": {k: sum(v) for k, v in spent.items()}, "calls": {k: len(v) for k, v in spent.items()}}


def cold(net: str, cfg: dict, repeats: int) -> None:
    """Print the cold-build table of one network."""
    runs = []
    for _ in range(repeats):
        root = Path(tempfile.mkdtemp(prefix="opbuild-breakdown-"))
        try:
            env = bench_build.worker_env(1, {"OPBUILD_CACHE_PATH": str(root / "cache"), "TMPDIR": str(root)})
            out = subprocess.run([sys.executable, __file__, "--cold-child", json.dumps(cfg)], env=env,
                                 capture_output=True, text=True, check=True).stdout
            runs.append(json.loads(out.rsplit("RESULT ", 1)[1]))
        finally:
            shutil.rmtree(root, ignore_errors=True)
    k = runs[0]["kernels"]
    jobs = os.environ.get("OPBUILD_BUILD_JOBS") or f"{len(os.sched_getaffinity(0))}"
    print(f"\n{net} ({netspec.describe(cfg)}): cold build of {k} kernels, medians of {repeats} fresh processes; "
          f"wall clock summed over the {jobs} build threads")
    print(f"{'step':<52} {'calls':>5} {'ms':>8} {'ms/kernel':>10}")
    for label, _, _ in COLD_STEPS:
        v = statistics.median(r["steps"].get(label, 0.0) for r in runs)
        print(f"{label:<52} {runs[0]['calls'].get(label, 0):>5} {v * 1e3:>8.1f} {v * 1e3 / k:>10.2f}")
    cpu = statistics.median(r["compiler_cpu"] for r in runs)
    wall = statistics.median(r["wall"] for r in runs)
    print(f"{'compiler processes, CPU time':<52} {'':>5} {cpu * 1e3:>8.1f} {cpu * 1e3 / k:>10.2f}")
    print(f"{'cold build, wall clock (BuildReport)':<52} {'':>5} {wall * 1e3:>8.1f} {wall * 1e3 / k:>10.2f}")
    print(f"{'  fastest of the runs':<52} {'':>5} {min(r['wall'] for r in runs) * 1e3:>8.1f} "
          f"{min(r['wall'] for r in runs) * 1e3 / k:>10.2f}")


def main(argv: list[str] | None = None) -> int:
    """Build, then measure the warm build step by step and the floor, and print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nets", default="resnet,resnet50")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--cold", action="store_true", help="break down cold builds instead of warm ones")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--cold-child", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print("RESULT " + json.dumps(child(json.loads(a.child))))
        return 0
    if a.cold_child:
        print("RESULT " + json.dumps(cold_child(json.loads(a.cold_child))))
        return 0
    for net in [n.strip() for n in a.nets.split(",") if n.strip()]:
        cfg = netspec.config(net, a.quick)
        if a.cold:
            cold(net, cfg, a.repeats)
            continue
        root = Path(tempfile.mkdtemp(prefix="opbuild-breakdown-"))
        try:
            env = bench_build.worker_env(1, {"OPBUILD_CACHE_PATH": str(root / "cache")})
            bench_build.run_worker(["opbuild", "--config", json.dumps(cfg)], env, 1800)  # the cold build
            runs = []
            for _ in range(a.repeats):
                out = subprocess.run([sys.executable, __file__, "--child", json.dumps(cfg)], env=env,
                                     capture_output=True, text=True, check=True).stdout
                runs.append(json.loads(out.rsplit("RESULT ", 1)[1]))
            names = root / "names.json"
            names.write_text(json.dumps(runs[0]["names"]))
            kdir = str(root / "cache" / "rank_0" / "kernel_meta")
            floors = [bench_build.run_worker(["floor", "--dir", kdir, "--names", str(names)], env, 600)
                      for _ in range(a.repeats)]
        finally:
            shutil.rmtree(root, ignore_errors=True)
        k = runs[0]["kernels"]
        print(f"\n{net} ({netspec.describe(cfg)}): {k} distinct kernels, {runs[0]['nodes']} graph nodes; "
              f"medians of {a.repeats} fresh processes, CPU time of the building thread")
        print(f"{'step':<44} {'ms':>7} {'us/kernel':>10}")
        top = 0.0
        for label, _, _, parent in STEPS:
            v = statistics.median(r["steps"].get(label, 0.0) for r in runs)
            top += v if parent is None else 0.0
            print(f"{('  ' if parent else '') + label:<44} {v * 1e3:>7.3f} {v * 1e6 / k:>10.1f}")
        total = statistics.median(r["total"] for r in runs)
        rest = total - top
        print(f"{'rest of Builder.build (loop, records)':<44} {rest * 1e3:>7.3f} {rest * 1e6 / k:>10.1f}")
        print(f"{'TOTAL warm build (CPU)':<44} {total * 1e3:>7.3f} {total * 1e6 / k:>10.1f}")
        wall = statistics.median(r["wall"] for r in runs)
        print(f"{'  same builds, wall clock (BuildReport)':<44} {wall * 1e3:>7.3f} {wall * 1e6 / k:>10.1f}")
        fl = statistics.median(f["floor_cpu_s"] for f in floors)
        print(f"{'floor: read+sha256+dlopen (CPU), own process':<44} {fl * 1e3:>7.3f} {fl * 1e6 / k:>10.1f}"
              f"   ({floors[0]['binaries']} binaries)")
        meta = statistics.median(f["meta_read_s"] for f in floors)
        print(f"{'  + reading every .info/.json (wall)':<44} {meta * 1e3:>7.3f} {meta * 1e6 / k:>10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
