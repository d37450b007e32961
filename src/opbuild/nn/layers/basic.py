"""Basic layers: Dense (fully connected), Flatten, Dropout and Identity."""

from __future__ import annotations

import math

import numpy as np

from ... import ops
from ...common.initializer import HeUniform, Uniform, initializer, op_seed
from ...core.dtypes import dtype_of
from ...core.errors import ShapeError
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ._checks import check_input, positive_int
from .activation import get_activation


class Dense(Cell):
    """Fully connected layer ``y = activation(x @ weight.T + bias)``.

    ``weight`` has shape (out_channels, in_channels) and ``bias`` (out_channels,), as in MindSpore. The input
    has rank >= 1 and its last axis is ``in_channels`` (MindSpore's ``(*, in_channels)``: a 1-D input gives a
    1-D output); other leading axes than one batch axis are folded into one for the MatMul and restored.
    ``activation`` is a Cell, a name ('relu', 'gelu', ...) or None. ``weight_init``/``bias_init``: an
    Initializer, its name, a number or a Tensor; None (the default) means MindSpore 2.x's
    HeUniform(negative_slope=sqrt(5)) and Uniform(1 / sqrt(in_channels)).
    """

    def __init__(self, in_channels: int, out_channels: int, weight_init=None, bias_init=None,
                 has_bias: bool = True, activation: str | Cell | None = None) -> None:
        super().__init__()
        self.in_channels = positive_int("Dense", "in_channels", in_channels)
        self.out_channels = positive_int("Dense", "out_channels", out_channels)
        self.has_bias = bool(has_bias)
        # MindSpore 2.x's defaults (weight_init/bias_init None): HeUniform(sqrt(5)) weights and
        # U(-1/sqrt(fan_in), 1/sqrt(fan_in)) biases, the same distributions as torch.nn.Linear.
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, (out_channels, in_channels)), name="weight")
        if self.has_bias:
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, (out_channels,)), name="bias")
        else:
            self.bias = None  # MindSpore's: model zoos test `cell.bias is not None` in their initialisers
        self.matmul = ops.MatMul(transpose_b=True)
        self.bias_add = ops.BiasAdd()
        self.reshape = ops.Reshape()
        self.activation = get_activation(activation)

    def construct(self, x: Tensor) -> Tensor:
        check_input("Dense", x, min_rank=1, dim=(-1, self.in_channels))
        lead = x.shape[:-1]
        if len(lead) != 1:  # MatMul is 2-D: fold the leading axes (or none) into one batch axis
            x = self.reshape(x, (math.prod(lead), self.in_channels))
        y = self.matmul(x, self.weight)
        if self.has_bias:
            y = self.bias_add(y, self.bias)
        if self.activation is not None:
            y = self.activation(y)
        if len(lead) != 1:
            y = self.reshape(y, (*lead, self.out_channels))
        return y


class Flatten(Cell):
    """Merge axes ``start_dim..end_dim`` into one (default: everything but the batch axis)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim
        self.reshape = ops.Reshape()

    def construct(self, x: Tensor) -> Tensor:
        shape = x.shape
        rank = max(len(shape), 1)
        start, end = self.start_dim % rank, self.end_dim % rank
        if not (-rank <= self.start_dim < rank and -rank <= self.end_dim < rank) or start > end:
            raise ShapeError("Flatten", f"start_dim={self.start_dim}, end_dim={self.end_dim} do not select "
                                        f"a range of axes of a rank-{len(shape)} input", [x._type])
        new_shape = (*shape[:start], math.prod(shape[start:end + 1]), *shape[end + 1:])
        return x if new_shape == shape else self.reshape(x, new_shape)


class Dropout(Cell):
    """Dropout: zeroes elements with probability ``p`` (or ``1 - keep_prob``) during training and scales the
    kept ones by ``1 / (1 - p)``; the identity in evaluation mode (the default; ``set_train(False)``).

    In training the Dropout primitive's kernel draws the mask from ``[seed, counter]``, a state of this cell:
    the seed comes from ``ms.set_seed`` and the cell's creation order (so a program that sets the seed gets
    the same masks every run), and the counter advances by one per call inside the compiled graph (an Assign
    writing the state Parameter in place), so every call draws a fresh mask without retracing.
    """

    def __init__(self, keep_prob: float = 0.5, p: float | None = None, dtype=None) -> None:
        super().__init__()
        if dtype is not None:  # MindSpore's (deprecated) input dtype argument: checked, not needed here
            dtype_of(dtype)
        if p is not None:
            if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0.0 <= p < 1.0:
                raise ValueError(f"Dropout: p must be a float in [0, 1), got {p!r}")
            self.p = float(p)
        else:
            if not isinstance(keep_prob, (int, float)) or isinstance(keep_prob, bool) or not 0.0 < keep_prob <= 1.0:
                raise ValueError(f"Dropout: keep_prob must be a float in (0, 1], got {keep_prob!r}")
            self.p = 1.0 - float(keep_prob)
        self.dropout = ops.Dropout(keep_prob=1.0 - self.p)
        self._assign = ops.Assign()
        # Not a registered Parameter (object.__setattr__): the generator state is no weight, and stays out
        # of parameters_and_names and checkpoints.
        object.__setattr__(self, "_rng_state", Parameter(np.array([op_seed(), 0], np.int64), name="rng_state",
                                                         requires_grad=False))

    def construct(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        y, _ = self.dropout(x, self._rng_state)
        self._assign(self._rng_state, self._rng_state + Tensor(np.array([0, 1], np.int64)))
        return y


class Identity(Cell):
    """Returns its input unchanged (a placeholder where a network expects a layer)."""

    def construct(self, input: Tensor) -> Tensor:
        return input
