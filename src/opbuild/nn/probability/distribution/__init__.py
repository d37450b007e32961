"""``mindspore.nn.probability.distribution``: probability distributions computed with opbuild's ops (so they
run in PyNative, trace into a GRAPH_MODE Cell's construct, and differentiate through their parameters)."""

from ._base import Distribution
from .continuous import Beta, Exponential, Gamma, LogNormal, Normal, Uniform
from .discrete import Bernoulli, Categorical, Geometric, Poisson
from .location_scale import Cauchy, Gumbel, HalfNormal, Laplace, Logistic, StudentT
from .transformed import TransformedDistribution

__all__ = ["Distribution", "TransformedDistribution", "Bernoulli", "Beta", "Categorical", "Cauchy",
           "Exponential", "Gamma", "Geometric", "Gumbel", "Logistic", "LogNormal", "Normal", "Poisson",
           "Uniform", "HalfNormal", "Laplace", "StudentT"]
