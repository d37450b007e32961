"""``mindspore.scipy.optimize``: ``minimize`` (BFGS, L-BFGS), ``line_search`` (strong Wolfe) and
``linear_sum_assignment``."""

from __future__ import annotations

from ._lsap import linear_sum_assignment
from .line_search import line_search
from .minimize import OptimizeResults, minimize

__all__ = ["minimize", "line_search", "linear_sum_assignment"]
_ = OptimizeResults
