"""Loss scaling for mixed-precision training, MindSpore's API: the managers ``Model`` and
``amp.build_train_network`` take (``FixedLossScaleManager``, ``DynamicLossScaleManager``; MindSpore's
``train/loss_scale_manager.py``), and the functional scalers of ``mindspore.amp`` (``StaticLossScaler``,
``DynamicLossScaler``, ``all_finite``) for training loops written with ``value_and_grad``.

A manager describes the policy; ``get_update_cell()`` gives the cell that applies it inside the compiled train
step (nn/loss_scale.py). The scalers' methods apply ops, so they run op by op in PyNative mode and join the
graph when called inside a trace (``@jit``, a Cell's construct).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .core.parameter import Parameter
from .core.tensor import Tensor
from .nn import loss_scale as _cells
from .ops import gradlib as G
from .ops.optim import Assign
from .ops.primitive import apply


def _number(who: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{who}: {name} must be an int or a float, got {type(value).__name__}")
    return value


def _positive_int(who: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{who}: {name} must be a positive int, got {value!r}")
    return int(value)


class LossScaleManager:
    """Base class of the loss scale managers: ``get_loss_scale()``, ``update_loss_scale(overflow)`` (the
    host-side rule) and ``get_update_cell()`` (the cell ``TrainOneStepWithLossScaleCell`` calls every step)."""

    def get_loss_scale(self) -> float:
        """The current loss scale."""
        raise NotImplementedError

    def update_loss_scale(self, overflow: bool) -> None:
        """Update the scale on the host after a step that did (``overflow=True``) or did not overflow."""
        raise NotImplementedError

    def get_update_cell(self) -> Any:
        """The cell updating the scale inside the train step, or None."""
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """``FixedLossScaleManager(loss_scale=128.0, drop_overflow_update=True)``: a constant scale (>= 1).
    With ``drop_overflow_update`` the train step is ``TrainOneStepWithLossScaleCell`` with a
    ``FixedLossScaleUpdateCell`` (a step whose gradients overflow is skipped); without it the train step is
    ``TrainOneStepCell(network, optimizer, sens=loss_scale)`` and the optimizer must be built with the same
    ``loss_scale`` so that it divides the gradients by it (MindSpore's contract)."""

    def __init__(self, loss_scale: float = 128.0, drop_overflow_update: bool = True) -> None:
        if _number("FixedLossScaleManager", "loss_scale", loss_scale) < 1:
            raise ValueError(f"FixedLossScaleManager: loss_scale must be >= 1, got {loss_scale}")
        if not isinstance(drop_overflow_update, bool):
            raise TypeError(f"FixedLossScaleManager: drop_overflow_update must be a bool, got "
                            f"{type(drop_overflow_update).__name__}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self) -> float:
        """The fixed scale."""
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        """Whether a step whose gradients overflow skips the optimizer."""
        return self._drop_overflow_update

    def update_loss_scale(self, overflow: bool) -> None:
        """Nothing: the scale is fixed."""

    def get_update_cell(self) -> _cells.FixedLossScaleUpdateCell | None:
        """A ``FixedLossScaleUpdateCell`` with ``drop_overflow_update``, else None."""
        if not self._drop_overflow_update:
            return None
        return _cells.FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """``DynamicLossScaleManager(init_loss_scale=2**24, scale_factor=2, scale_window=2000)``: the scale is
    divided by ``scale_factor`` (not below 1) after a step that overflows, which is skipped, and multiplied
    by it after ``scale_window`` steps without overflow. The train step applies the rule in its graph
    (``get_update_cell()``: ``DynamicLossScaleUpdateCell``); ``update_loss_scale`` is the same policy on the
    host, MindSpore's, for loops that manage the scale themselves (it raises RuntimeError after more than
    1000 overflows in a row)."""

    def __init__(self, init_loss_scale: float = 2 ** 24, scale_factor: int = 2, scale_window: int = 2000) -> None:
        if _number("DynamicLossScaleManager", "init_loss_scale", init_loss_scale) < 1.0:
            raise ValueError(f"DynamicLossScaleManager: init_loss_scale must be >= 1, got {init_loss_scale}")
        self.scale_window = _positive_int("DynamicLossScaleManager", "scale_window", scale_window)
        if _number("DynamicLossScaleManager", "scale_factor", scale_factor) <= 0:
            raise ValueError(f"DynamicLossScaleManager: scale_factor must be > 0, got {scale_factor}")
        self.loss_scale = init_loss_scale
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self) -> float:
        """The current (host-side) scale."""
        return self.loss_scale

    def update_loss_scale(self, overflow: bool) -> None:
        """Halve (divide by ``scale_factor``) on overflow; grow every ``scale_window`` steps since the last
        overflow otherwise."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"DynamicLossScaleManager: {self.bad_step} overflows in a row, more than "
                               f"{self.bad_step_max}; the loss or the gradients are not finite at any scale")
        self.cur_iter += 1

    def get_drop_overflow_update(self) -> bool:
        """Always True: a step that overflows is skipped."""
        return True

    def get_update_cell(self) -> _cells.DynamicLossScaleUpdateCell:
        """The in-graph update cell starting from the current scale."""
        return _cells.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)


# ---- functional scalers (mindspore.amp) --------------------------------------------------------------------
def all_finite(inputs: Sequence[Tensor], status: Any = None) -> Tensor:
    """``amp.all_finite(inputs, status=None)``: a 0-d bool Tensor, True when no element of the Tensors in
    ``inputs`` is inf or NaN. ``status`` is Ascend's overflow buffer (``init_status()``), unused here."""
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)):
        raise TypeError(f"all_finite: inputs must be a tuple or list of Tensors, got {type(inputs).__name__}")
    return _cells.all_finite(inputs)


