"""Spectral ``mindspore.dataset.audio`` transforms (re-exported by audio.py): ``Spectrogram``, ``MelScale``,
``MelSpectrogram``, ``SpectralCentroid`` and the filter banks ``melscale_fbanks``, ``linear_fbanks`` and
``create_dct``, with the formulas of torchaudio that MindSpore's follow (periodic windows, centred frames
padded by reflection, power spectra)."""

from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np


class WindowType(str, enum.Enum):
    """Analysis windows (periodic, as torch's)."""

    BARTLETT = "bartlett"
    BLACKMAN = "blackman"
    HAMMING = "hamming"
    HANN = "hann"
    KAISER = "kaiser"


class NormType(str, enum.Enum):
    """Filter-bank normalisation."""

    NONE = "none"
    SLANEY = "slaney"


class NormMode(str, enum.Enum):
    """DCT normalisation."""

    NONE = "none"
    ORTHO = "ortho"


class MelType(str, enum.Enum):
    """Mel scales."""

    HTK = "htk"
    SLANEY = "slaney"


def _window(kind: WindowType, n: int) -> np.ndarray:
    k = np.arange(n)
    kind = WindowType(kind)
    if kind == WindowType.HANN:
        return 0.5 - 0.5 * np.cos(2 * math.pi * k / n)
    if kind == WindowType.HAMMING:
        return 0.54 - 0.46 * np.cos(2 * math.pi * k / n)
    if kind == WindowType.BLACKMAN:
        return 0.42 - 0.5 * np.cos(2 * math.pi * k / n) + 0.08 * np.cos(4 * math.pi * k / n)
    if kind == WindowType.BARTLETT:
        return 1 - np.abs(2 * k / n - 1)
    return np.kaiser(n + 1, 12.0)[:n]


def _hz_to_mel(f: np.ndarray, mel_type: MelType) -> np.ndarray:
    f = np.asarray(f, np.float64)
    if MelType(mel_type) == MelType.HTK:
        return 2595.0 * np.log10(1.0 + f / 700.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    mels = f / f_sp
    logstep = math.log(6.4) / 27.0
    return np.where(f >= min_log_hz, min_log_hz / f_sp + np.log(np.maximum(f, 1e-10) / min_log_hz) / logstep, mels)


def _mel_to_hz(m: np.ndarray, mel_type: MelType) -> np.ndarray:
    if MelType(mel_type) == MelType.HTK:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0
    return np.where(m >= min_log_mel, min_log_hz * np.exp(logstep * (m - min_log_mel)), f_sp * m)


def _triangles(all_freqs: np.ndarray, f_pts: np.ndarray) -> np.ndarray:
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[None, :] - all_freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up))


def melscale_fbanks(n_freqs: int, f_min: float, f_max: float, n_mels: int, sample_rate: int,
                    norm: NormType = NormType.NONE, mel_type: MelType = MelType.HTK) -> np.ndarray:
    """The (n_freqs, n_mels) triangular mel filter bank."""
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m = np.linspace(_hz_to_mel(f_min, mel_type), _hz_to_mel(f_max, mel_type), n_mels + 2)
    f_pts = _mel_to_hz(m, mel_type)
    fb = _triangles(all_freqs, f_pts)
    if NormType(norm) == NormType.SLANEY:
        fb = fb * (2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels]))[None, :]
    return fb.astype(np.float32)


def linear_fbanks(n_freqs: int, f_min: float, f_max: float, n_filter: int, sample_rate: int) -> np.ndarray:
    """The (n_freqs, n_filter) triangular filter bank on a linear frequency scale."""
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    return _triangles(all_freqs, np.linspace(f_min, f_max, n_filter + 2)).astype(np.float32)


def create_dct(n_mfcc: int, n_mels: int, norm: NormMode = NormMode.NONE) -> np.ndarray:
    """The (n_mels, n_mfcc) DCT-II matrix (``norm`` ORTHO: orthonormal; NONE: scaled by 2)."""
    n = np.arange(n_mels, dtype=np.float64)
    k = np.arange(n_mfcc, dtype=np.float64)[:, None]
    dct = np.cos(math.pi / n_mels * (n + 0.5) * k)
    if NormMode(norm) == NormMode.NONE:
        dct *= 2.0
    else:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / n_mels)
    return dct.T.astype(np.float32)


