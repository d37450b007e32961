"""Model's evaluation (``Model.eval`` and the validation ``Model.fit`` runs), a mixin of
:class:`~opbuild.train.model.Model`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..nn.cell import restore_training
from . import callback
from . import metrics as _metrics
from .callback._callback import Callback, CallbackManager, CallbackParam, RunContext

if TYPE_CHECKING:
    from .. import nn


@contextlib.contextmanager
def _inference_mode(network: nn.Cell) -> Iterator[None]:
    """Run ``network`` with ``set_train(False)`` and restore every sub-cell's training flag afterwards: the
    evaluation and prediction networks share their layers with the train network, so an ``eval`` called
    between epochs (from a callback, or ``Model.fit``) must not leave BatchNorm or Dropout in inference mode
    for the steps that follow."""
    flags = [(cell, cell.training) for _, cell in network.cells_and_names()]
    network.set_train(False)
    try:
        yield
    finally:
        restore_training(flags)


class ModelEvaluation:
    """``Model.eval`` and its helpers; the state they read (networks, metrics) is set by ``Model.__init__``."""

    def _eval_during_fit(self, valid_dataset: Any, cbs: CallbackManager, cb_params: CallbackParam) -> None:
        """One evaluation pass inside ``fit``: the train fields of ``cb_params`` are restored afterwards."""
        saved = {k: cb_params.get(k) for k in ("cur_step_num", "batch_num", "net_outputs", "mode")}
        built_in = set(callback.__all__) - {"TimeMonitor"}
        eval_cbs = [cb for cb in cbs if type(cb).__name__ not in built_in]
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid_dataset
        cb_params.batch_num = valid_dataset.get_dataset_size()
        cb_params.mode = "eval"
        cb_params.cur_step_num = 0
        with CallbackManager(eval_cbs) as eval_manager:
            metrics, eval_loss = self._eval_process(valid_dataset, eval_manager, cb_params)
        cb_params.eval_results = dict(metrics)
        if eval_loss is not None:
            cb_params.eval_results["eval_loss"] = eval_loss
        cb_params.update(saved)

    # -- evaluation and prediction ----------------------------------------------------------------------
    def eval(self, valid_dataset: Any, callbacks: Callback | Iterable[Callback] | None = None,
             dataset_sink_mode: bool = False) -> dict[str, float]:
        """Run the evaluation network over ``valid_dataset`` (one pass) and return ``{name: value}`` of the
        metrics (``{"accuracy": 0.97}``). Hooks: on_eval_begin, on_eval_epoch_begin, per step
        on_eval_step_begin / on_eval_step_end, on_eval_epoch_end, on_eval_end; as in MindSpore 2.10,
        ``cb_params.metrics`` is set after on_eval_epoch_end, so on_eval_end is the hook that reads it."""
        if not self._metric_fns or self._eval_network is None:
            raise ValueError("Model.eval: the model has no metrics; pass metrics (e.g. {'accuracy'}) to Model")
        batch_num = self._dataset_size("eval", valid_dataset)
        cb_params = CallbackParam(eval_network=self._eval_network, valid_dataset=valid_dataset,
                                  batch_num=batch_num, cur_epoch_num=1, cur_step_num=0, net_outputs=None,
                                  mode="eval", dataset_sink_mode=False)
        with CallbackManager(callbacks) as cbs:
            metrics, _ = self._eval_process(valid_dataset, cbs, cb_params)
        return metrics

    def _eval_process(self, valid_dataset: Any, cbs: CallbackManager,
                      cb_params: CallbackParam) -> tuple[dict[str, Any], float | None]:
        """One pass of the evaluation network with the eval hooks; sets ``cb_params.metrics``. Returns the
        metrics and ``eval_loss`` (None when the evaluation network's loss position is unknown): as in
        MindSpore 2.10, the loss of the last batch (MindSpore starts a new Loss metric at every step)."""
        for metric in self._metric_fns.values():
            metric.clear()
        eval_loss = None
        with _inference_mode(self._eval_network):
            cb_params.list_callback = list(cbs)
            run_context = RunContext(cb_params)
            cbs.on_eval_begin(run_context)
            cbs.on_eval_epoch_begin(run_context)
            for batch in valid_dataset.create_tuple_iterator(num_epochs=1):
                cb_params.cur_step_num += 1
                cbs.on_eval_step_begin(run_context)
                outputs = self._eval_network(*batch)
                cb_params.eval_dataset_element = batch
                cb_params.net_outputs = outputs
                # MindSpore's order: the step-end hook sees the metrics before this step's update, and the
                # epoch-end hook runs before cb_params.metrics is set; only on_eval_end sees the results.
                cbs.on_eval_step_end(run_context)
                self._update_metrics(outputs)
                if self._eval_indexes is not None:
                    eval_loss = _metrics.Loss()
                    eval_loss.update(outputs[self._eval_indexes[0]])
                if run_context.get_stop_requested():
                    break
            cbs.on_eval_epoch_end(run_context)
            cb_params.metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
            cbs.on_eval_end(run_context)
        return cb_params.metrics, (eval_loss.eval() if eval_loss is not None else None)

    def _update_metrics(self, outputs: Any) -> None:
        if not isinstance(outputs, tuple):
            raise ValueError(f"Model.eval: the evaluation network must return a tuple, got "
                             f"{type(outputs).__name__}")
        indexes = self._eval_indexes
        for metric in self._metric_fns.values():
            if indexes is None:
                metric.update(*outputs)
            elif isinstance(metric, _metrics.Loss):
                metric.update(outputs[indexes[0]])
            else:
                metric.update(outputs[indexes[1]], outputs[indexes[2]])
