"""One measurement in a fresh process, for benchmarks/bench_build.py (which runs it as a subprocess).

    python benchmarks/build_worker.py opbuild|torch|jax --config JSON [--steady SECONDS] [--threads N]
    python benchmarks/build_worker.py floor --dir KERNEL_META --names FILE

The caller chooses the caches through the environment: ``OPBUILD_CACHE_PATH`` (opbuild),
``TORCHINDUCTOR_CACHE_DIR`` and ``TMPDIR`` (torch.compile), ``BENCH_JAX_CACHE`` (jax's persistent
compilation cache). The last line of stdout is ``RESULT <json>``.

Timings (``time.perf_counter``):
  import_s      importing the framework (opbuild, torch, or jax + jax.numpy)
  init_s        building the network's random weights and the example input (not part of any latency)
  first_call_s  the first forward call: trace + build/compile/load + one execution, output materialised
  latency_s     import_s + first_call_s: the first-call latency of a fresh process, import included
  build_s       opbuild: BuildReport.seconds of that call (the build phase); build_thread_cpu_s: its CPU time
                in the calling thread; compiler_cpu_s: CPU time of the compiler processes
  steady_s      median seconds per call after warm-up (only with --steady)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

T_START = time.perf_counter()  # after the standard library only: ``process_s`` is the worker's own time


def _children_cpu() -> float:
    """CPU seconds (user + system) used so far by this process's finished children (the compilers)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def steady(call: Callable[[], Any], min_time: float) -> dict[str, float]:
    """Median seconds per call after two warm-up calls, over at least 5 calls and about ``min_time``."""
    call()
    call()
    times: list[float] = []
    total = 0.0
    while len(times) < 5 or (total < min_time and len(times) < 1000):
        t0 = time.perf_counter()
        call()
        dt = time.perf_counter() - t0
        times.append(dt)
        total += dt
    return {"steady_s": statistics.median(times), "steady_min_s": min(times), "steady_calls": len(times)}


# ---- opbuild ----------------------------------------------------------------------------------------------

def _opbuild_net(cfg: dict[str, Any]) -> tuple[Any, Any]:
    import opbuild as ms
    from opbuild import models

    ms.set_context(mode=ms.GRAPH_MODE)  # measured on compiled graphs; PYNATIVE_MODE is the default

    if cfg["kind"] == "mlp":
        return (models.mlp(cfg["in_features"], cfg["hidden"], cfg["classes"]),
                models.mlp_input(cfg["batch"], cfg["in_features"]))
    if cfg["kind"] == "resnet":
        build = models.resnet_small if cfg["block"] == "basic" else models.resnet50
        assert (cfg["stem_kernel"], cfg["stem_stride"]) == ((3, 1) if cfg["block"] == "basic" else (7, 2))
        return (build(cfg["classes"], cfg["width"], cfg["layers"]),
                models.resnet_input(cfg["batch"], cfg["image"]))
    tc = models.TransformerConfig(vocab_size=cfg["vocab"], hidden=cfg["hidden"], heads=cfg["heads"],
                                  layers=cfg["layers"], intermediate=cfg["intermediate"], seq_len=cfg["seq"],
                                  batch=cfg["batch"])
    net = models.transformer_encoder(tc)
    if "last_intermediate" in cfg:  # the incremental edit: one encoder layer with another MLP width
        from opbuild import nn

        layers = [net.layers[i] for i in range(len(net.layers))]
        layers[-1] = models.EncoderLayer(tc.hidden, tc.heads, cfg["last_intermediate"], tc.layer_norm_eps)
        net.layers = nn.SequentialCell(layers)
    return net, models.transformer_input(tc)


