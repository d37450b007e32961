"""Normalisation layers: BatchNorm2d (NCHW) and LayerNorm."""

from __future__ import annotations

from collections.abc import Sequence

from ... import ops
from ...common.initializer import initializer
from ...core.errors import ShapeError
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ._checks import check_input, in_input_dtype, positive_int


class BatchNorm2d(Cell):
    """Batch normalisation over the channel axis of an (N, C, H, W) input.

    Parameters: ``gamma`` and ``beta`` (trainable when ``affine``), ``moving_mean`` and ``moving_variance``
    (never trainable). In evaluation mode (the default) it normalises with the moving statistics through the
    BatchNorm primitive: ``(x - moving_mean) / sqrt(moving_variance + eps) * gamma + beta``.

    In training mode (``set_train(True)``) it normalises with the statistics of the batch (mean and biased
    variance over N, H, W) through ``ops.BatchNorm(is_training=True)``, whose kernel (BatchNormTraining, with
    BatchNormGrad as its backward) also computes MindSpore's update ``moving = moving * momentum + batch *
    (1 - momentum)`` (the moving variance from the unbiased batch variance). The update is computed inside
    the compiled graph and written into the Parameters in place (an Assign node, as MindSpore does).

    ``use_batch_statistics``: None (the default) follows the training flag as above; True always uses the
    batch's statistics (and updates the moving ones), False always the moving ones. ``data_format`` is
    ``'NCHW'`` only (MindSpore takes ``'NHWC'`` on GPU alone); ``dtype`` is float32 only.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.9, affine: bool = True,
                 gamma_init="ones", beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics: bool | None = None, data_format: str = "NCHW", dtype=None) -> None:
        super().__init__()
        name = type(self).__name__
        if use_batch_statistics is not None and not isinstance(use_batch_statistics, bool):
            raise TypeError(f"{name}: use_batch_statistics must be None or a bool, got {use_batch_statistics!r}")
        if data_format != "NCHW":
            raise ValueError(f"{name}: data_format must be 'NCHW' (MindSpore takes 'NHWC' on GPU only; "
                             f"transpose the input instead), got {data_format!r}")
        if dtype is not None and str(dtype).lower().rsplit(".", 1)[-1] != "float32":
            raise TypeError(f"{name}: dtype must be float32 (the statistics are kept in float32), got {dtype!r}")
        self.use_batch_statistics = use_batch_statistics
        self.num_features = positive_int("BatchNorm2d", "num_features", num_features)
        if not isinstance(eps, (int, float)) or isinstance(eps, bool) or eps <= 0:
            raise ValueError(f"BatchNorm2d: eps must be a positive float, got {eps!r}")
        if not isinstance(momentum, (int, float)) or isinstance(momentum, bool) or not 0.0 <= momentum <= 1.0:
            raise ValueError(f"BatchNorm2d: momentum must be in [0, 1], got {momentum!r}")
        self.eps = float(eps)
        self.momentum = float(momentum)
        self.affine = bool(affine)
        c = (num_features,)
        # MindSpore's order (parameters_and_names, checkpoints): the moving statistics first.
        self.moving_mean = Parameter(initializer(moving_mean_init, c), name="moving_mean", requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, c), name="moving_variance",
                                       requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, c), name="gamma", requires_grad=self.affine)
        self.beta = Parameter(initializer(beta_init, c), name="beta", requires_grad=self.affine)
        self.batch_norm = ops.BatchNorm(epsilon=self.eps)
        # The primitive's momentum weighs the batch: 1 - the layer's (MindSpore's nn does the same).
        self.batch_norm_train = ops.BatchNorm(is_training=True, epsilon=self.eps, momentum=1.0 - self.momentum)

    def construct(self, x: Tensor) -> Tensor:
        check_input("BatchNorm2d", x, rank=4, dim=(1, self.num_features))
        use_batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        if not use_batch:
            return self.batch_norm(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]
        y, _, _, _, _ = self.batch_norm_train(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)
        return y


class LayerNorm(Cell):
    """Layer normalisation: statistics over axes ``begin_norm_axis..`` and an affine transform with
    ``gamma``/``beta`` of shape ``normalized_shape`` applied over axes ``begin_params_axis..``.

    ``y = (x - mean) / sqrt(var + epsilon) * gamma + beta`` (biased variance), as MindSpore's nn.LayerNorm.
    """

    def __init__(self, normalized_shape: Sequence[int], begin_norm_axis: int = -1, begin_params_axis: int = -1,
                 gamma_init="ones", beta_init="zeros", epsilon: float = 1e-7) -> None:
        super().__init__()
        if not isinstance(normalized_shape, (tuple, list)):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple or list, got {normalized_shape!r}")
        self.normalized_shape = tuple(positive_int("LayerNorm", "normalized_shape item", d)
                                      for d in normalized_shape)
        if not isinstance(epsilon, (int, float)) or isinstance(epsilon, bool) or epsilon <= 0:
            raise ValueError(f"LayerNorm: epsilon must be a positive float, got {epsilon!r}")
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = float(epsilon)
        self.gamma = Parameter(initializer(gamma_init, self.normalized_shape), name="gamma")
        self.beta = Parameter(initializer(beta_init, self.normalized_shape), name="beta")
        self.layer_norm = ops.LayerNorm(begin_norm_axis=begin_norm_axis, begin_params_axis=begin_params_axis,
                                        epsilon=self.epsilon)

    def construct(self, input_x: Tensor) -> Tensor:
        rank = input_x.ndim
        if not -rank <= self.begin_params_axis < rank:
            raise ShapeError("LayerNorm", f"begin_params_axis {self.begin_params_axis} is out of range for "
                                          f"rank {rank}", [input_x._type])
        if input_x.shape[self.begin_params_axis % rank:] != self.normalized_shape:
            raise ShapeError("LayerNorm", f"normalized_shape {self.normalized_shape} does not match the input's "
                                          f"trailing axes from begin_params_axis={self.begin_params_axis}",
                             [input_x._type])
        y, _, _ = self.layer_norm(input_x, in_input_dtype(self.gamma, input_x), in_input_dtype(self.beta, input_x))
        return y


class BatchNorm1d(BatchNorm2d):
    """Batch normalisation over axis 1 of an (N, C) or (N, C, L) input: :class:`BatchNorm2d` on the input
    viewed as (N, C, L, 1), so both modes (moving statistics in evaluation, batch statistics in training)
    behave exactly as BatchNorm2d's. Same arguments and parameters (``gamma``, ``beta``, ``moving_mean``,
    ``moving_variance``)."""

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim not in (2, 3):
            raise ShapeError("BatchNorm1d", "expects a rank-2 (N, C) or rank-3 (N, C, L) input", [x._type])
        check_input("BatchNorm1d", x, dim=(1, self.num_features))
        shape = x.shape
        y = super().construct(x.reshape((shape[0], shape[1], shape[2] if x.ndim == 3 else 1, 1)))
        return y.reshape(shape)
