"""Short-time Fourier analysis of ``mindspore.dataset.audio``: ``Spectrogram``, ``InverseSpectrogram``,
``GriffinLim``, ``SpectralCentroid``, ``TimeStretch`` and ``PhaseVocoder``. Spectrograms are (..., freq, time);
complex ones carry a last axis of (real, imaginary)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._common import check_int, check_positive, complex_input, rng, waveform
from .enums import BorderType, WindowType


def make_window(kind: WindowType, win_length: int, n_fft: int) -> np.ndarray:
    """A periodic window of ``win_length`` samples centred in ``n_fft`` (zeros either side)."""
    n = np.arange(win_length)
    kind = WindowType(kind)
    if kind == WindowType.HANN:
        w = 0.5 - 0.5 * np.cos(2 * math.pi * n / win_length)
    elif kind == WindowType.HAMMING:
        w = 0.54 - 0.46 * np.cos(2 * math.pi * n / win_length)
    elif kind == WindowType.BLACKMAN:
        w = 0.42 - 0.5 * np.cos(2 * math.pi * n / win_length) + 0.08 * np.cos(4 * math.pi * n / win_length)
    elif kind == WindowType.BARTLETT:
        w = 1 - np.abs(2 * n / win_length - 1)
    else:
        w = np.kaiser(win_length + 1, 12.0)[:-1]
    left = (n_fft - win_length) // 2
    return np.pad(w, (left, n_fft - win_length - left))


_PAD = {BorderType.CONSTANT: "constant", BorderType.EDGE: "edge", BorderType.REFLECT: "reflect",
        BorderType.SYMMETRIC: "symmetric"}


class _Frames:
    """The shared STFT parameters, checked once (``win_length`` defaults to ``n_fft``, ``hop_length`` to
    half the window)."""

    def __init__(self, who: str, n_fft: int, win_length: int | None, hop_length: int | None,
                 window: WindowType) -> None:
        self.n_fft = check_int(who, "n_fft", n_fft, 1)
        self.win_length = self.n_fft if win_length is None else check_int(who, "win_length", win_length, 1)
        if self.win_length > self.n_fft:
            raise ValueError(f"{who}: win_length {self.win_length} must not exceed n_fft {self.n_fft}")
        self.hop_length = (self.win_length // 2 if hop_length is None
                           else check_int(who, "hop_length", hop_length, 1))
        self.hop_length = max(self.hop_length, 1)
        self.window = make_window(window, self.win_length, self.n_fft)

    def stft(self, x: np.ndarray, center: bool = True, pad_mode: BorderType = BorderType.REFLECT,
             onesided: bool = True) -> np.ndarray:
        """The complex STFT (..., freq, frames) of real signals along the last axis."""
        if center:
            half = self.n_fft // 2
            x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(half, half)], mode=_PAD[BorderType(pad_mode)])
        n = x.shape[-1]
        if n < self.n_fft:
            raise ValueError(f"the signal ({n} samples after padding) is shorter than n_fft {self.n_fft}")
        count = 1 + (n - self.n_fft) // self.hop_length
        idx = np.arange(count)[:, None] * self.hop_length + np.arange(self.n_fft)[None, :]
        frames = x[..., idx] * self.window
        spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
        return np.swapaxes(spec, -1, -2)

    def istft(self, spec: np.ndarray, center: bool = True, length: int | None = None,
              onesided: bool = True) -> np.ndarray:
        """Overlap-add inverse of :meth:`stft` (window-squared normalized), trimmed or zero-padded to
        ``length`` when given."""
        frames = np.swapaxes(spec, -1, -2)
        sig = (np.fft.irfft(frames, n=self.n_fft, axis=-1) if onesided
               else np.fft.ifft(frames, axis=-1).real) * self.window
        count = frames.shape[-2]
        total = self.n_fft + self.hop_length * (count - 1)
        out = np.zeros(sig.shape[:-2] + (total,))
        env = np.zeros(total)
        for i in range(count):
            out[..., i * self.hop_length:i * self.hop_length + self.n_fft] += sig[..., i, :]
            env[i * self.hop_length:i * self.hop_length + self.n_fft] += self.window ** 2
        start = self.n_fft // 2 if center else 0
        end = total - (self.n_fft // 2 if center else 0) if length is None else start + length
        out = out[..., start:min(end, total)] / np.where(env[start:min(end, total)] > 1e-11,
                                                         env[start:min(end, total)], 1.0)
        if length is not None and out.shape[-1] < length:
            out = np.pad(out, [(0, 0)] * (out.ndim - 1) + [(0, length - out.shape[-1])])
        return out


def _pair(spec: np.ndarray) -> np.ndarray:
    return np.stack([spec.real, spec.imag], axis=-1)


class Spectrogram:
    """``Spectrogram(n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN, power=2.0,
    normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True)``: |STFT|**power of
    (..., time) audio -> (..., n_fft // 2 + 1, frames); ``power`` 0 keeps the complex STFT as (..., 2)."""

    def __init__(self, n_fft: int = 400, win_length: int | None = None, hop_length: int | None = None,
                 pad: int = 0, window: WindowType = WindowType.HANN, power: float = 2.0, normalized: bool = False,
                 center: bool = True, pad_mode: BorderType = BorderType.REFLECT, onesided: bool = True) -> None:
        self.frames = _Frames("Spectrogram", n_fft, win_length, hop_length, window)
        self.pad = check_int("Spectrogram", "pad", pad)
        self.power = check_positive("Spectrogram", "power", power, allow_zero=True)
        self.normalized, self.center, self.onesided = bool(normalized), bool(center), bool(onesided)
        self.pad_mode = BorderType(pad_mode)

    def complex(self, x: np.ndarray) -> np.ndarray:
        if self.pad:
            x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(self.pad, self.pad)])
        spec = self.frames.stft(x.astype(np.float64), self.center, self.pad_mode, self.onesided)
        if self.normalized:
            spec = spec / math.sqrt(float((self.frames.window ** 2).sum()))
        return spec

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("Spectrogram", data)
        spec = self.complex(x)
        if self.power == 0:
            return _pair(spec).astype(x.dtype)
        return (np.abs(spec) ** self.power).astype(x.dtype)