def run_opbuild(args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.perf_counter()
    import opbuild as ms
    from opbuild.core import config as ob_config
    from opbuild.runtime.session import session

    import_s = time.perf_counter() - t0
    cfg = json.loads(args.config)
    t0 = time.perf_counter()
    net, x = _opbuild_net(cfg)
    init_s = time.perf_counter() - t0

    # CPU time of the build phase in the calling thread: on a busy machine the wall-clock build_s of a warm
    # build includes time spent waiting for a core; this does not (the compilers' CPU is compiler_cpu_s).
    builder = session().builder
    thread_cpu: list[float] = []
    inner = builder.build

    def timed_build(specs, *args, **kwargs):
        c0 = time.thread_time()
        try:
            return inner(specs, *args, **kwargs)
        finally:
            thread_cpu.append(time.thread_time() - c0)

    builder.build = timed_build
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    y = net(x).asnumpy()
    first_call_s = time.perf_counter() - t0
    compiler_cpu_s = _children_cpu() - cpu0
    report = ms.build_report()
    out: dict[str, Any] = {
        "import_s": import_s, "init_s": init_s, "first_call_s": first_call_s, "latency_s": import_s + first_call_s,
        "distinct": len(report.kernels), "built": report.built, "reused": report.reused,
        "repaired": report.repaired, "build_s": report.seconds, "build_thread_cpu_s": sum(thread_cpu),
        "compiler_cpu_s": compiler_cpu_s,
        "build_jobs": ob_config.build_jobs(), "graph_nodes": len(net.compile_info()[0].graph.nodes),
        "output_shape": list(y.shape), "output_finite": bool(_finite(y)),
        "kernels": [k.name for k in report.kernels],
        "cache_dir": str(ob_config.cache_dir()), "version": ms.__version__, "module": ms.__file__,
    }
    if args.steady:
        out.update(steady(lambda: net(x).asnumpy(), args.steady))
    return out


def _finite(y: Any) -> bool:
    import numpy as np

    return bool(np.isfinite(y).all())


# ---- loader floor -----------------------------------------------------------------------------------------

def run_floor(args: argparse.Namespace) -> dict[str, Any]:
    """The floor under a warm build: read + sha256 + dlopen every distinct binary of the network's entries
    (the entries of a batched compile share one inode: it is read and opened once, as the builder does) and
    resolve each kernel's symbol. Separately, reading every entry's .info and .json (bytes only)."""
    import ctypes
    import hashlib

    # Every opbuild process has NumPy loaded, and with it the OpenBLAS that GEMM/conv kernels link by default
    # (compilers/blas.py): without it, the first kernel's dlopen would load and bind that library too.
    import numpy  # noqa: F401

    kdir = Path(args.dir)
    names = json.loads(Path(args.names).read_text())
    t0, c0 = time.perf_counter(), time.thread_time()
    libs: dict[tuple[int, int], ctypes.CDLL] = {}
    for name in names:
        path = os.path.join(kdir, name + ".so")
        st = os.stat(path)
        key = (st.st_dev, st.st_ino)
        lib = libs.get(key)
        if lib is None:
            with open(path, "rb") as f:
                hashlib.sha256(f.read()).hexdigest()
            lib = libs[key] = ctypes.CDLL(path)
        getattr(lib, "ob_" + name.rsplit("_", 1)[1])
    floor_s, floor_cpu_s = time.perf_counter() - t0, time.thread_time() - c0
    t0 = time.perf_counter()
    for name in names:
        for suffix in (".json", ".info"):
            with open(os.path.join(kdir, name + suffix), "rb") as f:
                f.read()
    meta_s = time.perf_counter() - t0
    return {"floor_s": floor_s, "floor_cpu_s": floor_cpu_s, "meta_read_s": meta_s, "binaries": len(libs),
            "kernels": len(names)}


# ---- torch.compile ----------------------------------------------------------------------------------------

def run_torch(args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.perf_counter()
    import torch

    import_s = time.perf_counter() - t0
    torch.set_num_threads(args.threads)
    from peers import torch_nets

    cfg = json.loads(args.config)
    t0 = time.perf_counter()
    model, x = torch_nets.build(cfg)
    init_s = time.perf_counter() - t0
    compiled = torch.compile(model)  # Inductor, default mode

    def call() -> Any:
        with torch.no_grad():
            return compiled(x)

    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    y = call()
    first_call_s = time.perf_counter() - t0
    out: dict[str, Any] = {"import_s": import_s, "init_s": init_s, "first_call_s": first_call_s,
                           "latency_s": import_s + first_call_s, "compiler_cpu_s": _children_cpu() - cpu0,
                           "output_shape": list(y.shape), "output_finite": bool(torch.isfinite(y).all())}
    try:  # proof of cold/warm: Inductor's FX graph cache counters
        from torch._dynamo.utils import counters

        out["cache_counters"] = {k: v for k, v in counters["inductor"].items() if "cache" in k}
    except Exception as e:  # counters are private API; their absence must not fail the benchmark
        out["cache_counters"] = {"unavailable": repr(e)}
    if args.steady:
        out.update(steady(call, args.steady))
    return out


# ---- jax.jit ----------------------------------------------------------------------------------------------

def run_jax(args: argparse.Namespace) -> dict[str, Any]:
    t0 = time.perf_counter()
    import jax
    import jax.numpy  # noqa: F401  (part of what a JAX program imports)

    import_s = time.perf_counter() - t0
    cache = os.environ["BENCH_JAX_CACHE"]
    jax.config.update("jax_compilation_cache_dir", cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    from peers import jax_nets

    cfg = json.loads(args.config)
    t0 = time.perf_counter()
    fn, params, x = jax_nets.build(cfg)
    jax.block_until_ready((params, x))
    init_s = time.perf_counter() - t0
    jitted = jax.jit(fn)

    def call() -> Any:
        return jitted(params, x).block_until_ready()

    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    y = call()
    first_call_s = time.perf_counter() - t0
    import numpy as np

    out: dict[str, Any] = {"import_s": import_s, "init_s": init_s, "first_call_s": first_call_s,
                           "latency_s": import_s + first_call_s, "compiler_cpu_s": _children_cpu() - cpu0,
                           "output_shape": list(y.shape), "output_finite": bool(np.isfinite(np.asarray(y)).all()),
                           "cache_files": sum(len(f) for _, _, f in os.walk(cache))}
    if args.steady:
        out.update(steady(call, args.steady))
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run one measurement, print ``RESULT <json>``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mode", choices=["opbuild", "torch", "jax", "floor"])
    p.add_argument("--config", help="network configuration (JSON, see netspec.py)")
    p.add_argument("--steady", type=float, default=0.0, help="also measure steady-state calls for ~SECONDS")
    p.add_argument("--threads", type=int, default=1, help="intra-op threads (torch.set_num_threads)")
    p.add_argument("--dir", help="floor: the kernel_meta directory")
    p.add_argument("--names", help="floor: JSON file listing the entry names")
    args = p.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # netspec, peers
    run = {"opbuild": run_opbuild, "torch": run_torch, "jax": run_jax, "floor": run_floor}[args.mode]
    result = run(args)
    result["process_s"] = time.perf_counter() - T_START
    sys.stdout.flush()
    print("RESULT " + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
