"""MindSpore's printing callbacks: ``LossMonitor`` (the loss every N steps, stopping on NaN/Inf) and
``TimeMonitor`` (epoch and per-step wall time)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ._callback import Callback, RunContext


def _non_negative_int(cls: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{cls}: {name} must be an int >= 0, got {value!r}")
    return value


def _loss_value(outputs: Any) -> Any:
    """The loss among a step's outputs as MindSpore's LossMonitor finds it: the first element of a tuple, and
    the mean of a Tensor (a per-sample loss prints as its mean)."""
    if isinstance(outputs, (tuple, list)) and outputs and hasattr(outputs[0], "asnumpy"):
        outputs = outputs[0]
    if hasattr(outputs, "asnumpy"):
        return float(np.mean(outputs.asnumpy()))
    return outputs


def step_in_epoch(cb_params: Any) -> int:
    """The 1-based step within the current epoch (``cur_step_num`` counts from the start of training)."""
    return (cb_params.cur_step_num - 1) % cb_params.batch_num + 1


class LossMonitor(Callback):
    """``LossMonitor(per_print_times=1)``: prints ``epoch: E step: S, loss is L`` every ``per_print_times``
    steps (0: never), S counted within the epoch; a NaN or Inf loss raises ValueError, which stops training.
    After an epoch of ``Model.fit`` that evaluated, prints the metrics."""

    def __init__(self, per_print_times: int = 1) -> None:
        super().__init__()
        self._per_print_times = _non_negative_int("LossMonitor", "per_print_times", per_print_times)
        self._last_print_time = 0

    def step_end(self, run_context: RunContext) -> None:
        """Print the loss of this step when due; raise on a non-finite loss."""
        cb_params = run_context.original_args()
        loss = _loss_value(cb_params.net_outputs)
        cur_step = step_in_epoch(cb_params)
        if isinstance(loss, float) and not np.isfinite(loss):
            raise ValueError(f"epoch: {cb_params.cur_epoch_num} step: {cur_step}. Invalid loss, terminating training.")
        if self._per_print_times == 0:
            return
        # A new run of the same monitor (a second Model.train) starts counting steps again from 1.
        if cb_params.cur_step_num <= self._last_print_time:
            self._last_print_time = 0
        if cb_params.cur_step_num - self._last_print_time >= self._per_print_times:
            self._last_print_time = cb_params.cur_step_num
            print(f"epoch: {cb_params.cur_epoch_num} step: {cur_step}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """In ``Model.fit``, print the evaluation results of this epoch."""
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print(f"Eval result: epoch {cb_params.cur_epoch_num}, metrics: {metrics}", flush=True)


class TimeMonitor(Callback):
    """``TimeMonitor(data_size=None)``: after each epoch prints ``Train epoch time: T ms, per step time: S ms``
    (evaluation: ``Eval epoch time``), S = T / the number of steps of the epoch (``cb_params.batch_num``, or
    ``data_size`` when the run does not give it)."""

    def __init__(self, data_size: int | None = None) -> None:
        super().__init__()
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, int)
                                      or data_size <= 0):
            raise ValueError(f"TimeMonitor: data_size must be a positive int or None, got {data_size!r}")
        self.data_size = data_size
        self.epoch_time = time.perf_counter()

    def epoch_begin(self, run_context: RunContext) -> None:
        """Start the epoch's clock."""
        self.epoch_time = time.perf_counter()

    def _report(self, run_context: RunContext, mode: str) -> None:
        epoch_ms = (time.perf_counter() - self.epoch_time) * 1000
        steps = run_context.original_args().get("batch_num") or self.data_size
        if not steps:
            raise ValueError("TimeMonitor: the number of steps is unknown; pass data_size")
        print(f"{mode} epoch time: {epoch_ms:5.3f} ms, per step time: {epoch_ms / steps:5.3f} ms", flush=True)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self._report(run_context, "Train")

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        self._report(run_context, "Eval")

    def epoch_end(self, run_context: RunContext) -> None:
        """MindSpore 1.x name of the epoch-end hook."""
        self._report(run_context, "Train")
