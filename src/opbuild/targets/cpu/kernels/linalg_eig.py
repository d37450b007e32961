"""CPU kernel of ops/linalg_eig.py: LAPACKE geev per matrix (right eigenvectors only), its real pairs turned
into complex values and vectors, then MindSpore's order (smallest magnitude swapped forward) and storage as
C99 complex numbers."""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops import scratch_plan as S
from .linalg import _ROW_MAJOR, _batch, _t, oom
from .registry import emits
from .scratch import carve


@emits("Eig", blas=True)
def _eig(k: KernelSpec) -> str:
    x = k.inputs[0]
    n, b = x.shape[-1], _batch(x.shape)
    ct, p = _t(x.dtype)
    cplx = "float _Complex" if ct == "float" else "double _Complex"
    vec = bool(k.attrs["compute_v"])
    if x.size == 0:
        return "/* empty */" if vec or b == 0 else f"out1[0] = ({cplx})0;"
    I, A = "OB_BLAS_INT", f"{ct} *"  # noqa: E741, N806
    lines = [
        f"extern {I} OB_LAPACKE({p}geev)(int, char, char, {I}, {A}, {I}, {A}, {A}, {A}, {I}, {A}, {I});",
        f"const int64_t n = {n};",
        carve(S.eig(k.attrs, k.inputs, k.outputs)),
        f"for (int64_t t = 0; t < {b}; t++) {{",
        f"{cplx} *w = out0 + t * n;",
        "memcpy(a, in0 + t * n * n, n * n * sizeof(*a));",
        f"OB_BLAS_INT info = OB_LAPACKE({p}geev)({_ROW_MAJOR}, 'N', '{'V' if vec else 'N'}', n, a, n, wr, wi, NULL, 1, "
        "vr, n);",
        oom("t"),
        "if (info != 0) {",
        f"for (int64_t i = 0; i < n; i++) w[i] = __builtin_complex(({ct})NAN, ({ct})NAN);",
    ]
    if vec:
        lines.append(f"for (int64_t i = 0; i < n * n; i++) out1[t * n * n + i] = __builtin_complex(({ct})NAN, "
                     f"({ct})NAN);")
    lines += [
        "continue; }",
        "for (int64_t j = 0; j < n; j++) { re[j] = wr[j]; im[j] = wi[j]; }",
    ]
    if vec:
        # A complex pair (j, j + 1) shares columns: v_j = vr[:, j] + i vr[:, j + 1], v_{j+1} its conjugate.
        lines += [
            "for (int64_t j = 0; j < n; j++) {",
            "if (wi[j] != 0 && j + 1 < n) { for (int64_t r = 0; r < n; r++) {",
            "vre[r * n + j] = vr[r * n + j]; vim[r * n + j] = vr[r * n + j + 1];",
            "vre[r * n + j + 1] = vr[r * n + j]; vim[r * n + j + 1] = -vr[r * n + j + 1]; } j++; }",
            "else for (int64_t r = 0; r < n; r++) { vre[r * n + j] = vr[r * n + j]; vim[r * n + j] = 0; } }",
        ]
    lines += [
        "for (int64_t i = 0; i < n; i++) {",
        "int64_t m = i; double best = hypot(re[i], im[i]);",
        "for (int64_t j = i + 1; j < n; j++) { double h = hypot(re[j], im[j]); if (h < best) { best = h; m = j; } }",
        "if (m != i) { double s = re[i]; re[i] = re[m]; re[m] = s; s = im[i]; im[i] = im[m]; im[m] = s;",
    ]
    if vec:
        lines.append("for (int64_t r = 0; r < n; r++) { s = vre[r * n + i]; vre[r * n + i] = vre[r * n + m]; "
                     "vre[r * n + m] = s; s = vim[r * n + i]; vim[r * n + i] = vim[r * n + m]; vim[r * n + m] = s; }")
    lines += [
        "} }",
        f"for (int64_t i = 0; i < n; i++) w[i] = __builtin_complex(({ct})re[i], ({ct})im[i]);",
    ]
    if vec:
        lines.append(f"for (int64_t i = 0; i < n * n; i++) out1[t * n * n + i] = __builtin_complex(({ct})vre[i], "
                     f"({ct})vim[i]);")
    lines.append("}")
    if not vec:
        lines.append(f"out1[0] = ({cplx})0;")
    return "\n".join(lines)
