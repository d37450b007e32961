"""MindSpore's in-place scatters: ``ScatterAdd``/``Sub``/``Mul``/``Div``/``Max``/``Min``/``Update`` and
``ScatterNdAdd``/``Sub``/``Mul``/``Div``/``Max``/``Min``/``Update`` (and the functional ``scatter_add``, ...,
``scatter_nd_update``): they combine ``updates`` into the Parameter ``input_x`` in place (``OpDef.inplace``,
MindSpore's Ref input) and return it.

``Scatter*(input_x, indices, updates)``: ``indices`` (any shape) index the first axis, ``updates`` has shape
``indices.shape + input_x.shape[1:]``. ``ScatterNd*(input_x, indices, updates)``: the rows of ``indices`` (shape
``(..., K)``) index the first K axes, ``updates`` has shape ``indices.shape[:-1] + input_x.shape[K:]``. The
first form is the second with ``K = 1``: one op per reduction computes both, the TensorScatter* kernels'
(ops/scatters.py) update order (index rows in order, so with a repeated index updates combine in turn and the
last ``Update`` wins) and their combines.

An index outside ``[0, n)`` raises, as MindSpore 2.10's CPU raises (negative ones too): the kernel reports it
(``bounds="raise"``, ops/bounds.py), eagerly and inside a graph, and the runtime raises a KernelInputError; the
Parameter is left as the updates before the bad one made it. Not differentiable (MindSpore defines no gradient
for the reductions either).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor, as_tensor
from .bounds import norm_bounds
from .primitive import Primitive, apply, defop
from .scatters import ND_OPS, _nd_infer, nd_reference, nd_status

REDUCTIONS = {"Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Max": "max", "Min": "min",
              "Update": "none"}
#: The in-place op (registered, ND form) of each reduction, and the out-of-place op whose rules it shares.
INPLACE_OPS = {f"ScatterNd{k}Inplace": v for k, v in REDUCTIONS.items()}
_TENSOR_OP = {v: k for k, v in ND_OPS.items()}


def _infer(op: str) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    checks = _nd_infer(_TENSOR_OP[INPLACE_OPS[op]])

    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        return checks(attrs, ins)

    return infer


def _declare(op: str) -> None:
    reduction = INPLACE_OPS[op]

    class _Op(Primitive):
        __doc__ = f"The in-place ND scatter ({reduction}) behind Scatter{op[9:-7]} and ScatterNd{op[9:-7]}."

    _Op.__name__ = _Op.__qualname__ = op
    defop(infer=_infer(op), n_inputs=3, reference=lambda attrs, x, i, u: nd_reference(reduction, x, i, u, attrs, op),
          normalize=lambda attrs, ins: {"bounds": norm_bounds(op, attrs, ins)}, status=nd_status,
          inplace=((0, 0),), scenario="update")(_Op)


for _op in INPLACE_OPS:
    _declare(_op)
# No rule for the reductions: MindSpore 2.10 has no bprop for ScatterNdAdd/Sub/Mul/Div/Max/Min either, and autodiff
# refuses rather than answer zero. ScatterNdUpdateInplace's rule (MindSpore's): ops/backward_grads.py.


def scatter(name: str, reduction: str, input_x: Any, indices: Any, updates: Any, nd: bool) -> Tensor:
    """Apply the in-place scatter ``reduction`` (the ND form when ``nd``, else the first-axis form); returns
    the updated ``input_x``."""
    x, idx, upd = as_tensor(input_x), as_tensor(indices), as_tensor(updates)
    if not x._type.shape:
        raise ShapeError(name, "input_x must have rank >= 1", [x._type])
    if not nd:
        idx = apply("Reshape", {"shape": [*idx._type.shape, 1]}, [idx])
    return apply(f"ScatterNd{next(c for c, r in REDUCTIONS.items() if r == reduction)}Inplace", {"bounds": "raise"},
                 [input_x, idx, upd])


def _primitive(kind: str, nd: bool) -> type[Primitive]:
    name = f"Scatter{'Nd' if nd else ''}{kind}"
    reduction = REDUCTIONS[kind]
    default_lock = kind == "Update"

    def init(self, use_locking: bool = default_lock) -> None:
        if not isinstance(use_locking, bool):
            raise TypeError(f"{name}: use_locking must be a bool, got {type(use_locking).__name__}")
        Primitive.__init__(self, use_locking=use_locking)

    def call(self, input_x: Any, indices: Any, updates: Any) -> Tensor:
        return scatter(name, reduction, input_x, indices, updates, nd)

    form = "the rows of indices (..., K) index the first K axes" if nd else "indices index the first axis"
    doc = (f"``{name}(use_locking={default_lock})(input_x, indices, updates)``: "
           f"{'replace' if kind == 'Update' else kind.lower()} ``updates`` into the Parameter ``input_x`` in "
           f"place ({form}); returns it.")
    return type(name, (Primitive,), {"__init__": init, "__call__": call, "__doc__": doc, "op_name": name})


PRIMITIVES: dict[str, type[Primitive]] = {f"Scatter{nd}{k}": _primitive(k, bool(nd)) for nd in ("", "Nd")
                                          for k in REDUCTIONS}

__all__ = ["INPLACE_OPS", "PRIMITIVES", "REDUCTIONS", "scatter"]
