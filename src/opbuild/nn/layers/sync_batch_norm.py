"""``nn.SyncBatchNorm``: MindSpore's cross-device batch normalisation, with its signature and defaults.

MindSpore averages the batch statistics over the devices of a process group. In one process (no
``communication.init()``, or a world of one) the group is this process alone and the layer is exactly
``BatchNorm2d`` over (N, C, H, W), also taking (N, C) inputs, as MindSpore's does on one device (checked
against its outputs in tests/compat/test_nn_surface.py). Under an MPI job of several processes opbuild does not
yet all-reduce the statistics: the layer then refuses to train with a clear error instead of silently
normalising with each process's local batch (docs/mindspore-compat.md lists this)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...core.dtypes import float16, float32
from ...core.errors import ShapeError
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ._checks import check_input
from .normalization import BatchNorm2d


def _world_size() -> int:
    from ... import communication  # the communication package sits above nn: resolved when a layer is built

    return communication.get_group_size() if communication.is_initialized() else 1


class SyncBatchNorm(BatchNorm2d):
    """``SyncBatchNorm(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones', beta_init='zeros',
    moving_mean_init='zeros', moving_var_init='ones', use_batch_statistics=None, process_groups=None,
    dtype=mstype.float32)`` over an (N, C, H, W) or (N, C) input. ``use_batch_statistics``: None follows the
    training mode (batch statistics while training, moving ones in evaluation), True always uses (and updates
    with) the batch's, False always the moving ones. ``process_groups`` is a list of lists of rank ids (checked
    as MindSpore does); see the module docstring for what one process and several do."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init: Any = "ones", beta_init: Any = "zeros", moving_mean_init: Any = "zeros",
                 moving_var_init: Any = "ones", use_batch_statistics: bool | None = None,
                 process_groups: list | None = None, dtype: Any = float32) -> None:
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                         moving_var_init)
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise TypeError(f"SyncBatchNorm: use_batch_statistics must be None or a bool, "
                            f"got {type(use_batch_statistics).__name__}")
        if dtype not in (float32, float16):
            raise TypeError(f"SyncBatchNorm: dtype must be mstype.float32 or mstype.float16, got {dtype!r}")
        self.use_batch_statistics = use_batch_statistics
        self.dtype = dtype
        size = _world_size()
        if process_groups is not None:
            if not isinstance(process_groups, list):
                raise ValueError(f"SyncBatchNorm: process_groups must be a list of lists of rank ids, "
                                f"got {type(process_groups).__name__}")
            ranks = list(itertools.chain(*process_groups))
            bad = [r for r in ranks if not isinstance(r, int) or isinstance(r, bool) or not 0 <= r < size]
            if bad:
                raise ValueError(f"SyncBatchNorm: rank ids in process_groups must be ints in [0, {size}), "
                                 f"got {bad}")
            if len(set(ranks)) != len(ranks):
                raise ValueError(f"SyncBatchNorm: rank ids in process_groups must not repeat, got {process_groups}")
        self.process_groups = process_groups
        self.group_device_num = size
        if dtype == float16:
            for attr in ("moving_mean", "moving_variance", "gamma", "beta"):
                old = getattr(self, attr)
                setattr(self, attr, Parameter(old.asnumpy().astype(np.float16), name=old.name,
                                              requires_grad=old.requires_grad))

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (2, 4):  # MindSpore raises ValueError here too (ShapeError is one)
            raise ShapeError("SyncBatchNorm", "expects a rank-2 (N, C) or rank-4 (N, C, H, W) input", [x._type])
        batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        if batch and self.group_device_num > 1:
            raise NotImplementedError(
                f"SyncBatchNorm: training across {self.group_device_num} processes needs the statistics "
                "all-reduced, which opbuild does not do yet; use BatchNorm2d (per-process statistics) or "
                "train in one process")
        check_input("SyncBatchNorm", x, dim=(1, self.num_features))
        shape = x.shape
        x4 = x.reshape((shape[0], shape[1], 1, 1)) if x.ndim == 2 else x
        if batch:
            y = self.batch_norm_train(x4, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]
        else:
            y = self.batch_norm(x4, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]
        return y.reshape(shape) if x.ndim == 2 else y
