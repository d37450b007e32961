"""Graph passes: graph -> graph transforms run on every traced graph before it is lowered to kernels.

:data:`DEFAULT_PIPELINE` is what :meth:`Session.compile_graph` runs; its ``identity`` is part of the graph
manifest key. Memory planning (memplan.py) runs last;
fusion lands here as a further pass, before it.
"""

from __future__ import annotations

from .autodiff import Autodiff, GradientError, differentiate
from .base import GraphPass, Pipeline
from .dce import DeadCodeElimination
from .fold import ConstantFolding, evaluate
from .memplan import MemoryPlan, MemoryPlanning, plan_memory

# Memory planning runs last: it places the values of the final graph (a pass after it would invalidate it).
DEFAULT_PIPELINE = Pipeline([ConstantFolding(), DeadCodeElimination(), MemoryPlanning()])

__all__ = ["GraphPass", "Pipeline", "ConstantFolding", "DeadCodeElimination", "DEFAULT_PIPELINE", "evaluate",
           "Autodiff", "GradientError", "differentiate", "MemoryPlan", "MemoryPlanning", "plan_memory"]
