"""The callback protocol of MindSpore's ``Model``: ``Callback`` (hooks), ``RunContext`` (what a hook receives)
and the parameter bag ``cb_params`` that ``Model.train``/``eval`` fill in as they go."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


class CallbackParam(dict):
    """``cb_params``: a dict whose keys are also attributes (``cb_params.cur_step_num``), as MindSpore's
    internal callback parameter is. A missing attribute raises AttributeError naming it."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"cb_params has no attribute {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


class RunContext:
    """``RunContext(original_args)``: what every hook receives. ``original_args()`` returns the ``cb_params``;
    ``request_stop()`` asks ``Model`` to stop after the current step (checked after each step and epoch)."""

    def __init__(self, original_args: dict) -> None:
        if not isinstance(original_args, dict):
            raise TypeError(f"RunContext: original_args must be a dict, got {type(original_args).__name__}")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self) -> Any:
        """The callback parameters (``cb_params``)."""
        return self._original_args

    def request_stop(self) -> None:
        """Ask the training (or evaluation) loop to stop after the current step."""
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        """Whether a callback asked to stop."""
        return self._stop_requested


class Callback:
    """Base class of callbacks. Override the hooks you need; each receives a :class:`RunContext`.

    MindSpore 2.x hooks: ``on_train_begin``, ``on_train_epoch_begin``, ``on_train_step_begin``,
    ``on_train_step_end``, ``on_train_epoch_end``, ``on_train_end`` and the ``on_eval_*`` equivalents. By
    default each calls the MindSpore 1.x hook of the same moment (``begin``, ``epoch_begin``, ``step_begin``,
    ``step_end``, ``epoch_end``, ``end``), so a callback written for either version runs, as in MindSpore.
    """

    def __enter__(self) -> Callback:
        return self

    def __exit__(self, *err: Any) -> None:
        return None

    # MindSpore 1.x hooks (also called for evaluation, through the on_eval_* defaults).
    def begin(self, run_context: RunContext) -> None:
        """Called once before the network runs."""

    def epoch_begin(self, run_context: RunContext) -> None:
        """Called before each epoch."""

    def epoch_end(self, run_context: RunContext) -> None:
        """Called after each epoch."""

    def step_begin(self, run_context: RunContext) -> None:
        """Called before each step."""

    def step_end(self, run_context: RunContext) -> None:
        """Called after each step."""

    def end(self, run_context: RunContext) -> None:
        """Called once after the network ran."""

    # MindSpore 2.x hooks.
    def on_train_begin(self, run_context: RunContext) -> None:
        """Training begins (default: ``begin``)."""
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        """A training epoch begins (default: ``epoch_begin``)."""
        self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        """A training step begins (default: ``step_begin``)."""
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        """A training step ended; ``cb_params.net_outputs`` holds its outputs (default: ``step_end``)."""
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """A training epoch ended (default: ``epoch_end``)."""
        self.epoch_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        """Training ended (default: ``end``)."""
        self.end(run_context)

    def on_eval_begin(self, run_context: RunContext) -> None:
        """Evaluation begins (default: ``begin``)."""
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        """The evaluation pass begins (default: ``epoch_begin``)."""
        self.epoch_begin(run_context)

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        """An evaluation step begins (default: ``step_begin``)."""
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        """An evaluation step ended (default: ``step_end``)."""
        self.step_end(run_context)

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        """The evaluation pass ended (default: ``epoch_end``)."""
        self.epoch_end(run_context)

    def on_eval_end(self, run_context: RunContext) -> None:
        """Evaluation ended; ``cb_params.metrics`` holds the results (default: ``end``)."""
        self.end(run_context)


_HOOKS = ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin", "on_train_step_end",
          "on_train_epoch_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_step_begin",
          "on_eval_step_end", "on_eval_epoch_end", "on_eval_end")


def callback_list(callbacks: Callback | Iterable[Callback] | None) -> list[Callback]:
    """Normalize ``Model``'s ``callbacks`` argument: None, one Callback, or a list/tuple of them."""
    if callbacks is None:
        return []
    if isinstance(callbacks, Callback):
        return [callbacks]
    if isinstance(callbacks, (list, tuple)):
        for i, cb in enumerate(callbacks):
            if not isinstance(cb, Callback):
                raise TypeError(f"callbacks[{i}] must be a Callback, got {type(cb).__name__}")
        return list(callbacks)
    raise TypeError(f"callbacks must be a Callback or a list of Callback, got {type(callbacks).__name__}")


class CallbackManager(Callback):
    """Calls every hook on each callback in list order; entered as a context manager, it enters each
    callback's own (so a callback may open and close resources around a run)."""

    def __init__(self, callbacks: Callback | Iterable[Callback] | None) -> None:
        self._callbacks = callback_list(callbacks)

    def __iter__(self) -> Iterator[Callback]:
        return iter(self._callbacks)

    def __enter__(self) -> CallbackManager:
        for cb in self._callbacks:
            cb.__enter__()
        return self

    def __exit__(self, *err: Any) -> None:
        for cb in reversed(self._callbacks):
            cb.__exit__(*err)


def _dispatch(hook: str):
    def call(self: CallbackManager, run_context: RunContext) -> None:
        for cb in self._callbacks:
            getattr(cb, hook)(run_context)

    call.__name__ = hook
    call.__doc__ = f"Call ``{hook}`` on every callback, in order."
    return call


for _hook in _HOOKS:
    setattr(CallbackManager, _hook, _dispatch(_hook))
