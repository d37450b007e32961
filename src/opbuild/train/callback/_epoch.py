"""Epoch-level callbacks with MindSpore 2.10's signatures and behaviour: EarlyStopping, ReduceLROnPlateau,
History and LambdaCallback.

The monitored value is ``"loss"`` (the train network's last output, its first element when a tuple, averaged)
or a key of ``cb_params.eval_results``, which ``Model.fit`` sets before ``on_train_epoch_end`` on the epochs
it validates (``"eval_loss"`` and the metrics' names)."""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from ._callback import Callback, RunContext

log = logging.getLogger("opbuild.train")

# Monitors for which smaller is better when mode is "auto" (MindSpore's list).
SMALLER_IS_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "perplexity", "mean_surface_distance",
                     "root_mean_square_distance", "eval_loss")
_HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin", "on_train_step_end",
          "on_train_begin", "on_train_end", "on_eval_epoch_begin", "on_eval_epoch_end", "on_eval_step_begin",
          "on_eval_step_end", "on_eval_begin", "on_eval_end")


def _scalar_of_outputs(outputs: Any) -> Any:
    """The loss as MindSpore's callbacks read it: the first element of a tuple/list, a Tensor's mean."""
    if isinstance(outputs, (tuple, list)) and outputs:
        outputs = outputs[0]
    if hasattr(outputs, "asnumpy"):
        return float(np.mean(outputs.asnumpy()))
    return outputs


def _monitor_value(who: str, monitor: str, cb_params: Any) -> np.ndarray | None:
    if monitor == "loss":
        value = _scalar_of_outputs(cb_params.get("net_outputs"))
        candidates: dict = {}
    else:
        candidates = cb_params.get("eval_results") or {}
        value = candidates.get(monitor)
    if value is None:
        log.warning("%s is conditioned on %s, which is not available; available: %s", who, monitor,
                    sorted({"loss", *candidates}))
        return None
    if isinstance(value, np.ndarray) and value.shape != ():
        raise ValueError(f"{who}: the monitored value {monitor!r} must be a scalar, got shape {value.shape}")
    # MindSpore treats a value of 0 as missing too (its test is the value's truth).
    return np.array(value) if value else None


def _check_mode(who: str, mode: str) -> str:
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"{who}: mode must be 'auto', 'min' or 'max', got {mode!r}")
    return mode


