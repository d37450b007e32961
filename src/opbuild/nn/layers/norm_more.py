"""More normalisation layers of ``mindspore.nn``: BatchNorm3d (BatchNorm2d on the input viewed as (N, C, D * H,
W), held as the child ``bn2d`` so parameter names are MindSpore's ``bn2d.gamma``, ...), InstanceNorm1d and
InstanceNorm3d (InstanceNorm2d's per-sample, per-channel normalisation over one or three trailing axes)."""

from __future__ import annotations

from ...core.tensor import Tensor
from ...ops.api import array as A
from ..cell import Cell
from ._checks import check_input
from .instance_norm import InstanceNorm2d, _normalize
from .normalization import BatchNorm2d


class BatchNorm3d(Cell):
    """``BatchNorm3d(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones', beta_init='zeros',
    moving_mean_init='zeros', moving_var_init='ones', use_batch_statistics=None, dtype=float32)``: batch
    normalisation over axis 1 of an (N, C, D, H, W) input. ``use_batch_statistics`` None follows the cell's
    training flag; True always uses the batch's statistics (updating the moving ones), False the moving ones."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics: bool | None = None, dtype=None) -> None:
        super().__init__()
        if use_batch_statistics not in (None, True, False):
            raise TypeError(f"BatchNorm3d: use_batch_statistics must be None or a bool, got {use_batch_statistics!r}")
        if dtype is not None and str(dtype).lower() not in ("float32", "opbuild.float32", "mindspore.float32"):
            raise TypeError(f"BatchNorm3d: dtype must be float32 (opbuild keeps float32 statistics), got {dtype!r}")
        self.use_batch_statistics = use_batch_statistics
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init,
                                moving_var_init)

    def construct(self, x: Tensor) -> Tensor:
        check_input("BatchNorm3d", x, rank=5, dim=(1, self.bn2d.num_features))
        n, c, d, h, w = x.shape
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        y4 = A.reshape(x, (n, c, d * h, w))
        bn = self.bn2d
        if use_batch:
            y = bn.batch_norm_train(y4, bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance)[0]
        else:
            y = bn.batch_norm(y4, bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance)[0]
        return A.reshape(y, x.shape)


class _InstanceNormNd(InstanceNorm2d):
    _dims = 1

    def construct(self, x: Tensor) -> Tensor:
        name = type(self).__name__
        check_input(name, x, rank=self._dims + 2, dim=(1, self.num_features))
        c = (1, self.num_features) + (1,) * self._dims
        axes = tuple(range(2, 2 + self._dims))
        return _normalize(x, axes, self.eps) * A.reshape(self.gamma, c) + A.reshape(self.beta, c)


class InstanceNorm1d(_InstanceNormNd):
    """``InstanceNorm1d(num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init='ones',
    beta_init='zeros')``: each sample's channel of an (N, C, L) input normalised over L, then scaled and
    shifted per channel."""


class InstanceNorm3d(_InstanceNormNd):
    """``InstanceNorm3d(num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init='ones',
    beta_init='zeros')``: each sample's channel of an (N, C, D, H, W) input normalised over D, H, W, then
    scaled and shifted per channel."""

    _dims = 3


__all__ = ["BatchNorm3d", "InstanceNorm1d", "InstanceNorm3d"]
