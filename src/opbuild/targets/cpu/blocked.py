"""Elementwise loops that convert float16 operands a block at a time, so the float32 math vectorises.

gcc 12 does not vectorise a loop that holds a ``_Float16`` value (f16_blocks.py has the diagnosis), so a
float16 map written as "load, compute, store" per element runs scalar. :func:`flat_map` writes the same map
as blocks of :data:`BLOCK` elements: each float16 input block is converted into a float32 stack buffer
(``ob_f16_load_block``), the float32 expression runs over the block in a loop of plain floats (vectorised like
the float32 kernel, libmvec calls included), and a float16 result block is rounded back once per element
(``ob_f16_store_block``). Every element is computed by the same float32 expression and rounded by the same
conversion as before, so the bits do not change; only the loop structure does.

:func:`broadcast_map` does the same along the innermost dimension of a broadcasting map; reductions and row
kernels use :func:`lane_reduce_f16` (lane_reduce's order over converted chunks), :func:`row_buffer` (a whole
row in float), :func:`convert_in`/:func:`convert_out` and :func:`load_vec` (one element, vectorisable).

Other dtypes (bfloat16's conversions are integer shifts gcc already vectorises) get the one plain loop.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from .codegen import (
    _collapse,
    broadcast_strides,
    compute_ctype,
    lane_reduce,
    load,
    parallel_for,
    store,
    strides,
)

# Elements per block: a float32 buffer of 1 KiB per operand (a fused kernel with eight inputs keeps 9 KiB on
# the stack, within L1), long enough that the per-block overhead and the scalar tail are negligible.
BLOCK = 256

# compute(elements) -> (statements, result expression, result's C type): ``elements`` are C expressions of
# each input's element at output offset ``o``, in its compute type; the statements may declare locals.
# In the blocked forms compute may instead return (stages, statements, expression, C type): each stage
# (declarations, loop body, statement after the loop) is a loop of its own over the block, before the last
# one; a fused kernel evaluates a member per stage, so each member's block rounds with F16C at once.
Compute = Callable[[Sequence[str]], tuple]
Stage = tuple[str, str, str]


def _staged(result: tuple) -> tuple[list[Stage], str, str, str]:
    return (list(result[0]), *result[1:]) if len(result) == 4 else ([], *result)


def _stage_lines(stages: Sequence[Stage], index: str) -> list[str]:
    """The loops of ``stages`` over ``ob_l < ob_m``, each body preceded by ``index`` (may be empty)."""
    lines = []
    for decl, body, after in stages:
        lines += [decl, f"for (int64_t ob_l = 0; ob_l < ob_m; ob_l++) {{ {index}{body} }}", after]
    return [line for line in lines if line]


def flat_map(n: int, in_dtypes: Sequence[str], out_dtype: str, compute: Compute, staged: bool = False) -> str:
    """C loop storing ``out0[o]`` for every ``o < n`` from ``in0[o], in1[o], ...`` (all of ``n`` elements):
    the plain per-element loop, or the blocked form when an input or the output is float16 (an output
    computed in double, Cast from float64, keeps its direct double -> half store) or ``staged`` (compute
    returns stages). Large loops are split over OpenMP's threads (:func:`codegen.parallel_for`), by blocks
    in the blocked form."""
    blocked_in = [dt == "float16" for dt in in_dtypes]
    if not any(blocked_in) and out_dtype != "float16" and not staged:
        stmts, expr, ct = compute([load(dt, f"in{i}[o]") for i, dt in enumerate(in_dtypes)])
        stmt = f"{stmts} out0[o] = {store(out_dtype, expr, ct)};".lstrip()
        return f"{parallel_for(n)}for (int64_t o = 0; o < {n}; o++) {{ {stmt} }}"
    elems = [f"ob_x{i}[ob_l]" if blk else load(dt, f"in{i}[o]")
             for i, (dt, blk) in enumerate(zip(in_dtypes, blocked_in, strict=True))]
    stages, stmts, expr, ct = _staged(compute(elems))
    blocked_out = out_dtype == "float16" and ct == "float"
    put = f"ob_y[ob_l] = ({expr});" if blocked_out else f"out0[o] = {store(out_dtype, expr, ct)};"
    lines = [f"{parallel_for(n)}for (int64_t ob_o = 0; ob_o < {n}; ob_o += {BLOCK}) {{",
             f"  const int64_t ob_m = {n} - ob_o < {BLOCK} ? {n} - ob_o : {BLOCK};"]
    lines += [f"  float ob_x{i}[{BLOCK}]; ob_f16_load_block(ob_x{i}, in{i} + ob_o, ob_m);"
              for i, blk in enumerate(blocked_in) if blk]
    if blocked_out:
        lines.append(f"  float ob_y[{BLOCK}];")
    index = "const int64_t o = ob_o + ob_l; (void)o; "
    lines += ["  " + line for line in _stage_lines(stages, index)]
    lines.append(f"  for (int64_t ob_l = 0; ob_l < ob_m; ob_l++) {{ {index}{stmts} {put} }}")
    if blocked_out:
        lines.append("  ob_f16_store_block(out0 + ob_o, ob_y, ob_m);")
    lines.append("}")
    return "\n".join(lines)


# The longest float16 row a kernel converts whole into a float32 stack buffer (64 KiB): reductions and
# Softmax read a row several times in lane order, which a whole-row buffer keeps (so the sums keep their
# order and bits); longer rows load element by element with :func:`load_vec`.
ROW_MAX = 16384


def row_buffer(dtype: str, dst: str, src: str, n: int, limit: int = ROW_MAX) -> str | None:
    """C statements declaring ``float dst[n]`` holding the float16 row ``src[0..n)`` in float (one block
    conversion), or None when ``dtype`` is not float16 or the row is longer than ``limit`` (a kernel that
    keeps several such rows passes a smaller one)."""
    if dtype != "float16" or not 0 < n <= limit:
        return None
    return f"float {dst}[{n}]; ob_f16_load_block({dst}, {src}, {n});"


def load_vec(dtype: str, ref: str) -> str:
    """C expression: the stored element ``ref`` (an lvalue such as ``in0[i]``) of ``dtype`` in its compute
    type, in a form gcc vectorises inside any loop: float16 through ``ob_f16_ld`` (integer operations, F16C's
    bits), where the plain ``_Float16`` load would keep the whole loop scalar. For loops that load half
    elements but store none (reductions, statistics); maps convert by blocks (:func:`flat_map`)."""
    return f"ob_f16_ld(&({ref}))" if dtype == "float16" else load(dtype, ref)


def convert_in(dtype: str, dst: str, src: str, n: int | str) -> str:
    """C statement filling the float buffer ``dst`` with the ``n`` elements of ``src`` (of ``dtype``, a half
    type) in float: a block conversion for float16, the per-element loop otherwise."""
    if dtype == "float16":
        return f"ob_f16_load_block({dst}, {src}, {n});"
    return f"for (int64_t i = 0; i < {n}; i++) {dst}[i] = {load(dtype, f'{src}[i]')};"


def convert_out(dtype: str, dst: str, src: str, n: int | str) -> str:
    """C statement rounding the ``n`` floats of ``src`` once into ``dst`` of ``dtype`` (a half type)."""
    if dtype == "float16":
        return f"ob_f16_store_block({dst}, {src}, {n});"
    return f"for (int64_t i = 0; i < {n}; i++) {dst}[i] = {store(dtype, f'{src}[i]')};"


def broadcast_map(out_shape: Sequence[int], in_shapes: Sequence[Sequence[int]], in_dtypes: Sequence[str],
                  out_dtype: str, compute: Compute, staged: bool = False) -> str | None:
    """:func:`flat_map` for inputs that broadcast against ``out_shape``: loops over the outer dims, and the
    innermost (collapsed) dim in blocks. A float16 input walking that dim contiguously converts by blocks, one
    broadcast along it (stride 0) loads its element once per row, any other stride loads element by element;
    a float16 output converts by blocks. None when nothing is float16 (the caller's plain broadcast loop).
    The outermost loop is split over OpenMP's threads when the map is large."""
    blocked_out = out_dtype == "float16"
    if not blocked_out and "float16" not in in_dtypes and not staged:
        return None
    operands = [strides(out_shape)] + [broadcast_strides(s, out_shape) for s in in_shapes]
    shape, op_strides = _collapse(out_shape, operands)
    if not shape:
        shape, op_strides = [1], [[1] for _ in operands]
    *outer, extent = shape
    depth = len(outer)
    total = math.prod(shape)

    def base(st: Sequence[int]) -> str:
        terms = [f"i{d}" if st[d] == 1 else f"i{d} * {st[d]}" for d in range(depth) if st[d] != 0]
        return " + ".join(terms) if terms else "0"

    lines = [f"for (int64_t i{d} = 0; i{d} < {outer[d]}; i{d}++) {{" for d in range(depth)]
    if depth and outer[0] > 1 and parallel_for(total):
        lines.insert(0, parallel_for(total).rstrip("\n"))
    lines.append(f"const int64_t ob_ob = {base(op_strides[0])};")
    elems, pre = [], []
    for i, (dt, st) in enumerate(zip(in_dtypes, op_strides[1:], strict=True)):
        lines.append(f"const int64_t ob_p{i} = {base(st)};")
        inner = st[-1]
        if dt == "float16" and inner == 1:
            pre.append(f"float ob_x{i}[{BLOCK}]; ob_f16_load_block(ob_x{i}, in{i} + ob_p{i} + ob_o, ob_m);")
            elems.append(f"ob_x{i}[ob_l]")
        elif inner == 0:  # broadcast along the row: one load
            lines.append(f"const {compute_ctype(dt)} ob_s{i} = {load(dt, f'in{i}[ob_p{i}]')};")
            elems.append(f"ob_s{i}")
        else:
            elems.append(load_vec(dt, f"in{i}[ob_p{i} + (ob_o + ob_l) * {inner}]"))
    stages, stmts, expr, ct = _staged(compute(elems))
    blocked_out = blocked_out and ct == "float"
    put = (f"ob_y[ob_l] = ({expr});" if blocked_out
           else f"out0[ob_ob + ob_o + ob_l] = {store(out_dtype, expr, ct)};")
    block_loop = f"for (int64_t ob_o = 0; ob_o < {extent}; ob_o += {BLOCK}) {{"
    if not depth:
        block_loop = parallel_for(total) + block_loop
    lines += [block_loop,
              f"const int64_t ob_m = {extent} - ob_o < {BLOCK} ? {extent} - ob_o : {BLOCK};",
              *pre,
              *([f"float ob_y[{BLOCK}];"] if blocked_out else []),
              *_stage_lines(stages, ""),
              f"for (int64_t ob_l = 0; ob_l < ob_m; ob_l++) {{ {stmts} {put} }}",
              *(["ob_f16_store_block(out0 + ob_ob + ob_o, ob_y, ob_m);"] if blocked_out else []),
              "}"]
    lines.append("}" * depth)
    return "\n".join(lines)


# Elements a float16 reduction converts per chunk (8 KiB of floats on the stack); a multiple of every lane count.
CHUNK = 2048


def lane_reduce_f16(acc: str, n: int, src: str, combine: Callable[[str, str], str], identity: str,
                    lanes: int) -> str:
    """:func:`codegen.lane_reduce` of the float16 row ``src[0..n)`` loaded into float, with the same lanes,
    order and combination, so the same bits: the main loop reads chunks of :data:`CHUNK` elements converted
    by blocks (``ob_f16_load_block``), so it vectorises for rows of any length. Short rows and the tail load
    element by element, as lane_reduce does."""
    if n < 2 * lanes:
        return lane_reduce(acc, "float", n, lambda j: load("float16", f"{src}[{j}]"), combine, identity, lanes)
    assert CHUNK % lanes == 0
    main = n - n % lanes
    v, c, m, x, j0, ln, w, b, e, j = (f"{acc}_{s}" for s in ("v", "c", "m", "x", "j0", "l", "w", "b", "e", "j"))
    return "\n".join([
        f"float {acc};",
        "{",
        f"  float {v}[{lanes}];",
        f"  for (int {ln} = 0; {ln} < {lanes}; {ln}++) {v}[{ln}] = {identity};",
        f"  for (int64_t {c} = 0; {c} < {main}; {c} += {CHUNK}) {{",
        f"    const int64_t {m} = {main} - {c} < {CHUNK} ? {main} - {c} : {CHUNK};",
        f"    float {x}[{CHUNK}]; ob_f16_load_block({x}, {src} + {c}, {m});",
        f"    for (int64_t {j0} = 0; {j0} < {m}; {j0} += {lanes})",
        f"      for (int {ln} = 0; {ln} < {lanes}; {ln}++) {{ const float {e} = {x}[{j0} + {ln}]; "
        f"const float {b} = {v}[{ln}]; {v}[{ln}] = {combine(b, e)}; }}",
        "  }",
        f"  for (int {w} = {lanes // 2}; {w} > 0; {w} >>= 1)",
        f"    for (int {ln} = 0; {ln} < {w}; {ln}++) {{ const float {b} = {v}[{ln}], {e} = {v}[{ln} + {w}]; "
        f"{v}[{ln}] = {combine(b, e)}; }}",
        f"  {acc} = {v}[0];",
        f"  for (int64_t {j} = {main}; {j} < {n}; {j}++) {{ const float {e} = {load('float16', f'{src}[{j}]')}; "
        f"{acc} = {combine(acc, e)}; }}",
        "}",
    ])
