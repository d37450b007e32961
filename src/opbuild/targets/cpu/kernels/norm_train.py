"""CPU kernels of BatchNorm's training form and its backward (ops/norm_train.py): statistics accumulate in
double per channel; the layout is seen as ``(outer, C, inner)`` (NCHW: inner = H * W; NHWC and (N, C):
inner = 1), so one loop nest serves every layout. Half types are loaded into float, computed in double and
rounded once on store.

A channel's sums are of double terms, and a running double sum is one dependent add per element: gcc keeps
it scalar without reassociation. When a channel's elements come in contiguous runs of at least
:data:`LANES` (NCHW planes), each sum keeps :data:`LANES` independent partial sums per run position, which
gcc maps onto vector registers, and folds them once per channel (a different, not worse, order of the same
additions: about ``m / LANES`` terms in sequence instead of ``m``)."""

from __future__ import annotations

import numpy as np

from ....core.ir import KernelSpec
from ..codegen import load, store
from .registry import register

# Independent double partial sums per channel sum (4 AVX-512 or 8 AVX2 vector registers).
LANES = 32


def _layout(k: KernelSpec) -> tuple[int, int, int]:
    """(outer, C, inner) of the input; kept in this module (not normalization.py's helpers) so that the
    code-generator hash (sources.py) of these ops stays per family."""
    x = k.inputs[1] if k.op == "BatchNormGrad" else k.inputs[0]
    axis = 3 if (x.rank == 4 and k.attrs["data_format"] == "NHWC") else 1
    return int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1:]))


def _sums(outer: int, c: int, inner: int, terms: dict[str, str], elems: str) -> str:
    """C declaring ``double <name>`` = the sum over channel ``ch``'s elements of each ``terms[name]`` (a C
    expression of the locals ``elems`` declares from index ``i``), with lanes when the runs are long."""
    names = list(terms)
    if inner < LANES:
        decl = " ".join(f"double {n} = 0;" for n in names)
        return decl + "\n" + _loop(outer, c, inner, elems + " " + " ".join(f"{n} += {terms[n]};" for n in names))
    main = inner - inner % LANES
    lanes = " ".join(f"double {n}_v[{LANES}] = {{0}};" for n in names)
    add_v = " ".join(f"{n}_v[l] += {terms[n]};" for n in names)
    add_s = " ".join(f"{n} += {terms[n]};" for n in names)
    fold = " ".join(f"{n} += {n}_v[l];" for n in names)
    return "\n".join([
        " ".join(f"double {n} = 0;" for n in names) + " " + lanes,
        f"for (int64_t o = 0; o < {outer}; o++) {{",
        f"  const int64_t base = (o * {c} + ch) * {inner};",
        f"  for (int64_t j0 = 0; j0 < {main}; j0 += {LANES})",
        f"    for (int64_t l = 0; l < {LANES}; l++) {{ const int64_t i = base + j0 + l; {elems} {add_v} }}",
        f"  for (int64_t j = {main}; j < {inner}; j++) {{ const int64_t i = base + j; {elems} {add_s} }}",
        "}",
        f"for (int64_t l = 0; l < {LANES}; l++) {{ {fold} }}"])


def _loop(outer: int, c: int, inner: int, body: str) -> str:
    """``body`` for every element of channel ``ch`` (index ``i``)."""
    return (f"for (int64_t o = 0; o < {outer}; o++) for (int64_t j = 0; j < {inner}; j++) {{ "
            f"const int64_t i = (o * {c} + ch) * {inner} + j; {body} }}")


def _train_emit(k: KernelSpec) -> str:
    outer, c, inner = _layout(k)
    xt, pt = k.inputs[0].dtype, k.inputs[1].dtype
    m = outer * inner
    mom, eps = k.attrs["momentum"], k.attrs["epsilon"]
    unbias = m / (m - 1) if m > 1 else 1.0
    x = load(xt, "in0[i]")
    new_mean = f"(1.0 - {mom!r}) * {load(pt, 'in3[ch]')} + {mom!r} * mean"
    new_var = f"(1.0 - {mom!r}) * {load(pt, 'in4[ch]')} + {mom!r} * var * {unbias!r}"

    def p(ref: str) -> str:  # a per-channel input
        return load(pt, ref)

    def ps(expr: str) -> str:  # a per-channel result, rounded once into the parameters' type
        return store(pt, expr, "double")

    return "\n".join([
        f"for (int64_t ch = 0; ch < {c}; ch++) {{",
        _sums(outer, c, inner, {"s": "xv"}, f"const double xv = {x};"),
        f"const double mean = s / {m}.0;" if m else "const double mean = NAN;",
        _sums(outer, c, inner, {"ss": "d * d"}, f"const double d = {x} - mean;"),
        f"const double var = ss / {m}.0;" if m else "const double var = NAN;",
        f"const double rstd = 1.0 / sqrt(var + {eps!r});",
        f"const double a = {p('in1[ch]')} * rstd, b = {p('in2[ch]')} - mean * a;",
        _loop(outer, c, inner, f"out0[i] = {store(xt, f'{x} * a + b', 'double')};"),
        f"out1[ch] = {ps('mean')}; out2[ch] = {ps('var')}; out3[ch] = {ps('mean')}; out4[ch] = {ps('rstd')};",
        f"out5[ch] = {ps(new_mean)}; out6[ch] = {ps(new_var)};",
        "}"])


def _grad_emit(k: KernelSpec) -> str:
    outer, c, inner = _layout(k)
    xt, pt = k.inputs[0].dtype, k.inputs[2].dtype
    m = outer * inner
    zero = store(pt, "0.0", "double")
    if m == 0:
        return f"for (int64_t ch = 0; ch < {c}; ch++) {{ out1[ch] = {zero}; out2[ch] = {zero}; }}"
    # in0 = dy, in1 = x, in2 = scale, in3 = save_mean, in4 = save_rstd
    dy, x = load(xt, "in0[i]"), load(xt, "in1[i]")
    dx = store(xt, f"k * ({m}.0 * dy - sdy - (xv - mu) * rstd * sdyx)", "double")
    return "\n".join([
        f"for (int64_t ch = 0; ch < {c}; ch++) {{",
        f"const double mu = {load(pt, 'in3[ch]')}, rstd = {load(pt, 'in4[ch]')};",
        _sums(outer, c, inner, {"sdy": "dy", "sdyx": "dy * (xv - mu) * rstd"},
              f"const double dy = {dy}, xv = {x};"),
        f"const double k = {load(pt, 'in2[ch]')} * rstd / {m}.0;",
        _loop(outer, c, inner, f"const double dy = {dy}, xv = {x}; out0[i] = {dx};"),
        f"out1[ch] = {store(pt, 'sdyx', 'double')}; out2[ch] = {store(pt, 'sdy', 'double')};",
        "}"])


register("BatchNormTraining", _train_emit)
register("BatchNormGrad", _grad_emit)
