"""Cases of MindSpore's special functions (lgamma, digamma, polygamma, erfinv, sinc, the Bessel functions),
written once against a MindSpore-shaped namespace: scripts/record_optim_image.py runs them on real MindSpore
2.10 (tests/fixtures/optim_image.npz) and tests/compat/test_special.py on opbuild.

Each case is ``name -> (fn(ms, ops, *tensors), inputs)``. This module imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

RNG = np.random.default_rng(2512)
WIDE = np.concatenate([RNG.uniform(-12, 12, 40), [0.0, 0.5, 1.0, 2.0, 7.5, 25.0, 60.0, -0.5, -2.5]]).astype(
    np.float32)
POS = np.concatenate([RNG.uniform(0.05, 30, 30), [0.001, 1.0, 2.0, 80.0]]).astype(np.float32)
UNIT = np.concatenate([RNG.uniform(-0.999, 0.999, 30), [0.0, 0.5, -0.9999, 0.9999]]).astype(np.float32)


def _grad(f: Callable) -> Callable:
    return lambda ms, ops, x: ms.grad(lambda t: f(ops, t).sum())(x)


CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "lgamma": (lambda ms, ops, x: ops.lgamma(x), [WIDE]),
    "lgamma_f64": (lambda ms, ops, x: ops.lgamma(x), [WIDE.astype(np.float64)]),
    "digamma": (lambda ms, ops, x: ops.digamma(x), [WIDE]),
    "digamma_f64": (lambda ms, ops, x: ops.digamma(x), [POS.astype(np.float64)]),
    "polygamma_1": (lambda ms, ops, x: ops.polygamma(ms.Tensor(np.array(1, np.int64)), x), [POS]),
    "polygamma_2": (lambda ms, ops, x: ops.polygamma(ms.Tensor(np.array(2, np.int64)), x), [POS]),
    "polygamma_3_neg": (lambda ms, ops, x: ops.polygamma(ms.Tensor(np.array(3, np.int64)), x), [WIDE]),
    "erfinv": (lambda ms, ops, x: ops.erfinv(x), [UNIT]),
    "erfinv_f64": (lambda ms, ops, x: ops.erfinv(x), [UNIT.astype(np.float64)]),
    "sinc": (lambda ms, ops, x: ops.sinc(x), [WIDE]),
    "bessel_j0": (lambda ms, ops, x: ops.bessel_j0(x), [WIDE]),
    "bessel_j1": (lambda ms, ops, x: ops.bessel_j1(x), [WIDE]),
    "bessel_y0": (lambda ms, ops, x: ops.bessel_y0(x), [POS]),
    "bessel_y1": (lambda ms, ops, x: ops.bessel_y1(x), [POS]),
    "bessel_i0": (lambda ms, ops, x: ops.bessel_i0(x), [WIDE]),
    "bessel_i0e": (lambda ms, ops, x: ops.bessel_i0e(x), [WIDE]),
    "bessel_i1": (lambda ms, ops, x: ops.bessel_i1(x), [WIDE]),
    "bessel_i1e": (lambda ms, ops, x: ops.bessel_i1e(x), [WIDE]),
    "i0": (lambda ms, ops, x: ops.i0(x), [WIDE]),
    "bessel_k0": (lambda ms, ops, x: ops.bessel_k0(x), [POS]),
    "bessel_k0e": (lambda ms, ops, x: ops.bessel_k0e(x), [POS]),
    "bessel_k1": (lambda ms, ops, x: ops.bessel_k1(x), [POS]),
    "bessel_k1e": (lambda ms, ops, x: ops.bessel_k1e(x), [POS]),
    "bessel_k0_nonpositive": (lambda ms, ops, x: ops.bessel_k0(x), [np.array([0.0, -1.0, 1e-30], np.float32)]),
    "bessel_k1e_nonpositive": (lambda ms, ops, x: ops.bessel_k1e(x), [np.array([0.0, -1.0, 1e-3], np.float32)]),
    "zeta": (lambda ms, ops, s, q: ops.zeta(s, q), [np.array([2.0, 3.5, 1.5, 7.0, 2.0, 4.0], np.float32),
                                                     np.array([1.0, 0.3, 2.0, 12.0, 50.0, 0.05], np.float32)]),
    "zeta_f64": (lambda ms, ops, s, q: ops.zeta(s, q), [np.array([2.0, 3.0, 1.1, 9.5, 2.5, 5.0], np.float64),
                                                         POS[:6].astype(np.float64)]),
    "mvlgamma": (lambda ms, ops, x: ops.mvlgamma(x, 3), [POS[POS > 1.1]]),
    "grad_bessel_k0": (_grad(lambda ops, t: ops.bessel_k0(t)), [POS]),
    "grad_bessel_k1e": (_grad(lambda ops, t: ops.bessel_k1e(t)), [POS]),
    "grad_mvlgamma": (_grad(lambda ops, t: ops.mvlgamma(t, 2)), [POS[POS > 0.6]]),
    "grad_zeta_x": (lambda ms, ops, s, q: ms.grad(lambda a, b: ops.zeta(a, b).sum(), 0)(s, q),
                    [np.array([2.0, 3.5, 1.5], np.float32), np.array([1.0, 0.3, 2.0], np.float32)]),
    "grad_zeta_q": (lambda ms, ops, s, q: ms.grad(lambda a, b: ops.zeta(a, b).sum(), 1)(s, q),
                    [np.array([2.0, 3.5, 1.5], np.float32), np.array([1.0, 0.3, 2.0], np.float32)]),
    "grad_lgamma": (_grad(lambda ops, t: ops.lgamma(t)), [POS]),
    "grad_digamma": (_grad(lambda ops, t: ops.digamma(t)), [POS]),
    "grad_erfinv": (_grad(lambda ops, t: ops.erfinv(t)), [UNIT]),
    "grad_sinc": (_grad(lambda ops, t: ops.sinc(t)), [WIDE]),
    "grad_bessel_j0": (_grad(lambda ops, t: ops.bessel_j0(t)), [WIDE]),
    "grad_bessel_j1": (_grad(lambda ops, t: ops.bessel_j1(t)), [WIDE]),
    "grad_bessel_y0": (_grad(lambda ops, t: ops.bessel_y0(t)), [POS]),
    "grad_bessel_i0": (_grad(lambda ops, t: ops.bessel_i0(t)), [WIDE]),
    "grad_bessel_i1e": (_grad(lambda ops, t: ops.bessel_i1e(t)), [WIDE]),
}


def outputs(result: Any) -> list[np.ndarray]:
    """A case's result (a Tensor or a tuple of them) as NumPy arrays."""
    items = result if isinstance(result, (tuple, list)) else [result]
    return [np.array(t.asnumpy()) for t in items]


def run(ms: Any, ops: Any, name: str) -> list[np.ndarray]:
    """Case ``name`` on ``ms``/``ops`` (PyNative)."""
    fn, inputs = CASES[name]
    return outputs(fn(ms, ops, *[ms.Tensor(a) for a in inputs]))


__all__ = ["CASES", "outputs", "run"]