def _non_negative_int(who: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{who}: {name} must be an int >= 0, got {value!r}")
    return value


class _Plateau(Callback):
    """What EarlyStopping and ReduceLROnPlateau share: the monitor, the direction and the best value."""

    def _setup(self, monitor: str, mode: str, min_delta: Any) -> None:
        who = type(self).__name__
        if not isinstance(monitor, str):
            raise TypeError(f"{who}: monitor must be a str, got {type(monitor).__name__}")
        if isinstance(min_delta, bool) or not isinstance(min_delta, (int, float)):
            raise TypeError(f"{who}: min_delta must be a float or an int, got {type(min_delta).__name__}")
        self.monitor, self.mode, self.min_delta = monitor, _check_mode(who, mode), abs(min_delta)
        self._smaller = mode == "min" or (mode == "auto" and monitor in SMALLER_IS_BETTER)
        self.best = np.inf if self._smaller else -np.inf

    def is_improvement(self, a: Any, b: Any) -> bool:
        """Whether ``a`` is better than ``b`` by more than min_delta."""
        return bool(np.less(a, b - self.min_delta) if self._smaller else np.greater(a, b + self.min_delta))

    def _reset_best(self) -> None:
        self.best = np.inf if self._smaller else -np.inf


class EarlyStopping(_Plateau):
    """``EarlyStopping(monitor='eval_loss', min_delta=0, patience=0, verbose=False, mode='auto',
    baseline=None, restore_best_weights=False)``: stop training when the monitored value stops improving.

    At each epoch end the wait count grows by one and is reset by an improvement; training stops once it
    reaches ``patience`` (so ``patience=0`` stops after the first epoch, as in MindSpore). With
    ``restore_best_weights`` the train network gets back the parameters of the best epoch when it stops.
    As MindSpore 2.10, a given ``baseline`` is recorded as ``min_delta``'s value."""

    def __init__(self, monitor: str = "eval_loss", min_delta: float = 0, patience: int = 0, verbose: bool = False,
                 mode: str = "auto", baseline: float | None = None, restore_best_weights: bool = False) -> None:
        super().__init__()
        self._setup(monitor, mode, min_delta)
        self.patience = _non_negative_int("EarlyStopping", "patience", patience)
        if not isinstance(verbose, bool) or not isinstance(restore_best_weights, bool):
            raise TypeError("EarlyStopping: verbose and restore_best_weights must be bools")
        self.verbose, self.restore_best_weights = verbose, restore_best_weights
        self.baseline = min_delta if baseline else None
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights_param_dict: dict | None = None

    def on_train_begin(self, run_context: RunContext) -> None:
        """Reset the state."""
        self.wait = 0
        self.stopped_epoch = 0
        self._reset_best()
        self.best_weights_param_dict = None

    @staticmethod
    def _weights(cb_params: Any) -> dict:
        return {p.name: copy.deepcopy(p.asnumpy()) for _, p in cb_params.train_network.parameters_and_names()}

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Compare the monitored value with the best so far; request the stop after ``patience`` epochs."""
        cb_params = run_context.original_args()
        current = _monitor_value("EarlyStopping", self.monitor, cb_params)
        if current is None:
            return
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = self._weights(cb_params)
        self.wait += 1
        if self.is_improvement(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = self._weights(cb_params)
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.get("cur_epoch_num")
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                for _, p in cb_params.train_network.parameters_and_names():
                    if p.name in self.best_weights_param_dict:
                        p.set_data(self.best_weights_param_dict[p.name].copy())

    def on_train_end(self, run_context: RunContext) -> None:
        """With ``verbose``, say at which epoch training stopped."""
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")


class ReduceLROnPlateau(_Plateau):
    """``ReduceLROnPlateau(monitor='eval_loss', factor=0.1, patience=10, verbose=False, mode='auto',
    min_delta=1e-4, cooldown=0, min_lr=0)``: multiply the optimizer's (static) learning rate by ``factor``
    (not below ``min_lr``) after ``patience`` epochs without improvement, then wait ``cooldown`` epochs."""

    def __init__(self, monitor: str = "eval_loss", factor: float = 0.1, patience: int = 10, verbose: bool = False,
                 mode: str = "auto", min_delta: float = 1e-4, cooldown: int = 0, min_lr: float = 0) -> None:
        super().__init__()
        self._setup(monitor, mode, min_delta)
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not 0.0 < factor < 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be in (0, 1), got {factor!r}")
        if isinstance(min_lr, bool) or not isinstance(min_lr, (int, float)):
            raise TypeError(f"ReduceLROnPlateau: min_lr must be a float or an int, got {type(min_lr).__name__}")
        if not isinstance(verbose, bool):
            raise TypeError("ReduceLROnPlateau: verbose must be a bool")
        self.factor, self.min_lr, self.verbose = factor, min_lr, verbose
        self.patience = _non_negative_int("ReduceLROnPlateau", "patience", patience)
        self.cooldown = _non_negative_int("ReduceLROnPlateau", "cooldown", cooldown)
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, run_context: RunContext) -> None:
        """Reset the state."""
        self.cooldown_counter = 0
        self.wait = 0
        self._reset_best()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Track the monitored value and lower the learning rate on a plateau."""
        cb_params = run_context.original_args()
        optimizer = cb_params.get("optimizer")
        lr = getattr(optimizer, "learning_rate", None)
        if lr is None or getattr(optimizer, "dynamic_lr", False) or getattr(optimizer, "is_group_lr", False) \
                or not hasattr(lr, "set_data"):
            raise ValueError("ReduceLROnPlateau does not support dynamic learning rate and group learning rate "
                             "(the optimizer needs one float learning_rate)")
        current = _monitor_value("ReduceLROnPlateau", self.monitor, cb_params)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                cur = float(lr.asnumpy())
                if cur > self.min_lr:
                    new_lr = max(cur * self.factor, self.min_lr)
                    lr.set_data(np.asarray(new_lr, dtype=lr.asnumpy().dtype))
                    if self.verbose:
                        print(f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing learning rate to "
                              f"{new_lr}.")
                self.cooldown_counter = self.cooldown
                self.wait = 0


class History(Callback):
    """``History()``: ``history`` maps ``"net_output"`` (the loss at each epoch end: the first output, its
    mean) and, on the epochs ``Model.fit`` validated, each metric's name to a list over epochs; ``epoch``
    is ``{"epoch": [1, 2, ...]}``."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list] = {}
        self.epoch: dict[str, list] | None = None

    def begin(self, run_context: RunContext) -> None:
        """Start a new epoch list."""
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context: RunContext) -> None:
        """Record this epoch's loss and metrics."""
        cb_params = run_context.original_args()
        if self.epoch is None:
            self.epoch = {"epoch": []}
        self.epoch["epoch"].append(cb_params.get("cur_epoch_num", 1))
        current = {"net_output": _scalar_of_outputs(cb_params.get("net_outputs"))}
        if cb_params.get("metrics"):
            current.update(cb_params.get("metrics"))
        for k, v in current.items():
            self.history.setdefault(k, []).append(v)


class LambdaCallback(Callback):
    """``LambdaCallback(on_train_epoch_begin=None, on_train_epoch_end=None, on_train_step_begin=None,
    on_train_step_end=None, on_train_begin=None, on_train_end=None, on_eval_epoch_begin=None,
    on_eval_epoch_end=None, on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
    on_eval_end=None)``: each given function is called with the run context at that hook; the others do
    nothing."""

    def __init__(self, on_train_epoch_begin: Callable | None = None, on_train_epoch_end: Callable | None = None,
                 on_train_step_begin: Callable | None = None, on_train_step_end: Callable | None = None,
                 on_train_begin: Callable | None = None, on_train_end: Callable | None = None,
                 on_eval_epoch_begin: Callable | None = None, on_eval_epoch_end: Callable | None = None,
                 on_eval_step_begin: Callable | None = None, on_eval_step_end: Callable | None = None,
                 on_eval_begin: Callable | None = None, on_eval_end: Callable | None = None) -> None:
        super().__init__()
        given = dict(locals())
        for hook in _HOOKS:
            fn = given[hook]
            if fn is not None and not callable(fn):
                raise TypeError(f"LambdaCallback: {hook} must be callable, got {type(fn).__name__}")
            setattr(self, hook, fn if fn is not None else (lambda run_context: None))
