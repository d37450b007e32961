"""``mindspore.nn.probability.bijector``: invertible maps with their log-jacobians (Exp, PowerTransform,
ScalarAffine, Softplus, GumbelCDF, Invert), computed with opbuild's ops."""

from ._bijectors import Bijector, Exp, GumbelCDF, Invert, PowerTransform, ScalarAffine, Softplus

__all__ = ["Bijector", "PowerTransform", "Exp", "ScalarAffine", "Softplus", "GumbelCDF", "Invert"]
