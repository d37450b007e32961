"""The functional forms of MindSpore's in-place scatters (ops/scatters_inplace.py): ``input_x`` is a Parameter
updated in place and returned."""

from __future__ import annotations

from typing import Any

from ...core.tensor import Tensor
from ..scatters_inplace import scatter


def _first_axis(kind: str, reduction: str):
    def fn(input_x: Any, indices: Any, updates: Any) -> Tensor:
        return scatter(f"scatter_{kind}", reduction, input_x, indices, updates, nd=False)

    fn.__name__ = fn.__qualname__ = f"scatter_{kind}"
    fn.__doc__ = (f"``ops.scatter_{kind}(input_x, indices, updates)``: Scatter{kind.capitalize()} of ``updates`` "
                  "into the Parameter ``input_x`` in place at the first-axis ``indices``; returns it.")
    return fn


def _nd(kind: str, reduction: str):
    def fn(input_x: Any, indices: Any, updates: Any, use_locking: bool = False) -> Tensor:
        return scatter(f"scatter_nd_{kind}", reduction, input_x, indices, updates, nd=True)

    fn.__name__ = fn.__qualname__ = f"scatter_nd_{kind}"
    fn.__doc__ = (f"``ops.scatter_nd_{kind}(input_x, indices, updates, use_locking=False)``: ScatterNd"
                  f"{kind.capitalize()} of ``updates`` into the Parameter ``input_x`` in place at the index rows "
                  "of ``indices`` (..., K); returns it.")
    return fn


scatter_add = _first_axis("add", "add")
scatter_mul = _first_axis("mul", "mul")
scatter_div = _first_axis("div", "div")
scatter_max = _first_axis("max", "max")
scatter_min = _first_axis("min", "min")
scatter_update = _first_axis("update", "none")
scatter_nd_add = _nd("add", "add")
scatter_nd_sub = _nd("sub", "sub")
scatter_nd_mul = _nd("mul", "mul")
scatter_nd_div = _nd("div", "div")
scatter_nd_max = _nd("max", "max")
scatter_nd_min = _nd("min", "min")
scatter_nd_update = _nd("update", "none")

__all__ = ["scatter_add", "scatter_div", "scatter_max", "scatter_min", "scatter_mul", "scatter_nd_add",
           "scatter_nd_div", "scatter_nd_max", "scatter_nd_min", "scatter_nd_mul", "scatter_nd_sub",
           "scatter_nd_update", "scatter_update"]
