"""CPU kernels of MindSpore's ``Apply*`` optimizer primitives (ops/optim_apply.py): one emitter for the whole
table. Each row's C statement runs per element over locals named like its inputs, inside the in-place update
scaffold of kernels/optim.py (copy-in where the buffers differ, scalars read once, each state buffer loaded
into the compute type and stored back once)."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops.optim_apply import BY_NAME, ApplyRow
from ..codegen import compute_ctype
from .optim import _update_body
from .registry import register


def numeric_consts(k: KernelSpec) -> dict[str, float]:
    """The numeric attributes of an update (its constants in the C statement); flags shape the statement."""
    return {n: v for n, v in k.attrs.items() if isinstance(v, float)}


def _emit(row: ApplyRow):
    def emit(k: KernelSpec) -> str:
        idx = row.index
        return _update_body(k, [(o, idx(n)) for o, n in enumerate(row.state)],
                            {n: idx(n) for n in row.scalars}, numeric_consts(k),
                            row.stmt(k.attrs, compute_ctype(k.inputs[0].dtype)),
                            state={n: o for o, n in enumerate(row.state)},
                            reads={n: idx(n) for n in row.tensors})

    return emit


for _row in BY_NAME.values():
    register(_row.name, _emit(_row))
