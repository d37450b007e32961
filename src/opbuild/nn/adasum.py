"""MindSpore's AdaSum optimizer wrappers ``nn.AdaSumByGradWrapCell`` and ``nn.AdaSumByDeltaWeightWrapCell``
(adaptive summation of gradients or weight deltas across at least 16 devices, a power of 2), with MindSpore's
construction checks, so that code naming them imports and fails where MindSpore's does: in stand-alone mode
(one process: MindSpore's "Stand alone mode is not supported to apply adasum.") and in a data-parallel job of
fewer than 16 ranks or a rank count that is not a power of 2. Past those checks opbuild does not implement the
adaptive summation and says so (NotImplementedError) rather than train differently."""

from __future__ import annotations

from ..communication import auto_parallel
from ..communication.management import get_group_size, is_initialized
from .cell import Cell
from .optim import Optimizer


def _parallel_check(cls: str) -> None:
    """MindSpore's checks, in its order: stand-alone mode, then the device count."""
    if auto_parallel.get_auto_parallel_context("parallel_mode") == "stand_alone":
        raise RuntimeError("Stand alone mode is not supported to apply adasum.")
    devices = auto_parallel.get_auto_parallel_context("device_num")
    if devices is None:
        devices = get_group_size() if is_initialized() else 1
    if devices < 16 or devices & (devices - 1):
        raise RuntimeError("The device_num must be at least 16 and must be the power of 2 when applying adasum.")
    raise NotImplementedError(f"{cls}: opbuild does not implement AdaSum's adaptive summation across "
                              f"{devices} ranks; use DistributedGradReducer's averaging (TrainOneStepCell)")


class AdaSumByGradWrapCell(Cell):
    """``AdaSumByGradWrapCell(optimizer)``: refused where MindSpore refuses it, else NotImplementedError (see the
    module docstring)."""

    def __init__(self, optimizer: Optimizer) -> None:
        super().__init__(auto_prefix=False)
        _parallel_check("AdaSumByGradWrapCell")


class AdaSumByDeltaWeightWrapCell(Cell):
    """``AdaSumByDeltaWeightWrapCell(optimizer)``: refused where MindSpore refuses it, else NotImplementedError
    (see the module docstring)."""

    def __init__(self, optimizer: Optimizer) -> None:
        super().__init__(auto_prefix=False)
        _parallel_check("AdaSumByDeltaWeightWrapCell")
