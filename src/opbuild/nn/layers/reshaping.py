"""Layers that rearrange, drop channels, pool adaptively or look up: PixelUnshuffle, Unflatten, Dropout1d/2d/3d,
AdaptiveAvgPool1d/3d, AdaptiveMaxPool1d/3d, LRN, EmbeddingLookup and Unfold, each calling its ``ops`` function
(ops/api/nn_misc.py, ops/api/pooling_adaptive.py, ops/api/patches.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ...common.initializer import init_array
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.api import array as A
from ...ops.api import nn_misc, patches
from ...ops.api.padding import pad_pairs
from ...ops.api.pooling_adaptive import adaptive_max_with_indices, adaptive_pool
from ..cell import Cell
from ._checks import positive_int


class PixelUnshuffle(Cell):
    """``PixelUnshuffle(downscale_factor)``: (..., C, H r, W r) to (..., C r^2, H, W), the inverse of
    PixelShuffle."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = positive_int("PixelUnshuffle", "downscale_factor", downscale_factor)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002 - MindSpore's name
        return nn_misc.pixel_unshuffle(input, self.downscale_factor)


class Unflatten(Cell):
    """``Unflatten(axis, unflattened_size)``: axis ``axis`` reshaped into ``unflattened_size`` (one entry
    may be -1)."""

    def __init__(self, axis: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"Unflatten: axis must be an int, got {axis!r}")
        if not isinstance(unflattened_size, (tuple, list)) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in unflattened_size):
            raise TypeError(f"Unflatten: unflattened_size must be a tuple or list of ints, got "
                            f"{unflattened_size!r}")
        self.axis, self.unflattened_size = axis, tuple(unflattened_size)

    def construct(self, input_x: Tensor) -> Tensor:
        ax = self.axis + input_x.ndim if self.axis < 0 else self.axis
        if not 0 <= ax < input_x.ndim:
            raise ValueError(f"Unflatten: axis {self.axis} is out of range for shape {input_x.shape}")
        shape = (*input_x.shape[:ax], *self.unflattened_size, *input_x.shape[ax + 1:])
        return A.reshape(input_x, shape)


class _ChannelDropout(Cell):
    _spatial = 1

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"{type(self).__name__}: p must be a float in [0, 1], got {p!r}")
        self.p = float(p)

    def construct(self, x: Tensor) -> Tensor:
        return nn_misc.channel_dropout(type(self).__name__, x, self.p, self.training, self._spatial)


class Dropout1d(_ChannelDropout):
    """``Dropout1d(p=0.5)``: in training, zeroes whole channels of (N, C, L) or (C, L) with probability
    ``p`` and scales the others by ``1 / (1 - p)``; the identity in inference."""


class Dropout2d(_ChannelDropout):
    """``Dropout2d(p=0.5)``: :class:`Dropout1d` for (N, C, H, W) inputs."""

    _spatial = 2


class Dropout3d(_ChannelDropout):
    """``Dropout3d(p=0.5)``: :class:`Dropout1d` for (N, C, D, H, W) inputs."""

    _spatial = 3


class _AdaptivePool(Cell):
    _dims = 1
    _max = False

    def __init__(self, output_size) -> None:
        super().__init__()
        name = type(self).__name__
        if self._dims == 1 and (isinstance(output_size, bool) or not isinstance(output_size, int)):
            raise TypeError(f"{name}: output_size must be an int, got {output_size!r}")
        self.output_size = output_size

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return adaptive_pool(type(self).__name__, input, self.output_size, self._dims, self._max)


class AdaptiveAvgPool1d(_AdaptivePool):
    """``AdaptiveAvgPool1d(output_size)``: (N, C, L) averaged over adaptive windows to (N, C, output_size)."""


class AdaptiveAvgPool3d(_AdaptivePool):
    """``AdaptiveAvgPool3d(output_size)``: the last three axes averaged to ``output_size`` (an int or a
    triple, None keeping an axis)."""

    _dims = 3


class AdaptiveMaxPool1d(_AdaptivePool):
    """``AdaptiveMaxPool1d(output_size)``: (N, C, L) max-pooled over adaptive windows to (N, C, output_size)."""

    _max = True

    def construct(self, x: Tensor) -> Tensor:
        return adaptive_pool("AdaptiveMaxPool1d", x, self.output_size, 1, True)


class AdaptiveMaxPool3d(_AdaptivePool):
    """``AdaptiveMaxPool3d(output_size, return_indices=False)``: the last three axes max-pooled to
    ``output_size`` (``return_indices=True``: also the int64 flat index of each maximum in its volume)."""

    _dims = 3
    _max = True

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = bool(return_indices)

    def construct(self, input: Tensor):  # noqa: A002
        if self.return_indices:
            return adaptive_max_with_indices("AdaptiveMaxPool3d", input, self.output_size, 3)
        return super().construct(input)




