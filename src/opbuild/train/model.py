"""MindSpore's high-level ``Model``: ``train`` (a train network built from network + loss + optimizer, driven
over a dataset with callbacks), ``eval`` (metrics over a dataset) and ``predict``.

Every step runs a compiled graph: the train network is one ``TrainOneStepCell`` graph (forward, backward and
the optimizer's in-place updates), traced and built through the incremental build on the first step and
reused by every later step; evaluation and prediction compile their own forward graphs the same way.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

from .. import amp, nn
from ..communication import auto_parallel
from ..communication.auto_parallel import ParallelMode  # noqa: F401 - MindSpore's train.model exposes it
from ..core import config
from . import _classification, _regression, _roc
from . import metrics as _metrics
from ._build import precompile
from .callback._callback import Callback, CallbackManager, CallbackParam, RunContext
from .model_eval import ModelEvaluation, _inference_mode

# MindSpore's metric names (mindspore.train.get_metric_by_name) that opbuild has metrics for.
_METRIC_NAMES: dict[str, type[_metrics.Metric]] = {
    "accuracy": _metrics.Accuracy, "acc": _metrics.Accuracy, "loss": _metrics.Loss,
    "precision": _classification.Precision, "recall": _classification.Recall, "F1": _classification.F1,
    "roc": _roc.ROC, "topk": _classification.TopKCategoricalAccuracy,
    "top_1_accuracy": _classification.Top1CategoricalAccuracy,
    "top_5_accuracy": _classification.Top5CategoricalAccuracy, "mae": _regression.MAE, "mse": _regression.MSE,
}


def _positive_int(method: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"Model.{method}: {name} must be a positive int, got {value!r}")
    return value


def get_metrics(metrics: Any) -> dict[str, _metrics.Metric]:
    """``metrics`` as ``Model`` takes it -> ``{name: Metric}``: a dict of Metric instances keeps its names;
    a set (or list/tuple) of names makes MindSpore's named metrics (``{"accuracy"}``, ``{"acc", "loss"}``)."""
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, _metrics.Metric):
                raise TypeError(f"Model: metrics dict must map str to Metric, got {name!r}: {metric!r}")
        return dict(metrics)
    if isinstance(metrics, (set, list, tuple)):
        out = {}
        for name in metrics:
            if name not in _METRIC_NAMES:
                raise KeyError(f"Model: unknown metric {name!r}; known names are {sorted(_METRIC_NAMES)}, or pass "
                               "a dict {name: Metric}")
            out[name] = _METRIC_NAMES[name]()
        return out
    raise TypeError(f"Model: metrics must be a dict or a set of names, got {type(metrics).__name__}")


def _should_eval(epoch: int, frequency: int | list) -> bool:
    """Whether ``fit`` validates after ``epoch``: every ``frequency``-th epoch, or the epochs listed."""
    return epoch % frequency == 0 if isinstance(frequency, int) else epoch in frequency


