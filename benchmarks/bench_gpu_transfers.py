"""Bytes a GPU train step moves over the bus, with device-resident Parameters (the default) and with the copy
back after every call (``OPBUILD_GPU_WRITEBACK=1``), counted on the emulated device of the tests.

    python benchmarks/bench_gpu_transfers.py                 # the four networks, quick configurations
    python benchmarks/bench_gpu_transfers.py --nets mlp,resnet --steps 3 --out /tmp/transfers.json

Per network (benchmarks/netspec.py, quick configurations): ``TrainOneStepCell(WithLossCell(net, sparse softmax
cross entropy), Momentum)`` in GRAPH_MODE on the GPU target, driven by the emulated driver of
tests/targets/cuda/emulated_device.py (device memory is host memory; the kernels are the NVRTC programs compiled
by g++), which counts the bytes each copy queues: host to device (up), device to host (down), device to device.
The first step compiles and uploads every Parameter; the figures are those of each later step (they must be the
same at every step, checked), and the Parameters after the steps must be equal in both modes (checked). Bytes
are a property of the executor, not of the device: the same figures hold on a GPU. The timings of a real bus
await a GPU (benchmarks/bench_gpu.py). Needs the ``cuda`` extra (NVRTC) and g++; about 35 s for the four
networks on the build machine (2 shared cores).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(REPO / "src"), str(REPO), str(HERE)]

import numpy as np  # noqa: E402
from build_worker import _opbuild_net  # noqa: E402
from netspec import NET_NAMES, config, describe  # noqa: E402
from tests.targets.cuda.emulated_device import EmulatedDriver, install  # noqa: E402

import opbuild as ms  # noqa: E402
from opbuild import nn  # noqa: E402

MODES = {"resident": "0", "writeback": "1"}


def _labels(cfg: dict[str, Any]) -> ms.Tensor:
    classes = cfg["hidden"] if cfg["kind"] == "bert" else cfg["classes"]
    return ms.Tensor(np.random.default_rng(7).integers(0, classes, cfg["batch"]).astype(np.int32))


class _Pooled(nn.Cell):
    """BERT's encoder output averaged over the sequence: logits [batch, hidden] (as bench_gpu.py trains it)."""

    def __init__(self, enc: nn.Cell):
        super().__init__()
        self.enc = enc

    def construct(self, ids):
        return self.enc(ids).mean(1)


def measure(cfg: dict[str, Any], mode: str, steps: int, drv: EmulatedDriver) -> dict[str, Any]:
    """One network in one mode: bytes per step after the first, the Parameters' bytes, the final weights."""
    os.environ["OPBUILD_GPU_WRITEBACK"] = MODES[mode]  # read when the graph is made
    ms.set_seed(0)
    net, x = _opbuild_net(cfg)
    ms.set_context(device_target="GPU")
    if cfg["kind"] == "bert":
        net = _Pooled(net)
    loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train()
    args = (x, _labels(cfg))
    t0 = time.perf_counter()
    step(*args)  # compiles; uploads every Parameter once
    first_s = time.perf_counter() - t0
    per_step = []
    t0 = time.perf_counter()
    for _ in range(steps):
        before = drv.transferred()
        step(*args).asnumpy()
        after = drv.transferred()
        per_step.append({k: after[k] - before[k] for k in after})
    steps_s = (time.perf_counter() - t0) / steps
    if any(s != per_step[0] for s in per_step):
        raise SystemExit(f"{cfg['kind']} {mode}: the bytes moved differ between steps: {per_step}")
    params = list(step.get_parameters())
    weights = [p.asnumpy().copy() for p in net.trainable_params()]
    return {"per_step": per_step[0], "first_step_s": round(first_s, 3), "step_s": round(steps_s, 3),
            "parameter_bytes": sum(p._data.nbytes for p in params),
            "input_bytes": sum(a.asnumpy().nbytes for a in args), "weights": weights}


def table(results: dict[str, Any]) -> str:
    rows = ["| network | parameters + optimizer state | mode | up / step | down / step | device to device / step |",
            "|---|---:|---|---:|---:|---:|"]
    for name, r in results.items():
        for mode in MODES:
            m = r[mode]
            rows.append(f"| {name} ({r['describe']}) | {m['parameter_bytes']:,} B | {mode} | {m['per_step']['up']:,} B "
                        f"| {m['per_step']['down']:,} B | {m['per_step']['dtod']:,} B |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nets", default=",".join(NET_NAMES), help=f"comma-separated subset of {', '.join(NET_NAMES)}")
    p.add_argument("--steps", type=int, default=2, help="steps counted after the first (compiling) one")
    p.add_argument("--out", type=Path, default=HERE / "results" / "gpu_transfers.json")
    a = p.parse_args(argv)
    nets = [n for n in a.nets.split(",") if n]
    for n in nets:
        config(n, True)  # exits on an unknown name
    root = Path(tempfile.mkdtemp(prefix="opbuild-gpu-transfers-"))
    os.environ.setdefault("OPBUILD_CACHE_PATH", str(root / "cache"))
    os.environ["OPBUILD_PROGRESS"] = "0"
    drv = install(root / "emulated-gpu")
    results: dict[str, Any] = {}
    for name in nets:
        cfg = config(name, True)
        r: dict[str, Any] = {"config": cfg, "describe": describe(cfg)}
        for mode in MODES:
            r[mode] = measure(cfg, mode, a.steps, drv)
        same = all(np.allclose(g, w, rtol=1e-5, atol=1e-6)
                   for g, w in zip(r["resident"].pop("weights"), r["writeback"].pop("weights"), strict=True))
        if not same:
            raise SystemExit(f"{name}: the trained weights differ between the two modes")
        results[name] = r
        print(f"{name}: resident {r['resident']['per_step']}, writeback {r['writeback']['per_step']}", flush=True)
    os.environ.pop("OPBUILD_GPU_WRITEBACK", None)
    out = {"device": "emulated (host memory; kernels compiled by g++); bytes are the executor's, as on a GPU",
           "steps": a.steps, "networks": results}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(out, indent=1))
    print(table(results))
    print(f"JSON: {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
