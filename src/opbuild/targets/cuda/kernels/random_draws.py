"""GPU kernels of the random sampling family (ops/random_sample.py, ops/random_discrete.py): the CPU's stream
is counter-based (draw ``j`` is splitmix64 of a key mixed from the state ``[seed, counter]`` and ``j``:
ops/random_ops.py's constants), so every output element is computed from its own draws, in any thread, and
the GPU gives the CPU's values for the same state:

* StandardNormal, UniformReal, StandardLaplace, UniformInt: element ``i`` from draws ``2i, 2i + 1`` (Box-Muller)
  or ``i``, by the CPU's formulas in double (bit-identical draws; the float32 results equal the CPU's but where
  CUDA's double ``log``/``cos``/``log1p``, within 2 ulp of glibc's, straddle a float32 rounding boundary);
* Multinomial: one thread per row draws its samples in order, as the CPU's loop does. Without replacement the
  CPU zeroes each picked weight in a scratch row; here a weight counts as zero when its category is among the
  row's earlier picks (already in the output), which gives the same sums in the same order, with no workspace;
* RandomShuffle, RandpermV2: the CPU's Fisher-Yates swaps position ``i`` with ``j_i = floor(u_i (i + 1))`` for
  ``i = n - 1 .. 1``. Up to :data:`PARALLEL_MAX` positions, the element that ends at position ``p`` is found
  by undoing the swaps from the last one (``i = 1``) back to the first, following ``p``: O(n) per output row,
  each row independent, no workspace. Beyond, that O(n^2) work would dwarf the O(n) of the swaps themselves,
  so the grid's first thread alone runs Fisher-Yates in the output (the permutation's values, or the rows,
  moved as the CPU moves its indices); every element still has one writer.
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....core.ms_random_streams import MT_STATE_SIZE
from ....ops import ms_random_ops, random_discrete, random_ops, random_sample
from ... import ms_random_c
from .. import half
from ..codegen import ctype, grid_loop
from .registry import register


def stream() -> str:
    """C++ defining ``ob_u(j)``: draw ``j`` in (0, 1) of the stream keyed by the state ``in0`` = [seed, counter]
    (the CPU's ``OB_U``, ``targets/cpu/kernels/random_sample.py``), as a device lambda."""
    g, m1, m2 = random_ops.GOLDEN, random_ops.M1, random_ops.M2
    return (f"  const uint64_t key = (uint64_t)in0[0] * {g:#x}ull ^ (uint64_t)in0[1] * {m1:#x}ull;\n"
            f"  auto ob_u = [=](int64_t j) -> double {{ uint64_t z = key + (uint64_t)(j + 1) * {g:#x}ull; "
            f"z = (z ^ (z >> 30)) * {m1:#x}ull; z = (z ^ (z >> 27)) * {m2:#x}ull; z ^= z >> 31; "
            "return ((double)(z >> 11) + 0.5) * 0x1.0p-53; };\n")


_SAMPLE = {
    "StandardNormal": f"(float)(sqrt(-2.0 * log(ob_u(2 * i))) * cos({random_sample.TWO_PI!r} * ob_u(2 * i + 1)))",
    "UniformReal": "(float)ob_u(i)",
    "StandardLaplace": "(float)([&]() { const double u_ = ob_u(i) - 0.5; return (u_ > 0 ? -1.0 : u_ < 0 ? 1.0 "
                       ": 0.0) * log1p(-2.0 * fabs(u_)); }())",
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
    rows = x.size // cats if cats else out.size // ks
    # w(i): the weight of category i for draw s of row r (zero once picked, without replacement).
    picked = ("" if k.attrs["replacement"] else
              f" for (int64_t q = 0; q < s; q++) if ((int64_t)out0[r * {ks} + q] == i) return 0.0;")
    body = "\n".join([
        f"auto w = [&](int64_t r, int64_t s, int64_t i) -> double {{{picked} "
        f"const double v = (double)in1[r * {cats} + i]; return v > 0 ? v : 0.0; }};",
        f"for (int64_t s = 0; s < {ks}; s++) {{",
        "double total = 0.0; int64_t last = 0;",
        f"for (int64_t i = 0; i < {cats}; i++) {{ const double v = w(r, s, i); total += v; if (v > 0) last = i; }}",
        f"const double target = ob_u(r * {ks} + s) * total; double acc = 0.0; int64_t pick = last;",
        f"for (int64_t i = 0; i < {cats}; i++) {{ const double v = w(r, s, i); acc += v; "
        "if (acc > target && v > 0) { pick = i; break; } }",
        f"out0[r * {ks} + s] = ({ctype(out.dtype)})pick;",
        "}"])
    return stream() + grid_loop(rows, "r", body)


def _source(n: int, p: str) -> str:
    """C++ statements leaving in ``src`` the position whose element Fisher-Yates over ``n`` moves to ``p``."""
    return (f"int64_t src = {p}; for (int64_t s = 1; s < {n}; s++) {{ "
            "int64_t j = (int64_t)(ob_u(s) * (double)(s + 1)); if (j > s) j = s; "
            "if (src == s) src = j; else if (src == j) src = s; }")


#: The largest permutation computed a position per thread (O(n) each); longer ones run on one thread.
PARALLEL_MAX = 16384


def _one_thread(stmts: str) -> str:
    """``stmts`` run by the grid's first thread only."""
    return f"  if (blockIdx.x == 0 && threadIdx.x == 0) {{ {stmts} }}"


def _swaps(n: int, swap: str) -> str:
    """Fisher-Yates' swaps in the CPU's order; ``swap``: C swapping positions ``i`` and ``j``."""
    return (f"for (int64_t i = {n} - 1; i > 0; i--) {{ int64_t j = (int64_t)(ob_u(i) * (double)(i + 1)); "
            f"if (j > i) j = i; {swap} }}")


def _shuffle(k: KernelSpec) -> str:
    x = k.inputs[1]
    if x.size == 0:
        return "  /* empty */"
    if not x.shape:
        return grid_loop(1, "i", "out0[i] = in1[i];")
    n = x.shape[0]
    row = x.size // n
    if n > PARALLEL_MAX:
        ct = ctype(x.dtype)
        return stream() + _one_thread(
            f"for (int64_t e = 0; e < {x.size}; e++) out0[e] = in1[e]; "
            + _swaps(n, f"for (int64_t e = 0; e < {row}; e++) {{ const {ct} t = out0[i * {row} + e]; "
                        f"out0[i * {row} + e] = out0[j * {row} + e]; out0[j * {row} + e] = t; }}"))
    return stream() + grid_loop(n, "p", f"{_source(n, 'p')} for (int64_t e = 0; e < {row}; e++) "
                                        f"out0[p * {row} + e] = in1[src * {row} + e];")


def _randperm(k: KernelSpec) -> str:
    n = k.attrs["n"]
    if n == 0:
        return "  /* empty */"
    ct = ctype(k.outputs[0].dtype)
    if n > PARALLEL_MAX:  # the indices cast on store, then moved: the CPU's cast of the moved indices
        return stream() + _one_thread(f"for (int64_t i = 0; i < {n}; i++) out0[i] = ({ct})i; "
                                      + _swaps(n, f"const {ct} t = out0[i]; out0[i] = out0[j]; out0[j] = t;"))
    return stream() + grid_loop(n, "p", f"{_source(n, 'p')} out0[p] = ({ct})src;")


# The stream's constants live in ops/random_ops.py: hashed into these kernels' keys with the ops' modules.
_SOURCES = (random_ops, random_sample)
for _op in _SAMPLE:
    register(_op, _sample, _SOURCES)
register("Multinomial", _multinomial, (*_SOURCES, random_discrete))
register("RandomShuffle", _shuffle, (*_SOURCES, random_discrete))
register("RandpermV2", _randperm, (*_SOURCES, random_discrete))
half.allow("RandomShuffle")  # moves elements as they are stored; the other ops take no half type



# MindSpore's generators (ops/ms_random_ops.py): sequential by nature (each value's words depend on how many
# the earlier values took), so the grid's first thread runs the CPU's C text (targets/ms_random_c.py). The
# uniform ops give the CPU's bits; the normal op calls CUDA's logf, which can differ from glibc's in the last
# bit and so change a value by an ulp now and then.
_MS_BODIES = {"MsUniformReal": ms_random_c.uniform_real, "MsUniformInt": ms_random_c.uniform_int,
              "MsStandardNormal": ms_random_c.standard_normal,
              "MsShufflePerm": ms_random_c.shuffle_permutation}


def _ms_generator(k: KernelSpec) -> str:
    extra = (k.inputs[0].size == MT_STATE_SIZE,) if k.op == "MsShufflePerm" else ()
    return _one_thread("\n" + "\n".join(_MS_BODIES[k.op](k.outputs[0].size, *extra)) + "\n")


for _op in _MS_BODIES:
    register(_op, _ms_generator, (ms_random_c, ms_random_ops))

#: The ops of this module (tests, the GPU suite).
OPS: tuple[str, ...] = (*_SAMPLE, "Multinomial", "RandomShuffle", "RandpermV2", *_MS_BODIES)

__all__ = ["OPS", "PARALLEL_MAX", "stream"]
