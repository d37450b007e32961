"""CPU kernels of the discrete random family (ops/random_discrete.py): categorical draws by running sums and
Fisher-Yates permutations, on the stream of the sampling kernels (``random_sample.stream``), as the NumPy
references compute them."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops import scratch_plan as S
from ..codegen import ctype
from .random_sample import stream
from .registry import register
from .scratch import carve


def _multinomial(k: KernelSpec) -> str:
    x, out = k.inputs[1], k.outputs[0]
    if out.size == 0:
        return "/* empty */"
    cats = x.shape[-1]
    rows = x.size // cats if cats else out.size // k.attrs["num_samples"]
    ks = k.attrs["num_samples"]
    repl = k.attrs["replacement"]
    return "\n".join([
        stream(),
        carve(S.multinomial(k.attrs, k.inputs, k.outputs)),
        f"for (int64_t r = 0; r < {rows}; r++) {{",
        f"for (int64_t i = 0; i < {cats}; i++) {{ double v = (double)in1[r * {cats} + i]; w[i] = v > 0 ? v : 0.0; }}",
        f"for (int64_t s = 0; s < {ks}; s++) {{",
        "double total = 0.0; int64_t last = 0;",
        f"for (int64_t i = 0; i < {cats}; i++) {{ total += w[i]; if (w[i] > 0) last = i; }}",
        f"const double target = OB_U(r * {ks} + s) * total; double acc = 0.0; int64_t pick = last;",
        f"for (int64_t i = 0; i < {cats}; i++) {{ acc += w[i]; if (acc > target && w[i] > 0) {{ pick = i; break; }} }}",
        f"out0[r * {ks} + s] = ({ctype(out.dtype)})pick;",
        *(["w[pick] = 0.0;"] if not repl else []),
        "}", "}", "#undef OB_U"])


def _permutation(n: int, parts: list[S.Part]) -> list[str]:
    """C computing ``perm`` (int64_t[n], the workspace's ``parts``) by Fisher-Yates on the stream."""
    return [
        stream(),
        carve(parts),
        f"for (int64_t i = 0; i < {n}; i++) perm[i] = i;",
        f"for (int64_t i = {n} - 1; i > 0; i--) {{",
        "int64_t j = (int64_t)(OB_U(i) * (double)(i + 1)); if (j > i) j = i;",
        "int64_t t = perm[i]; perm[i] = perm[j]; perm[j] = t;",
        "}"]


def _shuffle(k: KernelSpec) -> str:
    x = k.inputs[1]
    if x.size == 0:
        return "/* empty */"
    if not x.shape:
        return "out0[0] = in1[0];"
    n = x.shape[0]
    row = x.size // n
    return "\n".join([*_permutation(n, S.random_shuffle(k.attrs, k.inputs, k.outputs)),
                      f"for (int64_t i = 0; i < {n}; i++) memcpy(out0 + i * {row}, in1 + perm[i] * {row}, "
                      f"{row} * sizeof(*out0));",
                      "#undef OB_U"])


def _randperm(k: KernelSpec) -> str:
    out = k.outputs[0]
    n = k.attrs["n"]
    if n == 0:
        return "/* empty */"
    return "\n".join([*_permutation(n, S.randperm(k.attrs, k.inputs, k.outputs)),
                      f"for (int64_t i = 0; i < {n}; i++) out0[i] = ({ctype(out.dtype)})perm[i];", "#undef OB_U"])


register("Multinomial", _multinomial)
register("RandomShuffle", _shuffle)
register("RandpermV2", _randperm)
