"""``SummaryCollector``: a callback writing a MindInsight summary file during ``Model.train`` through a
:class:`~opbuild.train.summary.SummaryRecord`, on MindSpore 2.10's schedule.

At the first step, then every ``collect_freq`` steps (epochs in dataset sink mode), and again at an epoch's end
when its step count is a multiple of ``collect_freq``, it writes: the loss (``loss/auto``, the mean of the
network's first output), histograms of the optimizer's parameters (``<name>/auto``: the first five, or those
matching ``histogram_regular``), the first input as an image when it is one (``input_data/auto``), and the
values of the network's summary operators. ``collect_tensor_freq`` thins the TensorSummary values as
MindSpore's does (at most 20 collections by default).

Not written (accepted, with an info log): the graph, the dataset graph and the train/eval lineage (MindSpore's
IR and lineage records), and the loss-landscape checkpoints of ``collect_landscape``.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import numpy as np

from ...core.tensor import Tensor
from ...nn.optim.optimizer import Optimizer
from ..summary import SummaryRecord
from ._callback import Callback, RunContext

log = logging.getLogger("opbuild.summary")

_DEFAULTS: dict[str, Any] = {
    "collect_metric": True, "collect_graph": True, "collect_train_lineage": True, "collect_eval_lineage": True,
    "collect_input_data": True, "collect_dataset_graph": True, "histogram_regular": None,
    "collect_landscape": {"landscape_size": 40, "unit": "step", "num_samples": 2048,
                          "create_landscape": {"train": True, "result": True},
                          "intervals": [[1, 2, 3, 4, 5, 6, 7, 8, 9], [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]]},
}
_NOT_WRITTEN = ("collect_graph", "collect_dataset_graph", "collect_train_lineage", "collect_eval_lineage")
_TENSOR_LIMIT = 20
_HISTOGRAM_DEFAULT_COUNT = 5


def _positive(name: str, value: Any, allow_none: bool = False) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"SummaryCollector: {name} must be a positive int{' or None' if allow_none else ''}, "
                         f"got {value!r}")


def _specified(data: Any, keep_default_action: bool) -> dict[str, Any]:
    """The collected items: ``data`` over the defaults (or alone, without ``keep_default_action``)."""
    if data is not None and not isinstance(data, dict):
        raise TypeError(f"SummaryCollector: collect_specified_data must be a dict or None, got "
                        f"{type(data).__name__}")
    if not data:
        return dict(_DEFAULTS)
    unknown = set(data) - set(_DEFAULTS)
    if unknown:
        raise ValueError(f"SummaryCollector: collect_specified_data has unknown keys {sorted(unknown)}; the keys "
                         f"are {list(_DEFAULTS)}")
    for key, value in data.items():
        if key == "histogram_regular":
            if value is not None and not isinstance(value, str):
                raise TypeError(f"SummaryCollector: histogram_regular must be a str or None, got {value!r}")
        elif key == "collect_landscape":
            if value is not None and not isinstance(value, dict):
                raise TypeError(f"SummaryCollector: collect_landscape must be a dict or None, got {value!r}")
        elif not isinstance(value, bool):
            raise TypeError(f"SummaryCollector: collect_specified_data[{key!r}] must be a bool, got {value!r}")
    return {**_DEFAULTS, **data} if keep_default_action else dict(data)


class SummaryCollector(Callback):
    """``SummaryCollector(summary_dir, collect_freq=10, num_process=32, collect_specified_data=None,
    keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None, max_file_size=None,
    export_options=None)``: see the module docstring for what is written and when."""

    def __init__(self, summary_dir: str, collect_freq: int = 10, num_process: int = 32,
                 collect_specified_data: dict | None = None, keep_default_action: bool = True,
                 custom_lineage_data: dict | None = None, collect_tensor_freq: int | None = None,
                 max_file_size: int | None = None, export_options: dict | None = None) -> None:
        super().__init__()
        if not isinstance(summary_dir, str) or not summary_dir:
            raise TypeError(f"SummaryCollector: summary_dir must be a non-empty str, got {summary_dir!r}")
        _positive("collect_freq", collect_freq)
        _positive("collect_tensor_freq", collect_tensor_freq, allow_none=True)
        _positive("max_file_size", max_file_size, allow_none=True)
        if not isinstance(keep_default_action, bool):
            raise ValueError(f"SummaryCollector: keep_default_action must be a bool, got {keep_default_action!r}")
        if custom_lineage_data is not None and not isinstance(custom_lineage_data, dict):
            raise TypeError(f"SummaryCollector: custom_lineage_data must be a dict or None, got "
                            f"{type(custom_lineage_data).__name__}")
        self._summary_dir, self._collect_freq = summary_dir, collect_freq
        self._tensor_freq, self._max_file_size = collect_tensor_freq, max_file_size
        self._export_options = export_options
        self._collect = _specified(collect_specified_data, keep_default_action)
        skipped = [k for k in _NOT_WRITTEN if self._collect.get(k)] + (
            ["collect_landscape"] if self._collect.get("collect_landscape") else [])
        skipped += ["custom_lineage_data"] if custom_lineage_data else []
        if skipped:
            log.info("SummaryCollector: opbuild does not write %s", ", ".join(skipped))
        self._record: SummaryRecord | None = None
        self._first_step, self._tensor_range = True, range(0)
        self._saved_first = False
        self._optimizer: Any = None
        self._loss_ok = True

    def __enter__(self) -> SummaryCollector:
        self._record = SummaryRecord(self._summary_dir, max_file_size=self._max_file_size,
                                     export_options=self._export_options)
        self._first_step = True
        return self

    def __exit__(self, *err: Any) -> None:
        if self._record is not None:
            self._record.close()

    def begin(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        if cb_params.mode not in ("train", "eval"):
            raise ValueError(f"SummaryCollector: runs in model.train or model.eval, got mode {cb_params.mode!r}")
        self._require_record().set_mode(cb_params.mode)

    def step_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        if cb_params.mode != "train":
            return
        record = self._require_record()
        if not self._saved_first:  # where MindSpore writes the graphs: the summary operators' values go too
            self._saved_first = True
            record.record(cb_params.cur_step_num)
        if not cb_params.get("dataset_sink_mode", False):
            self._collect_tensor_data(cb_params)

    def epoch_end(self, run_context: RunContext) -> None:
        cb_params = run_context.original_args()
        self._collect_tensor_data(cb_params)
        self._require_record().flush()

    def end(self, run_context: RunContext) -> None:
        record = self._require_record()
        record.set_mode("eval")  # what is left of the summary operators is not written
        record.record(0)

    def _require_record(self) -> SummaryRecord:
        if self._record is None:
            raise RuntimeError("SummaryCollector: use it as a Model.train callback (Model enters it, which opens "
                               "its SummaryRecord), or in a `with` statement")
        return self._record

    def _collect_tensor_data(self, cb_params: Any) -> None:
        if cb_params.mode != "train":
            return
        sink = bool(cb_params.get("dataset_sink_mode", False))
        if self._first_step:
            self._tensor_range = self._tensor_collect_range(cb_params, sink)
            self._collect_at_step_end(cb_params, None)
            self._first_step = False
            self._require_record().flush()
            return
        current = cb_params.cur_epoch_num if sink else cb_params.cur_step_num
        at_freq, in_range = current % self._collect_freq == 0, current in self._tensor_range
        if at_freq and in_range:
            self._collect_at_step_end(cb_params, None)
        elif in_range:
            self._collect_at_step_end(cb_params, lambda plugin: plugin == "tensor")
        elif at_freq:
            self._collect_at_step_end(cb_params, lambda plugin: plugin != "tensor")

    def _tensor_collect_range(self, cb_params: Any, sink: bool) -> range:
        """The steps (epochs when sinking) whose TensorSummary values are written."""
        total = cb_params.epoch_num * (1 if sink else cb_params.batch_num)
        if self._tensor_freq is not None:
            return range(0, total + 1, self._tensor_freq)
        if len(range(0, total + 1, self._collect_freq)) > _TENSOR_LIMIT:
            freq = total // (_TENSOR_LIMIT - 1)
            if freq > 1:
                return range(0, total + 1, freq)[:_TENSOR_LIMIT]
            return range(0, total + 1)[:_TENSOR_LIMIT + 1]
        return range(0, total + 1, self._collect_freq)

    def _collect_at_step_end(self, cb_params: Any, plugin_filter: Any) -> None:
        self._collect_input_data(cb_params)
        self._collect_metric(cb_params)
        self._collect_histogram(cb_params)
        self._require_record().record(cb_params.cur_step_num, plugin_filter=plugin_filter)

    def _collect_input_data(self, cb_params: Any) -> None:
        if not self._collect.get("collect_input_data"):
            return
        data = cb_params.get("train_dataset_element")
        if isinstance(data, (list, tuple)):
            data = data[0] if data else None
        if not isinstance(data, Tensor) or data.ndim != 4:
            log.warning("SummaryCollector: the network's first input is not a 4-D image tensor, so it is not "
                        "collected")
            self._collect["collect_input_data"] = False
            return
        self._require_record().add_value("image", "input_data/auto", data)

    def _collect_metric(self, cb_params: Any) -> None:
        if not self._collect.get("collect_metric") or not self._loss_ok:
            return
        output = cb_params.get("net_outputs")
        if isinstance(output, (list, tuple)):
            output = output[0] if output else None
        if not isinstance(output, (int, float, Tensor)):
            log.warning("SummaryCollector: the network's output is no loss (a Tensor or number), so no loss is "
                        "collected")
            self._loss_ok = False
            return
        value = output.asnumpy() if isinstance(output, Tensor) else np.asarray(output)
        self._require_record().add_value("scalar", "loss/auto", Tensor(np.mean(value)))

    def _find_optimizer(self, cb_params: Any) -> Optimizer | None:
        if self._optimizer is None:
            found = cb_params.get("optimizer")
            if not isinstance(found, Optimizer):
                network = cb_params.train_network if cb_params.mode == "train" else cb_params.get("eval_network")
                found = next((cell for _, cell in network.cells_and_names() if isinstance(cell, Optimizer)),
                             None) if network is not None else None
            if found is None:
                log.warning("SummaryCollector: no optimizer found, so no parameter histogram is collected")
            self._optimizer = found if found is not None else False
        return self._optimizer or None

    def _collect_histogram(self, cb_params: Any) -> None:
        if "histogram_regular" not in self._collect:
            return
        optimizer = self._find_optimizer(cb_params)
        if optimizer is None:
            return
        pattern = self._collect.get("histogram_regular")
        params = list(optimizer.parameters)
        chosen = ([p for p in params if re.match(pattern, p.name)] if pattern is not None
                  else params[:_HISTOGRAM_DEFAULT_COUNT])
        for param in chosen:
            self._require_record().add_value("histogram", f"{param.name}/auto", Tensor(param.asnumpy()))
