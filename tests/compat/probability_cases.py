"""Fixed-input cases for ``nn.probability`` (distributions and bijectors), shared by
scripts/record_probability.py (MindSpore 2.10's values) and test_probability.py (opbuild's).

A distribution case is (class name, constructor arguments, the values its methods are evaluated at, the
arguments of another distribution of the same class for ``kl_loss``/``cross_entropy``)."""

from __future__ import annotations

import numpy as np

F = np.float32

DISTRIBUTIONS = {
    "normal": ("Normal", [F([0.0, 1.0]), F([1.0, 2.0])], F([-0.5, 1.5]), [F([0.5, -1.0]), F([1.5, 0.5])]),
    "lognormal": ("LogNormal", [F([0.0, 0.5]), F([1.0, 0.5])], F([0.5, 2.0]), [F([0.5, -1.0]), F([1.5, 0.5])]),
    "exponential": ("Exponential", [F([0.5, 2.0])], F([0.3, -1.0]), [F([1.0, 0.7])]),
    "uniform": ("Uniform", [F([0.0, -1.0]), F([1.0, 2.0])], F([0.4, 2.5]), [F([-1.0, -2.0]), F([2.0, 3.0])]),
    "gamma": ("Gamma", [F([2.0, 0.5]), F([1.5, 3.0])], F([0.7, 2.0]), [F([1.0, 2.5]), F([2.0, 1.0])]),
    "beta": ("Beta", [F([2.0, 0.5]), F([3.0, 1.5])], F([0.3, 0.8]), [F([1.0, 2.5]), F([2.0, 1.0])]),
    "cauchy": ("Cauchy", [F([0.0, 1.0]), F([1.0, 0.5])], F([0.5, -2.0]), [F([1.0, 0.0]), F([2.0, 1.5])]),
    "gumbel": ("Gumbel", [F([0.0, 1.0]), F([1.0, 2.0])], F([0.5, -1.0]), [F([1.0, 0.0]), F([2.0, 1.5])]),
    "logistic": ("Logistic", [F([0.0, 1.0]), F([1.0, 2.0])], F([0.5, -1.0]), [F([1.0, 0.0]), F([2.0, 1.5])]),
    "bernoulli": ("Bernoulli", [F([0.3, 0.8])], F([1.0, 0.0]), [F([0.5, 0.6])]),
    "geometric": ("Geometric", [F([0.3, 0.8])], F([2.0, 0.0]), [F([0.5, 0.6])]),
    "poisson": ("Poisson", [F([0.5, 3.0])], F([1.0, 4.0]), [F([1.0, 2.0])]),
    "categorical": ("Categorical", [F([0.2, 0.3, 0.5])], F([0.0, 2.0]), [F([0.5, 0.25, 0.25])]),
    "laplace": ("Laplace", [F([0.0, 1.0]), F([1.0, 2.0])], F([0.5, -1.0]), [F([1.0, 0.0]), F([2.0, 1.5])]),
    "halfnormal": ("HalfNormal", [F([0.0, 1.0]), F([1.0, 2.0])], F([0.5, 2.0]), [F([0.0, 1.0]), F([2.0, 1.5])]),
    "studentt": ("StudentT", [F([3.0, 5.0]), F([0.0, 1.0]), F([1.0, 2.0])], F([0.5, -1.0]),
                 [F([4.0, 2.0]), F([1.0, 0.0]), F([2.0, 1.5])]),
}

VALUE_METHODS = ["prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival"]
STAT_METHODS = ["mean", "var", "sd", "mode", "entropy"]
PAIR_METHODS = ["kl_loss", "cross_entropy"]

# Bijectors: (class name, constructor arguments, x for forward, y for inverse).
BIJECTORS = {
    "exp": ("Exp", [], F([-1.0, 0.5, 2.0]), F([0.5, 1.0, 3.0])),
    "power": ("PowerTransform", [0.5], F([-1.0, 0.5, 2.0]), F([0.5, 1.0, 3.0])),
    "power0": ("PowerTransform", [0.0], F([-1.0, 0.5, 2.0]), F([0.5, 1.0, 3.0])),
    "affine": ("ScalarAffine", [-2.0, 1.5], F([-1.0, 0.5, 2.0]), F([0.5, 1.0, 3.0])),
    "softplus": ("Softplus", [2.0], F([-1.0, 0.5, 2.0]), F([0.5, 1.0, 3.0])),
    "gumbelcdf": ("GumbelCDF", [1.0, 2.0], F([-1.0, 0.5, 2.0]), F([0.2, 0.5, 0.9])),
}
BIJECTOR_METHODS = ["forward", "inverse", "forward_log_jacobian", "inverse_log_jacobian"]
