"""The functional API of the FFT family (MindSpore 2.10's ``ops.fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``,
``ihfft``, their 2-D and N-D forms, ``fftfreq``, ``rfftfreq``) and of the complex elementwise ops (``ops.real``,
``imag``, ``conj``, ``angle``): each transform is one ``FFTN`` node (ops/fft.py) with its attributes, so every
function traces in graph mode and runs eagerly in PyNative, its kernel cached like any other.

MindSpore's rules (recorded by scripts/record_complex_fft.py): ``n``/``s`` cut or zero-pad the input along
``dim``; ``norm`` is ``"backward"`` (None), ``"forward"`` or ``"ortho"``; a real or integer input gives
complex64 (float64: complex128); ``irfft``/``hfft`` default to ``n = 2 * (m - 1)`` output points for ``m``
input points. ``rfft`` of a 1-D complex input keeps the first half of its full transform and ``ihfft`` of one
the first half of its inverse transform, as MindSpore computes them; a complex input of rank > 1 to those is
refused (MindSpore's rows come out wrong, docs/fft.md).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ...core.dtypes import dtype_of
from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from ..spectral import NORMS
from ..spectral import OP as _FFTN

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "real", "imag", "conj",
           "angle"]


def _tensor(name: str, x) -> Tensor:
    x = as_tensor(x)
    if x.dtype.name == "bool":
        raise TypeError(f"ops.{name}: input must be a float, integer or complex tensor, got bool (cast it first)")
    if len(x.shape) == 0:
        raise ValueError(f"ops.{name}: input must have at least one dimension, got a 0-d tensor")
    return x


def _norm(name: str, norm) -> str:
    if norm is None:
        return "backward"
    if norm not in NORMS:
        raise ValueError(f"ops.{name}: norm must be one of {', '.join(NORMS)} or None, got {norm!r}")
    return norm


def _length(name: str, what: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"ops.{name}: {what} must be an integer greater than 0, got {n!r}")
    return int(n)


def _dims(name: str, x: Tensor, s, dim, default: tuple[int, ...] | None) -> tuple[tuple[int, ...], list | None]:
    """The transformed axes (non-negative) and the given sizes (or None) of an N-D function."""
    rank = len(x.shape)
    if s is not None and not isinstance(s, Sequence):
        s = (s,)
    if dim is None:
        dim = default if default is not None else (
            tuple(range(rank - len(s), rank)) if s is not None else tuple(range(rank)))
    elif isinstance(dim, numbers.Integral):
        dim = (int(dim),)
    dims = []
    for d in dim:
        if not -rank <= d < rank:
            raise ValueError(f"ops.{name}: dim {d} is out of range for a {rank}-D input")
        dims.append(int(d) % rank)
    if len(set(dims)) != len(dims):
        raise ValueError(f"ops.{name}: dim {tuple(dim)} names an axis twice")
    if s is not None and len(s) != len(dims):
        raise ValueError(f"ops.{name}: s and dim must have the same length, got {len(s)} and {len(dims)}")
    return tuple(dims), (None if s is None else [_length(name, "every entry of s", n) for n in s])


def _real_only(name: str, x: Tensor) -> None:
    """Refuse what MindSpore 2.10 computes wrongly: a real-to-complex transform of a complex input of rank > 1
    (its rows come out as the full transform's buffer cut short, recorded in tests/fixtures)."""
    if x.dtype.is_complex and len(x.shape) > 1:
        raise TypeError(f"ops.{name}: a complex input of rank > 1 is not supported (MindSpore 2.10 lays the rows "
                        "of its result out wrongly); pass ops.real(input), or use the full transform "
                        "(ops.fft/ops.ifft) and slice it")


def _apply(x: Tensor, dims, s, kind: str, forward: bool, norm: str) -> Tensor:
    return apply(_FFTN, {"dims": tuple(dims), "s": tuple(s), "kind": kind, "forward": forward, "norm": norm}, [x])


def _half_input(n: int | None, m: int) -> int:
    """The output length of a complex-to-real transform: ``n``, else ``2 * (m - 1)``."""
    return n if n is not None else 2 * (m - 1)


# ---- 1-D --------------------------------------------------------------------------------------------------------

def _one(name: str, input, n, dim, norm, kind: str, forward: bool) -> Tensor:
    x = _tensor(name, input)
    if kind == "r2c":
        _real_only(name, x)
    (d,), _ = _dims(name, x, None, dim, None)
    m = x.shape[d]
    if kind == "c2r":
        n = _half_input(None if n is None else _length(name, "n", n), m)
        if n < 1:
            raise ValueError(f"ops.{name}: the output length 2 * (m - 1) is {n} for m = {m}; pass n >= 1")
    else:
        n = m if n is None else _length(name, "n", n)
    return _apply(x, (d,), (n,), kind, forward, _norm(name, norm))


def fft(input, n=None, dim=-1, norm=None) -> Tensor:
    """``ops.fft(input, n=None, dim=-1, norm=None)``: the 1-D discrete Fourier transform along ``dim``."""
    return _one("fft", input, n, dim, norm, "c2c", True)


def ifft(input, n=None, dim=-1, norm=None) -> Tensor:
    """``ops.ifft(input, n=None, dim=-1, norm=None)``: the 1-D inverse discrete Fourier transform."""
    return _one("ifft", input, n, dim, norm, "c2c", False)


def rfft(input, n=None, dim=-1, norm=None) -> Tensor:
    """``ops.rfft(input, n=None, dim=-1, norm=None)``: the transform of a real signal, ``n // 2 + 1`` points."""
    return _one("rfft", input, n, dim, norm, "r2c", True)


def irfft(input, n=None, dim=-1, norm=None) -> Tensor:
    """``ops.irfft(input, n=None, dim=-1, norm=None)``: the inverse of :func:`rfft`, a real signal of ``n``
    points (default ``2 * (m - 1)``)."""
    return _one("irfft", input, n, dim, norm, "c2r", False)


def hfft(input, n=None, dim=-1, norm=None) -> Tensor:
    """``ops.hfft(input, n=None, dim=-1, norm=None)``: the transform of a Hermitian-symmetric signal given by
    its first half, a real result of ``n`` points (default ``2 * (m - 1)``)."""
    return _one("hfft", input, n, dim, norm, "c2r", True)


def ihfft(input, n=None, dim=-1, norm=None) -> Tensor:
    """``ops.ihfft(input, n=None, dim=-1, norm=None)``: the inverse of :func:`hfft`, ``n // 2 + 1`` points."""
    return _one("ihfft", input, n, dim, norm, "r2c", False)


# ---- N-D --------------------------------------------------------------------------------------------------------

def _many(name: str, input, s, dim, norm, kind: str, forward: bool, default=None) -> Tensor:
    x = _tensor(name, input)
    if kind == "r2c":
        _real_only(name, x)
    dims, sizes = _dims(name, x, s, dim, default)
    if sizes is None:
        sizes = [x.shape[d] for d in dims]
        if kind == "c2r":
            sizes[-1] = _half_input(None, x.shape[dims[-1]])
            if sizes[-1] < 1:
                raise ValueError(f"ops.{name}: the last axis has {x.shape[dims[-1]]} points; pass s")
    return _apply(x, dims, sizes, kind, forward, _norm(name, norm))


_TWO = (-2, -1)


def fft2(input, s=None, dim=_TWO, norm=None) -> Tensor:
    """``ops.fft2(input, s=None, dim=(-2, -1), norm=None)``: the 2-D discrete Fourier transform."""
    return _many("fft2", input, s, dim, norm, "c2c", True)


def ifft2(input, s=None, dim=_TWO, norm=None) -> Tensor:
    """``ops.ifft2(input, s=None, dim=(-2, -1), norm=None)``: the 2-D inverse transform."""
    return _many("ifft2", input, s, dim, norm, "c2c", False)


def fftn(input, s=None, dim=None, norm=None) -> Tensor:
    """``ops.fftn(input, s=None, dim=None, norm=None)``: the N-D transform (every axis, or the last ``len(s)``)."""
    return _many("fftn", input, s, dim, norm, "c2c", True)


def ifftn(input, s=None, dim=None, norm=None) -> Tensor:
    """``ops.ifftn(input, s=None, dim=None, norm=None)``: the N-D inverse transform."""
    return _many("ifftn", input, s, dim, norm, "c2c", False)


def rfft2(input, s=None, dim=_TWO, norm=None) -> Tensor:
    """``ops.rfft2(input, s=None, dim=(-2, -1), norm=None)``: the 2-D transform of a real signal."""
    return _many("rfft2", input, s, dim, norm, "r2c", True)


def irfft2(input, s=None, dim=_TWO, norm=None) -> Tensor:
    """``ops.irfft2(input, s=None, dim=(-2, -1), norm=None)``: the inverse of :func:`rfft2`."""
    return _many("irfft2", input, s, dim, norm, "c2r", False)


def rfftn(input, s=None, dim=None, norm=None) -> Tensor:
    """``ops.rfftn(input, s=None, dim=None, norm=None)``: the N-D transform of a real signal."""
    return _many("rfftn", input, s, dim, norm, "r2c", True)


def irfftn(input, s=None, dim=None, norm=None) -> Tensor:
    """``ops.irfftn(input, s=None, dim=None, norm=None)``: the inverse of :func:`rfftn`."""
    return _many("irfftn", input, s, dim, norm, "c2r", False)


def hfft2(input, s=None, dim=_TWO, norm=None) -> Tensor:
    """``ops.hfft2(input, s=None, dim=(-2, -1), norm=None)``: the 2-D form of :func:`hfft`."""
    return _many("hfft2", input, s, dim, norm, "c2r", True)


def ihfft2(input, s=None, dim=_TWO, norm=None) -> Tensor:
    """``ops.ihfft2(input, s=None, dim=(-2, -1), norm=None)``: the 2-D form of :func:`ihfft`."""
    return _many("ihfft2", input, s, dim, norm, "r2c", False)


def hfftn(input, s=None, dim=None, norm=None) -> Tensor:
    """``ops.hfftn(input, s=None, dim=None, norm=None)``: the N-D form of :func:`hfft`."""
    return _many("hfftn", input, s, dim, norm, "c2r", True)


def ihfftn(input, s=None, dim=None, norm=None) -> Tensor:
    """``ops.ihfftn(input, s=None, dim=None, norm=None)``: the N-D form of :func:`ihfft`."""
    return _many("ihfftn", input, s, dim, norm, "r2c", False)


# ---- sample frequencies -------------------------------------------------------------------------------------

def _freq_dtype(name: str, dtype):
    dt = dtype_of(dtype) if dtype is not None else dtype_of("float32")
    if not dt.is_float:
        raise TypeError(f"ops.{name}: dtype must be a float type, got {dt}")
    return dt


def fftfreq(n, d=1.0, dtype=None) -> Tensor:
    """``ops.fftfreq(n, d=1.0, dtype=None)``: the sample frequencies of an ``n``-point transform with sample
    spacing ``d`` (float32 unless ``dtype``; computed in float32, as MindSpore does, then converted)."""
    n = _length("fftfreq", "n", n)
    dt = _freq_dtype("fftfreq", dtype)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)]).astype(np.float32)
    return Tensor((k / np.float32(n * d)).astype(np.float32).astype(dt.np_dtype))


