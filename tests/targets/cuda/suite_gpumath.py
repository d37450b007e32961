"""The GPU op suite's cases of the gpumath kernels (targets/cuda/kernels/special.py, linalg*.py, random*.py):
special functions, bit shifts, small linear algebra and random sampling, each with inputs in its domain
(positive arguments for zeta and the incomplete gamma, probabilities for Betainc, well-conditioned and positive
definite matrices for the solvers, generator states for the random ops) and its tolerance against the CPU
target's kernel. A test helper: suite.py appends these cases, so scripts/gpu_check.py runs them on a GPU."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops.registry import get as get_op

from .suite import Case

F32, F64 = "float32", "float64"
#: The CPU tests' elementwise tolerances, per float dtype.
ELEMENTWISE = {F32: (1e-5, 1e-6), F64: (1e-12, 1e-12)}
# IgammaGradA is a finite difference of P (ops/special_incomplete.py): its float64 rounding error is near
# 1e-12 relative by design, so two compilers' roundings of P differ by that much.
FINITE_DIFFERENCE = {F32: (1e-5, 1e-6), F64: (1e-9, 1e-11)}
# CUDA's double j0/j1/y0/y1 are bounded in absolute error (a few 1e-12) beyond |x| = 8, not in ulps as glibc's:
# their float64 results are compared with that absolute tolerance.
LIBM_BESSEL = {F32: (1e-5, 1e-6), F64: (1e-12, 2e-11)}
# Factorisations and solves: another order of the same operations (LAPACK's blocked loops against one
# thread's unblocked ones) on matrices of condition number below about 30.
LINALG = {F32: (1e-4, 1e-4), F64: (1e-10, 1e-10)}
# The random transforms: the draws are bit-identical; CUDA's double log/cos are within 2 ulp of glibc's, which a
# float32 result rounds away but for the rare value next to a rounding boundary (one float32 ulp).
RANDOM = {F32: (2e-7, 1e-7), F64: (1e-12, 1e-12)}


@dataclass(frozen=True)
class MathCase(Case):
    """A case whose inputs lie in its op's domain (``kind``) and whose float outputs are compared with the CPU
    target's within ``tol`` (per dtype: (rtol, atol))."""

    kind: str = "normal"
    tol: tuple = tuple(ELEMENTWISE.items())

    def tolerance(self, dtype: str) -> tuple[float, float]:
        """(rtol, atol) of a float output of ``dtype``."""
        return dict(self.tol).get(dtype, (1e-5, 1e-6))

    def inputs(self) -> list[np.ndarray]:
        rng = np.random.default_rng(self.seed)
        types = self.spec.inputs
        draw = _draw(self.kind)
        if draw is None:
            return super().inputs()
        return [np.asarray(a).astype(t.dtype).reshape(t.shape) for a, t in zip(draw(rng, types), types,
                                                                                 strict=True)]


def _draw(kind: str):
    return _linalg(kind[4:]) if kind.startswith("mat:") else _KINDS.get(kind)


def _positive(rng, types):
    return [rng.uniform(0.1, 6.0, t.shape) for t in types]


def _betainc(rng, types):
    a, b, x = types
    return [rng.uniform(0.05, 4.0, a.shape), rng.uniform(0.05, 4.0, b.shape), rng.uniform(0.0, 1.0, x.shape)]


def _shift(rng, types):
    x, n = types
    info = np.iinfo(x.dtype)
    bits = info.bits
    return [rng.integers(info.min, int(info.max) + 1, x.shape, dtype=x.dtype),
            rng.integers(0 if info.min == 0 else -2, bits + 3, n.shape)]


def _spread(rng, types):
    """Special functions over a wide range, the poles and signs of each included."""
    return [rng.standard_normal(t.shape) * 4.0 for t in types]


# Poles, signed zeros, the series/asymptotic switches of the Bessel functions (30), the recurrences' ends
# (6, 20), large arguments: where a GPU's math library could part from the CPU's. (Not infinities: some of the
# ops' NumPy references, which test_host_emulation.py compares with, cannot take them.)
EDGES = (0.0, -0.0, -1.0, -2.0, -2.5, 0.5, 1.0, 1e-30, 5.999, 6.0, 19.5, 20.0, 29.9, 30.0, 30.1, 100.0, -100.0,
         700.0, -700.0, 500.0)


def _edges(rng, types):
    return [np.resize(np.array(EDGES), t.shape) for t in types]


def _unit(rng, types):
    return [rng.uniform(-1.0, 1.0, t.shape) for t in types]


