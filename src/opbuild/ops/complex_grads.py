"""Gradient rules of the complex ops (Real, Imag, Conj, Complex) and of the FFT primitive (``FFTN``).

Convention (docs/fft.md): a complex cotangent is the *transpose* of the linear map, as JAX defines it: for a
holomorphic op (Add, Mul, Exp, ...) the real-number rules hold unchanged, and the cotangent of a complex
input ``a + ib`` of a real loss is ``dL/da - i dL/db``. For a real input the gradient is the ordinary real
one, whatever the convention. So: Real's cotangent is ``complex(dy, 0)``, Imag's ``complex(0, -dy)``, Conj's
``conj(dy)``, Complex(a, b)'s ``(real(dz), -imag(dz))``; a c2c transform's is the same transform of the
cotangent (the DFT matrix is symmetric), cut or zero-padded back to the input's lengths; a real-to-complex
transform's is the full transform of the zero-padded cotangent, real part; a complex-to-real transform's is
the real-to-complex transform of the cotangent, its interior frequencies doubled (each stands for itself and
its mirror).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.tensor import Tensor
from . import elementwise  # noqa: F401 - declares Real, Imag, Conj and Complex before their rules attach
from . import gradlib as G
from .primitive import apply
from .registry import grad_rule
from .spectral import OP as FFTN


def _complex(re: Tensor, im: Tensor) -> Tensor:
    return apply("Complex", {}, [re, im])


def _zeros(shape: Sequence[int], dtype: str) -> Tensor:
    return Tensor(np.zeros(tuple(shape), dtype=dtype))


@grad_rule("Real")
def _real_grad(attrs, ins, outs, douts):
    (x,), dy = ins, douts[0]
    if not x.dtype.is_complex:
        return [dy]
    return [_complex(dy, G.zeros_like(dy))]


@grad_rule("Imag")
def _imag_grad(attrs, ins, outs, douts):
    (x,), dy = ins, douts[0]
    if not x.dtype.is_complex:
        return [G.zeros_like(dy)]
    return [_complex(G.zeros_like(dy), G.neg(dy))]


@grad_rule("Conj")
def _conj_grad(attrs, ins, outs, douts):
    return [apply("Conj", {}, [douts[0]])]


@grad_rule("Complex")
def _complex_grad(attrs, ins, outs, douts):
    dz = douts[0]
    re, im = apply("Real", {}, [dz]), G.neg(apply("Imag", {}, [dz]))
    return [G.unbroadcast(re, ins[0].shape), G.unbroadcast(im, ins[1].shape)]


def _magnitude_cotangent(z: Tensor, scale: Tensor) -> Tensor:
    """``scale * conj(z)`` with ``scale`` real (the common shape of the |z| and arg(z) cotangents)."""
    return G.mul(apply("Conj", {}, [z]), scale)


def _safe(t: Tensor) -> Tensor:
    """``t`` with its zeros replaced by ones (a divisor at z = 0, where conj(z) makes the cotangent 0)."""
    return G.select(apply("Equal", {}, [t, G.const(0, t)]), G.add(G.zeros_like(t), 1.0), t)


@grad_rule("ComplexAbs")
def _complex_abs_grad(attrs, ins, outs, douts):
    # d|z|: dL/da - i dL/db = dy (a - ib) / |z| = dy conj(z) / |z|
    (z,), y, dy = ins, outs[0], douts[0]
    return [_magnitude_cotangent(z, _complex(G.div(dy, _safe(y)), G.zeros_like(dy)))]


@grad_rule("Angle")
def _angle_grad(attrs, ins, outs, douts):
    # d atan2(b, a): (-b da + a db) / |z|^2, so dL/da - i dL/db = -i dy conj(z) / |z|^2
    (z,), dy = ins, douts[0]
    r2 = apply("Real", {}, [G.mul(z, apply("Conj", {}, [z]))])
    return [_magnitude_cotangent(z, _complex(G.zeros_like(dy), G.neg(G.div(dy, _safe(r2)))))]


def _fit(t: Tensor, axis: int, n: int) -> Tensor:
    """``t`` cut or zero-padded to length ``n`` along ``axis`` (the transpose of cutting is padding)."""
    have = t.shape[axis]
    if have == n:
        return t
    if have > n:
        begin = [0] * len(t.shape)
        size = list(t.shape)
        size[axis] = n
        return apply("Slice", {"begin": tuple(begin), "size": tuple(size)}, [t])
    pad = list(t.shape)
    pad[axis] = n - have
    return apply("Concat", {"axis": axis}, [t, _zeros(pad, t.dtype.name)])


def _fftn(t: Tensor, attrs: dict, kind: str, s: Sequence[int]) -> Tensor:
    return apply(FFTN, {"dims": attrs["dims"], "s": tuple(s), "kind": kind, "forward": attrs["forward"],
                        "norm": attrs["norm"]}, [t])


@grad_rule(FFTN)
def _fftn_grad(attrs, ins, outs, douts):
    x, dy = ins[0], douts[0]
    dims, s, kind = attrs["dims"], list(attrs["s"]), attrs["kind"]
    if kind == "c2c":
        g = _fftn(dy, attrs, "c2c", s)
    elif kind == "r2c":
        last = dims[-1]
        g = _fftn(_fit(dy, last, s[-1]), attrs, "c2c", s)
    else:  # c2r: the cotangent of the half spectrum, interior frequencies counted twice
        last, n = dims[-1], s[-1]
        g = _fftn(dy, attrs, "r2c", s)
        half = n // 2 + 1
        weights = np.full(half, 2.0)
        weights[0] = 1.0
        if n % 2 == 0:
            weights[-1] = 1.0
        shape = [1] * len(g.shape)
        shape[last] = half
        g = G.mul(g, Tensor(weights.reshape(shape).astype(g.dtype.name)))
    for d, n in zip(dims, [x.shape[d] for d in dims], strict=True):
        g = _fit(g, d, n)
    if not x.dtype.is_complex:
        g = apply("Real", {}, [g])
        if g.dtype.name != x.dtype.name:
            g = G.cast(g, x.dtype.name)
    return [g]
