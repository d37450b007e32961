"""Graph passes: graph -> graph transforms run on every traced graph before it is lowered to kernels.

:data:`DEFAULT_PIPELINE` is what :meth:`Session.compile_graph` runs; its ``identity`` is part of the graph
manifest key. Autodiff, fusion and memory planning land here as further passes.
"""

from __future__ import annotations

from .autodiff import Autodiff, GradientError, differentiate
from .base import GraphPass, Pipeline
from .dce import DeadCodeElimination
from .fold import ConstantFolding, evaluate
from .fusion import Fusion

# Fusion after DCE (no dead node joins a group) and after autodiff (which runs on the traced graph before
# the session's pipeline; fused nodes have no gradient rule).
DEFAULT_PIPELINE = Pipeline([ConstantFolding(), DeadCodeElimination(), Fusion()])

__all__ = ["GraphPass", "Pipeline", "ConstantFolding", "DeadCodeElimination", "Fusion", "DEFAULT_PIPELINE", "evaluate",
           "Autodiff", "GradientError", "differentiate"]
