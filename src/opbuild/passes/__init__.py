"""Graph passes: graph -> graph transforms run on every traced graph before it is lowered to kernels.

:data:`DEFAULT_PIPELINE` is what :meth:`Session.compile_graph` runs; its ``identity`` is part of the graph
manifest key. Autodiff, fusion and memory planning land here as further passes.
"""

from __future__ import annotations

from .autodiff import Autodiff, GradientError, differentiate
from .base import GraphPass, Pipeline
from .dce import DeadCodeElimination
from .fold import ConstantFolding, evaluate

DEFAULT_PIPELINE = Pipeline([ConstantFolding(), DeadCodeElimination()])

__all__ = ["GraphPass", "Pipeline", "ConstantFolding", "DeadCodeElimination", "DEFAULT_PIPELINE", "evaluate",
           "Autodiff", "GradientError", "differentiate"]
