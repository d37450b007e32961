"""C source generation and the kernel ABI.

Kernel ABI (version :data:`ABI_VERSION`): every kernel is an exported function

    void <symbol>(void *const *args);

where ``args`` holds the data pointers of the inputs, then of the outputs, each a dense C-contiguous
buffer of the type and shape of the kernel's descriptor, then (ABI 2) the kernel's workspace when its op
declares one (``OpDef.workspace``: scratch bytes, 64-byte aligned, planned in the graph's arena), then (ABI 3)
three int64 status words when its op declares a status (``OpDef.status``: the kernel reports bad input there,
the executor raises after the call). One
uniform signature means ctypes argtypes are set once and the executor precomputes one pointer array per node,
so a call costs one FFI transition.

Op families emit only the body; this module wraps it with typed, ``restrict``-qualified views
``in0..inN`` and ``out0..outM``, and a shared prelude of helpers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...core.dtypes import BY_NAME
from ...core.ir import TensorType
from .abi import ABI_VERSION, CLASS_OPT  # noqa: F401 - re-exported: the C this module emits follows them
from .prelude import (  # noqa: F401 - re-exported: emitters and tests name them through codegen
    BLAS_DECLS,
    PRELUDE,
    PRELUDE_CORE,
    PRELUDE_HALF,
    PRELUDE_MATH,
    PRELUDE_MATH_HEADERS,
    PRELUDE_STDLIB,
    prelude_for,
    translation_unit,
)


def gemm_symbols(dtype: str) -> tuple[str, str, str]:
    """(cblas gemm function of :data:`BLAS_DECLS`, C literal 1, C literal 0) for float32 or float64."""
    if dtype == "float32":
        return "OB_BLAS_SGEMM", "1.0f", "0.0f"
    return "OB_BLAS_DGEMM", "1.0", "0.0"


def gemv_symbols(dtype: str) -> tuple[str, str, str]:
    """(cblas gemv function of :data:`BLAS_DECLS`, C literal 1, C literal 0) for float32 or float64."""
    if dtype == "float32":
        return "OB_BLAS_SGEMV", "1.0f", "0.0f"
    return "OB_BLAS_DGEMV", "1.0", "0.0"


def ctype(dtype: str) -> str:
    """The C storage type of a buffer element of a dtype name (``ob_f16``/``ob_bf16`` for the half types)."""
    return BY_NAME[dtype].c_type


def compute_ctype(dtype: str) -> str:
    """The C type a kernel computes a dtype in: ``float`` for float16/bfloat16, the storage type otherwise."""
    return BY_NAME[dtype].compute_c


def is_half(dtype: str) -> bool:
    """float16 or bfloat16: stored in 16 bits, computed in float32."""
    return BY_NAME[dtype].is_half


_HALF_PREFIX = {"float16": "ob_f16", "bfloat16": "ob_bf16"}


def load(dtype: str, ref: str) -> str:
    """C expression: the stored element ``ref`` of ``dtype`` as a value of :func:`compute_ctype`."""
    return f"{_HALF_PREFIX[dtype]}_to_f32({ref})" if is_half(dtype) else ref


def store(dtype: str, expr: str, src_ctype: str = "float") -> str:
    """C expression: ``expr`` (of C type ``src_ctype``, only read for the half types) converted to the storage
    type of ``dtype``. Half types round once here (from double directly where the compiler can)."""
    if is_half(dtype):
        suffix = "f64" if src_ctype == "double" else "f32"
        cast = "" if src_ctype in ("float", "double") else f"({'double' if suffix == 'f64' else 'float'})"
        return f"{_HALF_PREFIX[dtype]}_from_{suffix}({cast}({expr}))"
    return f"({ctype(dtype)})({expr})"


def round_trip(dtype: str, expr: str, src_ctype: str = "float") -> str:
    """C expression: ``expr`` rounded to ``dtype`` and back to its compute type (what a fused kernel keeps
    of an intermediate, so fused and unfused ops give the same bits)."""
    if dtype == "float16" and src_ctype == "float":  # the same bits in float arithmetic gcc vectorises
        return f"ob_f16_round({expr})"
    return load(dtype, store(dtype, expr, src_ctype)) if is_half(dtype) else f"({ctype(dtype)})({expr})"




def kernel_function(symbol: str, inputs: Sequence[TensorType], outputs: Sequence[TensorType], body: str,
                    opt: str | None = None, workspace: bool = False, status: bool = False) -> str:
    """Wrap an op body into an exported ABI function with typed views of its arguments. ``opt`` (``"O2"``,
    ...) builds this function at that optimisation level (``OB_OPT``) instead of the command line's.
    ``workspace``: the op declares scratch memory (``OpDef.workspace``); its address, the argument after the
    outputs, reaches the body as ``char *ob_ws``. ``status``: the op declares a status (``OpDef.status``);
    the argument after the workspace, three int64 words, reaches the body as ``int64_t *ob_status`` (the body
    reports a bad element with ``ob_fail(ob_status, value, position)``).

    The body is a static function ``<symbol>_body`` whose typed buffers ``in0..``, ``out0..`` are
    ``restrict`` *parameters*, called (and inlined) by the exported ``<symbol>(args)``. gcc honours restrict
    on parameters, also once inlined, but not on local pointers loaded from ``args``: with locals, every
    vectorised loop carried a runtime alias check and a scalar copy of itself (more code, ~10% more compile
    time, docs/benchmarks.md "Cold builds"). Buffers never overlap, except an in-place elementwise map (or an
    optimizer update) writing ``out[i]`` over the ``in[i]`` it has just read, which restrict code handles."""
    attr = f'OB_OPT("{opt}") ' if opt else ""
    params, casts = [], []
    for i, t in enumerate(inputs):
        c = ctype(t.dtype)
        params.append(f"const {c} *restrict in{i}")
        casts.append(f"(const {c} *)args[{i}]")
    for j, t in enumerate(outputs):
        c = ctype(t.dtype)
        params.append(f"{c} *restrict out{j}")
        casts.append(f"({c} *)args[{len(inputs) + j}]")
    if workspace:
        params.append("char *restrict ob_ws")
        casts.append(f"(char *)args[{len(inputs) + len(outputs)}]")
    if status:
        params.append("int64_t *restrict ob_status")
        casts.append(f"(int64_t *)args[{len(inputs) + len(outputs) + workspace}]")
    lines = [f"static inline {attr}void {symbol}_body({', '.join(params) or 'void'}) {{",
             "  " + body.strip().replace("\n", "\n  "),
             "}",
             f"OB_EXPORT {attr}void {symbol}(void *const *args) {{",
             f"  {'(void)args; ' if not casts else ''}{symbol}_body({', '.join(casts)});",
             "}"]
    return "\n".join(lines) + "\n"


def strides(shape: Sequence[int]) -> list[int]:
    """Element strides of a C-contiguous array."""
    out = [0] * len(shape)
    acc = 1
    for i in range(len(shape) - 1, -1, -1):
        out[i] = acc
        acc *= shape[i]
    return out


def broadcast_strides(in_shape: Sequence[int], out_shape: Sequence[int]) -> list[int]:
    """Strides of an input viewed with the output's shape under NumPy broadcasting (0 on broadcast dims)."""
    pad = len(out_shape) - len(in_shape)
    full = [1] * pad + list(in_shape)
    st = strides(full)
    return [0 if full[d] == 1 and out_shape[d] != 1 else st[d] for d in range(len(out_shape))]