def _state(rng, types):
    """A generator state [seed, counter] first; then the op's other inputs: UniformInt's bounds, Multinomial's
    weights (some zero or negative: no weight), RandomShuffle's rows."""
    state, *rest = types
    out = [np.array([int(rng.integers(0, 2 ** 62)), int(rng.integers(0, 50))])]
    if len(rest) == 2:  # UniformInt: minval, maxval
        return [*out, np.array(-7), np.array(23)]
    for t in rest:
        out.append(np.maximum(rng.standard_normal(t.shape) + 0.6, 0.0) - (rng.random(t.shape) < 0.05)
                   if t.dtype.startswith("float") and t.rank == 2 else rng.standard_normal(t.shape) * 10)
    return out


def _general(rng, shape):
    """Matrices of condition number about 10 whose LU still swaps rows."""
    n = shape[-1]
    return rng.standard_normal(shape) + 2.0 * np.eye(n)


def _spd(rng, shape):
    n = shape[-1]
    g = rng.standard_normal(shape)
    return g @ np.swapaxes(g, -1, -2) / n + np.eye(n)


def _factor(rng, shape):
    """A Cholesky-like factor: a diagonal in [1, 2], small entries elsewhere (both triangles: the kernels must
    read only theirs)."""
    n = shape[-1]
    eye = np.eye(n)
    return 0.3 * rng.standard_normal(shape) * (1 - eye) + rng.uniform(1.0, 2.0, shape) * eye


def _lower_factor(rng, shape):
    """A triangular factor (CholeskySolve's reference reads the whole matrix; LAPACK, one triangle)."""
    return np.tril(_factor(rng, shape))


def _upper_factor(rng, shape):
    return np.triu(_factor(rng, shape))


_MATRICES = {"g": _general, "s": _spd, "f": _factor, "l": _lower_factor, "u": _upper_factor,
             "n": lambda rng, shape: rng.standard_normal(shape)}


def _linalg(kinds: str):
    """Inputs drawn by ``kinds``, one letter per input (:data:`_MATRICES`)."""
    return lambda rng, types: [_MATRICES[c](rng, t.shape) for c, t in zip(kinds, types, strict=True)]


_KINDS = {"edges": _edges, "state": _state, "unit": _unit, "positive": _positive, "betainc": _betainc, "shift": _shift,
          "spread": _spread}


def _spec(op: str, attrs: dict, *types: tuple[tuple[int, ...], str]) -> KernelSpec:
    return get_op(op).spec(attrs, [TensorType(s, d) for s, d in types])


def _special_tolerance(op: str) -> dict:
    return LIBM_BESSEL if op in ("BesselJ0", "BesselJ1", "BesselY0", "BesselY1") else ELEMENTWISE


def special_cases() -> list[tuple[KernelSpec, str, dict]]:
    """Every special function once per float dtype (a 2-D flat map), the binary ones broadcast, the shifts on
    four integer types: (spec, input kind, tolerances)."""
    from opbuild.ops import special

    out = []
    for d in (F32, F64):
        for op in special.SPECIAL:
            kind = "unit" if op == "Erfinv" else "positive" if op.startswith(("BesselY", "BesselK")) else "spread"
            out.append((_spec(op, {}, ((5, 13), d)), kind, _special_tolerance(op)))
        out.append((_spec("Polygamma", {"n": 0}, ((5, 13), d)), "spread", ELEMENTWISE))
        out += [(_spec(op, {}, ((len(EDGES),), d)), "edges", _special_tolerance(op)) for op in special.SPECIAL]
        out.append((_spec("Polygamma", {"n": 3}, ((5, 13), d)), "spread", ELEMENTWISE))
        for op in ("Zeta", "Igamma", "Igammac", "IgammaGradA"):
            tol = FINITE_DIFFERENCE if op == "IgammaGradA" else ELEMENTWISE
            out.append((_spec(op, {}, ((3, 1, 5), d), ((4, 1), d)), "positive", tol))
        out.append((_spec("NextAfter", {}, ((4, 6), d), ((6,), d)), "normal", ELEMENTWISE))
        out.append((_spec("Betainc", {}, ((3, 4), d), ((4,), d), ((3, 1), d)), "betainc", ELEMENTWISE))
    for d in ("int8", "uint8", "int32", "int64"):
        for op in ("LeftShift", "RightShift"):
            out.append((_spec(op, {}, ((3, 7), d), ((7,), d)), "shift", ELEMENTWISE))
    return out


