"""``nn.SyncBatchNorm``: MindSpore's cross-device batch normalisation, with its signature and defaults.

MindSpore averages the batch statistics over the devices of a process group. In one process (no
``communication.init()``, or a world of one) the group is this process alone and the layer is exactly
``BatchNorm2d`` over (N, C, H, W), also taking (N, C) inputs, as MindSpore's does on one device (checked
against its outputs in tests/compat/test_nn_surface.py). In an MPI job (``communication.init()``) the
per-channel sums, sums of squares and element counts of every rank of the group are all-reduced, so each rank
normalises with the statistics of the whole global batch and updates the moving ones from them (the variance
unbiased over the global count); the AllReduce's gradient carries the backward pass across ranks
(tests/distributed/test_sync_batch_norm.py compares a 2-rank job with one process on the global batch).
``process_groups`` splits the ranks: each rank syncs with the ranks of its sub-list (a group created on first
use by the ranks that share it, as MindSpore's); a rank in no sub-list, or alone in one, uses its own batch."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...communication import groups
from ...communication.management import get_group_size, get_rank, is_initialized
from ...core.dtypes import float16, float32
from ...core.errors import ShapeError
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops import functional as F
from ...ops.optim import Assign
from ...ops.primitive import apply
from ._checks import check_input
from .normalization import BatchNorm2d

_GROUPS: dict[tuple[int, ...], str] = {}  # the sync groups this process created, by their ranks


def _world() -> tuple[int, int]:
    """(this rank, world size): (0, 1) outside an MPI job."""
    if not is_initialized():
        return 0, 1
    return get_rank(), get_group_size()


def _sync_group(ranks: tuple[int, ...]) -> str:
    """The name of the communication group of ``ranks`` (this rank among them), created on first use."""
    if ranks not in _GROUPS:
        name = "sync_bn_" + "_".join(str(r) for r in ranks)
        groups.create(name, list(ranks))
        _GROUPS[ranks] = name
    return _GROUPS[ranks]


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
        self._assign = Assign()
        self.dtype = dtype
        rank, size = _world()
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
        self.rank_id, self.rank_size = rank, size
        # the ranks this one syncs with: the world, or its sub-list of process_groups (none: itself alone)
        mine = tuple(range(size)) if process_groups is None else next(
            (tuple(g) for g in process_groups if rank in g), (rank,))
        self.group_device_num = len(mine)
        self.group_name = None
        if self.group_device_num > 1:
            self.group_name = "world_group" if len(mine) == size else _sync_group(mine)
        if dtype == float16:
            for attr in ("moving_mean", "moving_variance", "gamma", "beta"):
                old = getattr(self, attr)
                setattr(self, attr, Parameter(old.asnumpy().astype(np.float16), name=old.name,
                                              requires_grad=old.requires_grad))

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (2, 4):  # MindSpore raises ValueError here too (ShapeError is one)
            raise ShapeError("SyncBatchNorm", "expects a rank-2 (N, C) or rank-4 (N, C, H, W) input", [x._type])
        batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        check_input("SyncBatchNorm", x, dim=(1, self.num_features))
        shape = x.shape
        x4 = x.reshape((shape[0], shape[1], 1, 1)) if x.ndim == 2 else x
        if batch and self.group_name is not None:
            y = self._synced(x4)
        elif batch:
            y = self.batch_norm_train(x4, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]
        else:
            y = self.batch_norm(x4, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]
        return y.reshape(shape) if x.ndim == 2 else y

    def _synced(self, x: Tensor) -> Tensor:
        """Batch normalisation with the statistics of the group's global batch (see the module docstring)."""
        dtype = x._type.dtype
        x32 = F.cast(x, "float32")
        axes = (0, 2, 3)
        count = Tensor(np.array([x.shape[0] * x.shape[2] * x.shape[3]], np.float32))
        total, total_sq, n = apply("AllReduce", {"op": "sum", "scale": 1.0, "group": self.group_name},
                                   [F.sum(x32, axes), F.sum(F.square(x32), axes), count])
        mean = total / n
        var = F.maximum(total_sq / n - F.square(mean), F.zeros_like(mean))
        shape = (1, self.num_features, 1, 1)
        scale = F.reshape(F.cast(self.gamma, "float32"), shape) / F.sqrt(F.reshape(var, shape) + self.eps)
        y = (x32 - F.reshape(mean, shape)) * scale + F.reshape(F.cast(self.beta, "float32"), shape)
        keep = self.momentum
        unbiased = var * (n / F.maximum(n - 1.0, F.ones_like(n)))
        for moving, batch in ((self.moving_mean, mean), (self.moving_variance, unbiased)):
            new = F.cast(moving, "float32") * keep + F.stop_gradient(batch) * (1.0 - keep)
            self._assign(moving, F.cast(new, moving._type.dtype))
        return F.cast(y, dtype)
