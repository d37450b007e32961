"""CPU kernels of the GEMM and convolution kernels with a fused elementwise epilogue (ops/fused_gemm.py).

The kernel runs the producer's own code (the same BLAS calls, convolution loops and half-type rounding as the
unfused kernel) into the output buffer, then one pass over that buffer evaluating the members per element with
the expressions of the members' own kernels (``fused.member_statements``), in place. The intermediate
producer result never gets a buffer of its own. Members round to their dtypes as the unfused ops store them,
so only gcc's contraction of ``a * b + c`` into one FMA across former kernel boundaries can change a last bit.
A FusedConv2D whose epilogue is per-channel and whose producer is a ``tiled``, ``dot`` or ``dwvec`` kernel
runs the same member statements at the kernel's stores instead of in the pass (conv_epilogue.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ....core.ir import KernelSpec
from ....ops.fused_gemm import _Parts, _parts
from ..codegen import broadcast_loop, compute_ctype, ctype, parallel_for, store
from .conv_epilogue import MACRO, channel_macro
from .convolution import _conv_emit, conv_emit_epilogue
from .fused import member_statements
from .matmul import _batch_emit, _matmul_emit, product_class
from .registry import register


def pre_loops(parts: _Parts, recipes: Sequence[dict]) -> str:
    """C computing each per-channel recipe once into its thread's array ``ob_preJ`` (sized at build time,
    stored in the result's dtype), before the epilogue reads it under broadcasting."""
    code = []
    for j, ((idx, typed, res), r) in enumerate(zip(parts.pre, recipes, strict=True)):
        views = [parts.views[k] for k in idx]
        flat = all(v.shape == res.shape for v in views)
        elements = [f"in{k + 2}[{'o' if flat else f'p{i}'}]" for i, k in enumerate(idx)]
        stmt = "\n".join([*member_statements(typed, r["members"], views, elements),
                          f"ob_pre{j}[o] = {store(res.dtype, f't{len(typed) - 1}', compute_ctype(res.dtype))};"])
        # Thread-local (two threads may run this kernel at once), read through a plain pointer like the
        # convolution workspace (conv_kernels.py), so the TLS address is looked up once, not per access.
        t = ctype(res.dtype)
        code.append(f"static __thread {t} ob_pre{j}_tls[{max(res.size, 1)}] __attribute__((aligned(64)));\n"
                    f"{t} *restrict ob_pre{j} = ob_pre{j}_tls;")
        code.append(f"for (int64_t o = 0; o < {res.size}; o++) {{\n{stmt}\n}}" if flat
                    else broadcast_loop(res.shape, [v.shape for v in views], stmt))
    return "\n".join(code)


def epilogue_loop(parts: _Parts, members: Sequence[dict]) -> str:
    """C of one pass over ``out0`` replacing each element by the recipe's result; the epilogue inputs (kernel
    inputs 2, 3, ...) and the per-channel arrays ``ob_preJ`` are read under broadcasting with their shapes."""
    out = parts.producer.outputs[0]
    operands = [*parts.views, *(t for _, _, t in parts.pre)]
    names = [*(f"in{k + 2}" for k in range(len(parts.views))), *(f"ob_pre{j}" for j in range(len(parts.pre)))]
    flat = all(v.shape == out.shape for v in operands)
    elements = ["out0[o]", *[f"{n}[{'o' if flat else f'p{k}'}]" for k, n in enumerate(names)]]
    stmt = "\n".join([*member_statements(parts.members, members, [out, *operands], elements),
                      f"out0[o] = {store(out.dtype, f't{len(parts.members) - 1}', compute_ctype(out.dtype))};"])
    # `omp simd` on the innermost loop (every element is independent, read then written at the same o): the
    # kernel may build at -O1 (its producer's class, kernels/__init__.py opt_class), where gcc vectorises only
    # loops marked so (with -fopenmp; without it the pragma is ignored and the loop stays correct).
    if flat:
        par = parallel_for(out.size)
        pragma = "#pragma omp parallel for simd schedule(static)\n" if par else "#pragma omp simd\n"
        return f"{pragma}for (int64_t o = 0; o < {out.size}; o++) {{\n{stmt}\n}}"
    lines = broadcast_loop(out.shape, [v.shape for v in operands], stmt, parallel=True).split("\n")
    loops = [i for i, line in enumerate(lines) if line.startswith("for (int64_t i")]
    if not loops:  # a single element: no loop
        return "\n".join(lines)
    inner = loops[-1]
    if inner > 0 and lines[inner - 1].startswith("#pragma omp parallel for"):  # one loop, split over threads
        lines[inner - 1] = lines[inner - 1].replace("parallel for", "parallel for simd")
        return "\n".join(lines)
    return "\n".join([*lines[:inner], "#pragma omp simd", *lines[inner:]])


def _fused(k: KernelSpec, producer_emit) -> str:
    """The producer's body (``producer_emit``, it writes ``out0``), the per-channel recipes, then the epilogue
    over ``out0`` in place."""
    parts = _parts(k.op, k.attrs, k.inputs)
    if parts.producer.outputs[0].size == 0:
        return ""
    body = producer_emit(parts.producer)
    return "\n".join([f"{{\n{body}\n}}", pre_loops(parts, k.attrs.get("pre", [])),
                      epilogue_loop(parts, k.attrs["members"])])


# One emitter per op, each naming only its producer's emitter: sources.py then hashes only the files that
# shape that op's C (an edit of the convolution kernels does not rekey FusedMatMul).
def _emit_matmul(k: KernelSpec) -> str:
    return _fused(k, _matmul_emit)


def _emit_batch_matmul(k: KernelSpec) -> str:
    return _fused(k, _batch_emit)


def _emit_conv(k: KernelSpec) -> str:
    """A per-channel epilogue the producer can apply at its stores goes there (conv_epilogue.py): no pass over
    the output after the kernel; any other runs as the pass of :func:`_fused`."""
    parts = _parts(k.op, k.attrs, k.inputs)
    macro = channel_macro(parts, k.attrs["members"])
    if macro is None:
        return _fused(k, _conv_emit)
    return f"{macro}\n{{\n{conv_emit_epilogue(parts.producer)}\n}}\n#undef {MACRO}"


_PRODUCERS = {"FusedMatMul": "MatMul", "FusedBatchMatMul": "BatchMatMul"}


def _producer_class(k: KernelSpec) -> str | None:
    return product_class(_PRODUCERS[k.op], k.attrs["producer"], k.inputs[:2])


register("FusedMatMul", _emit_matmul, blas=True, klass=_producer_class)
register("FusedBatchMatMul", _emit_batch_matmul, blas=True, klass=_producer_class)
register("FusedConv2D", _emit_conv, blas=True)
