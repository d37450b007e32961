"""The C text of MindSpore's random kernels (ops/ms_random_ops.py), shared by the CPU (C) and GPU (CUDA C++,
run by one thread) targets: plain C statements valid in both languages. Input ``in0`` is the generator state
(int64: the mt19937's 624 words and position, or the minstd_rand0's value), ``out0`` the values, ``out1`` the
advanced state; ``MsUniformInt`` reads its bounds from ``in1``/``in2``.

The arithmetic is core/ms_random_streams.py's (libstdc++'s distributions): the uniform ops' integer and double
steps are exact IEEE operations on every target; the normal op calls ``logf`` (glibc's on the CPU, CUDA's on
the GPU, which can differ from glibc's in the last bit) and rounds the two squares apart, as libstdc++'s float
code does, so that a compiler's FMA contraction of ``x*x + y*y`` cannot change the sum.
"""

from __future__ import annotations

# The next tempered mt19937 word into ``dst``; when the 624 words are used up, the reference twist in place,
# split where its second index wraps (k + 397 past 623 reads the words already twisted; the last word reads
# the new first one), so that no loop takes a modulo and gcc can vectorise the first two.
_TWIST = "(((a) & 0x80000000u) | ((b) & 0x7fffffffu))"
_MT_NEXT = (
    f"#define OB_MT_Y(a, b) {_TWIST}\n"
    "#define OB_MT_MIX(k, a, b, far) mt[k] = (far) ^ (OB_MT_Y(a, b) >> 1) ^ ((OB_MT_Y(a, b) & 1u) ? 0x9908b0dfu : 0u)\n"
    "#define OB_MT_NEXT(dst) do { if (pos >= 624) { "
    "for (int k_ = 0; k_ < 227; k_++) OB_MT_MIX(k_, mt[k_], mt[k_ + 1], mt[k_ + 397]); "
    "for (int k_ = 227; k_ < 623; k_++) OB_MT_MIX(k_, mt[k_], mt[k_ + 1], mt[k_ - 227]); "
    "OB_MT_MIX(623, mt[623], mt[0], mt[396]); pos = 0; } "
    "uint32_t t_ = mt[pos++]; t_ ^= t_ >> 11; t_ ^= (t_ << 7) & 0x9d2c5680u; t_ ^= (t_ << 15) & 0xefc60000u; "
    "(dst) = t_ ^ (t_ >> 18); } while (0)")

_MT_LOAD = ["uint32_t mt[624]; int64_t pos = in0[624];", "for (int k = 0; k < 624; k++) mt[k] = (uint32_t)in0[k];",
            _MT_NEXT]
_MT_STORE = ["for (int k = 0; k < 624; k++) out1[k] = (int64_t)mt[k];", "out1[624] = pos;", "#undef OB_MT_NEXT",
             "#undef OB_MT_MIX", "#undef OB_MT_Y"]


def uniform_real(n: int) -> list[str]:
    """``n`` values of UniformReal: libstdc++'s generate_canonical<double> of two words,
    ``(w1 + w2 * 2**32) / 2**64`` kept below 1, then float."""
    return _MT_LOAD + [
        f"for (int64_t i = 0; i < {n}; i++) {{",
        "uint32_t w1, w2; OB_MT_NEXT(w1); OB_MT_NEXT(w2);",
        "double u = ((double)w1 + (double)w2 * 4294967296.0) / 18446744073709551616.0;",
        "if (u >= 1.0) u = nextafter(1.0, 0.0);",
        "out0[i] = (float)u; }"] + _MT_STORE


def uniform_int(n: int) -> list[str]:
    """``n`` values of UniformInt on [in1, in2): libstdc++'s division-based uniform_int_distribution (words at
    or past ``span * scale`` are dropped). Bounds with nothing between them (MindSpore refuses them; a compiled
    graph cannot raise) give minval, with no draw."""
    return _MT_LOAD + [
        "const int64_t lo = (int64_t)in1[0]; const int64_t span = (int64_t)in2[0] - lo;",
        f"if (span <= 0) {{ for (int64_t i = 0; i < {n}; i++) out0[i] = (int32_t)lo; }}",
        "else { const uint64_t scale = 0xffffffffull / (uint64_t)span; const uint64_t past = (uint64_t)span * scale;",
        f"for (int64_t i = 0; i < {n}; i++) {{",
        "uint32_t w; do { OB_MT_NEXT(w); } while ((uint64_t)w >= past);",
        "out0[i] = (int32_t)(lo + (int64_t)((uint64_t)w / scale)); } }"] + _MT_STORE


