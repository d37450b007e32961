"""CPU kernels of the random sampling family (ops/random_sample.py): the family's splitmix64 stream (constants
read from the op modules, so editing them rekeys the kernels) turned into normal, uniform, Laplace or integer
samples, as the NumPy references compute them."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....core.ms_random_streams import MT_STATE_SIZE
from ....ops import random_ops as R
from ....ops import random_sample as S
from ... import ms_random_c as M
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



# ---- MindSpore's kernels (ops/ms_random_ops.py): generator state in, values and advanced state out --------------
def _ms_emit(k: KernelSpec) -> str:
    n = k.outputs[0].size
    if k.op == "MsUniformReal":
        return "\n".join(M.uniform_real(n))
    if k.op == "MsUniformInt":
        return "\n".join(M.uniform_int(n))
    if k.op == "MsShufflePerm":
        return "\n".join(M.shuffle_permutation(n, mt=k.inputs[0].size == MT_STATE_SIZE))
    # glibc's scalar logf, the host reference's, called through a volatile pointer so that gcc never swaps in
    # a vector version (the prelude declares libmvec's for vectorised loops)
    return "\n".join(["float (*volatile ob_logf)(float) = logf;"] + M.standard_normal(n, "ob_logf"))


for _op in ("MsUniformReal", "MsUniformInt", "MsStandardNormal", "MsShufflePerm"):
    register(_op, _ms_emit)
