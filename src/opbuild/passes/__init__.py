"""Graph passes: graph -> graph transforms run on every traced graph before it is lowered to kernels.

:data:`DEFAULT_PIPELINE` is what :meth:`Session.compile_graph` runs; its ``identity`` is part of the graph
manifest key. Elementwise fusion (fusion.py) and epilogue fusion into MatMul/Conv2D kernels (epilogue.py)
run before memory planning (memplan.py), which runs last.
"""

from __future__ import annotations

from .autodiff import Autodiff, GradientError, differentiate
from .base import FusionPass, GraphPass, Pipeline
from .dce import DeadCodeElimination
from .epilogue import EpilogueFusion
from .fold import ConstantFolding, evaluate
from .fusion import Fusion
from .memplan import MemoryPlan, MemoryPlanning, plan_memory
from .pad_fold import PadFolding
from .reduce_fusion import ReduceFusion

# Fusion after DCE (no dead node joins a group) and after autodiff (which runs on the traced graph before the
# session's pipeline; fused nodes have no gradient rule). Memory planning runs last: it places the values of the
# final graph (a pass after it would invalidate the plan). Reduction fusion runs before elementwise fusion: it
# takes a reduction's elementwise prologue and epilogue into its row kernel; elementwise fusion fuses the rest.
# Epilogue fusion runs after elementwise fusion: the groups that pass built become (part of) the epilogues of
# the MatMul/Conv2D kernels they read. Pad folding runs before DCE, which drops the Pads it leaves unread.
DEFAULT_PIPELINE = Pipeline([ConstantFolding(), PadFolding(), DeadCodeElimination(), ReduceFusion(), Fusion(),
                             EpilogueFusion(), MemoryPlanning()])

__all__ = ["GraphPass", "FusionPass", "Pipeline", "ConstantFolding", "DeadCodeElimination", "Fusion", "ReduceFusion",
           "EpilogueFusion", "DEFAULT_PIPELINE", "evaluate", "Autodiff", "GradientError", "differentiate",
           "MemoryPlan", "MemoryPlanning", "plan_memory", "PadFolding"]
