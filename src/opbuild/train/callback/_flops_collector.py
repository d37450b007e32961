"""``FlopsUtilizationCollector``: the model FLOPs of a compiled training step and the utilization they give
(MFU/HFU: FLOPs per second over the card's peak ``computility``), printed as MindSpore 2.10 prints them.

As MindSpore's, it counts only the matrix products and convolutions: every MatMul, BatchMatMul and Conv2D of
the compiled graph, the backward ones included, at 2 * (output elements) * (contracted length) each; other
ops count nothing. opbuild reads them from its own compiled graphs (fused forms included), so the count is
that of the graph opbuild runs, which for the networks checked (tests/train/test_flops_collector.py) equals
MindSpore's. Hardware FLOPs equal model FLOPs (no recomputation), and shard FLOPs the full ones (one
device). GRAPH_MODE only, as in MindSpore.
"""

from __future__ import annotations

import os
import stat
import time
from math import floor, prod
from typing import Any

from ._callback import Callback, RunContext

_MATMULS = ("MatMul", "BatchMatMul", "FusedMatMul", "FusedBatchMatMul")
_CONVS = ("Conv2D", "FusedConv2D", "Conv2DBackpropInput")


def node_flops(node: Any) -> int:
    """The FLOPs MindSpore's collector counts for one node of a compiled graph (0 for other ops)."""
    out = prod(node.outputs[0].type.shape) if node.outputs else 0
    if node.op in _MATMULS:
        attrs = node.attrs.get("producer", node.attrs)
        a = node.inputs[0].type.shape
        k = a[-2] if attrs.get("transpose_a") else a[-1]
        return 2 * out * k
    if node.op in _CONVS:  # output (or dy) elements times the filter's (Cin/group, kh, kw)
        dy = prod(node.inputs[0].type.shape) if node.op == "Conv2DBackpropInput" else out
        return 2 * dy * prod(node.inputs[1].type.shape[1:])
    if node.op == "Conv2DBackpropFilter":
        return 2 * prod(node.inputs[0].type.shape) * prod(node.attrs["filter_size"][1:])
    return 0


def network_flops(network: Any) -> float:
    """The FLOPs of one run of ``network``'s compiled graphs; ValueError when it has none (PyNative)."""
    graphs = network.compile_info() if hasattr(network, "compile_info") else []
    if not graphs:
        raise ValueError("FlopsUtilizationCollector: the network has no compiled graph; it counts FLOPs in "
                         "GRAPH_MODE only (set_context(mode=GRAPH_MODE))")
    return float(sum(node_flops(n) for compiled in graphs for n in compiled.graph.nodes))


def _floored_percent(value: float, digits: int = 2) -> str:
    scaled = value * 10 ** (digits + 2)
    return f"{floor(scaled) / 10 ** digits:.{digits}f}%"


class FlopsUtilizationCollector(Callback):
    """``FlopsUtilizationCollector(data_size, computility=1, full_flops=True, enable_ma_collector=False)``:
    after the first step prints the step's FLOPs, then at each step whose number is not a multiple of
    ``data_size`` its time and MFU/HFU against ``computility`` (peak FLOPs per second). With
    ``enable_ma_collector`` it writes them to ``flops_rank_0.txt`` and ``time_step_rank_0.txt`` in
    ``$MA_LOG_DIR`` (default ``.``), and prints nothing when ``computility`` is 1."""

    def __init__(self, data_size: int, computility: int | float = 1, full_flops: bool = True,
                 enable_ma_collector: bool = False) -> None:
        super().__init__()
        if not isinstance(full_flops, bool):
            raise TypeError(f"FlopsUtilizationCollector: full_flops must be a bool, got {full_flops!r}")
        if not isinstance(enable_ma_collector, bool):
            raise TypeError(f"FlopsUtilizationCollector: enable_ma_collector must be a bool, got "
                            f"{enable_ma_collector!r}")
        if isinstance(data_size, bool) or not isinstance(data_size, int) or data_size <= 0:
            raise ValueError(f"FlopsUtilizationCollector: data_size must be a positive int, got {data_size!r}")
        self.data_size, self.computility, self.full_flops = data_size, computility, full_flops
        self.ma = enable_ma_collector
        self.verbose = not (computility == 1 and enable_ma_collector)
        self.model_flops = self.hardware_flops = 0.0
        self._mfu = self._hfu = 0.0
        self._calculated = False
        self._batch_steps: int | None = None
        self._step_time = time.time()
        self._time_path = ""

    def step_begin(self, run_context: RunContext) -> None:
        if self._batch_steps is None:
            batch_num = run_context.original_args().get("batch_num")
            self._batch_steps = batch_num if isinstance(batch_num, int) and batch_num > 0 else self.data_size
        self._step_time = time.time()

    def _count(self, cb_params: Any) -> bool:
        network = cb_params.train_network if cb_params.mode == "train" else cb_params.get("eval_network")
        try:
            if cb_params.mode not in ("train", "eval"):
                raise ValueError("FlopsUtilizationCollector: runs in model.train and model.eval only")
            self.model_flops = self.hardware_flops = network_flops(network)
        except ValueError:
            if self.verbose:
                raise
            return False
        return True

    def step_end(self, run_context: RunContext) -> None:
        step_ms = (time.time() - self._step_time) * 1000
        cb_params = run_context.original_args()
        if not self._calculated:
            if not self._count(cb_params):
                return
            self._calculated = True
            self._mfu = self.model_flops / self.computility
            self._hfu = self.hardware_flops / self.computility
            folder = os.path.realpath(os.getenv("MA_LOG_DIR", "./"))
            if self.ma:
                self._time_path = os.path.join(folder, "time_step_rank_0.txt")
                stamp = int(round(time.time() * 1000))
                self._write(os.path.join(folder, "flops_rank_0.txt"),
                            f'flops{{type="model_flops", rank_id="0"}} {self.model_flops} {stamp}\n'
                            f'flops{{type="hardware_flops", rank_id="0"}} {self.hardware_flops} {stamp}\n')
            if self.verbose:
                shard = (f"Shard model flops is {self.model_flops}, "
                         f"Shard hardware flops is {self.hardware_flops}.")
                full = (f"Full model flops is {self._mfu * self.computility}, "
                        f"Full hardware flops is {self._hfu * self.computility}, ")
                print((full if self.full_flops else "") + shard, flush=True)
        if cb_params.get("dataset_sink_mode"):
            step_ms /= self._batch_steps or 1
        if self.ma:
            self._write(self._time_path, f'time_monitor{{type="per_step_time", rank_id="0"}} {step_ms} '
                                         f"{int(round(time.time() * 1000))}\n")
        if self.verbose and cb_params.cur_step_num % self.data_size:
            line = f"{cb_params.mode.title()} per step time: {step_ms:5.3f} ms"
            mfu, hfu = 1000 * self._mfu / step_ms, 1000 * self._hfu / step_ms
            print(f"{line} mfu:{_floored_percent(mfu)} hfu:{_floored_percent(hfu)}", flush=True)

    @staticmethod
    def _write(path: str, text: str) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, stat.S_IWUSR | stat.S_IRUSR)
        with os.fdopen(fd, "w") as f:
            f.write(text)
