"""C text of the Jacobi SVD (Eigen's JacobiSVD with its column-pivoting QR preconditioner, the steps
ops/svd_jacobi.py states and checks against MindSpore's recorded outputs), shared by the two targets: the CPU's
Svd kernel for fewer than 16 columns (targets/cpu/kernels/svd_jacobi.py, work arrays in a thread's slot of the
kernel's workspace) and the GPU's (targets/cuda/kernels/linalg_svd.py, work arrays in a block's shared memory).
Plain C statements on arrays the caller declares, in the input's precision; no target's code is imported here."""

from __future__ import annotations

import numpy as np

from ..core.ir import KernelSpec


def _qr(rr: int, cc: int, ct: str) -> list[str]:
    """QR with column pivoting of ``qa`` (rr x cc, rr >= cc): R in its top rows, Q (rr x rr) in ``qq``, the
    column order in ``pi``."""
    size = min(rr, cc)
    return [
        f"for (int64_t j = 0; j < {cc}; j++) {{ {ct} s = 0; for (int64_t i = 0; i < {rr}; i++) "
        f"s += qa[i * {cc} + j] * qa[i * {cc} + j]; dirn[j] = sqrt(s); updn[j] = dirn[j]; pi[j] = j; }}",
        f"for (int64_t k = 0; k < {size}; k++) {{",
        f"int64_t big = k; for (int64_t j = k + 1; j < {cc}; j++) if (updn[j] > updn[big]) big = j;",
        "if (big != k) {",
        f"for (int64_t i = 0; i < {rr}; i++) {{ {ct} h = qa[i * {cc} + k]; qa[i * {cc} + k] = qa[i * {cc} + big]; "
        f"qa[i * {cc} + big] = h; }}",
        f"{ct} h = updn[k]; updn[k] = updn[big]; updn[big] = h; h = dirn[k]; dirn[k] = dirn[big]; dirn[big] = h;",
        "int64_t hp = pi[k]; pi[k] = pi[big]; pi[big] = hp; }",
        f"{ct} tail = 0; for (int64_t i = k + 1; i < {rr}; i++) tail += qa[i * {cc} + k] * qa[i * {cc} + k];",
        f"{ct} c0 = qa[k * {cc} + k], tau, beta;",
        f"if (tail <= TINY) {{ tau = 0; beta = c0; for (int64_t i = k + 1; i < {rr}; i++) qa[i * {cc} + k] = 0; }}",
        "else { beta = sqrt(c0 * c0 + tail); if (c0 >= 0) beta = -beta;",
        f"for (int64_t i = k + 1; i < {rr}; i++) qa[i * {cc} + k] /= (c0 - beta); tau = (beta - c0) / beta; }}",
        f"qa[k * {cc} + k] = beta; taus[k] = tau;",
        f"if ({rr} - k == 1) {{ for (int64_t j = k + 1; j < {cc}; j++) qa[k * {cc} + j] *= (1 - tau); }}",
        f"else if (tau != 0) for (int64_t j = k + 1; j < {cc}; j++) {{",
        f"{ct} tmp = 0; for (int64_t i = k + 1; i < {rr}; i++) tmp += qa[i * {cc} + k] * qa[i * {cc} + j];",
        f"tmp += qa[k * {cc} + j]; qa[k * {cc} + j] -= tau * tmp;",
        f"for (int64_t i = k + 1; i < {rr}; i++) qa[i * {cc} + j] -= tau * qa[i * {cc} + k] * tmp; }}",
        f"for (int64_t j = k + 1; j < {cc}; j++) if (updn[j] != 0) {{",
        f"{ct} r = fabs(qa[k * {cc} + j]) / updn[j]; r = (1 + r) * (1 - r); if (r < 0) r = 0;",
        f"{ct} q = updn[j] / dirn[j]; {ct} r2 = r * q * q;",
        f"if (r2 <= DOWN) {{ {ct} s = 0; for (int64_t i = k + 1; i < {rr}; i++) s += qa[i * {cc} + j] * "
        f"qa[i * {cc} + j]; dirn[j] = sqrt(s); updn[j] = dirn[j]; }} else updn[j] *= sqrt(r); }}",
        "}",
        f"for (int64_t i = 0; i < {rr * rr}; i++) qq[i] = 0; for (int64_t i = 0; i < {rr}; i++) qq[i * {rr} + i] = 1;",
        f"for (int64_t k = {size} - 1; k >= 0; k--) {{ {ct} tau = taus[k];",
        f"if ({rr} - k == 1) qq[k * {rr} + k] *= (1 - tau);",
        f"else if (tau != 0) for (int64_t j = k; j < {rr}; j++) {{",
        f"{ct} tmp = 0; for (int64_t i = k + 1; i < {rr}; i++) tmp += qa[i * {cc} + k] * qq[i * {rr} + j];",
        f"tmp += qq[k * {rr} + j]; qq[k * {rr} + j] -= tau * tmp;",
        f"for (int64_t i = k + 1; i < {rr}; i++) qq[i * {rr} + j] -= tau * qa[i * {cc} + k] * tmp; }} }}",
    ]


