"""MindSpore's micro-batch wrappers of pipeline and interleaved parallelism as they behave in one process:
``nn.GradAccumulationCell``, ``nn.PipelineCell`` and ``nn.MicroBatchInterleaved`` cut every input into equal
slices along axis 0 and return the sum of the network's outputs over the slices (what MindSpore 2.10 computes
on one device, checked against its outputs in tests/compat/test_nn_surface.py); ``nn.VirtualDatasetCellTriple``
passes its three inputs through; ``nn.PipelineGradReducer`` returns its accumulated gradients divided by
``scale_sense`` and clears them (the accumulation itself is the pipeline's, which one process has none of, so
they stay zeros unless the caller adds to ``accu_grads``). The stage and segment placement of ``PipelineCell``
is accepted and recorded: one process runs every stage."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.parameter import Parameter, ParameterTuple
from ..core.tensor import Tensor
from ..ops import functional as F
from ..ops.optim import Assign
from .cell import Cell


def _positive(cls: str, arg: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{cls}: {arg} must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{cls}: {arg} must be > 0, got {value}")
    return value


def _slices(cls: str, parts: int, i: int, inputs: tuple) -> tuple:
    out = []
    for x in inputs:
        n = x.shape[0]
        if n % parts:
            raise ValueError(f"{cls}: axis 0 of every input must divide into {parts} micro batches, got {n}")
        step = n // parts
        out.append(x[i * step:(i + 1) * step])
    return tuple(out)


class _MicroBatchSum(Cell):
    """The network's outputs summed over ``parts`` equal slices of its inputs along axis 0."""

    _ARG = "micro_size"

    def __init__(self, network: Cell, parts: int) -> None:
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        if not isinstance(network, Cell):
            raise TypeError(f"{name}: network must be a Cell, got {type(network).__name__}")
        self.network = network
        self._parts = _positive(name, self._ARG, parts)

    def construct(self, *inputs: Any) -> Any:
        ret = None
        for i in range(self._parts):
            out = self.network(*_slices(type(self).__name__, self._parts, i, inputs))
            ret = out if ret is None else ret + out
        return ret


class GradAccumulationCell(_MicroBatchSum):
    """``GradAccumulationCell(network, micro_size)``: the sum of ``network``'s outputs over ``micro_size``
    equal slices of the inputs along axis 0 (a loss network's summed micro-batch losses, whose gradient is the
    accumulated one)."""

    def __init__(self, network: Cell, micro_size: int) -> None:
        super().__init__(network, micro_size)
        self.micro_size = micro_size


class PipelineCell(_MicroBatchSum):
    """``PipelineCell(network, micro_size, stage_config=None, segment_config=None)``: as GradAccumulationCell
    in one process; ``stage_config`` (cell name -> stage) sets ``pipeline_stage`` on the named sub-cells (a name
    not found raises KeyError, as MindSpore's does) and ``segment_config`` is recorded."""

    def __init__(self, network: Cell, micro_size: int, stage_config: dict | None = None,
                 segment_config: dict | None = None) -> None:
        super().__init__(network, micro_size)
        self.micro_size = micro_size
        self.segment_config = segment_config
        if stage_config:
            left = dict(stage_config)
            for cell_name, cell in network.cells_and_names():
                if cell_name and cell_name in left:
                    object.__setattr__(cell, "pipeline_stage", left.pop(cell_name))
            if left:
                raise KeyError(f"PipelineCell: the stage_config names {sorted(left)} are not cells of the network")


class MicroBatchInterleaved(_MicroBatchSum):
    """``MicroBatchInterleaved(network, interleave_num=2)``: the sum of ``network``'s outputs over
    ``interleave_num`` equal slices of the inputs along axis 0."""

    _ARG = "interleave_num"

    def __init__(self, network: Cell, interleave_num: int = 2) -> None:
        super().__init__(network, interleave_num)
        self.interleave_num = interleave_num


class VirtualDatasetCellTriple(Cell):
    """``VirtualDatasetCellTriple(backbone)``: ``construct(a, b, c)`` is ``backbone(a, b, c)`` (MindSpore marks
    the three inputs as the data-parallel dataset; one process has nothing to split)."""

    def __init__(self, backbone: Cell) -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(backbone, Cell):
            raise TypeError(f"VirtualDatasetCellTriple: backbone must be a Cell, got {type(backbone).__name__}")
        self._backbone = backbone

    def construct(self, a: Any, b: Any, c: Any) -> Any:
        return self._backbone(a, b, c)


class PipelineGradReducer(Cell):
    """``PipelineGradReducer(parameters, scale_sense=1.0, opt_shard=None)``: keeps ``accu_grads.<name>`` (zeros)
    per parameter; ``construct(grads)`` returns ``accu_grads / scale_sense`` and zeroes them, or with
    ``opt_shard`` (None: off, as opbuild shards no optimizer) ``grads / scale_sense``
    (see the module docstring)."""

    def __init__(self, parameters: Any, scale_sense: float = 1.0, opt_shard: bool | None = None) -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(parameters, ParameterTuple):
            raise TypeError(f"PipelineGradReducer: parameters must be a ParameterTuple, got "
                            f"{type(parameters).__name__}")
        self.accu_grads = ParameterTuple(Parameter(np.zeros(p.shape, p.asnumpy().dtype), name=f"accu_grads.{p.name}")
                                         for p in parameters)
        for p in self.accu_grads:
            self._params[p.name] = p
        self.degree = Tensor(np.float32(1.0))
        self.scale_sense = Parameter(np.asarray(scale_sense, np.float32), name="scale_sense")
        # None: the parallel optimizer's setting, which opbuild (no optimizer sharding) keeps off
        self.opt_shard = bool(opt_shard)
        self._assign = Assign()

    def construct(self, grads: Any) -> tuple[Tensor, ...]:
        scale = F.reciprocal(self.scale_sense * self.degree)
        out = []
        for g, acc in zip(grads, self.accu_grads):
            new = (g if self.opt_shard else acc + 0.0) * F.cast(scale, acc._type.dtype)
            self._assign(acc, F.zeros_like(acc))
            out.append(new)
        return tuple(out)
