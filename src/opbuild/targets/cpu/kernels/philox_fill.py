"""CPU kernels of ``PhiloxFill`` (ops/philox_fill_ops.py): MindSpore's initializer fills (core/philox_fill.py)
as C, every value bit for bit the NumPy path's.

What keeps the bits: the arithmetic is the NumPy path's, operation for operation, in double; every product
followed by an addition goes through ``OB_PX_KEEP`` (an empty ``asm`` the compiler cannot see through;
``OB_PX_VKEEP`` on the truncated normal's GCC vector types), so that no FMA contraction (gcc's default for GNU
C) fuses it with the sum; the transcendental calls are glibc's
scalar ``sin``/``cos`` through volatile pointers (never a vectorised libmvec variant a batch's prelude may
declare), which NumPy's float64 ``sin``/``cos`` call too; ``log``, which NumPy computes with its own SIMD code on
some machines, is left to NumPy between the ``draw`` and ``finish`` stages (runtime/init_fill.py). The
coefficients are written as hexadecimal literals, exact.
"""

from __future__ import annotations

import numpy as np

from ....core import philox_fill as F
from ....core.ir import KernelSpec
from .registry import register

_KEEP = "\n".join([
    "#if defined(__x86_64__) || defined(__i386__)",
    "#define OB_PX_KEEP(v) __asm__(\"\" : \"+x\"(v))",
    "#elif defined(__aarch64__)",
    "#define OB_PX_KEEP(v) __asm__(\"\" : \"+w\"(v))",
    "#else",
    "#define OB_PX_KEEP(v) do { volatile double k_ = (v); (v) = k_; } while (0)",
    "#endif"])


def _hex(v: float) -> str:
    return float(v).hex()


def _blocks(per_block: str) -> list[str]:
    """A loop over the Philox blocks covering values ``[start, start + count)`` of the stream of ``in0[0]``
    (``in0`` = seed, start, count), each block's four words in ``w[0..3]`` for ``per_block``; the blocks are
    independent, so large fills split over OpenMP's threads."""
    return [
        "const uint64_t seed = (uint64_t)in0[0]; const int64_t start = in0[1];",
        "const int64_t count = in0[2] < {cap} ? in0[2] : {cap};",
        "const uint32_t s0 = (uint32_t)seed, s1 = (uint32_t)(seed >> 32);",
        "const int64_t b0 = start >> 2, b1 = (start + count + 3) >> 2;",
        "#pragma omp parallel for schedule(static) if (b1 - b0 >= 8192)",
        "for (int64_t b = b0; b < b1; b++) {",
        "uint32_t c0 = (uint32_t)(uint64_t)b, c1 = (uint32_t)((uint64_t)b >> 32), c2 = s0, c3 = s1;",
        "uint32_t k0 = s0, k1 = s1;",
        "for (int r = 0; r < 10; r++) {",
        f"const uint64_t p0 = (uint64_t)c0 * {int(F._M0):#x}u, p1 = (uint64_t)c2 * {int(F._M1):#x}u;",
        "c0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0; c1 = (uint32_t)p1;",
        "c2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1; c3 = (uint32_t)p0;",
        f"k0 += {F._K0:#x}u; k1 += {F._K1:#x}u;",
        "}",
        "const uint32_t w[4] = {c0, c1, c2, c3};",
        per_block,
        "}"]


def _uniform() -> list[str]:
    # in1 = (hi - lo, lo): ((r * 2**-32) * (hi - lo)) + lo, as unit() then in-place *= and +=
    return ["const double span = in1[0], lo = in1[1];"] + _blocks(
        "for (int l = 0; l < 4; l++) { const int64_t i = 4 * b + l - start; if (i < 0 || i >= count) continue;"
        " double t = ((double)w[l] * 0x1p-32) * span; OB_PX_KEEP(t); out0[i] = (OB_PX_T)(t + lo); }")


def _normal_draw() -> list[str]:
    # Pairs start on even positions (the driver's chunks do): a pair never straddles two blocks.
    # in1 = (floor, turn): out0 = turn * max(unit23(r2), floor), out1 = max(unit23(r1), floor) (for the log)
    unit = ("({ uint32_t bits_ = (w[{k}] & 0x7FFFFFu) | 0x3F800000u; float f_; memcpy(&f_, &bits_, 4);"
            " double d_ = (double)(f_ - 1.0f); d_ >= floor_ ? d_ : floor_; })")
    return ["const double floor_ = in1[0], turn = in1[1];"] + _blocks(
        "for (int q = 0; q < 2; q++) { const int64_t j = (4 * b + 2 * q - start) >> 1;"
        " if (4 * b + 2 * q < start || 2 * j >= count) continue;"
        f" out1[j] = {unit.replace('{k}', '2 * q')}; out0[j] = turn * {unit.replace('{k}', '2 * q + 1')}; }}")


