"""MindSpore primitive classes of the linear-algebra, integer and numeric operators that are thin objects over
the functional API (the pattern of ms_prim_classes.py): ``Lcm``, ``Gcd``, ``PopulationCount``, ``Pdist``,
``LogSpace``, ``LuUnpack``, ``Eig``, ``MatrixDiagV3``, ``MatrixDiagPartV3``, ``MatrixSetDiagV3``, ``STFT`` and
``FFTWithSize``. Checked against MindSpore in tests/compat/test_linalg_special.py."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.dtypes import dtype_of
from ..core.tensor import Tensor, as_tensor
from . import functional as F
from .api.stft import fft_with_size, stft_frames
from .ms_prim_classes import REQUIRED, make_primitive
from .primitive import Primitive, apply


def _log_space(a: dict, start: Any, end: Any) -> Tensor:
    steps, base, dt = a["steps"], a["base"], dtype_of(a["dtype"])
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"LogSpace: steps must be an int >= 1, got {steps!r}")
    if isinstance(base, bool) or not isinstance(base, int) or base < 0:
        raise ValueError(f"LogSpace: base must be a non-negative int, got {base!r}")
    if dt.name not in ("float16", "float32", "float64"):
        raise TypeError(f"LogSpace: dtype must be float16, float32 or float64, got {dt}")
    s, e = (apply("Cast", {"dtype": "float64"}, [as_tensor(t)]) for t in (start, end))
    if s.ndim or e.ndim:
        raise ValueError(f"LogSpace: start and end must be 0-D tensors, got shapes {s.shape} and {e.shape}")
    frac = np.arange(steps, dtype=np.float64) / (steps - 1) if steps > 1 else np.zeros(1)
    exps = apply("Add", {}, [s, apply("Mul", {}, [apply("Sub", {}, [e, s]), Tensor(frac)])])
    out = apply("Pow", {}, [Tensor(np.full(steps, float(base))), exps])
    return apply("Cast", {"dtype": dt.name}, [out])


def _int_binary(fn: str):
    return lambda a, x1, x2: getattr(F, fn)(x1, x2)


def _matrix_diag_v3(a: dict, x: Any, k: Any, num_rows: Any, num_cols: Any, padding_value: Any) -> Tensor:
    return F.matrix_diag(x, k, num_rows, num_cols, padding_value, a["align"])


TABLE: dict[str, tuple[tuple[tuple[str, Any], ...], Any, str]] = {
    "Lcm": ((), _int_binary("lcm"), "The elementwise least common multiple of integer tensors (``ops.lcm``)."),
    "Gcd": ((), _int_binary("gcd"), "The elementwise greatest common divisor of integer tensors (``ops.gcd``)."),
    "PopulationCount": ((), lambda a, x: F.population_count(x),
                        "The number of set bits of each element, uint8 (``ops.population_count``)."),
    "Pdist": ((("p", 2.0),), lambda a, x: F.pdist(x, a["p"]),
              "The p-norm distances between the rows of an (N, M) tensor, pairs i < j (``ops.pdist``)."),
    "LogSpace": ((("steps", 10), ("base", 10), ("dtype", "float32")), _log_space,
                 "``base ** linspace(start, end, steps)`` of 0-D ``start`` and ``end``, in ``dtype``."),
    "LuUnpack": ((("unpack_data", True), ("unpack_pivots", True)),
                 lambda a, lu, piv: F.lu_unpack(lu, piv, a["unpack_data"], a["unpack_pivots"]),
                 "``(P, L, U)`` of a packed LU factorisation (``ops.lu_unpack``)."),
    "STFT": ((("n_fft", REQUIRED), ("hop_length", REQUIRED), ("win_length", REQUIRED), ("normalized", REQUIRED),
              ("onesided", REQUIRED), ("return_complex", REQUIRED)),
             lambda a, x, window: stft_frames(x, window, a["n_fft"], a["hop_length"], a["win_length"],
                                              a["normalized"], a["onesided"], a["return_complex"]),
             "The short-time Fourier transform of uncentred frames with ``window`` (``ops.stft``)."),
    "FFTWithSize": ((("signal_ndim", REQUIRED), ("inverse", REQUIRED), ("real", REQUIRED), ("norm", "backward"),
                     ("onesided", True), ("signal_sizes", ())),
                    lambda a, x: fft_with_size(x, a["signal_ndim"], a["inverse"], a["real"], a["norm"],
                                               a["onesided"], a["signal_sizes"]),
                    "The FFT over the last ``signal_ndim`` axes: complex, real to one-sided, or back."),
    "MatrixDiagV3": ((("align", "RIGHT_LEFT"),), _matrix_diag_v3,
                     "Matrices with the diagonals ``k`` from ``x`` (``ops.matrix_diag``)."),
    "MatrixDiagPartV3": ((("align", "RIGHT_LEFT"),),
                         lambda a, x, k, padding_value: F.matrix_diag_part(x, k, padding_value, a["align"]),
                         "The diagonals ``k`` of ``x``, padded (``ops.matrix_diag_part``)."),
    "MatrixSetDiagV3": ((("align", "RIGHT_LEFT"),),
                        lambda a, x, diagonal, k: F.matrix_set_diag(x, diagonal, k, a["align"]),
                        "``x`` with its diagonals ``k`` replaced (``ops.matrix_set_diag``)."),
}

PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
__all__ = ["PRIMITIVES", "REQUIRED", "TABLE"]
