"""CPU kernels of the random sampling family (ops/random_sample.py): the family's splitmix64 stream (constants
read from the op modules, so editing them rekeys the kernels) turned into normal, uniform, Laplace or integer
samples, as the NumPy references compute them."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops import random_ops as R
from ....ops import random_sample as S
from .registry import register


def stream() -> str:
    """C defining ``OB_U(j)``, draw ``j`` of the stream in (0, 1), keyed by the state input ``in0`` = [seed,
    counter]. A function rather than a constant, so that the key's source walk reaches the constants' module."""
    return "\n".join([
        f"const uint64_t key = (uint64_t)in0[0] * {R.GOLDEN:#x}ull ^ (uint64_t)in0[1] * {R.M1:#x}ull;",
        "#define OB_U(j) ({ uint64_t z_ = key + (uint64_t)((j) + 1) * " + f"{R.GOLDEN:#x}ull; "
        f"z_ = (z_ ^ (z_ >> 30)) * {R.M1:#x}ull; z_ = (z_ ^ (z_ >> 27)) * {R.M2:#x}ull; z_ ^= z_ >> 31; "
        "((double)(z_ >> 11) + 0.5) * 0x1.0p-53; })"])


_SAMPLE = {
    "StandardNormal": f"(float)(sqrt(-2.0 * log(OB_U(2 * i))) * cos({S.TWO_PI!r} * OB_U(2 * i + 1)))",
    "UniformReal": "(float)OB_U(i)",
    "StandardLaplace": "(float)({ double u_ = OB_U(i) - 0.5; (u_ > 0 ? -1.0 : u_ < 0 ? 1.0 : 0.0) "
                       "* log1p(-2.0 * fabs(u_)); })",
    "UniformInt": "(int32_t)((int64_t)floor(OB_U(i) * span) + lo)",
}


def _emit(k: KernelSpec) -> str:
    n = k.outputs[0].size
    if n == 0:
        return "/* empty */"
    lines = [stream()]
    if k.op == "UniformInt":
        lines.append("const int64_t lo = in1[0]; const double span = (double)((int64_t)in2[0] - lo);")
    lines += [f"for (int64_t i = 0; i < {n}; i++) out0[i] = {_SAMPLE[k.op]};", "#undef OB_U"]
    return "\n".join(lines)


for _op in _SAMPLE:
    register(_op, _emit)


# ---- MindSpore's kernels (ops/ms_random_ops.py): mt19937 / minstd_rand0 state in, values and state out -------
def _mt_words() -> list[str]:
    """C loading the mt19937 state ``in0`` (624 words, position) into ``mt``/``pos`` and defining ``OB_MT()``, the
    next tempered 32-bit word (the reference twist, in place)."""
    return [
        "uint32_t mt[624]; int64_t pos = in0[624];",
        "for (int k = 0; k < 624; k++) mt[k] = (uint32_t)in0[k];",
        "#define OB_MT() ({ if (pos >= 624) { for (int k_ = 0; k_ < 624; k_++) { "
        "uint32_t y_ = (mt[k_] & 0x80000000u) | (mt[(k_ + 1) % 624] & 0x7fffffffu); "
        "mt[k_] = mt[(k_ + 397) % 624] ^ (y_ >> 1) ^ ((y_ & 1u) ? 0x9908b0dfu : 0u); } pos = 0; } "
        "uint32_t t_ = mt[pos++]; t_ ^= t_ >> 11; t_ ^= (t_ << 7) & 0x9d2c5680u; t_ ^= (t_ << 15) & 0xefc60000u; "
        "t_ ^ (t_ >> 18); })"]


_MT_STORE = ["for (int k = 0; k < 624; k++) out1[k] = (int64_t)mt[k];", "out1[624] = pos;", "#undef OB_MT"]


def _ms_uniform_real_emit(k: KernelSpec) -> str:
    # libstdc++'s generate_canonical<double>: two words, (w1 + w2 * 2**32) / 2**64, kept below 1; then float
    return "\n".join(_mt_words() + [
        f"for (int64_t i = 0; i < {k.outputs[0].size}; i++) {{",
        "const double lo_ = (double)OB_MT(); const double hi_ = (double)OB_MT();",
        "double u = (lo_ + hi_ * 4294967296.0) / 18446744073709551616.0;",
        "if (u >= 1.0) u = nextafter(1.0, 0.0);",
        "out0[i] = (float)u; }"] + _MT_STORE)


def _ms_uniform_int_emit(k: KernelSpec) -> str:
    # libstdc++'s division-based uniform_int_distribution: words at or past span * scale are dropped
    return "\n".join(_mt_words() + [
        "const int64_t lo = in1[0]; const int64_t span = (int64_t)in2[0] - lo;",
        f"if (span <= 0) {{ for (int64_t i = 0; i < {k.outputs[0].size}; i++) out0[i] = (int32_t)lo; }}",
        "else { const uint64_t scale = 0xffffffffull / (uint64_t)span; const uint64_t past = (uint64_t)span * scale;",
        f"for (int64_t i = 0; i < {k.outputs[0].size}; i++) {{",
        "uint64_t w; do { w = OB_MT(); } while (w >= past);",
        "out0[i] = (int32_t)(lo + (int64_t)(w / scale)); } }"] + _MT_STORE)


def _ms_standard_normal_emit(k: KernelSpec) -> str:
    # libstdc++'s polar normal_distribution<float> on minstd_rand0. The squares are rounded apart (volatile):
    # -march=native would fuse x*x + y*y into an FMA, which rounds once. logf is called through a volatile
    # pointer so that gcc keeps glibc's scalar logf (the reference's) and never swaps in a vector version.
    return "\n".join([
        "float (*volatile ob_logf)(float) = logf;",
        "uint64_t x = (uint64_t)in0[0];",
        f"for (int64_t i = 0; i < {k.outputs[0].size};) {{",
        "float vx, vy, r2;",
        "do {",
        "x = x * 16807u % 2147483647u; float ua = (float)(x - 1) / 2147483648.0f;",
        "if (ua >= 1.0f) ua = nextafterf(1.0f, 0.0f);",
        "x = x * 16807u % 2147483647u; float ub = (float)(x - 1) / 2147483648.0f;",
        "if (ub >= 1.0f) ub = nextafterf(1.0f, 0.0f);",
        "vx = (float)(2.0 * (double)ua - 1.0); vy = (float)(2.0 * (double)ub - 1.0);",
        "volatile float sx = vx * vx, sy = vy * vy; r2 = sx + sy;",
        "} while (r2 > 1.0f || r2 == 0.0f);",
        "const float mult = sqrtf(-2.0f * ob_logf(r2) / r2);",
        f"out0[i++] = vy * mult; if (i < {k.outputs[0].size}) out0[i++] = vx * mult;",
        "}",
        "out1[0] = (int64_t)x;"])


register("MsUniformReal", _ms_uniform_real_emit)
register("MsUniformInt", _ms_uniform_int_emit)
register("MsStandardNormal", _ms_standard_normal_emit)