def _normal_finish() -> list[str]:
    # in1 = (mean, sigma), in2 = y, in3 = log(u1): x = sqrt(-2 log u1) * sigma; mean + x cos y, mean + x sin y
    return [
        "double (*volatile ob_cos)(double) = cos; double (*volatile ob_sin)(double) = sin;",
        "const double m = in1[0], s = in1[1]; const int64_t count = in0[2] < {cap} ? in0[2] : {cap};",
        "#pragma omp parallel for schedule(static) if (count >= 16384)",
        "for (int64_t j = 0; j < (count + 1) / 2; j++) {",
        "const double x = sqrt(-2.0 * in3[j]) * s;",
        "double tc = x * ob_cos(in2[j]); OB_PX_KEEP(tc); out0[2 * j] = (OB_PX_T)(m + tc);",
        "if (2 * j + 1 < count) {",
        "double ts = x * ob_sin(in2[j]); OB_PX_KEEP(ts); out0[2 * j + 1] = (OB_PX_T)(m + ts); }",
        "}"]


def _truncated_draw() -> list[str]:
    # in1 = (cdf(a), cdf(b) - cdf(a), smallest float32 above 0, largest below 2): z = 2p clamped into (0, 2);
    # out0 = q = min(z, 2 - z) negated where z > 1 (erfc_inv's sign), out1 = q (log(q) once NumPy has run)
    return ["const double cdf_a = in1[0], span = in1[1], tiny = in1[2], big = in1[3];"] + _blocks(
        "for (int l = 0; l < 4; l++) { const int64_t i = 4 * b + l - start; if (i < 0 || i >= count) continue;"
        " double t = ((double)w[l] * 0x1p-32) * span; OB_PX_KEEP(t); double z = 2.0 * (cdf_a + t);"
        " z = z <= 0 ? tiny : z; z = z >= 2.0 ? big : z;"
        # the half is chosen by index and the sign set by bits: a branch here is a coin toss, mispredicted
        " const int up = z > 1.0; const double half[2] = {z, 2.0 - z}; const double q = half[up];"
        " uint64_t qb_; memcpy(&qb_, &q, 8); qb_ |= (uint64_t)up << 63; memcpy(&out0[i], &qb_, 8); out1[i] = q; }")


def _horner(coeffs: tuple[float, ...], x: str, name: str) -> str:
    """``name`` = sum(c_i x^i) over a vector of lanes, highest coefficient first, each product kept apart
    from its sum."""
    steps = " ".join(f"{name} *= {x}; OB_PX_VKEEP({name}); {name} += {_hex(c)};" for c in reversed(coeffs[:-1]))
    return f"ob_px_v {name} = (ob_px_v){{0}} + {_hex(coeffs[-1])}; {steps}"


# The lanes of one vector of values and the barrier keeping a vector product unfused: the widest the target
# has (the kernels are built with -march=native). Lane arithmetic is IEEE per lane, as scalar code's.
_VECTOR = "\n".join([
    "#if defined(__AVX512F__)",
    "#define OB_PX_V 8",
    "typedef double ob_px_v __attribute__((vector_size(64)));",
    "#define OB_PX_VKEEP(v) __asm__(\"\" : \"+v\"(v))",
    "#elif defined(__AVX__)",
    "#define OB_PX_V 4",
    "typedef double ob_px_v __attribute__((vector_size(32)));",
    "#define OB_PX_VKEEP(v) __asm__(\"\" : \"+x\"(v))",
    "#else",
    "#define OB_PX_V 2",
    "typedef double ob_px_v __attribute__((vector_size(16)));",
    "#if defined(__x86_64__) || defined(__i386__)",
    "#define OB_PX_VKEEP(v) __asm__(\"\" : \"+x\"(v))",
    "#elif defined(__aarch64__)",
    "#define OB_PX_VKEEP(v) __asm__(\"\" : \"+w\"(v))",
    "#else",
    "#define OB_PX_VKEEP(v) do { volatile ob_px_v k_ = (v); (v) = k_; } while (0)",
    "#endif",
    "#endif"])

# e >= +0 per lane: negated where q is (the upper half) by flipping its sign bit, without a branch; then
# mean + ((-e) * sqrt2) * sigma, rounded to float32
_PUT = ("for (int l = 0; l < left; l++) { const int64_t i = i0 + li[l]; const double e = ev[l];"
        " uint64_t eb_, sb_; memcpy(&eb_, &e, 8); memcpy(&sb_, &in2[i], 8); eb_ ^= sb_ & 0x8000000000000000ull;"
        " double se_; memcpy(&se_, &eb_, 8); double t_ = ((-se_) * root2) * s; OB_PX_KEEP(t_);"
        " out0[i] = (OB_PX_T)(m + t_); }")


