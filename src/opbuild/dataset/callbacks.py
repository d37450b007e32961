"""Callbacks of a dataset pipeline (``mindspore.dataset.DSCallback`` and ``WaitedDSCallback``), given to
``Dataset.map(..., callbacks=...)``: hooks called as the map reads its rows, with MindSpore's step and
epoch numbers (1-based, ``cur_step_num`` counting across epochs).

opbuild's pipeline runs in the iterating thread, so a row is read only when the training loop asks for it:
when ``WaitedDSCallback``'s dataset step begins, the previous training step has already ended, and the sync
hooks are called directly where MindSpore waits on an event."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..train.callback._callback import Callback, RunContext
from .arguments import Row, _check_int


class DSRunContext:
    """What a dataset hook receives: ``cur_epoch_num``, ``cur_step_num_in_epoch``, ``cur_step_num``."""

    def __init__(self, epoch: int, step_in_epoch: int, step: int) -> None:
        self.cur_epoch_num = epoch
        self.cur_step_num_in_epoch = step_in_epoch
        self.cur_step_num = step


class DSCallback:
    """``DSCallback(step_size=1)``: override ``ds_begin``, ``ds_epoch_begin``, ``ds_epoch_end``,
    ``ds_step_begin``, ``ds_step_end`` (each receives a run context with ``cur_epoch_num``,
    ``cur_step_num_in_epoch``, ``cur_step_num``). The step hooks run for steps 1, 1 + step_size, ... of
    every epoch."""

    def __init__(self, step_size: int = 1) -> None:
        self.step_size = _check_int("step_size", step_size, 1)

    def ds_begin(self, ds_run_context: DSRunContext) -> None:
        """Called once, before the first row of the pipeline."""

    def ds_epoch_begin(self, ds_run_context: DSRunContext) -> None:
        """Called before the first row of every epoch."""

    def ds_epoch_end(self, ds_run_context: DSRunContext) -> None:
        """Called after the last row of every epoch."""

    def ds_step_begin(self, ds_run_context: DSRunContext) -> None:
        """Called before the map's operations run on a row (every ``step_size`` steps)."""

    def ds_step_end(self, ds_run_context: DSRunContext) -> None:
        """Called after the map's operations ran on a row (every ``step_size`` steps)."""

    def create_runtime_obj(self) -> DSCallback:
        """The object the pipeline calls (this callback itself: there is no C++ runtime to hand it to)."""
        return self


class WaitedDSCallback(Callback, DSCallback):
    """``WaitedDSCallback(step_size=1)``: a dataset callback that is also a training callback (pass it to both
    ``map(callbacks=...)`` and ``Model.train(callbacks=...)``), for data that depends on the training state.
    Override ``sync_epoch_begin(train_run_context, ds_run_context)`` and ``sync_step_begin(train_run_context,
    ds_run_context)``: they run when a dataset epoch (after the first) or step (after the first
    ``step_size``) begins, with the run context of the training epoch or step that ended before it."""

    def __init__(self, step_size: int = 1) -> None:
        DSCallback.__init__(self, step_size)
        self._epoch_context: RunContext | None = None
        self._step_context: RunContext | None = None

    def sync_epoch_begin(self, train_run_context: Any, ds_run_context: DSRunContext) -> None:
        """Called when a dataset epoch after the first begins."""

    def sync_step_begin(self, train_run_context: Any, ds_run_context: DSRunContext) -> None:
        """Called when a dataset step after the first ``step_size`` begins."""

    def epoch_end(self, run_context: RunContext) -> None:
        self._epoch_context = run_context

    def step_end(self, run_context: RunContext) -> None:
        self._step_context = run_context

    def ds_epoch_begin(self, ds_run_context: DSRunContext) -> None:
        if ds_run_context.cur_epoch_num > 1:
            self.sync_epoch_begin(self._epoch_context, ds_run_context)

    def ds_step_begin(self, ds_run_context: DSRunContext) -> None:
        if ds_run_context.cur_step_num > self.step_size:
            self.sync_step_begin(self._step_context, ds_run_context)


def check_callbacks(callbacks: Any) -> list[DSCallback]:
    """``map``'s ``callbacks`` argument (one DSCallback or a list) as a list."""
    if callbacks is None:
        return []
    cbs = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for cb in cbs:
        if not isinstance(cb, DSCallback):
            raise TypeError(f"map: callbacks must be DSCallback objects, got {type(cb).__name__}")
    return cbs


class CallbackRunner:
    """Calls a map's callbacks around its rows; counts steps across the epochs of one iteration."""

    def __init__(self, callbacks: Sequence[DSCallback]) -> None:
        self._callbacks = list(callbacks)
        self._steps = 0

    def run(self, rows: Iterator[Row], epoch: int, apply: Callable[[Row], Row]) -> Iterator[Row]:
        """``apply`` over ``rows`` (epoch ``epoch``, 0-based), with the hooks called around it."""
        if epoch == 0:
            self._steps = 0
            for cb in self._callbacks:
                cb.ds_begin(DSRunContext(0, 0, 0))
        for cb in self._callbacks:
            cb.ds_epoch_begin(DSRunContext(epoch + 1, 0, self._steps))
        in_epoch = 0
        for row in rows:
            in_epoch += 1
            self._steps += 1
            ctx = DSRunContext(epoch + 1, in_epoch, self._steps)
            due = [cb for cb in self._callbacks if (in_epoch - 1) % cb.step_size == 0]
            for cb in due:
                cb.ds_step_begin(ctx)
            out = apply(row)
            for cb in due:
                cb.ds_step_end(ctx)
            yield out
        for cb in self._callbacks:
            cb.ds_epoch_end(DSRunContext(epoch + 1, in_epoch, self._steps))


__all__ = ["DSCallback", "WaitedDSCallback", "DSRunContext"]
