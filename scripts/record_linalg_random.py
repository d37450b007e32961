"""Record MindSpore's linear-algebra results and random-op shapes, dtypes and moments into
tests/fixtures/mindspore/linalg_random.npz (inputs from a fixed NumPy generator; the tests recompute them).

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_linalg_random.py``.
"""

from __future__ import annotations

from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "linalg_random.npz"


def inputs() -> dict[str, np.ndarray]:
    """The inputs (tests/ops/test_linalg_ms.py builds the same ones)."""
    rng = np.random.default_rng(25)
    a = rng.standard_normal((2, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    return {"square": a.astype(np.float32), "square64": a, "spd": spd.astype(np.float32),
            "tall": rng.standard_normal((2, 5, 3)).astype(np.float32),
            "rhs": rng.standard_normal((2, 4, 2)).astype(np.float32)}


def main() -> None:
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    x = inputs()
    out = {}
    out["inverse"] = ops.inverse(Tensor(x["square"])).asnumpy()
    out["inverse64"] = ops.inverse(Tensor(x["square64"])).asnumpy()
    out["det"] = ops.det(Tensor(x["square"])).asnumpy()
    out["det64"] = ops.det(Tensor(x["square64"])).asnumpy()
    out["cholesky"] = ops.cholesky(Tensor(x["spd"])).asnumpy()
    out["cholesky_upper"] = ops.cholesky(Tensor(x["spd"]), upper=True).asnumpy()
    q, r = ops.qr(Tensor(x["tall"]))
    out["qr_q"], out["qr_r"] = q.asnumpy(), r.asnumpy()
    q, r = ops.qr(Tensor(x["tall"]), mode="complete")
    out["qr_complete_q"], out["qr_complete_r"] = q.asnumpy(), r.asnumpy()
    s, u, v = ops.svd(Tensor(x["tall"]))
    out["svd_s"], out["svd_u"], out["svd_v"] = s.asnumpy(), u.asnumpy(), v.asnumpy()
    s, u, v = ops.svd(Tensor(x["tall"]), full_matrices=True)
    out["svd_full_u_shape"], out["svd_full_v_shape"] = np.array(u.shape), np.array(v.shape)
    chol = ops.cholesky(Tensor(x["spd"]))
    out["cholesky_solve"] = ops.cholesky_solve(Tensor(x["rhs"]), chol).asnumpy()
    out["matrix_solve"] = ops.matrix_solve(Tensor(x["square"]), Tensor(x["rhs"])).asnumpy()
    out["matrix_solve_adjoint"] = ops.matrix_solve(Tensor(x["square"]), Tensor(x["rhs"]), adjoint=True).asnumpy()
    signs = np.array([[[2.0, 1.0], [1.0, 3.0]], [[0.0, 1.0], [1.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]]], np.float32)
    sign, logabs = ops.slogdet(Tensor(x["square"]))
    out["slogdet_sign"], out["slogdet_logabs"] = sign.asnumpy(), logabs.asnumpy()
    sign, logabs = ops.slogdet(Tensor(signs))
    out["slogdet_signs_sign"], out["slogdet_signs_logabs"] = sign.asnumpy(), logabs.asnumpy()
    out["logdet_signs"] = ops.logdet(Tensor(signs)).asnumpy()
    y, tau = ops.geqrf(Tensor(x["tall"]))
    out["geqrf_y"], out["geqrf_tau"] = y.asnumpy(), tau.asnumpy()
    out["orgqr"] = ops.orgqr(y, tau).asnumpy()
    # MindSpore's CholeskyInverse takes one 2-D matrix (a batch gives unspecified values there).
    out["cholesky_inverse"] = ops.cholesky_inverse(ops.cholesky(Tensor(x["spd"][0]))).asnumpy()
    out["cholesky_inverse_upper"] = ops.cholesky_inverse(ops.cholesky(Tensor(x["spd"][0]), upper=True),
                                                         upper=True).asnumpy()
    out["matrix_power_3"] = ops.matrix_power(Tensor(x["square"]), 3).asnumpy()
    out["matrix_power_m2"] = ops.matrix_power(Tensor(x["square"]), -2).asnumpy()
    out["matrix_power_int"] = ops.matrix_power(Tensor(np.array([[2, 1], [1, 3]], np.int32)), 3).asnumpy()
    out["fftshift"] = ops.fftshift(Tensor(np.arange(30).reshape(5, 6))).asnumpy()
    out["ifftshift_dim1"] = ops.ifftshift(Tensor(np.arange(30).reshape(5, 6)), dim=1).asnumpy()
    # det's gradient (MindSpore's rule) on the float32 batch.
    out["det_grad"] = ms.grad(lambda t: ops.det(t).sum())(Tensor(x["square"])).asnumpy()
    out["inverse_grad"] = ms.grad(lambda t: ops.inverse(t).sum())(Tensor(x["square"])).asnumpy()
    # (MindSpore 2.10 has no CPU kernel for CholeskyGrad: tests compare that gradient with torch's.)
    grads = ms.grad(lambda m, r: ops.matrix_solve(m, r).sum(), grad_position=(0, 1))(Tensor(x["square"]),
                                                                                     Tensor(x["rhs"]))
    out["matrix_solve_grad_matrix"], out["matrix_solve_grad_rhs"] = (g.asnumpy() for g in grads)
    # Random ops: the values differ by design (other generator); shapes, dtypes and moments are recorded.
    ms.set_seed(7)
    samples = {
        "randn": ops.randn(20000, 2), "rand": ops.rand(20000, 2), "standard_normal": ops.standard_normal((20000, 2)),
        "normal": ops.normal((20000, 2), Tensor(2.0, ms.float32), Tensor(3.0, ms.float32)),
        "uniform": ops.uniform((20000, 2), Tensor(-1.0, ms.float32), Tensor(3.0, ms.float32)),
        "uniform_int": ops.uniform((20000, 2), Tensor(1, ms.int32), Tensor(7, ms.int32), dtype=ms.int32),
        "randint": ops.randint(1, 7, (20000, 2)),
        "laplace": ops.laplace((20000, 2), Tensor(1.0, ms.float32), Tensor(2.0, ms.float32)),
    }
    for name, t in samples.items():
        arr = t.asnumpy()
        out[f"rand_{name}_shape"] = np.array(arr.shape)
        out[f"rand_{name}_dtype"] = np.array(str(arr.dtype))
        out[f"rand_{name}_moments"] = np.array([arr.astype(np.float64).mean(), arr.astype(np.float64).std(),
                                                arr.min(), arr.max()])
    probs = Tensor(np.array([[0.1, 0.2, 0.7], [0.5, 0.0, 0.5]], np.float32))
    draws = ops.multinomial(probs, 20000).asnumpy()
    out["multinomial_dtype"] = np.array(str(draws.dtype))
    out["multinomial_freq"] = np.stack([np.bincount(row, minlength=3) / row.size for row in draws])
    out["multinomial_norepl"] = ops.multinomial(probs, 2, replacement=False).asnumpy()
    shuffled = ops.shuffle(Tensor(np.arange(12).reshape(4, 3).astype(np.float32))).asnumpy()
    out["shuffle_dtype"], out["shuffle_shape"] = np.array(str(shuffled.dtype)), np.array(shuffled.shape)
    perm = ops.randperm(7, seed=3)
    out["randperm_dtype"], out["randperm_sorted"] = np.array(str(perm.asnumpy().dtype)), np.sort(perm.asnumpy())
    out["randperm_f32_dtype"] = np.array(str(ops.randperm(4, dtype=ms.float32).asnumpy().dtype))
    np.savez(OUT, **out)
    print(f"wrote {len(out)} arrays to {OUT}")


if __name__ == "__main__":
    main()
