"""Loss-scaled training (MindSpore's ``nn.wrap.loss_scale``): ``TrainOneStepWithLossScaleCell`` and the loss
scale update cells ``DynamicLossScaleUpdateCell`` / ``FixedLossScaleUpdateCell``.

Everything a loss-scaled step does is graph arithmetic, so in GRAPH_MODE the step stays ONE compiled graph:

* the backward is seeded with the loss scale (the traced function returns ``loss * scale``, differentiated,
  and ``loss``), so small gradients survive float16 arithmetic; the gradients are then multiplied by
  ``1 / scale`` before the optimizer;
* the overflow flag is computed by kernels: ``IsFinite`` over every gradient, reduced to one bool;
* MindSpore skips the optimizer with control flow (``if not overflow: optimizer(grads)``); a compiled graph
  here has no branches, so the update always runs and is then undone when the step overflowed: each
  Parameter the optimizer writes (weights, moments, step counters) is copied before the update, and after it
  ``Assign(p, Select(overflow, copy, p))`` writes back the old value. The result is exactly MindSpore's (the
  parameters of a skipped step are bit-identical to before it) at the cost of one copy and one select per
  updated element;
* the update cells compute the new loss scale with ``Select`` and write it (and their counters) with
  ``Assign``, MindSpore's own formulation.

In PYNATIVE_MODE the same code runs op by op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import autograd
from ..core import trace
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ops import gradlib as G
from ..ops.control_prims import HyperMap
from ..ops.optim import Assign
from ..ops.primitive import apply
from .cell import Cell
from .wrap import TrainOneStepCell


def all_finite(tensors: Sequence[Tensor]) -> Tensor:
    """A 0-d bool Tensor: True when no element of ``tensors`` is inf or NaN. Per tensor one fused map
    (``IsFinite``, negated, as 0/1 float32) and one ReduceMax; the maxima are combined with Maximum."""
    flag = None
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"all_finite: expected Tensors, got {type(t).__name__}")
        if t.size == 0:
            continue
        if t._type.dtype not in ("float16", "bfloat16", "float32", "float64"):
            continue  # integer and bool tensors are always finite
        bad = G.cast(G.unary("LogicalNot", G.unary("IsFinite", t)), "float32")
        m = apply("ReduceMax", {"axis": (), "keep_dims": False}, [bad])
        flag = m if flag is None else apply("Maximum", {}, [flag, m])
    if flag is None:
        return Tensor(np.asarray(True))
    return apply("Less", {}, [flag, G.const(0.5, flag)])


def _scalar(value: Any, dtype: Any, name: str) -> Tensor:
    return Tensor(np.asarray(value, dtype=dtype))


class DynamicLossScaleUpdateCell(Cell):
    """``DynamicLossScaleUpdateCell(loss_scale_value, scale_factor, scale_window)``: MindSpore's dynamic update.
    ``construct(loss_scale, overflow)`` (``loss_scale`` the train cell's scale Parameter, ``overflow`` a bool
    Tensor) writes the new scale into ``loss_scale`` and returns ``overflow``:

    - an overflow divides the scale by ``scale_factor`` (never below 1) and records the step;
    - when ``scale_window`` steps have passed since the last overflow (or the last increase), a step without
      overflow multiplies the scale by ``scale_factor``.

    State: ``current_iterator_step`` (starts at 1) and ``last_overflow_iterator_step`` (starts at 0), int32
    Parameters updated in the graph. So with no overflow at all the scale first grows at step
    ``scale_window``, then every ``scale_window`` steps."""

    def __init__(self, loss_scale_value: float, scale_factor: int, scale_window: int) -> None:
        super().__init__()
        if isinstance(loss_scale_value, bool) or not isinstance(loss_scale_value, (int, float)):
            raise TypeError(f"DynamicLossScaleUpdateCell: loss_scale_value must be a float, got "
                            f"{type(loss_scale_value).__name__}")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window <= 0:
            raise ValueError(f"DynamicLossScaleUpdateCell: scale_window must be a positive int, got {scale_window!r}")
        if isinstance(scale_factor, bool) or not isinstance(scale_factor, (int, float)) or scale_factor <= 0:
            raise ValueError(f"DynamicLossScaleUpdateCell: scale_factor must be > 0, got {scale_factor!r}")
        self.loss_scale_value = loss_scale_value
        self.scale_window = _scalar(scale_window, np.int32, "scale_window")
        self.scale_factor = _scalar(scale_factor, np.float32, "scale_factor")
        self.cur_iter = Parameter(np.asarray(1, np.int32), name="current_iterator_step")
        self.last_overflow_iter = Parameter(np.asarray(0, np.int32), name="last_overflow_iterator_step")
        self._assign = Assign()

    def get_loss_scale(self) -> float:
        """The initial loss scale (``loss_scale_value``)."""
        return self.loss_scale_value

    def construct(self, loss_scale: Tensor, overflow: Tensor) -> Tensor:
        scale = loss_scale
        one = G.const(1.0, scale)
        shrunk = apply("Maximum", {}, [G.div(scale, G.cast(self.scale_factor, scale._type.dtype)), one])
        on_overflow = G.select(overflow, shrunk, scale)
        should_inc = apply("LessEqual", {}, [self.scale_window, G.sub(self.cur_iter, self.last_overflow_iter)])
        mark = apply("LogicalOr", {}, [overflow, should_inc])
        self._assign(self.last_overflow_iter, G.select(mark, self.cur_iter, self.last_overflow_iter))
        grow = apply("LogicalAnd", {}, [should_inc, G.unary("LogicalNot", overflow)])
        grown = G.mul(on_overflow, G.cast(self.scale_factor, scale._type.dtype))
        self._assign(loss_scale, G.reshape(G.select(grow, grown, on_overflow), loss_scale.shape))
        self._assign(self.cur_iter, G.add(self.cur_iter, G.const(1, self.cur_iter)))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """``FixedLossScaleUpdateCell(loss_scale_value)``: the scale never changes; ``construct(loss_scale,
    overflow)`` returns ``overflow`` (a step that overflows is still skipped by the train cell)."""

    def __init__(self, loss_scale_value: float) -> None:
        super().__init__()
        if isinstance(loss_scale_value, bool) or not isinstance(loss_scale_value, (int, float)):
            raise TypeError(f"FixedLossScaleUpdateCell: loss_scale_value must be a float, got "
                            f"{type(loss_scale_value).__name__}")
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self) -> float:
        """The fixed loss scale."""
        return self.loss_scale_value

    def construct(self, loss_scale: Tensor, overflow: Tensor) -> Tensor:
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """``TrainOneStepWithLossScaleCell(network, optimizer, scale_sense)``: one training step with loss scaling.
    ``construct(*inputs)`` returns ``(loss, overflow, loss_scale)``: the loss (unscaled), a bool Tensor telling
    whether a gradient held inf or NaN (the optimizer's update was then skipped: every parameter and optimizer
    state is left as it was), and the loss scale this step used.

    ``scale_sense``: a Cell (``DynamicLossScaleUpdateCell``, ``FixedLossScaleUpdateCell``, or a manager's
    ``get_update_cell()``) that updates the scale after every step, or a Tensor of shape ``()`` or ``(1,)``
    (a scale changed only by :meth:`set_sense_scale`). The scale is the float32 Parameter ``scale_sense``.
    See the module docstring for how the step stays one compiled graph."""

    def __init__(self, network: Cell, optimizer: Any, scale_sense: Any) -> None:
        super().__init__(network, optimizer, sens=1.0)
        self.loss_scaling_manager: Cell | None = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            value = np.asarray(scale_sense.get_loss_scale(), np.float32)
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError(f"TrainOneStepWithLossScaleCell: the shape of scale_sense must be () or (1,), got "
                                 f"{tuple(scale_sense.shape)}")
            value = scale_sense.asnumpy().astype(np.float32)
        else:
            raise TypeError(f"TrainOneStepWithLossScaleCell: scale_sense must be a Cell or a Tensor, got "
                            f"{type(scale_sense).__name__}")
        self.scale_sense = Parameter(value, name="scale_sense")
        self.grad_fn = autograd.value_and_grad(self._scaled_loss, grad_position=None, weights=self.weights,
                                               has_aux=True)
        self._assign = Assign()
        self.hyper_map = HyperMap()  # MindSpore's, for subclasses' own construct (mindcv's TrainStep)

    def _scaled_loss(self, *inputs: Tensor) -> tuple[Tensor, Tensor]:
        """(loss * scale, loss): differentiating the first seeds the backward with the scale, as MindSpore's
        ``sens`` input does."""
        loss = self.network(*inputs)
        scale = G.cast(G.reshape(self.scale_sense, ()), loss._type.dtype)
        return G.mul(loss, scale), loss

    def set_sense_scale(self, sens: Tensor) -> None:
        """Set the loss scale (only when ``scale_sense`` was given as a Tensor); ``sens`` must have its shape."""
        if self.loss_scaling_manager is not None or not isinstance(sens, Tensor):
            raise TypeError("TrainOneStepWithLossScaleCell.set_sense_scale: needs a Tensor, and a cell built with "
                            "a Tensor scale_sense (an update cell manages the scale itself)")
        if tuple(sens.shape) != tuple(self.scale_sense.shape):
            raise ValueError(f"TrainOneStepWithLossScaleCell.set_sense_scale: shape {tuple(sens.shape)} differs "
                             f"from the scale's {tuple(self.scale_sense.shape)}")
        self.scale_sense.set_data(sens.asnumpy().astype(np.float32))

    def construct(self, *inputs: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        scale = G.mul(self.scale_sense, G.const(1.0, self.scale_sense))  # the value this step uses (a copy)
        (_, loss), grads = self.grad_fn(*inputs)
        inv = apply("Reciprocal", {}, [G.reshape(scale, ())])
        grads = tuple(G.mul(g, G.cast(inv, g._type.dtype)) for g in grads)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        cond = G.unary("LogicalNot", all_finite(grads))
        overflow = cond
        if self.loss_scaling_manager is not None:
            overflow = self.loss_scaling_manager(self.scale_sense, cond)
        self._update_unless(overflow, grads)
        return loss, cond, scale

    # MindSpore's overflow-check steps, which subclasses (mindcv's TrainStep) call from their own construct.
    def start_overflow_check(self, pre_cond: Tensor, compute_input: Tensor) -> tuple[Tensor, Tensor]:
        """``(status, compute_input)``: begins an overflow check; the status is a placeholder here (the check
        reads the gradients themselves in :meth:`get_overflow_status`)."""
        return G.const(np.zeros((), np.float32), compute_input), compute_input

    def get_overflow_status(self, status: Tensor, compute_output: Any) -> Tensor:
        """A bool Tensor: whether any of ``compute_output`` (the gradients) holds inf or NaN."""
        return G.unary("LogicalNot", all_finite(tuple(compute_output)))

    def process_loss_scale(self, overflow: Tensor) -> Tensor:
        """Update the loss scale through the update cell (when there is one); returns whether to skip."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow

    def _update_unless(self, overflow: Tensor, grads: tuple[Tensor, ...]) -> None:
        """``optimizer(grads)`` with its writes undone where ``overflow`` is True (see the module docstring)."""
        state = {id(p): p for p in (*self.weights, *self.optimizer.get_parameters())}
        tracer = trace.current()
        before = {k: tracer.value_of(p) for k, p in state.items()} if tracer is not None else {}
        copies = {k: G.mul(p, G.const(1, p)) for k, p in state.items()}
        self.optimizer(grads)
        for k, p in state.items():
            if tracer is not None and tracer.value_of(p) is before[k]:
                continue  # not written by the update (a learning rate, a momentum): nothing to undo
            self._assign(p, G.select(overflow, copies[k], p))
