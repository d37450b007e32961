"""GPU benchmark: opbuild's GPU target against torch eager and torch.compile (Inductor) on the same network, ratios
measured in one run, every figure a fresh process.

    python benchmarks/bench_gpu.py [--nets resnet50,bert] [--quick] [--train] [--repeats N] [--steady SECONDS]
                                   [--arch sm_90] [--out DIR]

Per network (benchmarks/netspec.py: ResNet-50 and BERT-base by default; ``--quick`` their small variants), the
forward pass (``--train``: the train step, sparse softmax cross-entropy + SGD momentum 0.9, as bench_train.py):

* opbuild, ``device_target="GPU"``: cold build = ``BuildReport.seconds`` of the first call with an empty
  kernel_meta (NVRTC), per distinct kernel; warm = the same in a fresh process over that cache (every kernel
  reused: built must be 0); steady = median seconds per call. opbuild's graphs take and return host arrays, so
  its call includes the input's upload and the outputs' download.
* torch eager on CUDA: steady, twice: input already on the device (``device``), and uploaded and the output
  brought back to the host in the call (``host``, what an opbuild call does).
* torch.compile (default Inductor): cold = first call with empty ``TORCHINDUCTOR_CACHE_DIR``/``TRITON_CACHE_DIR``
  (``TMPDIR`` too), warm = a fresh process reusing them; steady as eager (both variants).

GPU timings synchronise the device after each call (opbuild's download does; torch calls
``torch.cuda.synchronize``). On a machine without a GPU only opbuild's cold and warm builds run (the kernels
are built for ``--arch``, default sm_90, through ``OPBUILD_CUDA_ARCH``; nothing is launched) and every other
column says it needs a GPU. Writes ``gpu.json`` and ``gpu.md`` to ``--out`` (default benchmarks/results/).
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

from bench_train import LR, MOMENTUM, _labels, steady  # noqa: E402  (the same step and timing rule)
from netspec import config  # noqa: E402

# ---- workers (each a fresh process) ---------------------------------------------------------------------------

def work_opbuild(cfg: dict[str, Any], a: argparse.Namespace) -> dict[str, Any]:
    from build_worker import _opbuild_net

    import opbuild as ms
    from opbuild import nn, ops
    from opbuild.targets.cuda import device

    ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU")
    has_gpu = device.probe().ok
    net, x = _opbuild_net(cfg)
    ms.set_context(device_target="GPU")  # _opbuild_net sets GRAPH_MODE only; keep the target explicit
    if cfg["kind"] == "bert":
        class Pooled(nn.Cell):
            def __init__(self, enc: Any):
                super().__init__()
                self.enc, self.mean = enc, ops.ReduceMean()

            def construct(self, ids: Any) -> Any:
                return self.mean(self.enc(ids), 1)
        net = Pooled(net)
    if a.train:
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), LR, MOMENTUM))
        cell.set_train()
        args: tuple = (x, ms.Tensor(_labels(cfg)))
    else:
        net.set_train(False)
        cell, args = net, (x,)
    t0 = time.perf_counter()
    if has_gpu:
        cell(*args).asnumpy()
    else:  # build every GPU kernel of the graph, launch nothing
        cell.compile(*args)
    first = time.perf_counter() - t0
    r = ms.build_report()
    out = {"gpu": has_gpu, "build_s": r.seconds, "built": r.built, "reused": r.reused, "kernels": len(r.kernels),
           "first_call_s": first, "ops": sorted({k.op for k in r.kernels})}
    if has_gpu and a.steady:
        out["steady_s"] = steady(lambda: cell(*args).asnumpy(), a.steady)
    return out


def work_torch(cfg: dict[str, Any], a: argparse.Namespace, compiled: bool) -> dict[str, Any]:
    import torch
    from peers import torch_nets

    if not torch.cuda.is_available():
        return {"gpu": False}
    dev = torch.device("cuda")
    model, x_host = torch_nets.build(cfg)
    model = model.to(dev)
    x = x_host.to(dev)
    if a.train:
        model.train()
        y = torch.from_numpy(_labels(cfg)).long().to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
        pool = cfg["kind"] == "bert"

        def step(x: Any) -> Any:
            out = model(x)
            loss = torch.nn.functional.cross_entropy(out.mean(1) if pool else out, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return loss.detach()
    else:
        def step(x: Any) -> Any:
            with torch.no_grad():
                return model(x)
    fn = torch.compile(step) if compiled else step

    def on_device() -> None:
        fn(x)
        torch.cuda.synchronize()

    def from_host() -> None:
        fn(x_host.to(dev, non_blocking=False)).cpu()

    t0 = time.perf_counter()
    on_device()
    out: dict[str, Any] = {"gpu": True, "first_call_s": time.perf_counter() - t0,
                           "device": torch.cuda.get_device_name(0)}
    if a.steady:
        out["steady_s"] = steady(on_device, a.steady)
        out["steady_host_s"] = steady(from_host, a.steady)
    return out


def worker(a: argparse.Namespace) -> None:
    cfg = json.loads(a.config)
    r = work_opbuild(cfg, a) if a.worker == "opbuild" else work_torch(cfg, a, a.worker == "torch.compile")
    print("RESULT " + json.dumps(r))


# ---- driver -------------------------------------------------------------------------------------------------

def env_for(extra: dict[str, str], arch: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(HERE), *filter(None, [env.get("PYTHONPATH")])])
    env["OPBUILD_PROGRESS"] = "0"
    env.setdefault("OPBUILD_CUDA_ARCH", arch)  # used only where no GPU answers (device.arch())
    env.update(extra)
    return env


def run(fw: str, cfg: dict, env: dict[str, str], a: argparse.Namespace, steady_s: float = 0.0) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", fw, "--config", json.dumps(cfg),
           "--steady", str(steady_s)] + (["--train"] if a.train else [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{fw} worker failed (exit {proc.returncode}):\n{(proc.stderr + proc.stdout)[-3000:]}")


def bench_net(cfg: dict, a: argparse.Namespace, root: Path) -> dict[str, Any]:
    colds = [run("opbuild", cfg, env_for({"OPBUILD_CACHE_PATH": str(root / f"ob{i}")}, a.arch), a)
             for i in range(a.repeats)]
    cache = {"OPBUILD_CACHE_PATH": str(root / "ob0")}
    warms = [run("opbuild", cfg, env_for(cache, a.arch), a, a.steady if i == 0 else 0.0) for i in range(a.repeats)]
    k = colds[0]["kernels"]
    cold_s = statistics.median(r["build_s"] for r in colds)
    res: dict[str, Any] = {"config": cfg, "opbuild": {
        "gpu": colds[0]["gpu"], "kernels": k, "ops": colds[0]["ops"], "cold_build_s": cold_s,
        "cold_per_kernel_s": cold_s / max(k, 1), "warm_build_s": statistics.median(r["build_s"] for r in warms),
        "warm_built": max(r["built"] for r in warms), "first_call_cold_s": statistics.median(
            r["first_call_s"] for r in colds), "first_call_warm_s": statistics.median(r["first_call_s"] for r in warms),
        "steady_s": warms[0].get("steady_s")}}
    res["torch"] = run("torch", cfg, env_for({}, a.arch), a, a.steady)
    if res["torch"]["gpu"]:
        (root / "tmp").mkdir(exist_ok=True)
        tdir = {"TORCHINDUCTOR_CACHE_DIR": str(root / "inductor"), "TRITON_CACHE_DIR": str(root / "triton"),
                "TMPDIR": str(root / "tmp")}
        cold = run("torch.compile", cfg, env_for(tdir, a.arch), a)
        warm = run("torch.compile", cfg, env_for(tdir, a.arch), a, a.steady)
        res["torch.compile"] = {"first_call_cold_s": cold["first_call_s"], "first_call_warm_s": warm["first_call_s"],
                                "steady_s": warm.get("steady_s"), "steady_host_s": warm.get("steady_host_s")}
    return res


def _ms(s: float | None) -> str:
    return "needs a GPU" if s is None else f"{s * 1e3:.4g} ms"


def _ratio(x: float | None, y: float | None) -> str:
    return "needs a GPU" if x is None or y is None or y == 0 else f"{x / y:.2f}x"


def table(result: dict[str, Any]) -> str:
    lines = ["| network | kernels | opbuild cold build (per kernel) | Inductor cold first call | cold ratio | "
             "opbuild warm build (built) | Inductor warm first call | opbuild step | torch eager step (device / "
             "host) | torch.compile step (device / host) | opbuild / compile (host) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in result["nets"].items():
        o, te, tc = r["opbuild"], r["torch"], r.get("torch.compile", {})
        lines.append(
            f"| {name} | {o['kernels']} | {_ms(o['cold_build_s'])} ({_ms(o['cold_per_kernel_s'])}) | "
            f"{_ms(tc.get('first_call_cold_s'))} | {_ratio(o['cold_build_s'], tc.get('first_call_cold_s'))} | "
            f"{_ms(o['warm_build_s'])} ({o['warm_built']}) | {_ms(tc.get('first_call_warm_s'))} | "
            f"{_ms(o['steady_s'])} | {_ms(te.get('steady_s'))} / {_ms(te.get('steady_host_s'))} | "
            f"{_ms(tc.get('steady_s'))} / {_ms(tc.get('steady_host_s'))} | "
            f"{_ratio(o['steady_s'], tc.get('steady_host_s'))} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nets", default="resnet50,bert")
    p.add_argument("--quick", action="store_true", help="netspec's quick configurations")
    p.add_argument("--train", action="store_true", help="the train step instead of the forward pass")
    p.add_argument("--repeats", type=int, default=1, help="fresh processes per opbuild cold/warm figure")
    p.add_argument("--steady", type=float, default=2.0, help="seconds of steady-state calls per measurement")
    p.add_argument("--arch", default="sm_90", help="compute capability to build for where no GPU answers")
    p.add_argument("--out", type=Path, default=HERE / "results")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--config", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker:
        worker(a)
        return 0
    t0 = time.perf_counter()
    result: dict[str, Any] = {"nets": {}}
    with tempfile.TemporaryDirectory(prefix="bench_gpu_") as tmp:
        for name in a.nets.split(","):
            result["nets"][name] = bench_net(config(name, a.quick), a, Path(tmp) / name)
    result["meta"] = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "quick": a.quick, "train": a.train,
                      "repeats": a.repeats, "steady": a.steady, "wall_s": time.perf_counter() - t0,
                      "cores": os.cpu_count(), "load": os.getloadavg()[0]}
    md = table(result)
    print(md)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "gpu.json").write_text(json.dumps(result, indent=1))
    (a.out / "gpu.md").write_text(md + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
