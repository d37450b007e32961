"""MindSpore's gradient Cells ``nn.WithGradCell``, ``nn.Jvp`` and ``nn.Vjp`` (the last two deprecated there in
favour of ``ops.jvp``/``ops.vjp``, on which they are built here), with its signatures and results."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import autograd
from ..core.parameter import ParameterTuple
from ..core.tensor import Tensor
from ..transforms.forward import jvp, vjp
from .cell import Cell
from .wrap import WithLossCell


class WithGradCell(Cell):
    """``WithGradCell(network, loss_fn=None, sens=None)``: ``construct(*inputs)`` returns the gradients of the
    loss with respect to ``network``'s trainable parameters (a tuple, in their order). The loss is
    ``network(*inputs)`` itself when ``loss_fn`` is None, else ``loss_fn(network(data), label)``; ``sens``
    (a Tensor shaped like the loss) seeds the backward pass in place of ones."""

    def __init__(self, network: Cell, loss_fn: Any = None, sens: Any = None) -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"WithGradCell: network must be a Cell, got {type(network).__name__}")
        self.network = network
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = autograd.GradOperation(get_by_list=True, sens_param=sens is not None)
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()

    def construct(self, *inputs: Any) -> tuple[Tensor, ...]:
        if self.sens is None:
            return self.grad(self.network_with_loss, self.weights)(*inputs)
        return self.grad(self.network_with_loss, self.weights)(*inputs, self.sens)


def _check_fn(cls: str, fn: Any) -> Callable[..., Any]:
    if not callable(fn):
        raise TypeError(f"{cls}: fn must be a Cell or a function, got {type(fn).__name__}")
    return fn


class Jvp(Cell):
    """``Jvp(fn)``: ``construct(*inputs, v)`` returns ``(fn(*inputs), J v)``, the Jacobian-vector product at
    ``inputs`` along ``v`` (one Tensor for one input, a tuple of Tensors for several)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = _check_fn("Jvp", fn)

    def construct(self, *args: Any) -> tuple[Any, Any]:
        if len(args) < 2:
            raise TypeError("Jvp: call it with the inputs of fn followed by the tangent v")
        inputs, v = args[:-1], args[-1]
        return jvp(self.fn, inputs[0] if len(inputs) == 1 else tuple(inputs), v)


class Vjp(Cell):
    """``Vjp(fn)``: ``construct(*inputs, v)`` returns ``(fn(*inputs), v^T J)``, the vector-Jacobian product:
    one gradient Tensor for one input, a tuple (one per input) for several."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = _check_fn("Vjp", fn)

    def construct(self, *args: Any) -> tuple[Any, Any]:
        if len(args) < 2:
            raise TypeError("Vjp: call it with the inputs of fn followed by the cotangent v")
        inputs, v = args[:-1], args[-1]
        out, pullback = vjp(self.fn, *inputs)
        grads = pullback(v)
        return out, grads[0] if len(inputs) == 1 else tuple(grads)
