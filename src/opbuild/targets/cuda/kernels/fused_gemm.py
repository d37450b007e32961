"""GPU kernels of FusedMatMul and FusedBatchMatMul (ops/fused_gemm.py): the product and its elementwise epilogue
(bias add, activations, residual adds, any recipe the epilogue pass built) in one kernel: the unfused MatMul's
(``matmul.gemm``: the tiled GEMM, or one thread per output element for small products) with the epilogue in
place of its store.

Each output element is finished by the thread that accumulated it: its dot product as the unfused MatMul
kernel computes it, rounded to the product's dtype as that kernel stores it (the
epilogue's ``i0``), then evaluates the members with their own GPU expressions (``fused.member_statements``),
reading the epilogue inputs under broadcasting with their view shapes, and stores the last member once. No
element is written twice and no thread reads another's result, so the kernel needs no synchronisation
between the product and the epilogue (the CPU's kernel runs them as two passes over the output buffer).

Per-channel ``pre`` recipes (a folded BatchNorm's factors) are evaluated per output element from the viewed
inputs at the element's position, rounded to their dtype as the CPU's kernel stores them in its per-thread
array: the same expression on the same operands, so the same value. Half types as everywhere (half.py).
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops.fused_gemm import _parts
from .. import half
from ..codegen import Unsupported, broadcast_offsets
from .fused import member_statements
from .matmul import gemm, launch
from .registry import register, set_launch


def _emit(k: KernelSpec) -> str:
    try:
        return _body(k)
    except Unsupported as e:  # a member the GPU cannot compute: say which fused kernel needed it
        raise Unsupported(f"{k.op} epilogue: {e}") from None


def _body(k: KernelSpec) -> str:
    parts = _parts(k.op, k.attrs, k.inputs)
    out = parts.producer.outputs[0]
    ct = half.compute_ctype
    lines = [f"const {ct(out.dtype)} e0 = {half.round_trip(out.dtype, 'acc', ct(out.dtype))};"]
    offsets = broadcast_offsets(out.shape, [v.shape for v in parts.views], "q")
    lines += [f"const {ct(v.dtype)} e{i + 1} = {half.load(v.dtype, f'in{i + 2}[{off}]')};"
              for i, (v, off) in enumerate(zip(parts.views, offsets, strict=True))]
    operands = [f"e{i}" for i in range(len(parts.views) + 1)]
    for j, ((idx, typed, res), recipe) in enumerate(zip(parts.pre, k.attrs.get("pre", []), strict=True)):
        (at,) = broadcast_offsets(out.shape, [res.shape], "q")
        views = [parts.views[i] for i in idx]
        inner = broadcast_offsets(res.shape, [v.shape for v in views], f"pq{j}")
        loads = [f"const {ct(v.dtype)} x{m} = {half.load(v.dtype, f'in{i + 2}[{off}]')};"
                 for m, (i, v, off) in enumerate(zip(idx, views, inner, strict=True))]
        body = member_statements(typed, recipe["members"], [f"x{m}" for m in range(len(idx))])
        value = half.round_trip(res.dtype, f"t{len(typed) - 1}", ct(res.dtype))
        lines.append(f"{ct(res.dtype)} r{j}; {{ const int64_t pq{j} = {at}; {' '.join(loads)} {' '.join(body)} "
                     f"r{j} = {value}; }}")
        operands.append(f"r{j}")
    lines += member_statements(parts.members, k.attrs["members"], operands)
    lines.append(f"out0[q] = {half.store(out.dtype, f't{len(parts.members) - 1}', ct(out.dtype))};")
    return gemm(parts.producer, " ".join(lines))


def _launch(k: KernelSpec) -> int:
    """The product's launch size (a block per tile when it is tiled: ``matmul.launch``)."""
    return launch(_parts(k.op, k.attrs, k.inputs).producer)


for _op in ("FusedMatMul", "FusedBatchMatMul"):
    register(_op, _emit)
    set_launch(_op, _launch)
half.allow("FusedMatMul", "FusedBatchMatMul")

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = ("FusedMatMul", "FusedBatchMatMul")

__all__ = ["OPS"]
