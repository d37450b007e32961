"""CUDA C helpers of the GPU target: the prelude every translation unit starts with, the ``__global__``
wrapper around an op's body, and the loops and index arithmetic the emitters share.

Kernel ABI (``ABI_VERSION``): ``extern "C" __global__ void ob_<hash>(T0 *in0, ..., U0 *out0, ...)``, one
typed pointer per input then per output, in the spec's order, launched with ``BLOCK`` threads per block and
any number of blocks: every body is written as a grid-stride loop (elementwise) or a block-stride loop over
rows (reductions, one block per row at a time), so the launch geometry never changes what is computed.

Every pointer is ``__restrict__`` except both pointers of an in-place pair (``OpDef.inplace``: an optimizer
update's variable and its state): the executor passes the same address for that output and that input, and
restrict (which also lets NVRTC read a ``const`` input through the non-coherent read-only cache) would make
that aliasing undefined. Those kernels read each element through the input pointer before the same thread
writes it through the output pointer. The launch and the parameter types are unchanged, so ``ABI_VERSION``
stays 1 (no kernel with an in-place pair existed before).

ABI 2: a kernel whose op declares a status (``OpDef.status``: an index out of range) takes one more pointer,
``int64_t *ob_status``, after its outputs: three words (flag, value, position) in device memory that the
executor clears, and reads after the launch; the body reports a bad element with
``ob_fail(ob_status, value, position)``, which claims the flag once (``atomicCAS``), so of many threads
meeting bad elements one reports, not necessarily the one of the smallest position.

NVRTC compiles C++ without the host's headers: the fixed-width integer types, the limits the expressions use
and the helper functions the ops' rows name (``ob_tanh``, ``ob_floordiv_i64``, ...) are defined here. GNU
statement expressions, which some rows use for the CPU's C, are not C++: :func:`cxx_expr` turns each into an
immediately called lambda, which computes the same value.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.dtypes import BY_NAME
from ...core.ir import TensorType
from . import half

ABI_VERSION = 2
#: Threads per block of every launch (reductions size their shared memory by it).
BLOCK = 256

PRELUDE = r"""
typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;
typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#define INT8_MIN (-128)
#define INT8_MAX 127
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define INT64_MIN (-9223372036854775807LL - 1)
#define INT64_MAX 9223372036854775807LL
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615ULL
#define OB_BLOCK @BLOCK@
__device__ __forceinline__ int64_t ob_floordiv_i64(int64_t a, int64_t b) {
  int64_t q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ __forceinline__ int64_t ob_mod_i64(int64_t a, int64_t b) {
  int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ __forceinline__ void ob_fail(int64_t *s, int64_t value, int64_t position) {
  if (atomicCAS((unsigned long long *)s, 0ULL, 1ULL) == 0ULL) { s[1] = value; s[2] = position; }
}
__device__ __forceinline__ float ob_tanhf(float x) { return tanhf(x); }
__device__ __forceinline__ double ob_tanh(double x) { return tanh(x); }
__device__ __forceinline__ float ob_tanh(float x) { return tanhf(x); }
""".replace("@BLOCK@", str(BLOCK)) + half.PRELUDE_HALF

#: dtypes every GPU emitter takes; the half types (float16, bfloat16) only the ops whose emitters opt in
#: (``half.allow``, see half.py).
SUPPORTED_DTYPES = frozenset({"float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                              "uint64", "bool"})


class Unsupported(ValueError):
    """The GPU target has no kernel for this op, dtype or attribute combination (yet); the message says which."""


def check_dtypes(op: str, types: Sequence[TensorType]) -> None:
    """Raise :class:`Unsupported` naming the first dtype of ``types`` the GPU target cannot emit for ``op``
    (the half types: unless ``op``'s emitter opted in, half.py)."""
    for t in types:
        if half.is_half(t.dtype) and op not in half.HALF_OPS:
            raise Unsupported(f"the GPU target does not emit {op} kernels for {t.dtype} yet (its GPU emitter does "
                              "not handle the half types: opbuild/targets/cuda/half.py)")
        if t.dtype not in SUPPORTED_DTYPES and not half.is_half(t.dtype):
            raise Unsupported(f"the GPU target does not emit {op} kernels for {t.dtype} yet (supported: "
                              f"{', '.join(sorted(SUPPORTED_DTYPES))})")


def ctype(dtype: str) -> str:
    """The CUDA C storage type of ``dtype`` (those of :data:`SUPPORTED_DTYPES`)."""
    return BY_NAME[dtype].c_type


def params(inputs: Sequence[TensorType], outputs: Sequence[TensorType],
           inplace: Sequence[tuple[int, int]] = (), status: bool = False) -> str:
    """The kernel's parameter list (the ABI of the module docstring); ``inplace`` pairs ``(output index, input
    index)`` that may share an address lose ``__restrict__`` on both pointers; ``status``: the op declares a
    status, whose words the last pointer addresses (ABI 2)."""
    aliased_in = {i for _, i in inplace}
    aliased_out = {o for o, _ in inplace}
    ins = [f"const {ctype(t.dtype)} *{'' if i in aliased_in else '__restrict__ '}in{i}"
           for i, t in enumerate(inputs)]
    outs = [f"{ctype(t.dtype)} *{'' if i in aliased_out else '__restrict__ '}out{i}" for i, t in enumerate(outputs)]
    return ", ".join(ins + outs + (["int64_t *__restrict__ ob_status"] if status else []))


def kernel_function(symbol: str, inputs: Sequence[TensorType], outputs: Sequence[TensorType], body: str,
                    inplace: Sequence[tuple[int, int]] = (), status: bool = False) -> str:
    """The exported ``__global__`` function ``symbol`` around ``body``; ``inplace`` and ``status`` as
    :func:`params`."""
    return (f'extern "C" __global__ void __launch_bounds__(OB_BLOCK) '
            f"{symbol}({params(inputs, outputs, inplace, status)}) {{\n{body}\n}}\n")


def translation_unit(functions: Sequence[str]) -> str:
    """One NVRTC program: the prelude and the kernels."""
    return PRELUDE + "\n" + "\n".join(functions)


def grid_loop(n: int, var: str, stmt: str) -> str:
    """``stmt`` for every ``var`` in ``[0, n)``, spread over the whole grid (grid-stride loop)."""
    return (f"  for (int64_t {var} = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; {var} < {n}LL; "
            f"{var} += (int64_t)gridDim.x * blockDim.x) {{ {stmt} }}")


def broadcast_offsets(out_shape: Sequence[int], in_shapes: Sequence[Sequence[int]], var: str = "o") -> list[str]:
    """For each input, the C expression of its element offset for output element ``var`` (NumPy broadcasting:
    shapes right-aligned, size-1 and missing axes stride 0)."""
    rank = len(out_shape)
    exprs = []
    for shape in in_shapes:
        padded = [1] * (rank - len(shape)) + list(shape)
        if list(padded) == list(out_shape):
            exprs.append(var)
            continue
        terms, stride, inner = [], 1, 1
        strides = [0] * rank
        for ax in range(rank - 1, -1, -1):
            strides[ax] = 0 if padded[ax] == 1 else stride
            stride *= padded[ax]
        for ax in range(rank - 1, -1, -1):
            dim = out_shape[ax]
            if strides[ax] and dim > 1:
                idx = f"(({var} / {inner}LL) % {dim}LL)" if inner > 1 else f"({var} % {dim}LL)"
                terms.append(f"{idx} * {strides[ax]}LL" if strides[ax] != 1 else idx)
            inner *= dim
        exprs.append(" + ".join(terms) if terms else "0")
    return exprs


def cxx_expr(expr: str) -> str:
    """``expr`` with each GNU statement expression ``({ s1; ...; e; })`` rewritten as the immediately called
    lambda ``([&]() { s1; ...; return e; }())`` (C++ has no statement expressions; NVRTC compiles C++)."""
    out, i = [], 0
    while True:
        start = expr.find("({", i)
        if start < 0:
            out.append(expr[i:])
            return "".join(out)
        depth, j = 0, start + 1
        while j < len(expr):
            if expr[j] == "{":
                depth += 1
            elif expr[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        inner = cxx_expr(expr[start + 2:j]).strip().rstrip(";").rstrip()
        cut = _last_statement_end(inner)
        stmts, value = inner[:cut + 1], inner[cut + 1:].strip()
        out.append(expr[i:start] + f"([&]() {{ {stmts} return {value}; }}())")
        i = j + 2  # past "})"


def _last_statement_end(body: str) -> int:
    """Index of the end of the last statement of ``body``: its last ``;`` outside parentheses and braces, or
    the ``}`` closing a block there (``while (...) { ... }``); -1 if none."""
    depth, last = 0, -1
    for k, ch in enumerate(body):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
            if ch == "}" and depth == 0:
                last = k
        elif ch == ";" and depth == 0:
            last = k
    return last


__all__ = ["ABI_VERSION", "BLOCK", "PRELUDE", "SUPPORTED_DTYPES", "Unsupported", "broadcast_offsets",
           "check_dtypes", "ctype", "cxx_expr", "grid_loop", "kernel_function", "params", "translation_unit"]
