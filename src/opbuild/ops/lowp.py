"""The Cast reference to and from the storage-only formats (dtypes.LOWP): the 8-bit floats (float8_e4m3fn,
float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz), float4_e2m1fn and the 4- and 2-bit integers, following
ml_dtypes' ``astype`` bit for bit. The rules (rounding, saturation, wrapping) are spelled out where the CPU
computes them, targets/cpu/kernels/lowp.py, which this reference matches.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.dtypes import BY_NAME, LOWP, LOWP_FLOATS


def cast_reference(x: np.ndarray, dst: str, plain: Callable[[np.ndarray, str], np.ndarray]) -> np.ndarray:
    """NumPy reference of the Cast kernels: ``x`` cast to ``dst`` where either is a storage-only format;
    ``plain(x, dst)`` is the ordinary Cast reference (ops/elementwise.py) for the ordinary part."""
    if x.dtype.name == dst:
        return x.copy()
    src = x.dtype.name
    if src in LOWP_FLOATS:
        x = x.astype(np.float32)  # exact
    elif src in LOWP:
        x = x.astype(np.int64)
    if dst in LOWP_FLOATS:
        return x.astype(np.float64).astype(BY_NAME[dst].np_dtype)  # exact widening, then one rounding
    if dst in LOWP:
        if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
            with np.errstate(invalid="ignore"):
                w = np.trunc(x.astype(np.float64))
                ok = np.abs(w) < 2.0 ** 63  # False for NaN and the infinities
                v = np.where(ok, np.where(ok, w, 0), 0).astype(np.int64)
        else:
            v = x.astype(np.int64)
        d = BY_NAME[dst]
        v = v & ((1 << d.bits) - 1)
        if not d.is_unsigned:
            v = v - ((v >> (d.bits - 1)) << d.bits)
        return v.astype(d.np_dtype)
    return plain(x, dst)
