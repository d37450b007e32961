"""DenseReparam, DenseLocalReparam and ConvReparam (weights drawn from their posterior at each call) and
WithBNNLossCell (the backbone's loss plus the KL terms of its Bayesian layers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .... import ops as _ops
from ....core.tensor import Tensor
from ...cell import Cell
from ...layers.activation import get_activation
from ...layers.conv import Conv2d
from .normal import NormalPosterior, NormalPrior, normal_post_fn


class _Reparam:
    """The posterior/prior pairs of a Bayesian layer and their KL term."""

    def _make(self, role: str, shape: tuple, prior_fn: Callable, post_fn: Callable) -> None:
        prior = prior_fn()
        post = post_fn(name=f"bnn_{role}", shape=shape)
        if not isinstance(prior, NormalPrior) and not isinstance(prior, Cell):
            raise TypeError(f"{type(self).__name__}: {role}_prior_fn must build a Cell (a NormalPrior)")
        if not isinstance(post, NormalPosterior):
            raise TypeError(f"{type(self).__name__}: {role}_posterior_fn must build a NormalPosterior")
        setattr(self, f"{role}_prior", prior)
        setattr(self, f"{role}_posterior", post)

    @staticmethod
    def _draw(post: NormalPosterior) -> Tensor:
        return post.mean + post.std() * _ops.standard_normal(tuple(post.mean.shape))

    def _kl(self, role: str) -> Tensor:
        prior, post = getattr(self, f"{role}_prior"), getattr(self, f"{role}_posterior")
        return _ops.sum(prior("kl_loss", "Normal", post.mean, post.std()))

    def compute_kl_loss(self) -> Tensor:
        """KL(prior || posterior) summed over the weights (and the bias): MindSpore's direction."""
        kl = self._kl("weight")
        return kl + self._kl("bias") if self.has_bias else kl


def _activation(act: Any) -> Any:
    if act is None or isinstance(act, Cell):
        return act
    if isinstance(act, str):
        return get_activation(act)
    raise TypeError(f"activation must be None, a str or a Cell, got {type(act).__name__}")


class DenseReparam(_Reparam, Cell):
    """``DenseReparam(in_channels, out_channels, activation=None, has_bias=True, weight_prior_fn=NormalPrior,
    weight_posterior_fn=normal_post_fn, bias_prior_fn=NormalPrior, bias_posterior_fn=normal_post_fn)``:
    x @ W.T + b with W and b drawn from their posteriors at each call."""

    def __init__(self, in_channels: int, out_channels: int, activation: Any = None, has_bias: bool = True,
                 weight_prior_fn: Callable = NormalPrior, weight_posterior_fn: Callable = normal_post_fn,
                 bias_prior_fn: Callable = NormalPrior, bias_posterior_fn: Callable = normal_post_fn) -> None:
        super().__init__()
        if in_channels <= 0 or out_channels <= 0:
            raise ValueError(f"{type(self).__name__}: in_channels and out_channels must be positive")
        self.in_channels, self.out_channels, self.has_bias = int(in_channels), int(out_channels), bool(has_bias)
        self._make("weight", (self.out_channels, self.in_channels), weight_prior_fn, weight_posterior_fn)
        if self.has_bias:
            self._make("bias", (self.out_channels,), bias_prior_fn, bias_posterior_fn)
        self.activation = _activation(activation)
        self.activation_flag = self.activation is not None

    def _linear(self, x: Tensor) -> Tensor:
        return _ops.matmul(x, _ops.transpose(self._draw(self.weight_posterior), (1, 0)))

    def construct(self, x: Tensor) -> Tensor:
        """The layer on a (batch, in_channels) input."""
        out = self._linear(x)
        if self.has_bias:
            out = out + self._draw(self.bias_posterior)
        return self.activation(out) if self.activation_flag else out

    def extend_repr(self) -> str:
        return f"in_channels={self.in_channels}, out_channels={self.out_channels}, has_bias={self.has_bias}"


class DenseLocalReparam(DenseReparam):
    """``DenseLocalReparam(...)``: DenseReparam's arguments; draws the pre-activations instead of the weights
    (the local reparameterization: mean x @ M.T, variance x^2 @ (S^2).T)."""

    def _linear(self, x: Tensor) -> Tensor:
        post = self.weight_posterior
        mean = _ops.matmul(x, _ops.transpose(post.mean, (1, 0)))
        sd = post.std()
        var = _ops.matmul(x * x, _ops.transpose(sd * sd, (1, 0)))
        return mean + _ops.sqrt(var) * _ops.standard_normal(tuple(mean.shape))


class ConvReparam(_Reparam, Conv2d):
    """``ConvReparam(in_channels, out_channels, kernel_size, stride=1, pad_mode='same', padding=0, dilation=1,
    group=1, has_bias=False, weight_prior_fn=NormalPrior, weight_posterior_fn=normal_post_fn,
    bias_prior_fn=NormalPrior, bias_posterior_fn=normal_post_fn)``: a 2-D convolution whose kernel (and
    bias) are drawn from their posteriors at each call."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1, has_bias: bool = False,
                 weight_prior_fn: Callable = NormalPrior, weight_posterior_fn: Callable = normal_post_fn,
                 bias_prior_fn: Callable = NormalPrior, bias_posterior_fn: Callable = normal_post_fn) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride=stride, pad_mode=pad_mode, padding=padding,
                         dilation=dilation, group=group, has_bias=has_bias)
        # the convolution's own kernel and bias are unused (the posterior's draws replace them), as MindSpore's
        self.weight.requires_grad = False
        if self.bias is not None:
            self.bias.requires_grad = False
        self._make("weight", tuple(self.weight.shape), weight_prior_fn, weight_posterior_fn)
        if self.has_bias:
            self._make("bias", (int(out_channels),), bias_prior_fn, bias_posterior_fn)

    def construct(self, x: Tensor) -> Tensor:
        """The convolution with freshly drawn weights."""
        bias = self._draw(self.bias_posterior) if self.has_bias else None
        return _ops.conv2d(x, self._draw(self.weight_posterior), bias, self.stride, self.pad_mode, self.padding_arg,
                           self.dilation, self.group)


class WithBNNLossCell(Cell):
    """``WithBNNLossCell(backbone, loss_fn, dnn_factor=1, bnn_factor=1)``: ``loss_fn(backbone(x), label) *
    dnn_factor + (the KL terms of the Bayesian layers inside backbone) * bnn_factor``."""

    def __init__(self, backbone: Cell, loss_fn: Cell, dnn_factor: float = 1, bnn_factor: float = 1) -> None:
        super().__init__(auto_prefix=False)
        for name, f in (("dnn_factor", dnn_factor), ("bnn_factor", bnn_factor)):
            if isinstance(f, bool) or not isinstance(f, (int, float)) or f < 0:
                raise ValueError(f"WithBNNLossCell: {name} must be a number >= 0, got {f!r}")
        self._backbone, self._loss_fn = backbone, loss_fn
        self.dnn_factor, self.bnn_factor = dnn_factor, bnn_factor
        self.kl_loss = [c.compute_kl_loss for _, c in backbone.cells_and_names()
                        if c is not backbone and isinstance(c, _Reparam)]

    def construct(self, x: Tensor, label: Tensor) -> Tensor:
        """The weighted sum of the backbone's loss and its layers' KL terms."""
        loss = self._loss_fn(self._backbone(x), label) * self.dnn_factor
        for kl in self.kl_loss:
            loss = loss + kl() * self.bnn_factor
        return loss
