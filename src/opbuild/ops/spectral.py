"""The FFT family: one primitive, ``FFTN``, that every function of ``mindspore.ops``' FFT family (``ops/api/fft.py``)
applies with its own attributes; the CPU computes it with pocketfft (docs/fft.md).

Attributes (normalized):
  * ``dims``: the transformed axes, non-negative, distinct, in the caller's order (a real-to-complex or
    complex-to-real transform's half axis is the last one);
  * ``s``: the signal length along each of ``dims``: the input is cut or zero-padded to it first (for ``c2r``
    the last one is the *output* length ``n``, of which the input gives the first ``n // 2 + 1`` entries);
  * ``kind``: ``c2c`` (complex out, every axis full), ``r2c`` (complex out, the last axis cut to
    ``n // 2 + 1`` after the transform: ``rfft``, ``ihfft``), ``c2r`` (real out: the last axis completed
    Hermitian, transformed and its real part kept: ``irfft``, ``hfft``);
  * ``forward``: the sign of the exponent (True: ``exp(-2 pi i jk / n)``);
  * ``norm``: ``backward``, ``forward`` or ``ortho``, MindSpore's (and NumPy's) meaning: the forward
    transform is scaled by 1, 1/N or 1/sqrt(N), the inverse by 1/N, 1 or 1/sqrt(N), N the product of ``s``.

Dtypes (MindSpore 2.10's, recorded in tests/fixtures): a real or integer input computes as complex64, float64
as complex128, a complex input in its own type; ``c2r`` gives the real type of that (float32 or float64).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..core.dtypes import ALL_FLOATS, COMPLEX, SIGNED_INTS, UNSIGNED_INTS, complex_of, real_of
from ..core.errors import KernelMemoryError, ShapeError
from ..core.ir import TensorType
from . import scratch_plan as S
from .primitive import declare
from .registry import OpDef, allow_complex

OP = "FFTN"
KINDS = ("c2c", "r2c", "c2r")
NORMS = ("backward", "forward", "ortho")
DTYPES = ALL_FLOATS + SIGNED_INTS + UNSIGNED_INTS + COMPLEX


def _normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    x = ins[0]
    rank = len(x.shape)
    dims = tuple(int(d) for d in attrs["dims"])
    if not dims:
        raise ShapeError(OP, "needs at least one axis to transform", list(ins))
    norm_dims = []
    for d in dims:
        if not -rank <= d < rank:
            raise ShapeError(OP, f"dim {d} is out of range for a rank-{rank} input", list(ins))
        norm_dims.append(d % rank)
    if len(set(norm_dims)) != len(norm_dims):
        raise ShapeError(OP, f"dims {dims} repeat an axis", list(ins))
    s = tuple(int(n) for n in attrs["s"])
    if len(s) != len(dims) or any(n < 1 for n in s):
        raise ShapeError(OP, f"every signal length must be >= 1 (one per dim), got {s}", list(ins))
    kind, norm = attrs["kind"], attrs.get("norm") or "backward"
    if kind not in KINDS or norm not in NORMS:
        raise ShapeError(OP, f"kind must be one of {KINDS} and norm one of {NORMS}", list(ins))
    return {"dims": tuple(norm_dims), "s": s, "kind": kind, "forward": bool(attrs["forward"]), "norm": norm}


def out_shape(attrs: dict, shape: Sequence[int]) -> tuple[int, ...]:
    """The output shape of FFTN ``attrs`` (normalized) on an input of ``shape``."""
    out = list(shape)
    for d, n in zip(attrs["dims"], attrs["s"], strict=True):
        out[d] = n
    if attrs["kind"] == "r2c":
        out[attrs["dims"][-1]] = attrs["s"][-1] // 2 + 1
    return tuple(out)


def _infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x = ins[0]
    if x.dtype not in DTYPES:
        raise ShapeError(OP, f"dtype {x.dtype} is not supported (supported: {', '.join(DTYPES)})", list(ins))
    cdt = complex_of(x.dtype)
    return [TensorType(out_shape(attrs, x.shape), real_of(cdt) if attrs["kind"] == "c2r" else cdt)]


def scale(attrs: dict) -> float:
    """The factor the transform's result is multiplied by (``norm`` and the direction, module docstring)."""
    total = math.prod(attrs["s"])
    norm = attrs["norm"]
    if norm == "ortho":
        return 1.0 / math.sqrt(total)
    return 1.0 / total if (norm == "forward") == attrs["forward"] else 1.0


def _fit(x: np.ndarray, axis: int, n: int) -> np.ndarray:
    """``x`` cut or zero-padded to length ``n`` along ``axis``."""
    if x.shape[axis] >= n:
        return np.take(x, np.arange(n), axis=axis)
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, n - x.shape[axis])
    return np.pad(x, pad)


def reference(attrs: dict, x: np.ndarray) -> np.ndarray:
    """The NumPy reference (numpy.fft's c2c transforms in complex128, the same steps as the kernel)."""
    dims, s, kind = attrs["dims"], attrs["s"], attrs["kind"]
    w = x.astype(np.complex128)
    fn = np.fft.fft if attrs["forward"] else np.fft.ifft
    if kind == "c2r":
        n = s[-1]
        for d, m in zip(dims[:-1], s[:-1], strict=True):
            w = fn(_fit(w, d, m), axis=d, norm="forward" if not attrs["forward"] else "backward")
        half = _fit(w, dims[-1], n // 2 + 1)
        tail = np.conj(np.flip(np.take(half, np.arange(1, n - n // 2), axis=dims[-1]), axis=dims[-1]))
        full = np.concatenate([half, tail], axis=dims[-1])
        w = fn(full, axis=dims[-1], norm="forward" if not attrs["forward"] else "backward").real
    else:
        for d, m in zip(dims, s, strict=True):
            w = fn(_fit(w, d, m), axis=d, norm="forward" if not attrs["forward"] else "backward")
        if kind == "r2c":
            w = np.take(w, np.arange(s[-1] // 2 + 1), axis=dims[-1])
    # numpy's unscaled transforms above (ifft with norm="forward" does not divide), then the op's one scale
    return w * scale(attrs)


# Not exported: MindSpore's FFT primitives are internal; users call the functions (ops/api/fft.py).
PRIMITIVES: dict = {}
def _status(attrs: dict, ins: Sequence[TensorType], length: int, axis: int) -> KernelMemoryError:
    """The kernel's report: pocketfft could not allocate the plan or scratch of axis ``axis``'s transform."""
    return KernelMemoryError(OP, f"could not allocate scratch memory for the length-{length} transform along axis "
                                 f"{axis} (pocketfft's plan and work arrays, a few times {16 * length} bytes): free "
                                 "memory or transform a shorter signal", length, axis)


PRIMITIVE = declare(OpDef(OP, _infer, reference, normalize=_normalize, n_inputs=1,
                          workspace=S.workspace_of(S.fftn), status=_status),
                    "FFTN(x): the discrete Fourier transform over ``dims`` (the FFT functions' one primitive).")
allow_complex(OP)
