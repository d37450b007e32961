"""Per-sample normalisation layers: GroupNorm and InstanceNorm2d (statistics over each sample's groups or
channels, so training and evaluation compute the same thing). Composed from reduce and elementwise ops."""

from __future__ import annotations

from ... import ops
from ...common.initializer import init_array
from ...core.errors import ShapeError
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ._checks import check_input, in_input_dtype, positive_int


def _eps(layer: str, eps: object) -> float:
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or eps <= 0:
        raise ValueError(f"{layer}: eps must be a positive float, got {eps!r}")
    return float(eps)


def _normalize(x: Tensor, axes: tuple[int, ...], eps: float) -> Tensor:
    """``(x - mean) / sqrt(var + eps)`` over ``axes`` (biased variance)."""
    centred = x - ops.mean(x, axes, True)
    return centred * ops.rsqrt(ops.mean(centred * centred, axes, True) + eps)


class GroupNorm(Cell):
    """Group normalisation: the channels of an (N, C, ...) input are split into ``num_groups`` groups, each
    sample's group is normalised, then ``gamma``/``beta`` (C,) scale and shift every channel.

    ``GroupNorm(num_groups, num_channels, eps=1e-5, affine=True, gamma_init='ones', beta_init='zeros')``.
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 gamma_init="ones", beta_init="zeros") -> None:
        super().__init__()
        self.num_groups = positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = positive_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.eps = _eps("GroupNorm", eps)
        self.affine = bool(affine)
        self.gamma = Parameter(init_array(gamma_init, (num_channels,)), name="gamma", requires_grad=self.affine)
        self.beta = Parameter(init_array(beta_init, (num_channels,)), name="beta", requires_grad=self.affine)

    def construct(self, x: Tensor) -> Tensor:
        check_input("GroupNorm", x, min_rank=2, dim=(1, self.num_channels))
        n = x.shape[0]
        y = _normalize(ops.reshape(x, (n, self.num_groups, -1)), (2,), self.eps)
        c = (1, self.num_channels) + (1,) * (x.ndim - 2)
        gamma, beta = in_input_dtype(self.gamma, x), in_input_dtype(self.beta, x)
        return ops.reshape(y, x.shape) * ops.reshape(gamma, c) + ops.reshape(beta, c)


class InstanceNorm2d(Cell):
    """Instance normalisation of an (N, C, H, W) input: each sample's channel is normalised over H, W, then
    scaled by ``gamma`` and shifted by ``beta`` (C,).

    ``InstanceNorm2d(num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init='ones', beta_init='zeros')``;
    ``momentum`` is validated and kept for compatibility (instance statistics keep no running averages).
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = True,
                 gamma_init="ones", beta_init="zeros") -> None:
        super().__init__()
        self.num_features = positive_int("InstanceNorm2d", "num_features", num_features)
        self.eps = _eps("InstanceNorm2d", eps)
        if not isinstance(momentum, (int, float)) or isinstance(momentum, bool) or not 0.0 <= momentum <= 1.0:
            raise ValueError(f"InstanceNorm2d: momentum must be in [0, 1], got {momentum!r}")
        self.momentum = float(momentum)
        self.affine = bool(affine)
        c = (num_features,)
        # MindSpore's InstanceNorm layers hold running statistics that their forward never reads; kept (zeros,
        # ones) so parameter lists and checkpoints have MindSpore's names and order.
        self.moving_mean = Parameter(init_array("zeros", c), name="moving_mean", requires_grad=False)
        self.moving_variance = Parameter(init_array("ones", c), name="moving_variance", requires_grad=False)
        self.gamma = Parameter(init_array(gamma_init, c), name="gamma", requires_grad=self.affine)
        self.beta = Parameter(init_array(beta_init, c), name="beta", requires_grad=self.affine)

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim != 4:
            raise ShapeError("InstanceNorm2d", "expects a rank-4 (N, C, H, W) input", [x._type])
        check_input("InstanceNorm2d", x, dim=(1, self.num_features))
        c = (1, self.num_features, 1, 1)
        return _normalize(x, (2, 3), self.eps) * ops.reshape(self.gamma, c) + ops.reshape(self.beta, c)