def random_cases() -> list[tuple[KernelSpec, str, dict]]:
    """The sampling ops on a generator state, Multinomial with and without replacement, both permutations."""
    state = ((2,), "int64")
    out = [(_spec(op, {"shape": (3, 37)}, state), "state", RANDOM)
           for op in ("StandardNormal", "UniformReal", "StandardLaplace")]
    out.append((_spec("UniformInt", {"shape": (5, 41)}, state, ((), "int32"), ((), "int32")), "state", RANDOM))
    for repl, dt in ((True, "int32"), (False, "int64")):
        out.append((_spec("Multinomial", {"num_samples": 6, "replacement": repl, "dtype": dt}, state,
                          ((4, 9), F32 if repl else F64)), "state", RANDOM))
    out.append((_spec("RandomShuffle", {}, state, ((11, 3), F32)), "state", RANDOM))
    out.append((_spec("RandomShuffle", {}, state, ((50,), "int64")), "state", RANDOM))
    out.append((_spec("RandpermV2", {"n": 97, "dtype": "int64"}, state), "state", RANDOM))
    out.append((_spec("RandpermV2", {"n": 20, "dtype": F32}, state), "state", RANDOM))
    # Past PARALLEL_MAX (random_draws.py) the permutations run on one thread: int8 values wrap as the CPU's cast.
    out.append((_spec("RandpermV2", {"n": 20000, "dtype": "int8"}, state), "state", RANDOM))
    out.append((_spec("RandomShuffle", {}, state, ((17000, 2), "int32")), "state", RANDOM))
    return out


def linalg_cases() -> list[tuple[KernelSpec, str, dict]]:
    """Each solver and factorisation in float32 and float64, batched, with its attributes both ways."""
    out = []
    for d in (F32, F64):
        out += [(_spec("MatrixInverse", {"adjoint": False}, ((3, 6, 6), d)), "mat:g", LINALG),
                (_spec("MatrixDeterminant", {}, ((2, 3, 5, 5), d)), "mat:g", LINALG),
                (_spec("LogMatrixDeterminant", {}, ((4, 7, 7), d)), "mat:n", LINALG),
                (_spec("MatrixSolve", {"adjoint": d == F64}, ((2, 6, 6), d), ((2, 6, 3), d)), "mat:gn", LINALG),
                (_spec("Cholesky", {"upper": d == F64}, ((3, 7, 7), d)), "mat:s", LINALG),
                (_spec("CholeskyInverse", {"upper": d == F32}, ((2, 5, 5), d)), "mat:f", LINALG),
                (_spec("CholeskySolve", {"upper": d == F64}, ((2, 5, 4), d), ((2, 5, 5), d)),
                 "mat:nu" if d == F64 else "mat:nl", LINALG)]
        for lower, adjoint in ((True, False), (False, True)) if d == F32 else ((True, True), (False, False)):
            out.append((_spec("MatrixTriangularSolve", {"lower": lower, "adjoint": adjoint}, ((3, 6, 6), d),
                              ((3, 6, 2), d)), "mat:fn", LINALG))
    out.append((_spec("MatrixInverse", {"adjoint": True}, ((40, 40), F64)), "mat:g", LINALG))
    for d in (F32, F64):
        out += [(_spec("Qr", {"full_matrices": False}, ((2, 7, 4), d)), "mat:n", LINALG),
                (_spec("Qr", {"full_matrices": True}, ((2, 6, 4), d)), "mat:n", LINALG),
                (_spec("Qr", {"full_matrices": d == F32}, ((3, 4, 6), d)), "mat:n", LINALG),
                (_spec("Geqrf", {}, ((2, 6, 5), d)), "mat:n", LINALG),
                (_spec("Geqrf", {}, ((3, 7), d)), "mat:n", LINALG),
                (_spec("Orgqr", {}, ((2, 6, 4), d), ((2, 3), d)), "mat:nn", LINALG),
                (_spec("Svd", {"full_matrices": d == F64, "compute_uv": True}, ((2, 7, 4), d)), "mat:n", LINALG),
                (_spec("Svd", {"full_matrices": d == F32, "compute_uv": True}, ((3, 5), d)), "mat:n", LINALG),
                (_spec("Svd", {"full_matrices": False, "compute_uv": True}, ((2, 6, 6), d)), "mat:n", LINALG)]
    return out


def cases(start: int = 0) -> list[MathCase]:
    """The gpumath cases, seeded from ``start`` on."""
    found = special_cases() + random_cases() + linalg_cases()
    return [MathCase(spec, start + i, kind, tuple(tol.items())) for i, (spec, kind, tol) in enumerate(found)]


__all__ = ["ELEMENTWISE", "LIBM_BESSEL", "LINALG", "MathCase", "RANDOM", "cases", "linalg_cases", "random_cases",
           "special_cases"]
