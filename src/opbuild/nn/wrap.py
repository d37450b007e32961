"""Training wrappers (MindSpore's ``nn.WithLossCell`` and ``nn.TrainOneStepCell``).

In GRAPH_MODE a TrainOneStepCell call is ONE compiled graph: the forward pass, the backward nodes that the
autodiff pass appends (``value_and_grad`` inlines them into the enclosing trace) and the optimizer's in-place
update kernels, all built and cached like any other kernels; the second call runs it without tracing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import autograd
from ..communication import auto_parallel
from ..communication.management import is_initialized
from ..core.tensor import Tensor
from .cell import Cell, outputs_to_float32
from .distributed import DistributedGradReducer, broadcast_parameters
from .layers.basic import Identity


class WithLossCell(Cell):
    """``WithLossCell(backbone, loss_fn)``: ``construct(data, label)`` returns ``loss_fn(backbone(data), label)``."""

    def __init__(self, backbone: Cell, loss_fn: Any):
        super().__init__(auto_prefix=False)
        if not isinstance(backbone, Cell):
            raise TypeError(f"WithLossCell: backbone must be a Cell, got {type(backbone).__name__}")
        if not callable(loss_fn):
            raise TypeError(f"WithLossCell: loss_fn must be a Cell or a function, got {type(loss_fn).__name__}")
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data: Tensor, label: Tensor) -> Tensor:
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self) -> Cell:
        """The wrapped backbone."""
        return self._backbone


class TrainOneStepCell(Cell):
    """``TrainOneStepCell(network, optimizer, sens=1.0)``: ``construct(*inputs)`` computes the loss of
    ``network(*inputs)`` and the gradients of the optimizer's parameters (seeded with ``sens``), applies
    ``optimizer(grads)`` and returns the loss (its value before the update)."""

    def __init__(self, network: Cell, optimizer: Any, sens: float = 1.0):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"TrainOneStepCell: network must be a Cell, got {type(network).__name__}")
        weights = getattr(optimizer, "parameters", None)
        if not isinstance(optimizer, Cell) or weights is None:
            raise TypeError(f"TrainOneStepCell: optimizer must be an nn.Optimizer, got {type(optimizer).__name__}")
        if isinstance(sens, bool) or not isinstance(sens, (int, float)):
            raise TypeError(f"TrainOneStepCell: sens must be a float, got {type(sens).__name__}")
        self.network = network
        self.optimizer = optimizer
        self.weights = weights
        self.sens = float(sens)
        # MindSpore seeds the backward with sens (a fixed loss scale: FixedLossScaleManager with
        # drop_overflow_update=False, the optimizer dividing by the same loss_scale). Differentiating
        # loss * sens seeds it the same way, so a float16 backward computes on the scaled values (the point of
        # the scale: small gradients do not flush to zero), and the forward is traced once, not twice.
        if self.sens == 1.0:
            self.grad_fn = autograd.value_and_grad(network, grad_position=None, weights=weights)
        else:
            self.grad_fn = autograd.value_and_grad(self._sens_loss, grad_position=None, weights=weights,
                                                   has_aux=True)
        # MindSpore's attributes that subclasses' own construct uses (mindcv's TrainStep, BERT's and the
        # Transformer's in MindSpore's model repository: self.grad(self.network, weights)(*inputs, sens));
        # this class's construct does not need them.
        self.grad = autograd.GradOperation(get_by_list=True, sens_param=True)
        self.grad_no_sens = autograd.GradOperation(get_by_list=True)
        self.parallel_mode = auto_parallel.get_auto_parallel_context("parallel_mode")
        self.reducer_flag = auto_parallel.data_parallel()
        # MindSpore's: an Identity cell outside data parallelism (a sub-cell, so it is in cells_and_names)
        self.grad_reducer: Cell = Identity()
        if self.reducer_flag:
            if not is_initialized():
                raise RuntimeError("TrainOneStepCell: parallel_mode is data_parallel but communication.init() "
                                   "was not called (launch with mpirun -n N and call init() first)")
            self.grad_reducer = DistributedGradReducer(weights, auto_parallel.get_auto_parallel_context(
                "gradients_mean"), auto_parallel.get_auto_parallel_context("device_num"))
            if auto_parallel.get_auto_parallel_context("parameter_broadcast"):
                # Every parameter of the network (moving statistics too) and of the optimizer (its state).
                params = {id(p): p for p in (*network.get_parameters(), *optimizer.get_parameters())}
                broadcast_parameters(params.values())

    def _sens_loss(self, *inputs: Tensor) -> tuple[Tensor, Tensor]:
        """(loss * sens, loss): the first output is differentiated, so the backward starts from sens."""
        loss = self.network(*inputs)
        return loss * Tensor(np.asarray(self.sens, loss.dtype.np_dtype)), loss

    def construct(self, *inputs: Tensor) -> Tensor:
        loss, grads = self.grad_fn(*inputs)
        if self.sens != 1.0:
            loss = loss[1]
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        self.optimizer(grads)
        return loss


class WithEvalCell(Cell):
    """``WithEvalCell(network, loss_fn, add_cast_fp32=False)``: ``construct(data, label)`` returns ``(loss,
    outputs, label)``, the evaluation network ``Model`` builds from a network and a loss function (its
    ``eval_indexes`` are ``[0, 1, 2]``). ``add_cast_fp32``: the outputs and the label are cast to float32
    (when float) before the loss."""

    def __init__(self, network: Cell, loss_fn: Any, add_cast_fp32: bool = False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"WithEvalCell: network must be a Cell, got {type(network).__name__}")
        if not callable(loss_fn):
            raise TypeError(f"WithEvalCell: loss_fn must be a Cell or a function, got {type(loss_fn).__name__}")
        if not isinstance(add_cast_fp32, bool):
            raise TypeError(f"WithEvalCell: add_cast_fp32 must be a bool, got {type(add_cast_fp32).__name__}")
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data: Tensor, label: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        outputs = self._network(data)
        if self.add_cast_fp32:  # a float16 network (Model at O2/O3): loss and metrics see float32
            outputs, label = outputs_to_float32(outputs), outputs_to_float32(label)
        return self._loss_fn(outputs, label), outputs, label


# MindSpore's ``mindspore.nn.wrap`` also holds these classes (``from mindspore.nn.wrap import WithGradCell``).
# Their modules import this one (TrainOneStepCell, WithLossCell are their bases), so they are resolved on first
# access (PEP 562) instead of by a top import, which would be an import cycle.
_ELSEWHERE = {"DynamicLossScaleUpdateCell": "loss_scale", "FixedLossScaleUpdateCell": "loss_scale",
              "TrainOneStepWithLossScaleCell": "loss_scale", "ForwardValueAndGrad": "forward_grad",
              "WithGradCell": "grad_cells", "GradAccumulationCell": "micro_batch",
              "MicroBatchInterleaved": "micro_batch", "PipelineCell": "micro_batch",
              "PipelineGradReducer": "micro_batch", "VirtualDatasetCellTriple": "micro_batch",
              "ParameterUpdate": "layers.misc_cells", "TimeDistributed": "layers.time_distributed"}


def __getattr__(name: str) -> Any:
    """The classes of :data:`_ELSEWHERE`, from the ``opbuild.nn`` modules that define them."""
    if name not in _ELSEWHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__package__}.{_ELSEWHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Module attributes, the classes of :data:`_ELSEWHERE` included."""
    return sorted(set(globals()) | set(_ELSEWHERE))
