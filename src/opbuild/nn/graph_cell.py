"""``nn.GraphCell``: a loaded MINDIR graph (``mindspore.load``) as a Cell, as MindSpore's ``nn.GraphCell``.

The graph's parameters become the Cell's Parameters under their names in the exported network
(``conv1.weight``), so ``parameters_and_names``, ``load_checkpoint``/``load_param_into_net`` and
``params_init`` set them. A call evaluates the graph through opbuild's primitives (frontends/mindir.py): in
GRAPH_MODE it is traced and its kernels built once (reused from the kernel cache by later loads), in
PYNATIVE_MODE each primitive runs as it comes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..frontends.mindir import MindirGraph
from .cell import Cell


class GraphCell(Cell):
    """Run the graph ``graph`` returned by ``opbuild.load`` (a MINDIR file) as a Cell.

    ``params_init`` (a dict of parameter name -> Tensor or array) replaces the values of the named parameters
    stored in the file; a name the graph does not have, or a value of another shape, raises ValueError.
    ``obf_random_seed`` is for MindSpore's obfuscated models, which opbuild does not load: giving one raises
    ValueError.
    """

    def __init__(self, graph: Any, params_init: dict | None = None, obf_random_seed: int | None = None):
        super().__init__()
        if not isinstance(graph, MindirGraph):
            raise TypeError(f"GraphCell: graph must be what opbuild.load returns for a MINDIR file, got "
                            f"{type(graph).__name__}")
        if obf_random_seed is not None:
            raise ValueError("GraphCell: obf_random_seed is for obfuscated MINDIR models, which opbuild does not "
                             "load; export the network without obfuscation")
        if params_init is not None and not isinstance(params_init, dict):
            raise TypeError(f"GraphCell: params_init must be a dict of name -> Tensor, got "
                            f"{type(params_init).__name__}")
        object.__setattr__(self, "graph", graph)
        for name, arr in graph.parameters.items():
            # Straight into the parameter table: the names hold dots (conv1.weight), not attribute names.
            self._params[name] = Parameter(Tensor(arr), name=name, requires_grad=arr.dtype.kind == "f")
        for name, value in (params_init or {}).items():
            if name not in self._params:
                raise ValueError(f"GraphCell: params_init names {name!r}, which the graph does not have (its "
                                 f"parameters: {', '.join(self._params) or 'none'})")
            arr = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
            p = self._params[name]
            if tuple(arr.shape) != tuple(p.shape):
                raise ValueError(f"GraphCell: params_init[{name!r}] has shape {list(arr.shape)}, the graph's "
                                 f"parameter has {list(p.shape)}")
            p.set_data(Tensor(arr.astype(p.asnumpy().dtype)))

    def construct(self, *inputs: Any) -> Any:
        """Evaluate the graph on ``inputs`` (one Tensor per graph input, in order)."""
        specs = self.graph.input_specs
        if len(inputs) != len(specs):
            shown = ", ".join(f"{dtype}{list(shape)}" for shape, dtype in specs)
            raise TypeError(f"GraphCell: the graph takes {len(specs)} input(s) ({shown}, as exported), got "
                            f"{len(inputs)}")
        return self.graph.run(inputs, dict(self._params))

    def __repr__(self) -> str:
        return f"GraphCell({self.graph.source}, {len(self._params)} parameters)"


__all__ = ["GraphCell"]