class Model(ModelEvaluation):
    """``Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
    amp_level="O0", boost_level="O0", **kwargs)``.

    Training: with ``optimizer``, the train network is ``TrainOneStepCell(WithLossCell(network, loss_fn),
    optimizer)`` (without ``loss_fn``, ``network`` must return the loss itself); with neither, ``network`` is
    the train network and is called on each batch as it is. Evaluation (needs ``metrics``): ``eval_network``
    if given, whose outputs ``eval_indexes`` = [loss, prediction, label] positions pick for the metrics
    (None: every metric gets all outputs); else ``WithEvalCell(network, loss_fn)``. Prediction runs
    ``network``.

    Mixed precision, as MindSpore's ``Model``: with an optimizer the train network is
    ``amp.build_train_network(network, optimizer, loss_fn, level=amp_level, **amp_kwargs)``, where the
    keyword arguments ``loss_scale_manager`` (a ``FixedLossScaleManager`` or ``DynamicLossScaleManager``) and
    ``keep_batchnorm_fp32`` override the level's defaults (O2: float16 with BatchNorm/LayerNorm in float32
    and a ``DynamicLossScaleManager()``; O3: float16 throughout, no loss scale; O1: the white list in
    float16). A manager with an update cell makes the train step a ``TrainOneStepWithLossScaleCell``, whose
    outputs are ``(loss, overflow, loss_scale)`` (``LossMonitor`` prints the first). The conversion is made in
    place, so the evaluation network (``WithEvalCell(network, loss_fn, add_cast_fp32=amp_level in O2/O3)``)
    and ``predict`` compute in the same precision. ``boost_level`` other than "O0" raises ValueError.
    """

    def __init__(self, network: nn.Cell, loss_fn: Any = None, optimizer: nn.Cell | None = None,
                 metrics: Any = None, eval_network: nn.Cell | None = None, eval_indexes: list[int] | None = None,
                 amp_level: str = "O0", boost_level: str = "O0", **kwargs: Any) -> None:
        if not isinstance(network, nn.Cell):
            raise TypeError(f"Model: network must be a Cell, got {type(network).__name__}")
        if amp_level not in amp.AMP_LEVELS:
            raise ValueError(f"Model: amp_level must be one of {', '.join(amp.AMP_LEVELS)} ('auto' picks a level "
                             f"on GPU and Ascend only, as in MindSpore), got {amp_level!r}")
        if boost_level != "O0":
            raise ValueError(f"Model: boost_level {boost_level!r} is not supported; use boost_level='O0'")
        # Only the arguments given override the level's defaults (MindSpore passes them the same way).
        self._amp_kwargs = {k: kwargs.pop(k) for k in ("loss_scale_manager", "keep_batchnorm_fp32") if k in kwargs}
        if kwargs:
            raise TypeError(f"Model: unexpected arguments {sorted(kwargs)}")
        if optimizer is None and amp_level != "O0":
            raise ValueError(f"Model: amp_level {amp_level!r} needs an optimizer (mixed precision applies to the train "
                             "network); pass optimizer, or amp_level='O0'")
        if self._amp_kwargs.get("loss_scale_manager") is not None and optimizer is None:
            raise ValueError("Model: loss_scale_manager needs an optimizer (the loss scale applies to the train "
                             "network)")
        self._amp_level = amp_level
        if loss_fn is not None and not callable(loss_fn):
            raise TypeError(f"Model: loss_fn must be a Cell or a function, got {type(loss_fn).__name__}")
        if optimizer is not None and getattr(optimizer, "parameters", None) is None:
            raise TypeError(f"Model: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metric_fns = get_metrics(metrics)
        self._eval_indexes = eval_indexes
        self._train_network = self._build_train_network()
        self._eval_network = self._build_eval_network(eval_network)
        self._predict_network = network

    def _build_train_network(self) -> nn.Cell:
        """``TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)``: in data-parallel mode (the parallel
        context when it is built) the cell reduces the gradients across ranks and starts from rank 0's
        weights, so ``Model.train`` on every rank of an ``mpirun`` job trains one model."""
        network = self._network
        if self._optimizer is not None:
            network = amp.build_train_network(network, self._optimizer, self._loss_fn, level=self._amp_level,
                                              **self._amp_kwargs)
        elif self._loss_fn is not None:
            network = nn.WithLossCell(network, self._loss_fn)
        self._built_data_parallel = auto_parallel.data_parallel()
        return network

    def _current_train_network(self) -> nn.Cell:
        """The train network, rebuilt when the parallel mode changed since ``Model`` built it (a program that
        calls ``set_auto_parallel_context`` after creating its Model must still reduce gradients; a train
        network passed in by the caller is used as it is)."""
        if self._optimizer is not None and self._built_data_parallel != auto_parallel.data_parallel():
            self._train_network = self._build_train_network()
        return self._train_network

    def _build_eval_network(self, eval_network: nn.Cell | None) -> nn.Cell | None:
        indexes = self._eval_indexes
        if indexes is not None and not (isinstance(indexes, list) and len(indexes) == 3
                                        and all(isinstance(i, int) and not isinstance(i, bool) for i in indexes)):
            raise ValueError(f"Model: eval_indexes must be None or a list of 3 ints [loss, prediction, label], "
                             f"got {indexes!r}")
        if eval_network is not None:
            if not isinstance(eval_network, nn.Cell):
                raise TypeError(f"Model: eval_network must be a Cell, got {type(eval_network).__name__}")
            return eval_network
        if not self._metric_fns:
            return None
        if self._loss_fn is None:
            raise ValueError("Model: metrics need an evaluation network: pass eval_network, or loss_fn so that "
                             "Model builds WithEvalCell(network, loss_fn); do not pass metrics if no evaluation "
                             "is wanted")
        self._eval_indexes = [0, 1, 2]
        return nn.WithEvalCell(self._network, self._loss_fn, add_cast_fp32=self._amp_level in ("O2", "O3"))

    @property
    def train_network(self) -> nn.Cell:
        """The network ``train`` calls on each batch."""
        return self._train_network

    @property
    def eval_network(self) -> nn.Cell | None:
        """The network ``eval`` calls on each batch (None without metrics)."""
        return self._eval_network

    @property
    def predict_network(self) -> nn.Cell:
        """The network ``predict`` calls."""
        return self._predict_network

    # -- training ---------------------------------------------------------------------------------------
    def train(self, epoch: int, train_dataset: Any, callbacks: Callback | Iterable[Callback] | None = None,
              dataset_sink_mode: bool = False, sink_size: int = -1, initial_epoch: int = 0) -> None:
        """Train for epochs ``initial_epoch + 1 .. epoch`` over ``train_dataset`` (an ``opbuild.dataset``
        dataset, batched), calling the callbacks' hooks in MindSpore's order: on_train_begin, then per epoch
        on_train_epoch_begin, per step on_train_step_begin / on_train_step_end, on_train_epoch_end, and last
        on_train_end. A callback's ``run_context.request_stop()`` ends training after the current step.
        ``dataset_sink_mode=True`` runs step by step with a warning, as MindSpore does on CPU."""
        self._run_training("train", epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch,
                           None)

    def fit(self, epoch: int, train_dataset: Any, valid_dataset: Any = None, valid_frequency: int | list = 1,
            callbacks: Callback | Iterable[Callback] | None = None, dataset_sink_mode: bool = False,
            valid_dataset_sink_mode: bool = False, sink_size: int = -1, initial_epoch: int = 0) -> None:
        """``train``, with an evaluation over ``valid_dataset`` after every ``valid_frequency``-th epoch (an
        int), or after the epochs listed (a list). The evaluation runs before ``on_train_epoch_end``, which
        sees ``cb_params.metrics`` and ``cb_params.eval_results`` (the metrics plus ``"eval_loss"``), so
        EarlyStopping and ReduceLROnPlateau can monitor them; user callbacks get the eval hooks too (the
        built-in ones other than TimeMonitor do not, as in MindSpore)."""
        if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, (int, list)):
            raise TypeError("Model.fit: valid_frequency must be an int or a list, got "
                            f"{type(valid_frequency).__name__}")
        if isinstance(valid_frequency, int) and valid_frequency <= 0:
            raise ValueError(f"Model.fit: valid_frequency must be positive, got {valid_frequency}")
        if not isinstance(valid_dataset_sink_mode, bool):
            raise TypeError(f"Model.fit: valid_dataset_sink_mode must be a bool, got {valid_dataset_sink_mode!r}")
        valid = None
        if valid_dataset is not None:
            if not self._metric_fns or self._eval_network is None:
                raise ValueError("Model.fit: a valid_dataset needs metrics; pass metrics (e.g. {'accuracy'}) to "
                                 "Model, or leave valid_dataset out")
            self._dataset_size("fit", valid_dataset)
            valid = (valid_dataset, valid_frequency)
        self._run_training("fit", epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch,
                           valid)

    def build(self, train_dataset: Any = None, valid_dataset: Any = None, sink_size: int = -1,
              epoch: int = 1) -> None:
        """Compile ahead of time (``Model.build``): in GRAPH_MODE every kernel of the train network (on the
        first batch's signature of ``train_dataset``) and of the evaluation network (``valid_dataset``) is
        built into the cache, so the first steps only trace and reuse them. Nothing runs: no parameter
        changes. A network with control flow over tensor values compiles its pieces at its first call
        instead (their conditions need data). In PYNATIVE_MODE there is nothing to compile ahead."""
        if train_dataset is None and valid_dataset is None:
            raise ValueError("Model.build: pass train_dataset and/or valid_dataset")
        if config.get_context("mode") == config.PYNATIVE_MODE:
            return
        if train_dataset is not None:
            self._dataset_size("build", train_dataset)
            network = self._current_train_network()
            precompile(network, self._first_batch(train_dataset), training=True)
        if valid_dataset is not None:
            if self._eval_network is None:
                raise ValueError("Model.build: a valid_dataset needs metrics (an evaluation network)")
            self._dataset_size("build", valid_dataset)
            precompile(self._eval_network, self._first_batch(valid_dataset), training=False)

    @staticmethod
    def _first_batch(dataset: Any) -> tuple:
        for batch in dataset.create_tuple_iterator(num_epochs=1):
            return tuple(batch)
        raise ValueError("Model.build: the dataset is empty")

    def _run_training(self, method: str, epoch: int, train_dataset: Any, callbacks: Any, dataset_sink_mode: bool,
                      sink_size: int, initial_epoch: int, valid: tuple | None) -> None:
        epoch = _positive_int(method, "epoch", epoch)
        if isinstance(initial_epoch, bool) or not isinstance(initial_epoch, int) or initial_epoch < 0:
            raise ValueError(f"Model.{method}: initial_epoch must be an int >= 0, got {initial_epoch!r}")
        if initial_epoch >= epoch:
            raise ValueError(f"Model.{method}: epoch ({epoch}) must be larger than initial_epoch ({initial_epoch})")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size == 0 or sink_size < -1:
            raise ValueError(f"Model.{method}: sink_size must be -1 or a positive int, got {sink_size!r}")
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"Model.{method}: dataset_sink_mode must be a bool, got {dataset_sink_mode!r}")
        if dataset_sink_mode:
            warnings.warn(f"Model.{method}: the CPU target has no dataset sink mode; training runs step by step "
                          "(dataset_sink_mode=False), as MindSpore does on CPU", stacklevel=3)
        batch_num = self._dataset_size(method, train_dataset)
        self._current_train_network()
        parallel_mode = auto_parallel.get_auto_parallel_context("parallel_mode")
        cb_params = CallbackParam(
            train_network=self._train_network, network=self._network, loss_fn=self._loss_fn,
            optimizer=self._optimizer, train_dataset=train_dataset, epoch_num=epoch, batch_num=batch_num,
            cur_epoch_num=initial_epoch, cur_step_num=initial_epoch * batch_num, net_outputs=None,
            mode="train", dataset_sink_mode=False, parallel_mode=parallel_mode,
            device_number=auto_parallel.get_auto_parallel_context("device_num"))
        with CallbackManager(callbacks) as cbs:
            cb_params.list_callback = list(cbs)
            run_context = RunContext(cb_params)
            self._train_process(epoch - initial_epoch, train_dataset, cbs, cb_params, run_context, valid)

    def _train_process(self, epochs: int, dataset: Any, cbs: CallbackManager, cb_params: CallbackParam,
                       run_context: RunContext, valid: tuple | None = None) -> None:
        self._train_network.set_train(True)
        iterator = dataset.create_tuple_iterator(num_epochs=epochs)
        cbs.on_train_begin(run_context)
        for _ in range(epochs):
            cb_params.cur_epoch_num += 1
            cbs.on_train_epoch_begin(run_context)
            for batch in iterator:
                cb_params.cur_step_num += 1
                cb_params.train_dataset_element = batch
                cbs.on_train_step_begin(run_context)
                cb_params.net_outputs = self._train_network(*batch)
                cbs.on_train_step_end(run_context)
                if run_context.get_stop_requested():
                    break
            if valid is not None and _should_eval(cb_params.cur_epoch_num, valid[1]):
                self._eval_during_fit(valid[0], cbs, cb_params)
            cbs.on_train_epoch_end(run_context)
            cb_params.pop("metrics", None)
            cb_params.pop("eval_results", None)
            if run_context.get_stop_requested():
                break
        cbs.on_train_end(run_context)

    def predict(self, *predict_data: Any) -> Any:
        """``network(*predict_data)`` in inference mode (``set_train(False)``): BatchNorm uses its moving
        statistics, Dropout passes through. The network's training flags are restored afterwards."""
        with _inference_mode(self._predict_network):
            return self._predict_network(*predict_data)

    @staticmethod
    def _dataset_size(method: str, dataset: Any) -> int:
        if not hasattr(dataset, "create_tuple_iterator") or not hasattr(dataset, "get_dataset_size"):
            raise TypeError(f"Model.{method}: the dataset must be an opbuild.dataset dataset, got "
                            f"{type(dataset).__name__}")
        size = dataset.get_dataset_size()
        if size <= 0:
            raise ValueError(f"Model.{method}: the dataset is empty")
        return size
