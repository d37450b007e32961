"""GPU kernels of FusedMatMul and FusedBatchMatMul (ops/fused_gemm.py): the generated GEMM of ``matmul.py``
with the epilogue the epilogue pass fused into it (bias, activations, residual adds, any elementwise recipe).

The thread that computes output element ``q`` of the product (``matmul.py``: one thread per output element)
keeps the accumulated value as the producer's result ``i0`` and evaluates the members on it before its one
store: each epilogue input is read at ``q`` under NumPy broadcasting of its view shape, each member computed
with the expression of its own GPU kernel (``elementwise.expr_of``) and stored in its dtype, as the unfused
kernels would. The per-channel recipes (``pre``: a folded BatchNorm's ``scale / sqrt(var + eps)``), which the
CPU computes once per call into a scratch array, are evaluated per element from the same inputs here (the GPU
ABI has no workspace); the same expressions on the same values give the same result.

FusedConv2D awaits the GPU's convolution kernels (another family): it has no emitter here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ....core.ir import KernelSpec, TensorType
from ....ops import elementwise as elementwise_rows
from ....ops import fused as fused_recipes
from ....ops.fused_gemm import _parts
from ..codegen import broadcast_offsets, check_dtypes, ctype
from . import elementwise, matmul
from .elementwise import expr_of
from .registry import register

# The store of matmul.py's generated body that the epilogue replaces: ``out0[q] = <value of acc>;``.
_STORE = re.compile(r"out0\[q\] = ([^;]*\bacc\b[^;]*);")


def member_code(fused_op: str, typed: Sequence, members: Sequence[dict], operands: Sequence[str],
                prefix: str) -> tuple[str, str]:
    """C statements evaluating a FusedElementwise recipe (``typed``: ``member_types``' answer for ``members``)
    whose ``iK`` is the C value ``operands[K]``, and the name of the local holding its result; a member in a
    dtype the GPU target does not emit is :class:`~..codegen.Unsupported` naming ``fused_op`` and the member."""
    stmts = []
    for j, ((op, _, m_ins, res), m) in enumerate(zip(typed, members, strict=True)):
        check_dtypes(f"{fused_op} (epilogue member {op})", [*m_ins, res])
        names, expr = expr_of(op, m_ins, res)
        loads = " ".join(f"const {ctype(t.dtype)} {n} = "
                         f"{operands[int(r[1:])] if r[0] == 'i' else f'{prefix}t{r[1:]}'};"
                         for n, t, r in zip(names, m_ins, m["args"], strict=True))
        rt = ctype(res.dtype)
        stmts.append(f"{rt} {prefix}t{j}; {{ {loads} {prefix}t{j} = ({rt})({expr}); }}")
    return " ".join(stmts), f"{prefix}t{len(typed) - 1}"


def _epilogue(k: KernelSpec, value: str) -> str:
    """Statements replacing ``_STORE``: the epilogue of output element ``q`` on the product's ``value`` (what
    the unfused kernel stores), then the store."""
    parts = _parts(k.op, k.attrs, k.inputs)
    out: TensorType = parts.producer.outputs[0]
    offsets = broadcast_offsets(out.shape, [v.shape for v in parts.views], "q")
    views = [f"in{i + 2}[{off}]" for i, off in enumerate(offsets)]
    code = [f"const {ctype(out.dtype)} ob_y = ({ctype(out.dtype)})({value});"]
    pre_values = []
    for j, ((idx, typed, _res), recipe) in enumerate(zip(parts.pre, k.attrs.get("pre", []), strict=True)):
        stmts, result = member_code(k.op, typed, recipe["members"], [views[i] for i in idx], f"ob_p{j}_")
        code.append(stmts)
        pre_values.append(result)
    stmts, result = member_code(k.op, parts.members, k.attrs["members"], ["ob_y", *views, *pre_values], "ob_e_")
    code += [stmts, f"out0[q] = ({ctype(out.dtype)}){result};"]
    return "{ " + " ".join(code) + " }"


def _emit(k: KernelSpec) -> str:
    parts = _parts(k.op, k.attrs, k.inputs)
    if parts.producer.outputs[0].size == 0:
        return "  /* empty */"
    check_dtypes(parts.producer.op, [*parts.producer.inputs, *parts.producer.outputs])
    body = matmul._emit(parts.producer)
    stores = _STORE.findall(body)
    if len(stores) != 1:
        raise RuntimeError(f"{k.op}: matmul.py's kernel must store out0[q] from acc once (found {len(stores)}); "
                           "update fused_gemm.py")
    return _STORE.sub(lambda m: _epilogue(k, m.group(1)), body)


# The code of matmul.py's GEMM, the elementwise expressions and the recipe's typing shape these kernels too.
_DEPS = (matmul, elementwise, elementwise_rows, fused_recipes)
register("FusedMatMul", _emit, deps=_DEPS)
register("FusedBatchMatMul", _emit, deps=_DEPS)

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("FusedMatMul", "FusedBatchMatMul")

__all__ = ["OPS", "member_code"]
