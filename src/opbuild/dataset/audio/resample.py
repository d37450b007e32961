"""``Resample`` and ``PitchShift`` of ``mindspore.dataset.audio``: band-limited sinc interpolation with a
Hann or Kaiser window, as a polyphase filter bank (one kernel per output phase) along the last axis; the
pitch shift stretches with a phase vocoder and resamples back to the original length."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._common import check_positive, waveform
from .enums import ResampleMethod, WindowType
from .spectral import _Frames, phase_vocoder

_KAISER_BETA = 14.769656459379492  # the default Kaiser beta of MindSpore's (and torchaudio's) Resample


class Resample:
    """``Resample(orig_freq=16000, new_freq=16000, resample_method=ResampleMethod.SINC_INTERPOLATION,
    lowpass_filter_width=6, rolloff=0.99, beta=None)``: resample (..., time) audio to ``new_freq``; the output
    has ``ceil(time * new_freq / orig_freq)`` samples."""

    def __init__(self, orig_freq: float = 16000, new_freq: float = 16000,
                 resample_method: ResampleMethod = ResampleMethod.SINC_INTERPOLATION, lowpass_filter_width: int = 6,
                 rolloff: float = 0.99, beta: float | None = None) -> None:
        self.orig = int(check_positive("Resample", "orig_freq", orig_freq))
        self.new = int(check_positive("Resample", "new_freq", new_freq))
        if self.orig != orig_freq or self.new != new_freq:
            raise ValueError(f"Resample: orig_freq and new_freq must be whole numbers, got {orig_freq}, {new_freq}")
        self.method = ResampleMethod(resample_method)
        if isinstance(lowpass_filter_width, bool) or not isinstance(lowpass_filter_width, int) \
                or lowpass_filter_width <= 0:
            raise ValueError(f"Resample: lowpass_filter_width must be a positive int, got {lowpass_filter_width!r}")
        self.width_param = lowpass_filter_width
        if not 0 < rolloff <= 1:
            raise ValueError(f"Resample: rolloff must be in (0, 1], got {rolloff!r}")
        self.rolloff = float(rolloff)
        self.beta = _KAISER_BETA if beta is None else float(beta)

    def _kernel(self, orig: int, new: int, phases: int) -> tuple[np.ndarray, int]:
        """The filters of output phases ``0..phases-1`` (of ``new``), and the half width in input samples."""
        lw = self.width_param
        base = min(orig, new) * self.rolloff
        width = math.ceil(lw * orig / base)
        idx = np.arange(-width, width + orig, dtype=np.float64)[None, :] / orig
        t = (np.arange(0, -phases, -1, dtype=np.float64)[:, None] / new + idx) * base
        t = np.clip(t, -lw, lw)
        if self.method == ResampleMethod.SINC_INTERPOLATION:
            window = np.cos(t * math.pi / lw / 2) ** 2
        else:
            window = np.i0(self.beta * np.sqrt(1 - (t / lw) ** 2)) / np.i0(self.beta)
        t = t * math.pi
        safe = np.where(t == 0, 1.0, t)
        kernel = np.where(t == 0, 1.0, np.sin(safe) / safe) * window * (base / orig)
        return kernel, width

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("Resample", data)
        if self.orig == self.new:
            return x.copy()
        g = math.gcd(self.orig, self.new)
        orig, new = self.orig // g, self.new // g
        flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
        n = flat.shape[1]
        target = math.ceil(new * n / orig)
        # Output j is phase j % new of step j // new. When the output is shorter than one step (a ratio of
        # large coprime rates, as PitchShift's), only its first phases are needed: building all `new` filters
        # would take new x (orig + 2 width) values (GBs for 16000 -> 19027).
        phases = min(new, target)
        kernel, width = self._kernel(orig, new, phases)
        padded = np.pad(flat, ((0, 0), (width, width + orig)))
        if phases < new:
            out = padded[:, :kernel.shape[1]] @ kernel.T
        else:
            steps = (padded.shape[1] - kernel.shape[1]) // orig + 1
            idx = np.arange(steps)[:, None] * orig + np.arange(kernel.shape[1])[None, :]
            out = np.einsum("bsk,pk->bsp", padded[:, idx], kernel).reshape(flat.shape[0], -1)
        return out[:, :target].reshape(*x.shape[:-1], -1).astype(x.dtype)


class PitchShift:
    """``PitchShift(sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None, hop_length=None,
    window=WindowType.HANN)``: shift the pitch by ``n_steps`` steps of ``bins_per_octave`` per octave, keeping
    the length (``hop_length`` defaults to a quarter of the window)."""

    def __init__(self, sample_rate: int, n_steps: int, bins_per_octave: int = 12, n_fft: int = 512,
                 win_length: int | None = None, hop_length: int | None = None,
                 window: WindowType = WindowType.HANN) -> None:
        self.sample_rate = int(check_positive("PitchShift", "sample_rate", sample_rate))
        if bins_per_octave == 0:
            raise ValueError("PitchShift: bins_per_octave must not be zero")
        self.rate = 2.0 ** (-float(n_steps) / bins_per_octave)
        win = n_fft if win_length is None else win_length
        self.frames = _Frames("PitchShift", n_fft, win, win // 4 if hop_length is None else hop_length, window)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("PitchShift", data)
        n = x.shape[-1]
        spec = self.frames.stft(x.astype(np.float64))
        advance = np.linspace(0, math.pi * self.frames.hop_length, spec.shape[-2])[:, None]
        stretched = self.frames.istft(phase_vocoder(spec, self.rate, advance), True, int(round(n / self.rate)))
        shifted = Resample(int(self.sample_rate / self.rate), self.sample_rate)(stretched)
        if shifted.shape[-1] >= n:
            shifted = shifted[..., :n]
        else:
            shifted = np.pad(shifted, [(0, 0)] * (shifted.ndim - 1) + [(0, n - shifted.shape[-1])])
        return shifted.astype(x.dtype)


__all__ = ["Resample", "PitchShift"]
