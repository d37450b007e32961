"""MindSpore's short-time Fourier transform and its older FFT primitive, as compositions over the FFT family
(docs/fft.md): ``ops.stft`` (with the ``STFT`` class over it) and ``FFTWithSize``'s function.

Framing is one ``Gather`` of constant positions: which sample lands in which frame depends only on the
lengths, the hop and the centring (reflect or constant padding of ``n_fft // 2`` on both sides), so NumPy
computes the map when the call is traced. The windowed frames go through ``rfft`` (one-sided) or ``fft``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor
from ..primitive import apply
from . import spectral as S
from .base import binary

_PAD_MODES = ("REFLECT", "CONSTANT")


def _frame_map(length: int, n_fft: int, hop: int, center: bool, pad_mode: str) -> tuple[np.ndarray, np.ndarray]:
    """(positions into the signal of each frame's samples, mask of the real ones) as (frames, n_fft)."""
    pad = n_fft // 2 if center else 0
    total = length + 2 * pad
    if total < n_fft:
        raise ValueError(f"stft: the signal ({length} samples{' after centring' if center else ''}) is shorter "
                         f"than n_fft={n_fft}")
    frames = 1 + (total - n_fft) // hop
    pos = np.arange(frames)[:, None] * hop + np.arange(n_fft)[None, :] - pad
    if pad_mode == "REFLECT" and center:
        if pad >= length:
            raise ValueError(f"stft: reflect padding of {pad} needs a signal longer than that, got {length}")
        pos = np.where(pos < 0, -pos, pos)
        pos = np.where(pos >= length, 2 * (length - 1) - pos, pos)
    inside = (pos >= 0) & (pos < length)
    return np.clip(pos, 0, length - 1).astype(np.int64), inside


def _window(name: str, window: Any, win_length: int, n_fft: int, dtype: Any) -> Tensor:
    if window is None:
        w = Tensor(np.ones(win_length, dtype.np_dtype))
    else:
        w = as_tensor(window)
        if w.ndim != 1 or w.shape[0] != win_length:
            raise ValueError(f"{name}: window must be 1-D of win_length={win_length} samples, got shape "
                             f"{tuple(w.shape)}")
        if w.dtype != dtype:
            w = apply("Cast", {"dtype": dtype.name}, [w])
    if win_length < n_fft:  # centred in the frame, zeros around
        left = (n_fft - win_length) // 2
        w = apply("Pad", {"paddings": ((left, n_fft - win_length - left),)}, [w])
    return w


def _stft(name: str, x: Any, n_fft: int, hop_length: Any, win_length: Any, window: Any, center: bool,
          pad_mode: str, normalized: bool, onesided: Any, return_complex: Any) -> Tensor:
    t = as_tensor(x)
    if t.ndim not in (1, 2):
        raise ValueError(f"{name}: x must be 1-D (a signal) or 2-D (a batch of signals), got {t.ndim}-D")
    if not t.dtype.is_float or t.dtype.name not in ("float32", "float64"):
        raise TypeError(f"{name}: x must be float32 or float64 (complex signals are not supported), got {t.dtype}")
    if isinstance(n_fft, bool) or not isinstance(n_fft, int) or n_fft < 1:
        raise ValueError(f"{name}: n_fft must be a positive int, got {n_fft!r}")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    for arg, v in (("hop_length", hop), ("win_length", win)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name}: {arg} must be a positive int, got {v!r}")
    if win > n_fft:
        raise ValueError(f"{name}: win_length ({win}) must not exceed n_fft ({n_fft})")
    mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
    if mode not in _PAD_MODES:
        raise ValueError(f"{name}: pad_mode must be 'REFLECT' or 'CONSTANT', got {pad_mode!r}")
    one_sided = True if onesided is None else bool(onesided)
    want_complex = False if return_complex is None else bool(return_complex)
    pos, inside = _frame_map(t.shape[-1], n_fft, hop, bool(center), mode)
    frames = apply("Gather", {"axis": t.ndim - 1}, [t, Tensor(pos.reshape(-1))])
    frames = apply("Reshape", {"shape": (*t.shape[:-1], *pos.shape)}, [frames])
    if not inside.all():
        frames = apply("Mul", {}, [frames, Tensor(inside.astype(t.dtype.np_dtype))])
    frames = apply("Mul", {}, [frames, _window(name, window, win, n_fft, t.dtype)])
    spec = S.rfft(frames, dim=-1) if one_sided else S.fft(frames, dim=-1)
    if normalized:
        spec = binary("Mul", spec, float(n_fft) ** -0.5)
    spec = apply("Transpose", {"perm": (*range(t.ndim - 1), t.ndim, t.ndim - 1)}, [spec])
    if want_complex:
        return spec
    parts = [apply("ExpandDims", {"axis": spec.ndim}, [apply(op, {}, [spec])]) for op in ("Real", "Imag")]
    return apply("Concat", {"axis": spec.ndim}, parts)


def stft(x: Any, n_fft: int, hop_length: Any = None, win_length: Any = None, window: Any = None,
         center: bool = True, pad_mode: str = "REFLECT", normalized: bool = False, onesided: Any = None,
         return_complex: Any = None) -> Tensor:
    """``ops.stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode='REFLECT',
    normalized=False, onesided=None, return_complex=None)``: the short-time Fourier transform of a real
    signal (1-D) or batch of signals (2-D): ``(..., freqs, frames)`` complex, or with a last axis of 2 (real,
    imaginary) when ``return_complex`` is not true. Defaults: hop ``n_fft // 4``, a window of ones of
    ``win_length = n_fft`` (a shorter window is centred in the frame), one-sided spectra (``n_fft // 2 + 1``
    frequencies), frames centred by padding ``n_fft // 2`` samples on both sides (reflected or zeros);
    ``normalized`` scales by ``n_fft ** -0.5``."""
    return _stft("stft", x, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                 return_complex)


def stft_frames(x: Any, window: Any, n_fft: int, hop_length: int, win_length: int, normalized: bool,
                onesided: bool, return_complex: bool) -> Tensor:
    """The ``STFT`` primitive's transform: :func:`stft` without centring, with its explicit window."""
    return _stft("STFT", x, n_fft, hop_length, win_length, window, False, "CONSTANT", normalized, onesided,
                 return_complex)


def fft_with_size(x: Any, signal_ndim: int, inverse: bool, real: bool, norm: str = "backward",
                  onesided: bool = True, signal_sizes: Any = ()) -> Tensor:
    """``FFTWithSize``'s transform over the last ``signal_ndim`` axes: complex to complex (``fftn``/``ifftn``)
    or, when ``real``, real to one-sided complex (``rfftn``; the full spectrum when not ``onesided``) and back
    (``irfftn`` to ``signal_sizes``, the last axes' output lengths)."""
    t = as_tensor(x)
    if signal_ndim not in (1, 2, 3) or t.ndim < signal_ndim:
        raise ValueError(f"FFTWithSize: signal_ndim must be 1, 2 or 3 and at most x's rank {t.ndim}, got "
                         f"{signal_ndim!r}")
    if norm not in ("backward", "forward", "ortho"):
        raise ValueError(f"FFTWithSize: norm must be 'backward', 'forward' or 'ortho', got {norm!r}")
    dims = tuple(range(t.ndim - signal_ndim, t.ndim))
    if not real:
        return (S.ifftn if inverse else S.fftn)(t, dim=dims, norm=norm)
    if not inverse:
        return S.rfftn(t, dim=dims, norm=norm) if onesided else S.fftn(t, dim=dims, norm=norm)
    if not onesided:
        raise NotImplementedError("FFTWithSize: the inverse real transform needs onesided=True (a one-sided "
                                  "spectrum)")
    sizes = tuple(int(v) for v in signal_sizes) if signal_sizes else None
    if sizes is not None and len(sizes) != signal_ndim:
        raise ValueError(f"FFTWithSize: signal_sizes must give {signal_ndim} lengths, got {signal_sizes!r}")
    return S.irfftn(t, s=sizes, dim=dims, norm=norm)


__all__ = ["stft"]