class LRN(Cell):
    """``LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')``: local response
    normalisation across channels (see ``ops.lrn``)."""

    def __init__(self, depth_radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
                 norm_region: str = "ACROSS_CHANNELS") -> None:
        super().__init__()
        if isinstance(depth_radius, bool) or not isinstance(depth_radius, int) or depth_radius < 0:
            raise ValueError(f"LRN: depth_radius must be an int >= 0, got {depth_radius!r}")
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"LRN: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, float(bias), float(alpha), float(beta)
        self.norm_region = norm_region

    def construct(self, input_x: Tensor) -> Tensor:
        return patches.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


class EmbeddingLookup(Cell):
    """``EmbeddingLookup(vocab_size, embedding_size, param_init='normal', target='CPU', slice_mode='batch_slice',
    manual_shapes=None, max_norm=None, sparse=True, dtype=float32)(indices)``: rows of ``embedding_table``
    (vocab_size, embedding_size) at ``indices``. The distribution arguments (``slice_mode``,
    ``manual_shapes``) are accepted for a single device only; ``max_norm`` is refused (MindSpore 2.10's CPU
    result for it differs from its documented per-row clipping)."""

    def __init__(self, vocab_size: int, embedding_size: int, param_init="normal", target: str = "CPU",
                 slice_mode: str = "batch_slice", manual_shapes=None, max_norm: float | None = None,
                 sparse: bool = True, dtype=None) -> None:
        super().__init__()
        self.vocab_size = positive_int("EmbeddingLookup", "vocab_size", vocab_size)
        self.embedding_size = positive_int("EmbeddingLookup", "embedding_size", embedding_size)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"EmbeddingLookup: target must be 'CPU' or 'DEVICE', got {target!r}")
        if slice_mode not in ("field_slice", "table_row_slice", "table_column_slice", "batch_slice"):
            raise ValueError(f"EmbeddingLookup: unknown slice_mode {slice_mode!r}")
        if max_norm is not None:  # MindSpore 2.10's CPU clipping does not match its documentation: refused
            raise NotImplementedError("EmbeddingLookup: max_norm is not supported (leave it None)")
        self.target, self.slice_mode, self.manual_shapes, self.sparse = target, slice_mode, manual_shapes, sparse
        self.max_norm = None
        self.embedding_table = Parameter(init_array(param_init, (vocab_size, embedding_size)), name="embedding_table")

    def construct(self, indices: Tensor) -> Tensor:
        if indices.dtype.name not in ("int32", "int64"):
            raise TypeError(f"EmbeddingLookup: indices must be int32/int64, got {indices.dtype}")
        return patches.embedding(indices, self.embedding_table)


class Unfold(Cell):
    """``Unfold(ksizes, strides, rates, padding='valid')``: image patches of an (N, C, H, W) input, MindSpore's
    (TensorFlow's) layout: (N, C * kh * kw, OH, OW) with the channel axis ordered (kh, kw, C). ``ksizes``,
    ``strides`` and ``rates`` are [1, kh, kw, 1]-style lists; ``padding`` 'valid' or 'same'."""

    def __init__(self, ksizes: Sequence[int], strides: Sequence[int], rates: Sequence[int], padding: str = "valid"
                 ) -> None:
        super().__init__()
        for name, v in (("ksizes", ksizes), ("strides", strides), ("rates", rates)):
            if not isinstance(v, (tuple, list)) or len(v) != 4 or v[0] != 1 or v[3] != 1 or not all(
                    isinstance(a, int) and a >= 1 for a in v):
                raise ValueError(f"Unfold: {name} must be [1, row, col, 1] with positive ints, got {v!r}")
        if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
            raise ValueError(f"Unfold: padding must be 'valid' or 'same', got {padding!r}")
        self.ksizes, self.strides, self.rates = tuple(ksizes), tuple(strides), tuple(rates)
        self.padding = padding.lower()

    def construct(self, input_x: Tensor) -> Tensor:
        if input_x.ndim != 4:
            raise ValueError(f"Unfold: the input must be (N, C, H, W), got shape {input_x.shape}")
        n, c, h, w = input_x.shape
        k, s, d = self.ksizes[1:3], self.strides[1:3], self.rates[1:3]
        x = input_x
        if self.padding == "same":
            pads = []
            for size, kk, ss, dd in zip((h, w), k, s, d, strict=True):
                total = max((-(-size // ss) - 1) * ss + dd * (kk - 1) + 1 - size, 0)
                pads.append([total // 2, total - total // 2])
            x = pad_pairs("Unfold", x, [[0, 0], [0, 0], *pads])
        cols = patches.unfold(x, k, d, 0, s)                                 # (N, C kh kw, L), C-major
        oh = (x.shape[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
        ow = (x.shape[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
        cols = A.reshape(cols, (n, c, k[0] * k[1], oh, ow))
        return A.reshape(A.transpose(cols, (0, 2, 1, 3, 4)), (n, k[0] * k[1] * c, oh, ow))


__all__ = ["PixelUnshuffle", "Unflatten", "Dropout1d", "Dropout2d", "Dropout3d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool3d", "LRN", "EmbeddingLookup", "Unfold"]
