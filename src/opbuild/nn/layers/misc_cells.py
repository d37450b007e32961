"""Small MindSpore ``nn`` cells over existing ops: ``CentralCrop``, ``ImageGradients``, ``DiGamma``, ``LGamma``,
``LBeta``, ``L1Regularizer``, ``ParameterUpdate``, ``SparseToDense``, ``SparseTensorDenseMatmul``,
``LayerNormExt``, ``PReLUExt`` and ``DenseBnAct``, with MindSpore 2.10's constructor signatures and defaults
(checked against its outputs in tests/compat/test_nn_misc_cells.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ... import ops
from ...core.parameter import Parameter
from ...core.tensor import Tensor, as_tensor
from ..cell import Cell
from .activation import LeakyReLU, get_activation
from .basic import Dense
from .normalization import BatchNorm1d


class CentralCrop(Cell):
    """``CentralCrop(central_fraction)``: the central ``central_fraction`` of the height and width of a 3-D
    (C, H, W) or 4-D (N, C, H, W) image, ``central_fraction`` in (0, 1]."""

    def __init__(self, central_fraction: float):
        super().__init__()
        if not isinstance(central_fraction, (int, float)) or isinstance(central_fraction, bool) \
                or not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"CentralCrop: central_fraction must be a float in (0, 1], got {central_fraction!r}")
        self.central_fraction = float(central_fraction)

    def construct(self, image: Tensor) -> Tensor:
        if image.ndim not in (3, 4):
            raise ValueError(f"CentralCrop: image must be 3-D or 4-D, got rank {image.ndim}")
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        top = int((h - h * self.central_fraction) / 2)
        left = int((w - w * self.central_fraction) / 2)
        return image[..., top:h - top, left:w - left]


class ImageGradients(Cell):
    """``ImageGradients()(images)``: ``(dy, dx)`` of a 4-D (N, C, H, W) image, the forward differences along
    height and width, 0 in the last row (dy) and column (dx)."""

    def construct(self, images: Tensor) -> tuple[Tensor, Tensor]:
        if images.ndim != 4:
            raise ValueError(f"ImageGradients: images must be 4-D (N, C, H, W), got rank {images.ndim}")
        n, c, h, w = images.shape
        zeros_row = Tensor(np.zeros((n, c, 1, w), images.dtype.np_dtype))
        zeros_col = Tensor(np.zeros((n, c, h, 1), images.dtype.np_dtype))
        dy = ops.concat((images[:, :, 1:, :] - images[:, :, :-1, :], zeros_row), 2)
        dx = ops.concat((images[:, :, :, 1:] - images[:, :, :, :-1], zeros_col), 3)
        return dy, dx


class DiGamma(Cell):
    """``DiGamma()(x)``: the digamma function elementwise (``ops.digamma``)."""

    def construct(self, x: Tensor) -> Tensor:
        return ops.digamma(x)


class IGamma(Cell):
    """``IGamma()(a, x)``: the regularised lower incomplete gamma function P(a, x) (``ops.igamma``)."""

    def construct(self, a: Tensor, x: Tensor) -> Tensor:
        return ops.igamma(a, x)


class LGamma(Cell):
    """``LGamma()(x)``: log |Gamma(x)| elementwise (``ops.lgamma``)."""

    def construct(self, x: Tensor) -> Tensor:
        return ops.lgamma(x)


class LBeta(Cell):
    """``LBeta()(x, y)``: log |Beta(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), elementwise."""

    def construct(self, x: Tensor, y: Tensor) -> Tensor:
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)


class L1Regularizer(Cell):
    """``L1Regularizer(scale)(weights)``: ``scale * sum(|weights|)``, ``scale`` a positive float."""

    def __init__(self, scale: float):
        super().__init__()
        if not isinstance(scale, (int, float)) or isinstance(scale, bool):
            raise TypeError(f"L1Regularizer: scale must be a float, got {type(scale).__name__}")
        if not scale > 0 or not np.isfinite(scale):
            raise ValueError(f"L1Regularizer: scale must be a finite positive float, got {scale}")
        self.scale = float(scale)

    def construct(self, weights: Tensor) -> Tensor:
        total = ops.sum(ops.abs(weights))
        return total * Tensor(np.array(self.scale, total.dtype.np_dtype))


class ParameterUpdate(Cell):
    """``ParameterUpdate(param)(x)``: assigns ``x`` to ``param`` and returns ``x``."""

    def __init__(self, param: Parameter):
        super().__init__()
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterUpdate: param must be a Parameter, got {type(param).__name__}")
        self._param = param

    def construct(self, x: Tensor) -> Tensor:
        ops.Assign()(self._param, x)
        return x


class SparseToDense(Cell):
    """``SparseToDense()(sparse_tensor)``: the dense tensor of a COOTensor."""

    def construct(self, sparse_tensor: Any) -> Tensor:
        if not hasattr(sparse_tensor, "to_dense"):
            raise TypeError(f"SparseToDense: expects a COOTensor, got {type(sparse_tensor).__name__}")
        return sparse_tensor.to_dense()


class SparseTensorDenseMatmul(Cell):
    """``SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values, sparse_shape, dense)``:
    the product of the 2-D sparse matrix (COO ``indices``, ``values``, ``sparse_shape``) and ``dense``, either
    transposed first by the adjoint flags."""

    def __init__(self, adjoint_st: bool = False, adjoint_dt: bool = False):
        super().__init__()
        for name, v in (("adjoint_st", adjoint_st), ("adjoint_dt", adjoint_dt)):
            if not isinstance(v, bool):
                raise TypeError(f"SparseTensorDenseMatmul: {name} must be a bool, got {type(v).__name__}")
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt

    def construct(self, indices: Tensor, values: Tensor, sparse_shape: Sequence[int], dense: Tensor) -> Tensor:
        shape = tuple(int(d) for d in sparse_shape)
        if len(shape) != 2:
            raise ValueError(f"SparseTensorDenseMatmul: sparse_shape must be 2-D, got {shape}")
        sparse = ops.ScatterNd()(indices, values, shape)
        if self.adjoint_st:
            sparse = ops.transpose(sparse, (1, 0))
        if self.adjoint_dt:
            dense = ops.transpose(dense, (1, 0))
        return ops.matmul(sparse, dense)


class LayerNormExt(Cell):
    """``LayerNormExt(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None)``: layer
    normalization over the trailing ``normalized_shape`` axes (PyTorch's signature), with Parameters
    ``weight`` (ones) and ``bias`` (zeros) when ``elementwise_affine``."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, dtype: Any = None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        if not shape or any(not isinstance(d, (int, np.integer)) or d <= 0 for d in shape):
            raise ValueError(f"LayerNormExt: normalized_shape must be positive ints, got {normalized_shape!r}")
        self.normalized_shape = tuple(int(d) for d in shape)
        self.eps = float(eps)
        np_dtype = np.float32 if dtype is None else as_tensor(np.zeros(0, np.float32)).astype(dtype).dtype.np_dtype
        self.weight = Parameter(Tensor(np.ones(self.normalized_shape, np_dtype)), name="weight") \
            if elementwise_affine else None
        self.bias = Parameter(Tensor(np.zeros(self.normalized_shape, np_dtype)), name="bias") \
            if elementwise_affine and bias else None

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002 - MindSpore's argument name
        return ops.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class PReLUExt(Cell):
    """``PReLUExt(num_parameters=1, init=0.25, dtype=None)``: PReLU with a learnable slope Parameter
    ``weight`` of ``num_parameters`` entries (1, or the channel count of axis 1)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, dtype: Any = None):
        super().__init__()
        if not isinstance(num_parameters, int) or isinstance(num_parameters, bool) or num_parameters <= 0:
            raise ValueError(f"PReLUExt: num_parameters must be a positive int, got {num_parameters!r}")
        np_dtype = np.float32 if dtype is None else as_tensor(np.zeros(0, np.float32)).astype(dtype).dtype.np_dtype
        self.weight = Parameter(Tensor(np.full((num_parameters,), init, np_dtype)), name="weight")

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002 - MindSpore's argument name
        return ops.prelu(input, self.weight)


class DenseBnAct(Cell):
    """``DenseBnAct(in_channels, out_channels, weight_init='normal', bias_init='zeros', has_bias=True,
    has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True)``: Dense, then
    BatchNorm1d when ``has_bn``, then the activation (a name, a Cell or None; ``alpha`` is LeakyReLU's
    slope). ``after_fake`` concerns quantization-aware training and is recorded only."""

    def __init__(self, in_channels: int, out_channels: int, weight_init: Any = "normal", bias_init: Any = "zeros",
                 has_bias: bool = True, has_bn: bool = False, momentum: float = 0.9, eps: float = 1e-5,
                 activation: Any = None, alpha: float = 0.2, after_fake: bool = True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = bool(has_bn)
        self.batchnorm = BatchNorm1d(out_channels, eps, momentum) if has_bn else None
        if isinstance(activation, str) and activation.lower() == "leakyrelu":
            self.activation = LeakyReLU(alpha)
        else:
            self.activation = get_activation(activation) if isinstance(activation, str) else activation
        self.after_fake = after_fake

    def construct(self, x: Tensor) -> Tensor:
        x = self.dense(x)
        if self.batchnorm is not None:
            x = self.batchnorm(x)
        if self.activation is not None:
            x = self.activation(x)
        return x


__all__ = ["CentralCrop", "ImageGradients", "DiGamma", "IGamma", "LGamma", "LBeta", "L1Regularizer", "ParameterUpdate",
           "SparseToDense", "SparseTensorDenseMatmul", "LayerNormExt", "PReLUExt", "DenseBnAct"]