def stft_power(x: np.ndarray, n_fft: int, win_length: int | None, hop_length: int | None, pad: int,
               window: WindowType, power: float | None, normalized: bool, center: bool, pad_mode: str,
               onesided: bool) -> np.ndarray:
    """|STFT|**power of ``x`` along its last axis: (..., freq, frames)."""
    win_length = win_length or n_fft
    hop = hop_length or win_length // 2
    w = np.zeros(n_fft)
    start = (n_fft - win_length) // 2
    w[start:start + win_length] = _window(window, win_length)
    arr = x.astype(np.float64)
    if pad:
        arr = np.pad(arr, [(0, 0)] * (arr.ndim - 1) + [(pad, pad)])
    if center:
        mode = {"edge": "edge", "constant": "constant", "symmetric": "symmetric"}.get(pad_mode, "reflect")
        arr = np.pad(arr, [(0, 0)] * (arr.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=mode)
    frames = 1 + (arr.shape[-1] - n_fft) // hop
    idx = np.arange(n_fft)[None, :] + hop * np.arange(frames)[:, None]
    spec = (np.fft.rfft if onesided else np.fft.fft)(arr[..., idx] * w, axis=-1)
    if normalized:
        spec = spec / math.sqrt((w ** 2).sum())
    spec = np.swapaxes(spec, -1, -2)
    return np.abs(spec) ** power if power is not None else spec


def _border(pad_mode: Any) -> str:
    return str(getattr(pad_mode, "value", pad_mode))


class Spectrogram:
    """``Spectrogram(n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN, power=2.0,
    normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True)``: (..., n_fft//2+1, frames)."""

    def __init__(self, n_fft: int = 400, win_length: int | None = None, hop_length: int | None = None,
                 pad: int = 0, window: WindowType = WindowType.HANN, power: float = 2.0, normalized: bool = False,
                 center: bool = True, pad_mode: Any = "reflect", onesided: bool = True) -> None:
        if n_fft <= 0 or (win_length is not None and not 0 < win_length <= n_fft):
            raise ValueError(f"Spectrogram: n_fft must be positive and win_length in (0, n_fft], got {n_fft}, "
                             f"{win_length}")
        self.args = (n_fft, win_length, hop_length, pad, WindowType(window), power, normalized, center,
                     _border(pad_mode), onesided)

    def __call__(self, waveform: Any) -> np.ndarray:
        arr = np.asarray(waveform)
        return stft_power(arr, *self.args).astype(arr.dtype if arr.dtype.kind == "f" else np.float32)


class MelScale:
    """``MelScale(n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201, norm=NormType.NONE,
    mel_type=MelType.HTK)``: a (..., n_stft, time) spectrogram to (..., n_mels, time)."""

    def __init__(self, n_mels: int = 128, sample_rate: int = 16000, f_min: float = 0.0, f_max: float | None = None,
                 n_stft: int = 201, norm: NormType = NormType.NONE, mel_type: MelType = MelType.HTK) -> None:
        f_max = float(sample_rate // 2) if f_max is None else f_max
        if f_min > f_max:
            raise ValueError(f"MelScale: f_min {f_min} must not exceed f_max {f_max}")
        self.fb = melscale_fbanks(n_stft, f_min, f_max, n_mels, sample_rate, norm, mel_type)

    def __call__(self, spec: Any) -> np.ndarray:
        arr = np.asarray(spec)
        if arr.shape[-2] != self.fb.shape[0]:
            raise ValueError(f"MelScale: the spectrogram has {arr.shape[-2]} frequencies, n_stft is "
                             f"{self.fb.shape[0]}")
        out = np.swapaxes(np.swapaxes(arr, -1, -2) @ self.fb, -1, -2)
        return out.astype(arr.dtype if arr.dtype.kind == "f" else np.float32)


class MelSpectrogram:
    """``MelSpectrogram(sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0,
    f_max=None, pad=0, n_mels=128, window=WindowType.HANN, power=2.0, normalized=False, center=True,
    pad_mode=BorderType.REFLECT, onesided=True, norm=NormType.NONE, mel_scale=MelType.HTK)``."""

    def __init__(self, sample_rate: int = 16000, n_fft: int = 400, win_length: int | None = None,
                 hop_length: int | None = None, f_min: float = 0.0, f_max: float | None = None, pad: int = 0,
                 n_mels: int = 128, window: WindowType = WindowType.HANN, power: float = 2.0,
                 normalized: bool = False, center: bool = True, pad_mode: Any = "reflect", onesided: bool = True,
                 norm: NormType = NormType.NONE, mel_scale: MelType = MelType.HTK) -> None:
        self.spec = Spectrogram(n_fft, win_length, hop_length, pad, window, power, normalized, center, pad_mode,
                                onesided)
        self.mel = MelScale(n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1, norm, mel_scale)

    def __call__(self, waveform: Any) -> np.ndarray:
        return self.mel(self.spec(waveform))


class SpectralCentroid:
    """``SpectralCentroid(sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0,
    window=WindowType.HANN)``: the magnitude-weighted mean frequency of each frame, (..., 1, frames)."""

    def __init__(self, sample_rate: int, n_fft: int = 400, win_length: int | None = None,
                 hop_length: int | None = None, pad: int = 0, window: WindowType = WindowType.HANN) -> None:
        self.sample_rate = int(sample_rate)
        self.spec = Spectrogram(n_fft, win_length, hop_length, pad, window, power=1.0)
        self.n_fft = n_fft

    def __call__(self, waveform: Any) -> np.ndarray:
        arr = np.asarray(waveform)
        spec = self.spec(arr).astype(np.float64)
        freqs = np.linspace(0, self.sample_rate // 2, 1 + self.n_fft // 2)[:, None]
        out = (freqs * spec).sum(axis=-2, keepdims=True) / spec.sum(axis=-2, keepdims=True)
        return out.astype(arr.dtype if arr.dtype.kind == "f" else np.float32)


def _to_db(x: np.ndarray, top_db: float = 80.0) -> np.ndarray:
    db = 10.0 * np.log10(np.maximum(x, 1e-10))
    return np.maximum(db, db.max() - top_db)


def _dct_apply(spec: np.ndarray, n_out: int, norm: NormMode) -> np.ndarray:
    dct = create_dct(n_out, spec.shape[-2], norm).astype(np.float64)
    return np.swapaxes(np.swapaxes(spec, -1, -2) @ dct, -1, -2)


class MFCC:
    """``MFCC(sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO, log_mels=False,
    melkwargs=None)``: the DCT of the (decibel, or log with ``log_mels``) mel spectrogram."""

    def __init__(self, sample_rate: int = 16000, n_mfcc: int = 40, dct_type: int = 2,
                 norm: NormMode = NormMode.ORTHO, log_mels: bool = False, melkwargs: dict | None = None) -> None:
        if dct_type != 2:
            raise ValueError(f"MFCC: only dct_type 2 is supported, got {dct_type}")
        kwargs = {"n_fft": 400, "win_length": 400, "hop_length": 200, "n_mels": 128}
        kwargs.update(melkwargs or {})
        if n_mfcc > kwargs["n_mels"]:
            raise ValueError(f"MFCC: n_mfcc {n_mfcc} must not exceed n_mels {kwargs['n_mels']}")
        self.mel = MelSpectrogram(sample_rate=sample_rate, **kwargs)
        self.n_mfcc, self.norm, self.log_mels = int(n_mfcc), NormMode(norm), bool(log_mels)

    def __call__(self, waveform: Any) -> np.ndarray:
        arr = np.asarray(waveform)
        mel = self.mel(arr).astype(np.float64)
        mel = np.log(mel + 1e-6) if self.log_mels else _to_db(mel)
        return _dct_apply(mel, self.n_mfcc, self.norm).astype(np.float32)  # float32 whatever the input, as MindSpore


class LFCC:
    """``LFCC(sample_rate=16000, n_filter=128, n_lfcc=40, f_min=0.0, f_max=None, dct_type=2,
    norm=NormMode.ORTHO, log_lf=False, speckwargs=None)``: the DCT of a linear-filter-bank spectrogram."""

    def __init__(self, sample_rate: int = 16000, n_filter: int = 128, n_lfcc: int = 40, f_min: float = 0.0,
                 f_max: float | None = None, dct_type: int = 2, norm: NormMode = NormMode.ORTHO,
                 log_lf: bool = False, speckwargs: dict | None = None) -> None:
        if dct_type != 2:
            raise ValueError(f"LFCC: only dct_type 2 is supported, got {dct_type}")
        kwargs = {"n_fft": 400, "win_length": 400, "hop_length": 200}
        kwargs.update(speckwargs or {})
        self.spec = Spectrogram(**kwargs)
        f_max = float(sample_rate // 2) if f_max is None else f_max
        self.fb = linear_fbanks(kwargs["n_fft"] // 2 + 1, f_min, f_max, n_filter, sample_rate).astype(np.float64)
        self.n_lfcc, self.norm, self.log_lf = int(n_lfcc), NormMode(norm), bool(log_lf)

    def __call__(self, waveform: Any) -> np.ndarray:
        arr = np.asarray(waveform)
        spec = np.swapaxes(np.swapaxes(self.spec(arr).astype(np.float64), -1, -2) @ self.fb, -1, -2)
        spec = np.log(spec + 1e-6) if self.log_lf else _to_db(spec)
        return _dct_apply(spec, self.n_lfcc, self.norm).astype(np.float32)  # float32 whatever the input


__all__ = ["MFCC", "LFCC", "WindowType", "NormType", "NormMode", "MelType", "melscale_fbanks", "linear_fbanks",
           "create_dct", "Spectrogram", "MelScale", "MelSpectrogram", "SpectralCentroid"]