def rfftfreq(n, d=1.0, dtype=None) -> Tensor:
    """``ops.rfftfreq(n, d=1.0, dtype=None)``: the sample frequencies of :func:`rfft`'s ``n // 2 + 1`` points."""
    n = _length("rfftfreq", "n", n)
    dt = _freq_dtype("rfftfreq", dtype)
    k = np.arange(0, n // 2 + 1).astype(np.float32)
    return Tensor((k / np.float32(n * d)).astype(np.float32).astype(dt.np_dtype))


# ---- complex parts ------------------------------------------------------------------------------------------

def _is_real(x: Tensor) -> bool:
    """A non-complex tensor: its real part and conjugate are itself, its imaginary part zeros (any dtype, as
    MindSpore 2.10 gives for integer and bool tensors, which the Real/Imag/Conj kernels do not take)."""
    return not x.dtype.is_complex


def real(input) -> Tensor:
    """``ops.real(input)``: the real part (a real input of any dtype is returned as it is)."""
    x = as_tensor(input)
    return x if _is_real(x) else apply("Real", {}, [x])


def imag(input) -> Tensor:
    """``ops.imag(input)``: the imaginary part (zeros of its dtype for a real input)."""
    x = as_tensor(input)
    return apply("ZerosLike", {}, [x]) if _is_real(x) else apply("Imag", {}, [x])


def conj(input) -> Tensor:
    """``ops.conj(input)``: the complex conjugate (a real input of any dtype is returned as it is)."""
    x = as_tensor(input)
    return x if _is_real(x) else apply("Conj", {}, [x])


def angle(input) -> Tensor:
    """``ops.angle(input)``: the argument of each complex element, in radians (complex input only)."""
    return apply("Angle", {}, [as_tensor(input)])