def standard_normal(n: int, logf: str = "logf") -> list[str]:
    """``n`` values of StandardNormal: libstdc++'s polar normal_distribution<float> on minstd_rand0; each
    accepted pair gives ``y * mult`` then ``x * mult``, and a pair's second value left at the end is lost.
    ``logf``: the expression naming the log function to call."""
    draw = ("x = x * 16807u % 2147483647u; {u} = (float)(x - 1) / 2147483648.0f; "
            "if ({u} >= 1.0f) {u} = nextafterf(1.0f, 0.0f);")
    return [
        "uint64_t x = (uint64_t)in0[0];",
        f"for (int64_t i = 0; i < {n};) {{",
        "float vx, vy, r2;",
        "do {",
        "float ua, ub;",
        draw.format(u="ua"), draw.format(u="ub"),
        "vx = (float)(2.0 * (double)ua - 1.0); vy = (float)(2.0 * (double)ub - 1.0);",
        "volatile float sx = vx * vx; volatile float sy = vy * vy; r2 = sx + sy;",
        "} while (r2 > 1.0f || r2 == 0.0f);",
        f"const float mult = sqrtf(-2.0f * {logf}(r2) / r2);",
        f"out0[i++] = vy * mult; if (i < {n}) out0[i++] = vx * mult;",
        "}",
        "out1[0] = (int64_t)x;"]


def shuffle_permutation(n: int, mt: bool) -> list[str]:
    """The permutation ``out0`` of ``range(n)`` by libstdc++'s ``std::shuffle`` (core/ms_random_discrete.py's
    reference): from the mt19937 (``mt``: RandpermV2) or the minstd_rand0 (RandomShuffle). While ``n * n`` fits
    the generator's range, one draw gives two swap positions (``x / (i + 2)``, ``x % (i + 2)``); each draw is
    the division-based ``uniform_int_distribution`` on ``[0, hi]`` (words at or past ``bins * scale`` dropped)."""
    if mt:
        load, store, span = _MT_LOAD, _MT_STORE, "0xffffffffull"
        word = "OB_MT_NEXT(w_);"
    else:
        load, store, span = ["uint64_t x = (uint64_t)in0[0];"], ["out1[0] = (int64_t)x;"], "2147483645ull"
        word = "x = x * 16807u % 2147483647u; w_ = (uint32_t)(x - 1);"
    return load + [
        "#define OB_SHUFFLE_INDEX(dst, hi) do { const uint64_t h_ = (hi); uint32_t w_; "
        f"if (h_ == {span}) {{ {word} (dst) = w_; }} else {{ const uint64_t bins_ = h_ + 1; "
        f"const uint64_t scale_ = {span} / bins_; const uint64_t past_ = bins_ * scale_; "
        f"do {{ {word} }} while ((uint64_t)w_ >= past_); (dst) = (uint64_t)w_ / scale_; }} }} while (0)",
        f"const int64_t n = {n};",
        "for (int64_t i = 0; i < n; i++) out0[i] = i;",
        "if (n > 1) {",
        f"if ({span} / (uint64_t)n >= (uint64_t)n) {{",
        "int64_t i = 1; uint64_t j;",
        "if (n % 2 == 0) { OB_SHUFFLE_INDEX(j, 1); int64_t t = out0[1]; out0[1] = out0[j]; out0[j] = t; i = 2; }",
        "while (i < n) {",
        "const uint64_t bins = (uint64_t)i + 1; uint64_t r; OB_SHUFFLE_INDEX(r, bins * (bins + 1) - 1);",
        "const uint64_t j1 = r / (bins + 1), j2 = r % (bins + 1);",
        "int64_t t = out0[i]; out0[i] = out0[j1]; out0[j1] = t;",
        "t = out0[i + 1]; out0[i + 1] = out0[j2]; out0[j2] = t; i += 2; }",
        "} else {",
        "for (int64_t i = 1; i < n; i++) { uint64_t j; OB_SHUFFLE_INDEX(j, (uint64_t)i);",
        "int64_t t = out0[i]; out0[i] = out0[j]; out0[j] = t; } }",
        "}",
        "#undef OB_SHUFFLE_INDEX"] + store
