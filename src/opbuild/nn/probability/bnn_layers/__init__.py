"""``mindspore.nn.probability.bnn_layers``: Bayesian layers by the reparameterization trick (weights drawn from
a trainable Normal posterior at each call, a KL term to a Normal prior), and ``WithBNNLossCell``."""

from .layers import ConvReparam, DenseLocalReparam, DenseReparam, WithBNNLossCell
from .normal import NormalPosterior, NormalPrior

__all__ = ["ConvReparam", "DenseReparam", "DenseLocalReparam", "NormalPrior", "NormalPosterior", "WithBNNLossCell"]
