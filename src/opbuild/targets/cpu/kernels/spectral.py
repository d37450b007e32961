"""CPU kernel of the FFT family (ops/fft.py ``FFTN``): the input is copied (cut or zero-padded to the signal
lengths) into a complex double work array, pocketfft transforms each axis in place through ``ob_fft_run``
(fft_prelude.py: the vendored library and its driver), and the result is scaled once and stored in the
output's type. A complex-to-real transform completes its last axis Hermitian before transforming it and
keeps the real part; a real-to-complex one keeps the first ``n // 2 + 1`` entries of its last axis.

The work array is the kernel's planned workspace (ops/scratch_plan.py ``fftn``). pocketfft's own allocations
are checked: when one fails, the kernel reports the axis through its status words (``ob_fail``) and the
executor raises ``KernelMemoryError`` right after it; nothing is written as if it had been computed.
"""

from __future__ import annotations

from collections.abc import Sequence

from ....core.dtypes import BY_NAME
from ....core.ir import KernelSpec
from ....ops import scratch_plan as S
from ....ops import spectral as F
from .. import fft_prelude  # noqa: F401 - the library this emitter's C calls (its file is in every key)
from ..codegen import load
from .registry import emits
from .scratch import carve


def _strides(shape: Sequence[int]) -> list[int]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


def _offsets(shape: Sequence[int], strides: Sequence[Sequence[int]], names: Sequence[str]) -> str:
    """C statements decomposing the flat index ``i`` over ``shape`` into offsets ``names`` (one per stride
    list)."""
    lines = ["int64_t r_ = i; " + " ".join(f"int64_t {n} = 0;" for n in names)]
    for d in reversed(range(len(shape))):
        if shape[d] == 1:
            continue
        parts = " ".join(f"{n} += c_ * {st[d]};" for n, st in zip(names, strides, strict=True) if st[d])
        lines.append(f"{{ const int64_t c_ = r_ % {shape[d]}; r_ /= {shape[d]}; {parts} }}")
    return " ".join(lines)


def _load_parts(dtype: str, ref: str) -> tuple[str, str]:
    """(real, imaginary) C expressions, as double, of the stored element ``ref``."""
    d = BY_NAME[dtype]
    if d.is_complex:
        return f"(double)creal({ref})", f"(double)cimag({ref})"
    return f"(double){load(dtype, ref)}", "0.0"


@emits(F.OP)
def _fftn(k: KernelSpec) -> str:
    x, out = k.inputs[0], k.outputs[0]
    attrs = k.attrs
    dims, s, kind = list(attrs["dims"]), list(attrs["s"]), attrs["kind"]
    rank = len(x.shape)
    work = list(x.shape)
    for d, n in zip(dims, s, strict=True):
        work[d] = n
    total = 1
    for n in work:
        total *= n
    if out.size == 0:
        return "/* empty */"
    # The part of the input that lands in the work array: a c2r transform reads n // 2 + 1 entries of its last axis.
    copy = [min(a, b) for a, b in zip(x.shape, work, strict=True)]
    if kind == "c2r":
        copy[dims[-1]] = min(x.shape[dims[-1]], s[-1] // 2 + 1)
    ncopy = 1
    for n in copy:
        ncopy *= n
    wst, ist, ost = _strides(work), _strides(x.shape), _strides(out.shape)
    re, im = _load_parts(x.dtype, "in0[src]")
    fwd = 1 if attrs["forward"] else 0
    fct = repr(F.scale(attrs))
    octype = BY_NAME[out.dtype].c_type
    axes = dims[:-1] if kind == "c2r" else dims
    lines = [
        f"const int64_t shape[{rank}] = {{{', '.join(map(str, work))}}};",
        carve(S.fftn(k.attrs, k.inputs, k.outputs)),
        f"memset(w, 0, {2 * total} * sizeof(double));",  # the zero padding past the copied input
        f"for (int64_t i = 0; i < {ncopy}; i++) {{ {_offsets(copy, [ist, wst], ['src', 'dst'])} "
        f"w[2 * dst] = {re}; w[2 * dst + 1] = {im}; }}",
        "int bad = 0; (void)bad;",
    ]
    # pocketfft ran out of memory on axis ``bad - 1``: report its length and position, store nothing.
    failed = "if (bad) { ob_fail(ob_status, shape[bad - 1], bad - 1); return; }"
    if axes:
        lines.append(f"{{ const int axes[{len(axes)}] = {{{', '.join(map(str, axes))}}}; "
                     f"bad = ob_fft_run(w, shape, {rank}, axes, {len(axes)}, {fwd}); }}")
        lines.append(failed)
    if kind == "c2r":
        last = dims[-1]
        lines.append(f"ob_fft_hermitian(w, shape, {rank}, {last});")
        lines.append(f"{{ const int axes[1] = {{{last}}}; bad = ob_fft_run(w, shape, {rank}, axes, 1, {fwd}); }}")
        lines.append(failed)
    if kind == "c2r":
        store = f"out0[o] = ({octype})({fct} * w[2 * o]);"
        lines.append(f"for (int64_t o = 0; o < {out.size}; o++) {{ {store} }}")
    else:
        part = "(float)" if out.dtype == "complex64" else "(double)"
        value = f"__builtin_complex({part}({fct} * w[2 * src]), {part}({fct} * w[2 * src + 1]))"
        if list(out.shape) == work:
            lines.append(f"for (int64_t o = 0; o < {out.size}; o++) {{ const int64_t src = o; "
                         f"out0[o] = {value}; }}")
        else:  # r2c: the output's last axis is the work's first n // 2 + 1 entries
            lines.append(f"for (int64_t i = 0; i < {out.size}; i++) {{ "
                         f"{_offsets(out.shape, [ost, wst], ['o', 'src'])} "
                         f"out0[o] = {value}; }}")
    return "\n".join(lines)