def _lanes(c: int, load: str, compute: str) -> str:
    """The values of range ``c`` a vector at a time: ``load`` fills lane ``l`` of ``a`` from value ``i``,
    ``compute`` gives ``ev``; a last, partial vector repeats its first value in the missing lanes (computed,
    never stored)."""
    return (f"for (int64_t k = 0; k < ns[{c}]; k += OB_PX_V) {{ int32_t li[OB_PX_V];"
            f" const int64_t left = ns[{c}] - k < OB_PX_V ? ns[{c}] - k : OB_PX_V;"
            f" for (int l = 0; l < OB_PX_V; l++) li[l] = ids[{c}][k + (l < left ? l : 0)]; ob_px_v a;"
            f" for (int l = 0; l < OB_PX_V; l++) {{ const int64_t i = i0 + li[l]; {load} }}"
            f" {compute} {_PUT} }}")


def _truncated_finish() -> list[str]:
    # in1 = (mean, sigma, sqrt2), in2 = signed q, in3 = log(q): Boost's erf_inv by range (core/philox_fill.py).
    # Each block of values is first sorted into index lists by range (small p, middle, the five tail ranges),
    # then each range runs a vector of values at a time without a branch: the products' barriers keep the
    # long multiply-add chains unfused, and one value at a time they ran 3x slower (one at a time with the
    # range chosen per value, mispredicted branches made it 3x slower again).
    y_small, y_mid = float(np.float32(0.0891314744949340820313)), float(np.float32(2.249481201171875))
    small = (f"const ob_px_v g = a * (a + 10.0); {_horner(F._P1, 'a', 'hp')} {_horner(F._Q1, 'a', 'hq')}"
             f" ob_px_v t1 = g * {_hex(y_small)}; ob_px_v t2 = g * (hp / hq); OB_PX_VKEEP(t1); OB_PX_VKEEP(t2);"
             " const ob_px_v ev = t1 + t2;")
    mid = (f"{_horner(F._P2, 'xs', 'hp')} {_horner(F._Q2, 'xs', 'hq')}"
           f" const ob_px_v ev = a / ({_hex(y_mid)} + hp / hq);")
    lines = [
        _VECTOR,
        "const double m = in1[0], s = in1[1], root2 = in1[2];",
        "const int64_t count = in0[2] < {cap} ? in0[2] : {cap};",
        "#pragma omp parallel for schedule(static) if (count >= 16384)",
        "for (int64_t i0 = 0; i0 < count; i0 += 1024) {",
        "const int64_t n0 = count - i0 < 1024 ? count - i0 : 1024;",
        f"int32_t ids[{2 + len(F._TAILS)}][1024]; int64_t ns[{2 + len(F._TAILS)}] = {{0}};",
        "for (int64_t k = 0; k < n0; k++) { const double q = fabs(in2[i0 + k]); const double x = sqrt(-in3[i0 + k]);",
        "const int c = (1.0 - q > 0.5) * (1 + (q < 0.25) * (1 + "
        + " + ".join(f"(x >= {_hex(t[0])})" for t in F._TAILS[:-1]) + "));",
        "ids[c][ns[c]++] = (int32_t)k; }",
        _lanes(0, "a[l] = 1.0 - fabs(in2[i]);", small),
        "{ ob_px_v xs;",
        _lanes(1, "a[l] = sqrt(-2.0 * in3[i]); xs[l] = fabs(in2[i]) - 0.25;", mid),
        "}"]
    for k, (_, shift, y, pc, qc) in enumerate(F._TAILS):
        tail = (f"const ob_px_v xs = a - {_hex(shift)}; {_horner(pc, 'xs', 'hp')} {_horner(qc, 'xs', 'hq')}"
                f" ob_px_v t1 = {_hex(float(np.float32(y)))} * a; ob_px_v t2 = (hp / hq) * a;"
                " OB_PX_VKEEP(t1); OB_PX_VKEEP(t2); const ob_px_v ev = t1 + t2;")
        lines.append(_lanes(2 + k, "a[l] = sqrt(-in3[i]);", tail))
    return lines + ["}", "#undef OB_PX_VKEEP", "#undef OB_PX_V"]


_STAGES = {"uniform": _uniform, "normal_draw": _normal_draw, "normal_finish": _normal_finish,
           "truncated_draw": _truncated_draw, "truncated_finish": _truncated_finish}


def _emit(k: KernelSpec) -> str:
    # OB_PX_T: the values' type, float32 (the fills); float64 keeps them unrounded (the tests' view of every bit)
    value_type = "double" if k.attrs["dtype"] == "float64" else "float"
    lines = [_KEEP, f"#define OB_PX_T {value_type}", *_STAGES[k.attrs["stage"]](), "#undef OB_PX_T",
             "#undef OB_PX_KEEP"]
    return "\n".join(lines).replace("{cap}", str(int(k.attrs["capacity"])))


register("PhiloxFill", _emit)