def c_literal(value, dtype: str) -> str:
    """A C literal of ``value`` in ``dtype``'s storage type (handles inf/nan for floats; the half types as
    their exact bits)."""
    if is_half(dtype):  # the exact stored bits, rounded by NumPy / ml_dtypes as the reference rounds
        bits = int(np.array(value, dtype=BY_NAME[dtype].np_dtype).view(np.uint16))
        return f"ob_f16_from_bits({bits:#06x})" if dtype == "float16" else f"((ob_bf16){bits:#06x})"
    if dtype in ("float32", "float64"):
        v = float(value)
        if v != v:
            return "NAN"
        if v in (float("inf"), float("-inf")):
            return "INFINITY" if v > 0 else "(-INFINITY)"
        s = repr(v)
        return s + ("f" if dtype == "float32" else "")
    if dtype == "bool":
        return "1" if value else "0"
    if BY_NAME[dtype].is_complex:  # the parts as literals of the part type (gcc's __builtin_complex)
        part = "float32" if dtype == "complex64" else "float64"
        v = complex(*value) if isinstance(value, (list, tuple)) else complex(value)
        return f"__builtin_complex({c_literal(v.real, part)}, {c_literal(v.imag, part)})"
    if BY_NAME[dtype].is_unsigned:
        return f"{int(value)}ULL" if dtype == "uint64" else f"{int(value)}U"
    suffix = "LL" if dtype == "int64" else ""
    return f"{int(value)}{suffix}"


