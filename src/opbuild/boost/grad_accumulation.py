"""``mindspore.boost.GradientAccumulation``: sum the gradients of ``max_accumulation_step`` steps (each divided
by that count, so the update uses their mean) and run the optimizer on the sum every that many steps."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..core import trace
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn.cell import Cell
from ..ops.control_prims import HyperMap, MultitypeFuncGraph

__all__ = ["GradientAccumulation", "gradient_accumulation_op", "gradient_clear_op"]

# MindSpore's module-level helpers, which training loops written for it (model zoos' train steps) map over
# their accumulators with ``HyperMap(F.partial(gradient_accumulation_op, steps), accumulators, grads)``.
gradient_accumulation_op = MultitypeFuncGraph("gradient_accumulation_op")


@gradient_accumulation_op.register("Int64", "Tensor", "Tensor")
def _accumulate(accumulation_step: int, cumulative_grad: Parameter, grad: Tensor) -> Parameter:
    """Add ``grad / accumulation_step`` into ``cumulative_grad`` in place and return it."""
    ops.assign_add(cumulative_grad, grad / accumulation_step)
    return cumulative_grad


gradient_clear_op = MultitypeFuncGraph("gradient_clear_op")


@gradient_clear_op.register("Tensor")
def _clear(cumulative_grad: Parameter) -> Tensor:
    """Set ``cumulative_grad`` to zeros in place."""
    return ops.assign(cumulative_grad, ops.zeros_like(cumulative_grad))


class GradientAccumulation(Cell):
    """``GradientAccumulation(max_accumulation_step, optimizer)(loss, grads) -> loss``: adds ``grads /
    max_accumulation_step`` into zero-initialised accumulators (Parameters ``grad_accumulation.<name>``, one per
    optimizer parameter); on every ``max_accumulation_step``-th call, ``optimizer(accumulators)`` updates the
    weights and the accumulators and the step count (Parameter ``accumulation_step``) go back to zero.

    The step count decides on the host whether this call updates, so the cell runs eagerly in either mode (its
    optimizer compiles its own graph in GRAPH_MODE); called inside a traced network it raises a RuntimeError
    rather than bake one step's decision into the graph."""

    def __init__(self, max_accumulation_step: int, optimizer: Any):
        super().__init__()
        if isinstance(max_accumulation_step, bool) or not isinstance(max_accumulation_step, int) \
                or max_accumulation_step < 1:
            raise ValueError(f"boost.GradientAccumulation: max_accumulation_step must be a positive int, got "
                             f"{max_accumulation_step!r}")
        if not hasattr(optimizer, "parameters"):
            raise TypeError(f"boost.GradientAccumulation: optimizer must be an optimizer Cell (with .parameters), "
                            f"got {type(optimizer).__name__}")
        self._max_accumulation_step = max_accumulation_step
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self._grad_accumulation = self.weights.clone(prefix="grad_accumulation", init="zeros")
        self._accumulation_step = Parameter(Tensor(0, dtype="int32"), name="accumulation_step")
        self.hyper_map = HyperMap()  # MindSpore's, for subclasses' own construct

    def __call__(self, loss: Tensor, grads: tuple) -> Tensor:
        if type(self).construct is not GradientAccumulation.construct:
            # A subclass's own construct (mindcv's, MindSpore's graph-mode form: ``if self._accumulation_step
            # >= ...`` on the Parameter) runs as any Cell's, its tensor condition a graph break.
            return super().__call__(loss, grads)
        if trace.current() is not None:
            raise RuntimeError("boost.GradientAccumulation: cannot run inside a traced GRAPH_MODE network (its step "
                               "count decides on the host when to update); call it after the network, outside "
                               "its construct")
        return self.construct(loss, grads)

    def construct(self, loss: Tensor, grads: tuple) -> Tensor:
        if len(grads) != len(self._grad_accumulation):
            raise ValueError(f"boost.GradientAccumulation: got {len(grads)} gradients for "
                             f"{len(self._grad_accumulation)} optimizer parameters")
        for acc, grad in zip(self._grad_accumulation, grads):
            ops.assign_add(acc, grad / self._max_accumulation_step)
        ops.assign_add(self._accumulation_step, Tensor(1, dtype="int32"))
        if int(self._accumulation_step.asnumpy()) >= self._max_accumulation_step:
            self.optimizer(tuple(self._grad_accumulation))
            ops.assign(self._accumulation_step, Tensor(0, dtype="int32"))
            for acc in self._grad_accumulation:
                ops.assign(acc, ops.zeros_like(acc))
        return loss