def init_status() -> Tensor:
    """``amp.init_status()``: the overflow status buffer, ``(8,)`` float32 zeros (meaningful on Ascend only;
    kept for code written for it)."""
    return Tensor(np.zeros(8, np.float32))


def _map(fn: Any, inputs: Any) -> Any:
    if isinstance(inputs, Tensor):
        return fn(inputs)
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(fn(x) for x in inputs)
    raise TypeError(f"loss scaler: inputs must be a Tensor or a tuple of Tensors, got {type(inputs).__name__}")


def _grad_scale_map(scale_value: Tensor, inputs: Any) -> Any:
    """``inputs * scale_value`` over a Tensor or a tuple/list of Tensors, each in its own dtype (MindSpore's
    ``amp._grad_scale_map``, which custom ``LossScaler`` subclasses call)."""
    return _map(lambda x: G.mul(x, G.cast(scale_value, x._type.dtype)), inputs)


def _grad_unscale_map(scale_value: Tensor, inputs: Any) -> Any:
    """``inputs * (1 / scale_value)`` over a Tensor or a tuple/list of Tensors (``amp._grad_unscale_map``)."""
    inv = apply("Reciprocal", {}, [scale_value])
    return _map(lambda x: G.mul(x, G.cast(inv, x._type.dtype)), inputs)


class LossScaler:
    """Base class of ``StaticLossScaler`` and ``DynamicLossScaler``: ``scale(inputs)``, ``unscale(inputs)``
    (a Tensor or a tuple of Tensors, multiplied by the scale or its reciprocal in their own dtype) and
    ``adjust(grads_finite)``. The scale is the float32 Parameter ``scale_value``."""

    def __init__(self, scale_value: float) -> None:
        if _number(type(self).__name__, "scale_value", scale_value) < 1.0:
            raise ValueError(f"{type(self).__name__}: scale_value must be >= 1, got {scale_value}")
        self.scale_value = Parameter(np.asarray(scale_value, np.float32), name="scale_value", requires_grad=False)

    def scale(self, inputs: Any) -> Any:
        """``inputs * scale_value``."""
        return _grad_scale_map(self.scale_value, inputs)

    def unscale(self, inputs: Any) -> Any:
        """``inputs * (1 / scale_value)``."""
        return _grad_unscale_map(self.scale_value, inputs)

    def adjust(self, grads_finite: Tensor) -> Any:
        """Update the scale from whether the gradients were finite."""
        raise NotImplementedError


class StaticLossScaler(LossScaler):
    """``StaticLossScaler(scale_value)``: a fixed scale; ``adjust`` changes nothing and returns False."""

    def adjust(self, grads_finite: Tensor) -> bool:
        """Nothing to adjust."""
        return False


class DynamicLossScaler(LossScaler):
    """``DynamicLossScaler(scale_value, scale_factor, scale_window)``: ``adjust(grads_finite)`` divides the
    scale by ``scale_factor`` (not below 1) when the gradients were not finite and resets the counter;
    otherwise it counts the finite step and multiplies the scale by ``scale_factor`` on the
    ``scale_window``-th one in a row (unless the product overflows float32). Returns True. The counter is
    the int32 Parameter ``counter``."""

    def __init__(self, scale_value: float, scale_factor: int, scale_window: int) -> None:
        super().__init__(scale_value)
        self.scale_window = _positive_int("DynamicLossScaler", "scale_window", scale_window)
        self.scale_factor = _positive_int("DynamicLossScaler", "scale_factor", scale_factor)
        self.counter = Parameter(np.asarray(0, np.int32), name="counter", requires_grad=False)
        self._assign = Assign()

    def adjust(self, grads_finite: Tensor) -> bool:
        """Update ``scale_value`` and ``counter`` (see the class)."""
        finite = grads_finite if grads_finite._type.dtype == "bool" else G.cast(grads_finite, "bool")
        scale = self.scale_value
        grown = G.mul(scale, G.const(self.scale_factor, scale))
        grown = G.select(G.unary("IsFinite", grown), grown, scale)
        at_window = apply("Equal", {}, [self.counter, G.const(self.scale_window - 1, self.counter)])
        on_finite = G.select(at_window, grown, scale)
        shrunk = apply("Maximum", {}, [G.div(scale, G.const(self.scale_factor, scale)), G.const(1.0, scale)])
        self._assign(self.scale_value, G.select(finite, on_finite, shrunk))
        step = apply("Mod", {}, [G.add(self.counter, G.const(1, self.counter)), G.const(self.scale_window,
                                                                                         self.counter)])
        self._assign(self.counter, G.mul(step, G.cast(finite, "int32")))
        return True


__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager", "LossScaler",
           "StaticLossScaler", "DynamicLossScaler", "all_finite", "init_status"]