def _collapse(shape: Sequence[int], operand_strides: Sequence[Sequence[int]]) -> tuple[list[int], list[list[int]]]:
    """Merge adjacent dims that every operand walks contiguously (fewer, longer loops); drop size-1 dims."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    out_shape: list[int] = []
    out_strides: list[list[int]] = [[] for _ in operand_strides]
    for d in dims:
        if out_shape and all(st[-1] == s[d] * shape[d] for st, s in zip(out_strides, operand_strides)):
            out_shape[-1] *= shape[d]
            for st, s in zip(out_strides, operand_strides):
                st[-1] = s[d]
            continue
        out_shape.append(shape[d])
        for st, s in zip(out_strides, operand_strides):
            st.append(s[d])
    return out_shape, out_strides


# Elementwise loops over at least this many elements run on OpenMP's threads when the compiler supports it
# (compilers/gcc.py: OPENMP_FLAGS; without -fopenmp the pragma is ignored). One core streams a large map
# at its memory bandwidth (NumPy's speed); waking a second thread costs about as much as mapping 100k
# elements, so below that a split gains nothing (docs/benchmarks.md).
PARALLEL_MIN_ELEMENTS = 1 << 17


# A BLAS call computing fewer multiply-adds than this runs on the calling thread alone (the BLAS's own pool
# is told one thread for the call: prelude.py ob_blas_serial_begin). Waking the BLAS's workers costs tens of
# microseconds on an idle machine and, on a busy one, can stall the call for a scheduler period while a
# worker waits for a core; below this size one thread finishes first (docs/threads.md).
BLAS_PARALLEL_MIN_MACS = 1 << 22


def blas_serial(call: str, macs: int) -> str:
    """``call`` (a BLAS statement of ``macs`` multiply-adds) kept on the calling thread when it is small."""
    if macs >= BLAS_PARALLEL_MIN_MACS:
        return call
    return f"{{ const int ob_bt = ob_blas_serial_begin(); {call} ob_blas_serial_end(ob_bt); }}"


def parallel_for(n: int) -> str:
    """The pragma (with its newline) that splits the next ``for`` loop, covering ``n`` elements in all, over
    OpenMP's threads in equal static chunks; empty for small loops."""
    return "#pragma omp parallel for schedule(static)\n" if n >= PARALLEL_MIN_ELEMENTS else ""


def broadcast_loop(out_shape: Sequence[int], in_shapes: Sequence[Sequence[int]], stmt: str,
                   parallel: bool = False) -> str:
    """A loop nest over ``out_shape`` where ``stmt`` may use ``o`` (output offset) and ``p0, p1, ...``
    (offsets of each input under NumPy broadcasting). Contiguous inputs collapse into one flat loop.
    ``parallel``: split the outermost loop over threads when the nest is large (:func:`parallel_for`)."""
    operands = [strides(out_shape)] + [broadcast_strides(s, out_shape) for s in in_shapes]
    shape, op_strides = _collapse(out_shape, operands)
    n_in = len(in_shapes)
    if not shape:  # a single element
        decls = " ".join(f"const int64_t p{k} = 0;" for k in range(n_in))
        return f"{{ const int64_t o = 0; {decls} (void)o; {stmt} }}"
    lines = []
    depth = len(shape)
    total = 1
    for extent in shape:
        total *= extent
    if parallel and shape[0] > 1:
        lines.append(parallel_for(total).rstrip("\n"))
    for d in range(depth):
        lines.append(f"for (int64_t i{d} = 0; i{d} < {shape[d]}; i{d}++) {{")
    names = ["o"] + [f"p{k}" for k in range(n_in)]
    for name, st in zip(names, op_strides):
        terms = [f"i{d}" if st[d] == 1 else f"i{d} * {st[d]}" for d in range(depth) if st[d] != 0]
        lines.append(f"const int64_t {name} = {' + '.join(terms) if terms else '0'};")
    lines.append(stmt)
    lines.append("}" * depth)
    return "\n".join(lines)