def _rot(ptr: str, a: str, b: str, stride_expr: str, count: int, c: str, s: str, ct: str) -> str:
    """Rotate the pairs ``ptr[a(i)], ptr[b(i)]``: x' = c x + s y, y' = -s x + c y (i < count)."""
    return (f"for (int64_t i = 0; i < {count}; i++) {{ {ct} x_ = {ptr}[{a.format(i=stride_expr)}], "
            f"y_ = {ptr}[{b.format(i=stride_expr)}]; {ptr}[{a.format(i=stride_expr)}] = {c} * x_ + {s} * y_; "
            f"{ptr}[{b.format(i=stride_expr)}] = -({s}) * x_ + {c} * y_; }}")


def jacobi_constants(k: KernelSpec) -> str:
    """C declaring the constants of :func:`jacobi_steps` (TINY, PREC, DOWN) in the input's precision."""
    ct = "float" if k.inputs[0].dtype == "float32" else "double"
    info = np.finfo(np.float32 if ct == "float" else np.float64)
    eps, tiny = f"({ct}){float(info.eps)!r}", f"({ct}){float(info.tiny)!r}"
    return f"const {ct} TINY = {tiny}, PREC = 2 * {eps}, DOWN = sqrt({eps});"


def jacobi_steps(k: KernelSpec) -> str:
    """C computing matrix ``t`` of the batch into the outputs: the work arrays ``xs`` (m x n), ``w`` (kk x kk + 1),
    ``uu`` (m x m), ``vv`` (n x n), ``qa`` (max x min + 1), ``qq`` (max x max) declared by the caller (the CPU
    carves them from the thread's slot of its workspace; the GPU target puts them in shared memory), with
    :func:`jacobi_constants`."""
    x = k.inputs[0]
    m, n = x.shape[-2:]
    kk = min(m, n)
    uc, vc = k.outputs[1].shape[-1], k.outputs[2].shape[-1]
    ct = "float" if x.dtype == "float32" else "double"
    cc = min(m, n)
    lines = [
        f"{ct} dirn[{cc + 1}], updn[{cc + 1}], taus[{cc + 1}], sv[{kk + 1}]; int64_t pi[{cc + 1}];",
        "(void)dirn; (void)updn; (void)taus; (void)pi; (void)qq; (void)DOWN;",
        f"{ct} *s_out = out0 + t * {kk}, *u_out = out1 + t * {m * uc}, *v_out = out2 + t * {n * vc};",
        f"const {ct} *a = in0 + t * {m * n};",
        f"{ct} scale = 0; int bad = !(xs && w && uu && vv && qa && qq);",
        f"for (int64_t i = 0; i < {m * n}; i++) {{ {ct} h = fabs(a[i]); if (h != h || isinf(h)) bad = 1; "
        "if (h > scale) scale = h; }",
        "if (bad) {",
        f"for (int64_t i = 0; i < {kk}; i++) s_out[i] = NAN; for (int64_t i = 0; i < {m * uc}; i++) u_out[i] = NAN;",
        f"for (int64_t i = 0; i < {n * vc}; i++) v_out[i] = NAN; }} else {{",
        "if (scale == 0) scale = 1;",
        f"for (int64_t i = 0; i < {m * n}; i++) xs[i] = a[i] / scale;",
        f"for (int64_t i = 0; i < {m * m}; i++) uu[i] = 0; for (int64_t i = 0; i < {n * n}; i++) vv[i] = 0;",
    ]
    if m > n:  # tall: QR of x; U = Q, V = the permutation, W = R
        lines += [f"memcpy(qa, xs, {m * n} * sizeof({ct}));", *_qr(m, n, ct),
                  f"memcpy(uu, qq, {m * m} * sizeof({ct}));",
                  f"for (int64_t j = 0; j < {n}; j++) vv[pi[j] * {n} + j] = 1;",
                  f"for (int64_t i = 0; i < {n}; i++) for (int64_t j = 0; j < {n}; j++) "
                  f"w[i * {n} + j] = j >= i ? qa[i * {n} + j] : 0;"]
    elif n > m:  # wide: QR of x^T; V = Q, U = the permutation, W = R^T
        lines += [f"for (int64_t i = 0; i < {m}; i++) for (int64_t j = 0; j < {n}; j++) "
                  f"qa[j * {m} + i] = xs[i * {n} + j];", *_qr(n, m, ct),
                  f"memcpy(vv, qq, {n * n} * sizeof({ct}));",
                  f"for (int64_t j = 0; j < {m}; j++) uu[pi[j] * {m} + j] = 1;",
                  f"for (int64_t i = 0; i < {m}; i++) for (int64_t j = 0; j < {m}; j++) "
                  f"w[i * {m} + j] = i >= j ? qa[j * {m} + i] : 0;"]
    else:
        lines += [f"memcpy(w, xs, {m * n} * sizeof({ct}));",
                  f"for (int64_t i = 0; i < {m}; i++) {{ uu[i * {m} + i] = 1; vv[i * {n} + i] = 1; }}"]
    K = kk  # noqa: N806
    row_p, row_q = "{i}", "{i}"
    lines += [
        f"{ct} maxd = 0; for (int64_t i = 0; i < {K}; i++) "
        f"if (fabs(w[i * {K} + i]) > maxd) maxd = fabs(w[i * {K} + i]);",
        "int fin = 0; int sweeps = 0;",
        "while (!fin && sweeps++ < 10000) { fin = 1;",
        f"for (int64_t p = 1; p < {K}; p++) for (int64_t q = 0; q < p; q++) {{",
        f"{ct} thr = PREC * maxd; if (thr < TINY) thr = TINY;",
        f"if (!(fabs(w[p * {K} + q]) > thr || fabs(w[q * {K} + p]) > thr)) continue;",
        "fin = 0;",
        f"{ct} m00 = w[p * {K} + p], m01 = w[p * {K} + q], m10 = w[q * {K} + p], m11 = w[q * {K} + q];",
        f"{ct} tr = m00 + m11, d = m10 - m01, c1, s1;",
        f"if (fabs(d) < TINY) {{ c1 = 1; s1 = 0; }} else {{ {ct} u_ = tr / d; {ct} tmp = sqrt(1 + u_ * u_); "
        "c1 = u_ / tmp; s1 = 1 / tmp; }",
        f"{ct} n00 = c1 * m00 + s1 * m10, n01 = c1 * m01 + s1 * m11, n11 = -s1 * m01 + c1 * m11, c2, s2;",
        f"{ct} deno = 2 * fabs(n01);",
        f"if (deno < TINY) {{ c2 = 1; s2 = 0; }} else {{ {ct} tau = (n00 - n11) / deno; "
        f"{ct} wv = sqrt(tau * tau + 1); {ct} tj = tau > 0 ? 1 / (tau + wv) : 1 / (tau - wv); "
        f"{ct} sg = tj > 0 ? 1 : -1; {ct} nn = 1 / sqrt(tj * tj + 1); s2 = -sg * (n01 / fabs(n01)) * fabs(tj) * nn; "
        "c2 = nn; }",
        f"{ct} cl = c1 * c2 - s1 * -s2, sl = c1 * -s2 + s1 * c2, ms2 = -s2;",
        # W rows p, q by the left rotation; U columns by its transpose; W and V columns by the right one.
        _rot("w", f"p * {K} + {row_p}", f"q * {K} + {row_q}", "i", K, "cl", "sl", ct),
        _rot("uu", f"{{i}} * {m} + p", f"{{i}} * {m} + q", "i", m, "cl", "sl", ct),
        _rot("w", f"{{i}} * {K} + p", f"{{i}} * {K} + q", "i", K, "c2", "ms2", ct),
        _rot("vv", f"{{i}} * {n} + p", f"{{i}} * {n} + q", "i", n, "c2", "ms2", ct),
        f"if (fabs(w[p * {K} + p]) > maxd) maxd = fabs(w[p * {K} + p]); "
        f"if (fabs(w[q * {K} + q]) > maxd) maxd = fabs(w[q * {K} + q]);",
        "} }",
        f"for (int64_t i = 0; i < {K}; i++) {{ {ct} d = w[i * {K} + i]; sv[i] = fabs(d);",
        f"if (d < 0) for (int64_t r = 0; r < {m}; r++) uu[r * {m} + i] = -uu[r * {m} + i]; }}",
        f"for (int64_t i = 0; i < {K}; i++) sv[i] *= scale;",
        f"for (int64_t i = 0; i < {K}; i++) {{ int64_t pos = i; for (int64_t j = i + 1; j < {K}; j++) "
        "if (sv[j] > sv[pos]) pos = j;",
        "if (sv[pos] == 0) break;",
        "if (pos != i) { " + f"{ct} h = sv[i]; sv[i] = sv[pos]; sv[pos] = h;",
        f"for (int64_t r = 0; r < {m}; r++) {{ h = uu[r * {m} + i]; uu[r * {m} + i] = uu[r * {m} + pos]; "
        f"uu[r * {m} + pos] = h; }}",
        f"for (int64_t r = 0; r < {n}; r++) {{ h = vv[r * {n} + i]; vv[r * {n} + i] = vv[r * {n} + pos]; "
        f"vv[r * {n} + pos] = h; }} }} }}",
        f"for (int64_t i = 0; i < {K}; i++) s_out[i] = sv[i];",
        f"for (int64_t r = 0; r < {m}; r++) for (int64_t c = 0; c < {uc}; c++) u_out[r * {uc} + c] = uu[r * {m} + c];",
        f"for (int64_t r = 0; r < {n}; r++) for (int64_t c = 0; c < {vc}; c++) v_out[r * {vc} + c] = vv[r * {n} + c];",
        "}",
    ]
    return "\n".join(line for line in lines if line)


__all__ = ["jacobi_constants", "jacobi_steps"]