class InverseSpectrogram:
    """``InverseSpectrogram(length=None, n_fft=400, win_length=None, hop_length=None, pad=0,
    window=WindowType.HANN, normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True)``:
    complex (..., freq, time, 2) spectrograms back to (..., length) audio by overlap-add."""

    def __init__(self, length: int | None = None, n_fft: int = 400, win_length: int | None = None,
                 hop_length: int | None = None, pad: int = 0, window: WindowType = WindowType.HANN,
                 normalized: bool = False, center: bool = True, pad_mode: BorderType = BorderType.REFLECT,
                 onesided: bool = True) -> None:
        self.frames = _Frames("InverseSpectrogram", n_fft, win_length, hop_length, window)
        self.length = None if length is None else check_int("InverseSpectrogram", "length", length)
        self.pad = check_int("InverseSpectrogram", "pad", pad)
        self.normalized, self.center, self.onesided = bool(normalized), bool(center), bool(onesided)
        self.pad_mode = BorderType(pad_mode)

    def __call__(self, data: Any) -> np.ndarray:
        x = complex_input("InverseSpectrogram", data)
        spec = x[..., 0].astype(np.float64) + 1j * x[..., 1]
        if self.normalized:
            spec = spec * math.sqrt(float((self.frames.window ** 2).sum()))
        length = None if self.length is None else self.length + 2 * self.pad
        out = self.frames.istft(spec, self.center, length, self.onesided)
        if self.pad:
            out = out[..., self.pad:out.shape[-1] - self.pad]
        return out.astype(x.dtype)


class GriffinLim:
    """``GriffinLim(n_fft=400, n_iter=32, win_length=None, hop_length=None, window_type=WindowType.HANN,
    power=2.0, momentum=0.99, length=None, rand_init=True)``: audio from a magnitude spectrogram
    (..., freq, time) by the fast Griffin-Lim phase reconstruction. The random initial phase follows
    ``ds.config.set_seed`` (a stream other than MindSpore's)."""

    def __init__(self, n_fft: int = 400, n_iter: int = 32, win_length: int | None = None,
                 hop_length: int | None = None, window_type: WindowType = WindowType.HANN, power: float = 2.0,
                 momentum: float = 0.99, length: int | None = None, rand_init: bool = True) -> None:
        self.frames = _Frames("GriffinLim", n_fft, win_length, hop_length, window_type)
        self.n_iter = check_int("GriffinLim", "n_iter", n_iter, 1)
        self.power = check_positive("GriffinLim", "power", power)
        self.momentum = check_positive("GriffinLim", "momentum", momentum, allow_zero=True)
        self.length = None if length is None else check_int("GriffinLim", "length", length)
        self.rand_init = bool(rand_init)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("GriffinLim", data, 2)
        if x.shape[-2] != self.frames.n_fft // 2 + 1:
            raise ValueError(f"GriffinLim: the spectrogram has {x.shape[-2]} frequency bins; n_fft "
                             f"{self.frames.n_fft} needs {self.frames.n_fft // 2 + 1}")
        mag = x.astype(np.float64) ** (1 / self.power)
        angles = (np.exp(2j * math.pi * rng().random(mag.shape)) if self.rand_init
                  else np.ones(mag.shape, np.complex128))
        length = self.length if self.length is not None else self.frames.hop_length * (x.shape[-1] - 1)
        prev = np.zeros_like(angles)
        for _ in range(self.n_iter):
            inverse = self.frames.istft(mag * angles, True, length)
            rebuilt = self.frames.stft(inverse)
            angles = rebuilt - prev * (self.momentum / (1 + self.momentum))
            angles = angles / (np.abs(angles) + 1e-16)
            prev = rebuilt
        return self.frames.istft(mag * angles, True, length).astype(x.dtype)