def nan_max(a: str, b: str) -> str:
    """C expression: the larger of ``a`` and ``b``, NaN if either is NaN (np.maximum; once an accumulator
    ``a`` is NaN it stays NaN). Vectorises to compare-and-blend."""
    return f"(({b} > {a} || {b} != {b}) ? {b} : {a})"


def nan_min(a: str, b: str) -> str:
    """C expression: the smaller of ``a`` and ``b``, NaN if either is NaN (np.minimum)."""
    return f"(({b} < {a} || {b} != {b}) ? {b} : {a})"

def simd_lanes(dtype: str) -> int:
    """How many independent partial results a reduction keeps: two 512-bit registers' worth, so the
    vectoriser can use several vector accumulators and hide the latency of each add."""
    return max(1, 128 // BY_NAME[dtype].np_dtype.itemsize)


def lane_reduce(acc: str, acc_type: str, n: int, elem: Callable[[str], str], combine: Callable[[str, str], str],
                identity: str, lanes: int) -> str:
    """C statements declaring ``acc_type acc`` = the reduction of ``elem(j)`` for ``j`` in ``[0, n)``.

    ``elem(j)`` maps a C index expression to the element's C expression (evaluated once per element);
    ``combine(a, b)`` maps two C variable names to their combination and ``identity`` is its neutral
    element. The main loop keeps ``lanes`` (a power of two) independent partial results in a small array
    that gcc maps onto SIMD registers: floating-point reductions vectorise without -ffast-math because
    nothing is reassociated. The lanes are then combined pairwise and the ``n % lanes`` tail folded in last,
    so a sum adds only about n/lanes terms in sequence (more accurate than one running sum). Helper
    variables are prefixed with ``acc``.
    """
    j, e = f"{acc}_j", f"{acc}_e"
    if n < 2 * lanes:  # too short for lanes to pay off: one sequential loop (n is a static constant)
        return (f"{acc_type} {acc} = {identity};\n"
                f"for (int64_t {j} = 0; {j} < {n}; {j}++) "
                f"{{ const {acc_type} {e} = {elem(j)}; {acc} = {combine(acc, e)}; }}")
    main = n - n % lanes
    v, j0, ln, w, b = f"{acc}_v", f"{acc}_j0", f"{acc}_l", f"{acc}_w", f"{acc}_b"
    return "\n".join([
        f"{acc_type} {acc};",
        "{",
        f"  {acc_type} {v}[{lanes}];",
        f"  for (int {ln} = 0; {ln} < {lanes}; {ln}++) {v}[{ln}] = {identity};",
        f"  for (int64_t {j0} = 0; {j0} < {main}; {j0} += {lanes})",
        f"    for (int {ln} = 0; {ln} < {lanes}; {ln}++) {{ const int64_t {j} = {j0} + {ln}; "
        f"const {acc_type} {e} = {elem(j)}; const {acc_type} {b} = {v}[{ln}]; {v}[{ln}] = {combine(b, e)}; }}",
        f"  for (int {w} = {lanes // 2}; {w} > 0; {w} >>= 1)",
        f"    for (int {ln} = 0; {ln} < {w}; {ln}++) {{ const {acc_type} {b} = {v}[{ln}], {e} = {v}[{ln} + {w}]; "
        f"{v}[{ln}] = {combine(b, e)}; }}",
        f"  {acc} = {v}[0];",
        f"  for (int64_t {j} = {main}; {j} < {n}; {j}++) {{ const {acc_type} {e} = {elem(j)}; "
        f"{acc} = {combine(acc, e)}; }}",
        "}",
    ])
def _offset(base, idx: Sequence[str], st: Sequence[int]) -> str:
    terms = [str(base)] if base not in (0, "0", "") else []
    terms += [v if s == 1 else f"{v} * {s}" for v, s in zip(idx, st, strict=True) if s != 0]
    return " + ".join(terms) if terms else "0"


def strided_copy(counts: Sequence[int], dst: str, dst_strides: Sequence[int], src: str,
                 src_strides: Sequence[int], dst_base: int | str = 0, src_base: int | str = 0,
                 var: str = "c", tile: int = 32) -> str:
    """C statements copying a strided box: for every index vector ``i`` below ``counts``,
    ``dst[dst_base + sum(i * dst_strides)] = src[src_base + sum(i * src_strides)]``.

    Strides are in elements and may be zero or negative; bases are ints or C expressions. The generated code
    is what makes data-movement kernels fast rather than per-element index math:
      * dims that both sides walk contiguously merge into one (``_collapse``), size-1 dims vanish;
      * an innermost run contiguous on both sides is one ``memcpy`` of a constant length (gcc inlines short
        ones), so Concat/Split/Slice/Tile/Pad move whole rows;
      * an innermost source stride of 0 (broadcast) loads the value once and stores it along the run;
      * a transpose (destination contiguous innermost, source contiguous along another dim) is blocked into
        ``tile`` x ``tile`` tiles so both sides stay in cache.
    Loop indices are ``{var}0, {var}1, ...`` (pick ``var`` to nest inside other loops).
    """
    if any(int(c) == 0 for c in counts):
        return "/* empty copy */"
    shape, (ds, ss) = _collapse(counts, [dst_strides, src_strides])
    run = 1
    if shape and ds[-1] == 1 and ss[-1] == 1:
        run = shape.pop()
        ds.pop()
        ss.pop()
    depth = len(shape)
    idx = [f"{var}{d}" for d in range(depth)]
    # Transpose: blocked loops over the destination's innermost dim and the source's unit-stride dim.
    k = None
    if run == 1 and depth >= 2 and ds[-1] == 1:
        k = next((d for d in range(depth - 1) if ss[d] == 1), None)
    if k is not None and shape[k] >= tile and shape[-1] >= tile:
        last = depth - 1
        outer = [d for d in range(depth) if d not in (k, last)]
        lines = [f"for (int64_t {idx[d]} = 0; {idx[d]} < {shape[d]}; {idx[d]}++) {{" for d in outer]
        for d in (k, last):
            lines.append(f"for (int64_t {idx[d]}b = 0; {idx[d]}b < {shape[d]}; {idx[d]}b += {tile}) {{")
        for d in (k, last):
            b = f"{idx[d]}b"
            lines.append(f"const int64_t {idx[d]}e = {b} + {tile} < {shape[d]} ? {b} + {tile} : {shape[d]};")
        for d in (k, last):
            lines.append(f"for (int64_t {idx[d]} = {idx[d]}b; {idx[d]} < {idx[d]}e; {idx[d]}++) {{")
        lines.append(f"{dst}[{_offset(dst_base, idx, ds)}] = {src}[{_offset(src_base, idx, ss)}];")
        lines.append("}" * (len(outer) + 4))
        return "\n".join(lines)
    lines = [f"for (int64_t {idx[d]} = 0; {idx[d]} < {shape[d]}; {idx[d]}++) {{" for d in range(depth)]
    if run > 1:
        lines.append(f"memcpy({dst} + {_offset(dst_base, idx, ds)}, {src} + {_offset(src_base, idx, ss)}, "
                     f"{run} * sizeof(*{dst}));")
    elif depth and ss[-1] == 0:
        # Broadcast along the innermost dim: one load per run, then a store loop gcc vectorises.
        outer_idx, inner = idx[:-1], idx[-1]
        lines.pop()
        lines.append(f"const __typeof__({src}[0]) {var}v = {src}[{_offset(src_base, outer_idx, ss[:-1])}];")
        lines.append(f"for (int64_t {inner} = 0; {inner} < {shape[-1]}; {inner}++) {{")
        lines.append(f"{dst}[{_offset(dst_base, idx, ds)}] = {var}v;")
    else:
        lines.append(f"{dst}[{_offset(dst_base, idx, ds)}] = {src}[{_offset(src_base, idx, ss)}];")
    lines.append("}" * depth)
    return "\n".join(lines)
