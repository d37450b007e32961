"""GPU kernels of the random samplers (ops/random_sample.py: StandardNormal, UniformReal, StandardLaplace,
UniformInt) and of the discrete draws (ops/random_discrete.py: Multinomial, RandomShuffle, RandpermV2).

Every draw is a pure function of the state input ``[seed, counter]`` and its position in the stream
(splitmix64 of a key mixed from the three, scaled to (0, 1) with 53 bits), so the GPU computes the CPU's
stream bit for bit (targets/cpu/kernels/random_sample.py; the constants are read from the op modules) and the
same seeds give the same samples on both targets. The continuous samplers then apply double-precision
``log``/``cos``/``log1p``, whose last bit may differ between CUDA's library and the host's, before rounding to
float32; the integer and discrete draws are exact.

Parallel where the CPU's order allows it: one thread per sample; Multinomial with replacement one thread per
draw, without replacement one thread per row (a draw removes its category from the row's later draws, which
that thread reads back from its own outputs); a Fisher-Yates permutation is sequential, so RandpermV2 is one
thread swapping in its output, and RandomShuffle one thread per column of a row, each replaying the same
swaps on its column.
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops import random_ops as R
from ....ops import random_sample as S
from ..codegen import ctype, grid_loop
from .registry import register


def stream(state: str = "in0") -> str:
    """CUDA C defining ``ob_u(j)``, draw ``j`` of the stream in (0, 1), keyed by ``state`` = [seed, counter]."""
    return (f"  const uint64_t key = (uint64_t){state}[0] * {R.GOLDEN:#x}ULL ^ (uint64_t){state}[1] * {R.M1:#x}ULL;\n"
            f"  auto ob_u = [key](int64_t j) -> double {{ uint64_t z = key + (uint64_t)(j + 1) * {R.GOLDEN:#x}ULL; "
            f"z = (z ^ (z >> 30)) * {R.M1:#x}ULL; z = (z ^ (z >> 27)) * {R.M2:#x}ULL; z ^= z >> 31; "
            "return ((double)(z >> 11) + 0.5) * 0x1.0p-53; };\n")


_SAMPLE = {
    "StandardNormal": f"(float)(sqrt(-2.0 * log(ob_u(2 * i))) * cos({S.TWO_PI!r} * ob_u(2 * i + 1)))",
    "UniformReal": "(float)ob_u(i)",
    "StandardLaplace": "(float)([&]() { const double u = ob_u(i) - 0.5; "
                       "return (u > 0 ? -1.0 : u < 0 ? 1.0 : 0.0) * log1p(-2.0 * fabs(u)); }())",
    "UniformInt": "(int32_t)((int64_t)floor(ob_u(i) * span) + lo)",
}


def _sample(k: KernelSpec) -> str:
    n = k.outputs[0].size
    if n == 0:
        return "  /* empty */"
    bounds = ("  const int64_t lo = in1[0]; const double span = (double)((int64_t)in2[0] - lo);\n"
              if k.op == "UniformInt" else "")
    return stream() + bounds + grid_loop(n, "i", f"out0[i] = {_SAMPLE[k.op]};")


def _multinomial(k: KernelSpec) -> str:
    x, out = k.inputs[1], k.outputs[0]
    if out.size == 0:
        return "  /* empty */"
    cats, ks = x.shape[-1], k.attrs["num_samples"]
    rows = out.size // ks
    t = ctype(out.dtype)
    weight = f"(double)in1[r * {cats}LL + i] > 0 ? (double)in1[r * {cats}LL + i] : 0.0"
    if k.attrs["replacement"]:  # the row's weights never change: every draw on its own
        draw = (f"const int64_t r = d / {ks}LL; double total = 0.0; int64_t last = 0; "
                f"for (int64_t i = 0; i < {cats}LL; i++) {{ const double w = {weight}; total += w; "
                "if (w > 0) last = i; } "
                "const double target = ob_u(d) * total; double acc = 0.0; int64_t pick = last; "
                f"for (int64_t i = 0; i < {cats}LL; i++) {{ const double w = {weight}; acc += w; "
                "if (acc > target && w > 0) { pick = i; break; } } "
                f"out0[d] = ({t})pick;")
        return stream() + grid_loop(rows * ks, "d", draw)
    # Without replacement a category drawn earlier in the row weighs 0: its index is in out0[row, :s].
    taken = (f"[&](int64_t i) {{ for (int64_t p = 0; p < s; p++) if ((int64_t)out0[r * {ks}LL + p] == i) "
             "return true; return false; }")
    draw = (f"for (int64_t s = 0; s < {ks}LL; s++) {{ auto taken = {taken}; double total = 0.0; int64_t last = 0; "
            f"for (int64_t i = 0; i < {cats}LL; i++) {{ const double w = taken(i) ? 0.0 : {weight}; total += w; "
            "if (w > 0) last = i; } "
            f"const double target = ob_u(r * {ks}LL + s) * total; double acc = 0.0; int64_t pick = last; "
            f"for (int64_t i = 0; i < {cats}LL; i++) {{ const double w = taken(i) ? 0.0 : {weight}; acc += w; "
            "if (acc > target && w > 0) { pick = i; break; } } "
            f"out0[r * {ks}LL + s] = ({t})pick; }}")
    return stream() + grid_loop(rows, "r", draw)


def _swaps(n: int, stmt: str) -> str:
    """The Fisher-Yates swaps of the CPU (``i`` from the last position down, with ``j`` drawn in ``[0, i]``),
    each running ``stmt`` on ``i`` and ``j``."""
    return (f"for (int64_t i = {n - 1}LL; i > 0; i--) {{ int64_t j = (int64_t)(ob_u(i) * (double)(i + 1)); "
            f"if (j > i) j = i; {stmt} }}")


def _shuffle(k: KernelSpec) -> str:
    x = k.inputs[1]
    if x.size == 0:
        return "  /* empty */"
    if not x.shape:
        return grid_loop(1, "c", "out0[0] = in1[0];")
    n = x.shape[0]
    row = x.size // n
    t = ctype(x.dtype)
    body = (f"for (int64_t i = 0; i < {n}LL; i++) out0[i * {row}LL + c] = in1[i * {row}LL + c]; "
            + _swaps(n, f"const {t} v = out0[i * {row}LL + c]; out0[i * {row}LL + c] = out0[j * {row}LL + c]; "
                        f"out0[j * {row}LL + c] = v;"))
    return stream("in0") + grid_loop(row, "c", body)


def _randperm(k: KernelSpec) -> str:
    n = k.attrs["n"]
    if n == 0:
        return "  /* empty */"
    t = ctype(k.outputs[0].dtype)
    # Swapping the stored values permutes them as the CPU's int64 array, then its store, would: the store of
    # index v is the same value (T)v wherever v moves.
    body = (f"for (int64_t i = 0; i < {n}LL; i++) out0[i] = ({t})i; "
            + _swaps(n, f"const {t} v = out0[i]; out0[i] = out0[j]; out0[j] = v;"))
    return stream() + grid_loop(1, "one", body)


for _op in _SAMPLE:
    register(_op, _sample, deps=(R,))
register("Multinomial", _multinomial, deps=(R, S))
register("RandomShuffle", _shuffle, deps=(R, S))
register("RandpermV2", _randperm, deps=(R, S))

#: The ops of this family (what ``scripts/gpu_check.py`` and the tests cover).
OPS: tuple[str, ...] = (*_SAMPLE, "Multinomial", "RandomShuffle", "RandpermV2")

__all__ = ["OPS", "stream"]