class SpectralCentroid:
    """``SpectralCentroid(sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0,
    window=WindowType.HANN)``: the magnitude-weighted mean frequency of each frame -> (..., 1, frames)."""

    def __init__(self, sample_rate: int, n_fft: int = 400, win_length: int | None = None,
                 hop_length: int | None = None, pad: int = 0, window: WindowType = WindowType.HANN) -> None:
        self.sample_rate = check_int("SpectralCentroid", "sample_rate", sample_rate, 1)
        self.spec = Spectrogram(n_fft, win_length, hop_length, pad, window, power=1.0)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("SpectralCentroid", data)
        mag = np.abs(self.spec.complex(x))
        freqs = np.linspace(0, self.sample_rate // 2, mag.shape[-2])[:, None]
        return ((freqs * mag).sum(axis=-2, keepdims=True) / mag.sum(axis=-2, keepdims=True)).astype(x.dtype)


def phase_vocoder(spec: np.ndarray, rate: float, phase_advance: np.ndarray) -> np.ndarray:
    """Time-stretch complex spectrograms (..., freq, time) by ``rate`` (>1 faster) keeping the pitch."""
    if rate == 1.0:
        return spec
    steps = np.arange(0, spec.shape[-1], rate)
    alphas = steps % 1.0
    phase_0 = np.angle(spec[..., :1])
    padded = np.pad(spec, [(0, 0)] * (spec.ndim - 1) + [(0, 2)])
    s0, s1 = padded[..., steps.astype(np.int64)], padded[..., steps.astype(np.int64) + 1]
    phase = np.angle(s1) - np.angle(s0) - phase_advance
    phase = phase - 2 * math.pi * np.round(phase / (2 * math.pi)) + phase_advance
    phase = np.concatenate([phase_0, phase[..., :-1]], axis=-1)
    mag = alphas * np.abs(s1) + (1 - alphas) * np.abs(s0)
    return mag * np.exp(1j * np.cumsum(phase, axis=-1))


class PhaseVocoder:
    """``PhaseVocoder(rate, phase_advance)``: stretch complex (..., freq, time, 2) spectrograms in time by
    ``rate`` with the expected phase advance per bin ``phase_advance`` (freq, 1)."""

    def __init__(self, rate: float, phase_advance: Any) -> None:
        self.rate = check_positive("PhaseVocoder", "rate", rate)
        self.phase_advance = np.asarray(phase_advance, np.float64)

    def __call__(self, data: Any) -> np.ndarray:
        x = complex_input("PhaseVocoder", data)
        spec = x[..., 0].astype(np.float64) + 1j * x[..., 1]
        return _pair(phase_vocoder(spec, self.rate, self.phase_advance)).astype(x.dtype)


class TimeStretch:
    """``TimeStretch(hop_length=None, n_freq=201, fixed_rate=None)``: ``PhaseVocoder`` with the phase advance
    of an STFT of ``n_freq`` bins and ``hop_length`` (default ``n_freq - 1``); ``fixed_rate`` None keeps the
    rate: a single (freq, time, 2) input then comes back as (1, freq, time, 2), as in MindSpore."""

    def __init__(self, hop_length: int | None = None, n_freq: int = 201, fixed_rate: float | None = None) -> None:
        self.n_freq = check_int("TimeStretch", "n_freq", n_freq, 1)
        self.hop_length = n_freq - 1 if hop_length is None else check_int("TimeStretch", "hop_length", hop_length, 1)
        self.fixed_rate = None if fixed_rate is None else check_positive("TimeStretch", "fixed_rate", fixed_rate)

    def __call__(self, data: Any) -> np.ndarray:
        x = complex_input("TimeStretch", data)
        advance = np.linspace(0, math.pi * self.hop_length, self.n_freq)[:, None]
        if self.fixed_rate is None:
            # Without a rate MindSpore returns the input with a leading channel axis.
            return x[None] if x.ndim == 3 else x.copy()
        return PhaseVocoder(self.fixed_rate, advance)(x)


__all__ = ["make_window", "Spectrogram", "InverseSpectrogram", "GriffinLim", "SpectralCentroid", "phase_vocoder",
           "PhaseVocoder", "TimeStretch"]
