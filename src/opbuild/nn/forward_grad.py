"""``nn.ForwardValueAndGrad``: a Cell returning a network's output and its gradients in one call, MindSpore's
wrapper over ``GradOperation`` (the forward value and the gradients come from one differentiated graph)."""

from __future__ import annotations

from typing import Any

from ..autograd import GradOperation
from ..core.parameter import Parameter
from .cell import Cell


class ForwardValueAndGrad(Cell):
    """``ForwardValueAndGrad(network, weights=None, get_all=False, get_by_list=False, sens_param=False)``:
    ``construct(*inputs)`` returns ``(network(*inputs), grads)``, ``grads`` as ``GradOperation`` with the same
    flags gives them (the first input's gradient; every input's with ``get_all``; the ``weights``' with
    ``get_by_list``; both as a pair with both flags). With ``sens_param`` the last input is the output's
    sensitivity and is not passed to ``network``."""

    def __init__(self, network: Cell, weights: Any = None, get_all: bool = False, get_by_list: bool = False,
                 sens_param: bool = False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"ForwardValueAndGrad: network must be a Cell, got {type(network).__name__}")
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list), ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise TypeError(f"ForwardValueAndGrad: {name} must be a bool, got {type(v).__name__}")
        if get_by_list and weights is None:
            raise TypeError("ForwardValueAndGrad: get_by_list=True needs weights (a ParameterTuple or list of "
                            "Parameters)")
        if weights is not None and not (isinstance(weights, Parameter) or all(isinstance(w, Parameter)
                                                                              for w in weights)):
            raise TypeError("ForwardValueAndGrad: weights must be a Parameter, a ParameterTuple or a list of them")
        self.network = network
        self.weights = weights
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        self._grad = GradOperation(get_all, get_by_list, sens_param)(network, weights if get_by_list else None)

    def construct(self, *inputs: Any) -> tuple[Any, Any]:
        forward_inputs = inputs[:-1] if self.sens_param else inputs
        loss = self.network(*forward_inputs)
        return loss, self._grad(*inputs)
