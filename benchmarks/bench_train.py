"""Train-step benchmark: per network, the train step's distinct kernels, its cold and warm build
(fresh processes) and steady step time, next to torch eager, torch.compile (cold and warm) and jax.jit of the
same train step (forward, softmax cross-entropy, grad, SGD momentum 0.9 update), one intra-op thread each.

    python benchmarks/bench_train.py [--nets mlp,resnet,transformer] [--tiny] [--no-peers] [--repeats N]
                                     [--steady SECONDS] [--out DIR]

Networks (benchmarks/netspec.py's MLP and ResNet-style CNN; a small transformer encoder): the loss is sparse
softmax cross-entropy on the logits, for the encoder on its hidden states averaged over the sequence (hidden
"classes"; no head, so the three frameworks run the very same layers). BatchNorm runs in training mode (batch
statistics) in every framework. Every measurement is a fresh process (this file with ``--worker``):

* opbuild: cold = ``BuildReport.seconds`` of the first train-step call with an empty cache; warm = the same
  in a fresh process against that cache (every kernel reused); ``infer cold`` = the cold build of the same
  network's forward graph alone (inference), for the per-kernel comparison; steady = median step time.
* torch.compile: the whole step function compiled (default Inductor); cold = first call with empty
  ``TORCHINDUCTOR_CACHE_DIR`` and ``TMPDIR``, warm = a fresh process reusing them.
* jax.jit: ``jax.jit`` of value_and_grad + the momentum update; cold/warm through the persistent cache.

Writes ``train.json`` to ``--out`` (default benchmarks/results/) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE))

from netspec import FULL  # noqa: E402

NETS: dict[str, dict[str, Any]] = {
    "mlp": FULL["mlp"],
    "resnet": FULL["resnet"],
    "transformer": {"kind": "bert", "vocab": 1000, "hidden": 64, "heads": 4, "layers": 2, "intermediate": 256,
                    "seq": 16, "batch": 2},
}
TINY: dict[str, dict[str, Any]] = {
    "mlp": dict(FULL["mlp"], in_features=32, hidden=[16], batch=4),
    "resnet": dict(FULL["resnet"], layers=[1, 1], width=4, image=8),
    "transformer": dict(NETS["transformer"], vocab=50, hidden=16, heads=2, layers=1, intermediate=32, seq=8),
}
LR, MOMENTUM = 0.01, 0.9


def _labels(cfg: dict[str, Any]):
    import numpy as np

    classes = cfg["hidden"] if cfg["kind"] == "bert" else cfg["classes"]
    return np.random.default_rng(7).integers(0, classes, cfg["batch"]).astype(np.int32)


def steady(call, min_time: float) -> float:
    call()
    call()
    times: list[float] = []
    while len(times) < 5 or (sum(times) < min_time and len(times) < 1000):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


# ---- workers (one measurement each, in a fresh process) -----------------------------------------------------

def work_opbuild(cfg: dict[str, Any], a: argparse.Namespace) -> dict[str, Any]:
    from build_worker import _opbuild_net

    import opbuild as ms
    from opbuild import nn, ops

    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    net, x = _opbuild_net(cfg)
    if cfg["kind"] == "bert":
        class Pooled(nn.Cell):
            def __init__(self, enc):
                super().__init__()
                self.enc = enc
                self.mean = ops.ReduceMean()

            def construct(self, ids):
                return self.mean(self.enc(ids), 1)
        net = Pooled(net)
    if a.infer:
        net.set_train(False)
        t0 = time.perf_counter()
        net(x).asnumpy()
        first = time.perf_counter() - t0
        r = ms.build_report()
        return {"build_s": r.seconds, "built": r.built, "reused": r.reused, "kernels": len(r.kernels),
                "first_call_s": first}
    y = ms.Tensor(_labels(cfg))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), LR, MOMENTUM))
    step.set_train()
    t0 = time.perf_counter()
    l0 = float(step(x, y).asnumpy())
    first = time.perf_counter() - t0
    r = ms.build_report()
    out = {"build_s": r.seconds, "built": r.built, "reused": r.reused, "kernels": len(r.kernels),
           "first_call_s": first, "loss0": l0, "ops": sorted({k.op for k in r.kernels})}
    if a.steady:
        out["steady_s"] = steady(lambda: step(x, y), a.steady)
    out["loss_last"] = float(step(x, y).asnumpy())
    return out


def work_torch(cfg: dict[str, Any], a: argparse.Namespace, compiled: bool) -> dict[str, Any]:
    import torch
    from peers import torch_nets

    torch.set_num_threads(1)
    model, x = torch_nets.build(cfg)
    model.train()
    y = torch.from_numpy(_labels(cfg)).long()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    pool = cfg["kind"] == "bert"

    def train_step(x, y):
        out = model(x)
        logits = out.mean(1) if pool else out
        loss = torch.nn.functional.cross_entropy(logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.detach()

    fn = torch.compile(train_step) if compiled else train_step
    t0 = time.perf_counter()
    l0 = float(fn(x, y))
    out = {"first_call_s": time.perf_counter() - t0, "loss0": l0}
    if a.steady:
        out["steady_s"] = steady(lambda: fn(x, y), a.steady)
    return out


def work_jax(cfg: dict[str, Any], a: argparse.Namespace) -> dict[str, Any]:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_compilation_cache_dir", os.environ["BENCH_JAX_CACHE"])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    from peers import jax_nets

    def bn_train(x, p, eps: float = 1e-5):  # training-mode BatchNorm: batch statistics
        mean = jnp.mean(x, axis=(0, 2, 3))
        var = jnp.var(x, axis=(0, 2, 3))
        scale = p["gamma"] * jax.lax.rsqrt(var + eps)
        return x * scale[None, :, None, None] + (p["beta"] - mean * scale)[None, :, None, None]

    jax_nets._bn = bn_train
    fn, params, x = jax_nets.build(cfg)
    y = jnp.asarray(_labels(cfg))
    pool = cfg["kind"] == "bert"

    def loss_fn(p):
        out = fn(p, x)
        logits = out.mean(1) if pool else out
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    @jax.jit
    def train_step(p, v):
        loss, g = jax.value_and_grad(loss_fn)(p)
        v = jax.tree_util.tree_map(lambda vi, gi: MOMENTUM * vi + gi, v, g)
        p = jax.tree_util.tree_map(lambda pi, vi: pi - LR * vi, p, v)
        return p, v, loss

    state = [params, jax.tree_util.tree_map(jnp.zeros_like, params)]

    def call():
        state[0], state[1], loss = train_step(state[0], state[1])
        return loss.block_until_ready()

    t0 = time.perf_counter()
    l0 = float(call())
    out = {"first_call_s": time.perf_counter() - t0, "loss0": l0}
    if a.steady:
        out["steady_s"] = steady(call, a.steady)
    return out


def worker(a: argparse.Namespace) -> None:
    cfg = json.loads(a.config)
    if a.worker == "opbuild":
        r = work_opbuild(cfg, a)
    elif a.worker in ("torch", "torch.compile"):
        r = work_torch(cfg, a, a.worker == "torch.compile")
    else:
        r = work_jax(cfg, a)
    print("RESULT " + json.dumps(r))


# ---- driver -------------------------------------------------------------------------------------------------

def env_for(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(HERE), *filter(None, [env.get("PYTHONPATH")])])
    env["OPBUILD_PROGRESS"] = "0"
    env.update(extra)
    return env


def run(fw: str, cfg: dict, env: dict[str, str], steady_s: float = 0.0, infer: bool = False) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", fw, "--config", json.dumps(cfg),
           "--steady", str(steady_s)] + (["--infer"] if infer else [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{fw} worker failed (exit {proc.returncode}):\n{(proc.stderr + proc.stdout)[-3000:]}")


def med(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def bench_net(name: str, cfg: dict, a: argparse.Namespace, root: Path) -> dict[str, Any]:
    res: dict[str, Any] = {"config": cfg}
    colds, infers = [], []
    for i in range(a.repeats):
        colds.append(run("opbuild", cfg, env_for({"OPBUILD_CACHE_PATH": str(root / f"ob_cold{i}")})))
        infers.append(run("opbuild", cfg, env_for({"OPBUILD_CACHE_PATH": str(root / f"ob_inf{i}")}), infer=True))
    cache = {"OPBUILD_CACHE_PATH": str(root / "ob_cold0")}
    warms = [run("opbuild", cfg, env_for(cache), a.steady if i == 0 else 0.0) for i in range(a.repeats)]
    k, ki = colds[0]["kernels"], infers[0]["kernels"]
    res["opbuild"] = {
        "distinct_kernels": k, "infer_kernels": ki, "ops": colds[0]["ops"],
        "cold_build_s": med(colds, "build_s"), "cold_per_kernel_s": med(colds, "build_s") / k,
        "infer_cold_build_s": med(infers, "build_s"), "infer_cold_per_kernel_s": med(infers, "build_s") / ki,
        "warm_build_s": med(warms, "build_s"), "warm_per_kernel_s": med(warms, "build_s") / k,
        "first_call_cold_s": med(colds, "first_call_s"), "first_call_warm_s": med(warms, "first_call_s"),
        "steady_s": warms[0]["steady_s"], "loss0": colds[0]["loss0"],
        "runs": {"cold": colds, "infer_cold": infers, "warm": warms}}
    if a.no_peers:
        return res
    res["torch"] = run("torch", cfg, env_for({}), a.steady)
    tdir = {"TORCHINDUCTOR_CACHE_DIR": str(root / "inductor"), "TMPDIR": str(root / "tmp")}
    (root / "tmp").mkdir(exist_ok=True)
    cold = run("torch.compile", cfg, env_for(tdir))
    warm = run("torch.compile", cfg, env_for(tdir), a.steady)
    res["torch.compile"] = {"first_call_cold_s": cold["first_call_s"], "first_call_warm_s": warm["first_call_s"],
                            "steady_s": warm["steady_s"], "loss0": cold["loss0"]}
    jdir = {"BENCH_JAX_CACHE": str(root / "jax")}
    cold = run("jax", cfg, env_for(jdir))
    warm = run("jax", cfg, env_for(jdir), a.steady)
    res["jax.jit"] = {"first_call_cold_s": cold["first_call_s"], "first_call_warm_s": warm["first_call_s"],
                      "steady_s": warm["steady_s"], "loss0": cold["loss0"]}
    return res


def ms_(s: float | None) -> str:
    return "" if s is None else f"{s * 1e3:.3g}"


def table(result: dict[str, Any]) -> str:
    lines = ["| network | kernels (train / infer) | cold build | cold / kernel | infer cold / kernel | warm build | "
             "warm / kernel | first call cold | first call warm | steady step | torch eager step | "
             "torch.compile cold / warm first call | torch.compile step | jax.jit cold / warm first call | "
             "jax.jit step |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in result["nets"].items():
        o = r["opbuild"]
        tc, jx, te = r.get("torch.compile", {}), r.get("jax.jit", {}), r.get("torch", {})
        lines.append(
            f"| {name} | {o['distinct_kernels']} / {o['infer_kernels']} | {ms_(o['cold_build_s'])} | "
            f"{ms_(o['cold_per_kernel_s'])} | {ms_(o['infer_cold_per_kernel_s'])} | {ms_(o['warm_build_s'])} | "
            f"{ms_(o['warm_per_kernel_s'])} | {ms_(o['first_call_cold_s'])} | {ms_(o['first_call_warm_s'])} | "
            f"{ms_(o['steady_s'])} | {ms_(te.get('steady_s'))} | "
            f"{ms_(tc.get('first_call_cold_s'))} / {ms_(tc.get('first_call_warm_s'))} | {ms_(tc.get('steady_s'))} | "
            f"{ms_(jx.get('first_call_cold_s'))} / {ms_(jx.get('first_call_warm_s'))} | {ms_(jx.get('steady_s'))} |")
    lines += ["", "| network | target | value | met |", "|---|---|---:|---|"]
    for name, r in result["nets"].items():
        for t in r["targets"]:
            lines.append(f"| {name} | {t['target']} | {t['value']} | {'yes' if t['met'] else '**no**'} |")
    return "\n".join(lines)


def targets(name: str, r: dict[str, Any]) -> list[dict[str, Any]]:
    o = r["opbuild"]
    out = [{"target": "warm build <= 0.1 ms per distinct kernel", "value": f"{o['warm_per_kernel_s'] * 1e3:.3f} ms",
            "met": o["warm_per_kernel_s"] <= 1e-4},
           {"target": "cold build per kernel <= inference build's", "value":
            f"{o['cold_per_kernel_s'] * 1e3:.1f} vs {o['infer_cold_per_kernel_s'] * 1e3:.1f} ms",
            "met": o["cold_per_kernel_s"] <= o["infer_cold_per_kernel_s"]}]
    if name == "resnet" and "torch" in r:
        out.append({"target": "steady step <= torch eager's", "value":
                    f"{o['steady_s'] / r['torch']['steady_s']:.2f} x torch",
                    "met": o["steady_s"] <= r["torch"]["steady_s"]})
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nets", default=",".join(NETS))
    p.add_argument("--tiny", action="store_true", help="tiny configurations (the smoke test)")
    p.add_argument("--no-peers", action="store_true", help="opbuild only")
    p.add_argument("--repeats", type=int, default=3, help="fresh processes per opbuild cold/warm figure")
    p.add_argument("--steady", type=float, default=1.0, help="seconds of steady-state steps per measurement")
    p.add_argument("--out", type=Path, default=HERE / "results")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--config", help=argparse.SUPPRESS)
    p.add_argument("--infer", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        worker(a)
        return 0
    specs = TINY if a.tiny else NETS
    t0 = time.perf_counter()
    load0 = os.getloadavg()[0]
    result: dict[str, Any] = {"nets": {}}
    with tempfile.TemporaryDirectory(prefix="bench_train_") as tmp:
        for name in a.nets.split(","):
            r = bench_net(name, specs[name], a, Path(tmp) / name)
            r["targets"] = targets(name, r)
            result["nets"][name] = r
    result["meta"] = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "tiny": a.tiny, "repeats": a.repeats,
                      "threads": 1, "steady": a.steady, "wall_s": time.perf_counter() - t0,
                      "load_before": load0, "load_after": os.getloadavg()[0], "cores": os.cpu_count()}
    md = table(result)
    print(md)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "train.json").write_text(json.dumps(result, indent=1))
    (a.out / "train.md").write_text(md + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
