"""Mel and linear filter banks and the cepstra of ``mindspore.dataset.audio``: ``melscale_fbanks``,
``linear_fbanks``, ``create_dct``, ``MelScale``, ``InverseMelScale``, ``MelSpectrogram``, ``MFCC`` and
``LFCC``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._common import check_int, rng, waveform
from .elementwise import AmplitudeToDB
from .enums import BorderType, MelType, NormMode, NormType, ScaleType, WindowType
from .spectral import Spectrogram


def _hz_to_mel(f: np.ndarray, mel_type: MelType) -> np.ndarray:
    f = np.asarray(f, np.float64)
    if mel_type == MelType.HTK:
        return 2595.0 * np.log10(1.0 + f / 700.0)
    mel = f / (200.0 / 3)
    logstep = math.log(6.4) / 27.0
    return np.where(f >= 1000.0, 15.0 + np.log(np.maximum(f, 1e-10) / 1000.0) / logstep, mel)


def _mel_to_hz(m: np.ndarray, mel_type: MelType) -> np.ndarray:
    if mel_type == MelType.HTK:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    logstep = math.log(6.4) / 27.0
    return np.where(m >= 15.0, 1000.0 * np.exp(logstep * (m - 15.0)), m * (200.0 / 3))


def _triangles(all_freqs: np.ndarray, f_pts: np.ndarray) -> np.ndarray:
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[None, :] - all_freqs[:, None]
    down = -slopes[:, :-2] / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up))


def melscale_fbanks(n_freqs: int, f_min: float, f_max: float, n_mels: int, sample_rate: int,
                    norm: NormType = NormType.NONE, mel_type: MelType = MelType.HTK) -> np.ndarray:
    """Triangular mel filters as a (n_freqs, n_mels) matrix over the bins of a one-sided spectrum."""
    for name, v in (("n_freqs", n_freqs), ("n_mels", n_mels), ("sample_rate", sample_rate)):
        check_int("melscale_fbanks", name, v, 1)
    if f_min > f_max:
        raise ValueError(f"melscale_fbanks: f_min {f_min} must not exceed f_max {f_max}")
    mel_type = MelType(mel_type)
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_pts = np.linspace(_hz_to_mel(f_min, mel_type), _hz_to_mel(f_max, mel_type), n_mels + 2)
    f_pts = _mel_to_hz(m_pts, mel_type)
    fb = _triangles(all_freqs, f_pts)
    if NormType(norm) == NormType.SLANEY:
        fb = fb * (2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels]))[None, :]
    return fb.astype(np.float32)


def linear_fbanks(n_freqs: int, f_min: float, f_max: float, n_filter: int, sample_rate: int) -> np.ndarray:
    """Triangular filters equally spaced in Hz, as a (n_freqs, n_filter) matrix."""
    for name, v in (("n_freqs", n_freqs), ("n_filter", n_filter), ("sample_rate", sample_rate)):
        check_int("linear_fbanks", name, v, 1)
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    return _triangles(all_freqs, np.linspace(f_min, f_max, n_filter + 2)).astype(np.float32)


def create_dct(n_mfcc: int, n_mels: int, norm: NormMode = NormMode.NONE) -> np.ndarray:
    """The DCT-II matrix (n_mels, n_mfcc), unnormalized (doubled) or orthonormal."""
    check_int("create_dct", "n_mfcc", n_mfcc, 1)
    check_int("create_dct", "n_mels", n_mels, 1)
    n = np.arange(n_mels, dtype=np.float64)
    k = np.arange(n_mfcc, dtype=np.float64)[:, None]
    dct = np.cos(math.pi / n_mels * (n + 0.5) * k)
    if NormMode(norm) == NormMode.NONE:
        dct *= 2.0
    else:
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / n_mels)
    return dct.T.astype(np.float32)


class MelScale:
    """``MelScale(n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201, norm=NormType.NONE,
    mel_type=MelType.HTK)``: a (..., n_stft, time) spectrogram onto ``n_mels`` mel bands."""

    def __init__(self, n_mels: int = 128, sample_rate: int = 16000, f_min: float = 0.0, f_max: float | None = None,
                 n_stft: int = 201, norm: NormType = NormType.NONE, mel_type: MelType = MelType.HTK) -> None:
        f_max = float(sample_rate // 2) if f_max is None else f_max
        self.fb = melscale_fbanks(n_stft, f_min, f_max, n_mels, sample_rate, norm, mel_type)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("MelScale", data, 2)
        if x.shape[-2] != self.fb.shape[0]:
            raise ValueError(f"MelScale: the spectrogram has {x.shape[-2]} frequency bins, n_stft is "
                             f"{self.fb.shape[0]}")
        return np.swapaxes(np.swapaxes(x, -1, -2) @ self.fb, -1, -2).astype(x.dtype)


class InverseMelScale:
    """``InverseMelScale(n_stft, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, max_iter=100000,
    tolerance_loss=1e-5, tolerance_change=1e-8, sgdargs=None, norm=NormType.NONE, mel_type=MelType.HTK)``:
    a non-negative (..., n_stft, time) spectrogram whose mel projection approximates the input, by SGD with
    momentum (``sgdargs``: ``{'sgd_lr': 0.1, 'sgd_momentum': 0.9}``) from a random start that follows
    ``ds.config.set_seed`` (a stream other than MindSpore's)."""

    def __init__(self, n_stft: int, n_mels: int = 128, sample_rate: int = 16000, f_min: float = 0.0,
                 f_max: float | None = None, max_iter: int = 100000, tolerance_loss: float = 1e-5,
                 tolerance_change: float = 1e-8, sgdargs: dict | None = None, norm: NormType = NormType.NONE,
                 mel_type: MelType = MelType.HTK) -> None:
        f_max = float(sample_rate // 2) if f_max is None else f_max
        self.fb = melscale_fbanks(n_stft, f_min, f_max, n_mels, sample_rate, norm, mel_type)
        self.max_iter = check_int("InverseMelScale", "max_iter", max_iter)
        self.tolerance_loss, self.tolerance_change = float(tolerance_loss), float(tolerance_change)
        args = {"sgd_lr": 0.1, "sgd_momentum": 0.9, **(sgdargs or {})}
        self.lr, self.momentum = float(args["sgd_lr"]), float(args["sgd_momentum"])

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("InverseMelScale", data, 2)
        if x.shape[-2] != self.fb.shape[1]:
            raise ValueError(f"InverseMelScale: the input has {x.shape[-2]} mel bands, n_mels is {self.fb.shape[1]}")
        mel = np.swapaxes(x.reshape(-1, *x.shape[-2:]).astype(np.float64), -1, -2)  # (B, time, n_mels)
        approx = rng().random((mel.shape[0], mel.shape[1], self.fb.shape[0]))
        buf = None
        loss = math.inf
        count = mel.shape[0] * mel.shape[1]
        for _ in range(self.max_iter):
            diff = mel - approx @ self.fb
            new_loss = float((diff ** 2).sum(axis=-1).mean())
            grad = -2.0 * (diff @ self.fb.T) / count
            buf = grad if buf is None else self.momentum * buf + grad
            approx = np.maximum(approx - self.lr * buf, 0.0)
            if new_loss < self.tolerance_loss or abs(loss - new_loss) < self.tolerance_change:
                break
            loss = new_loss
        out = np.swapaxes(approx, -1, -2)
        return out.reshape(*x.shape[:-2], *out.shape[-2:]).astype(x.dtype)


class MelSpectrogram:
    """``MelSpectrogram(sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0, f_max=None,
    pad=0, n_mels=128, window=WindowType.HANN, power=2.0, normalized=False, center=True,
    pad_mode=BorderType.REFLECT, onesided=True, norm=NormType.NONE, mel_scale=MelType.HTK)``:
    ``MelScale(Spectrogram(...)(x))`` -> (..., n_mels, frames)."""

    def __init__(self, sample_rate: int = 16000, n_fft: int = 400, win_length: int | None = None,
                 hop_length: int | None = None, f_min: float = 0.0, f_max: float | None = None, pad: int = 0,
                 n_mels: int = 128, window: WindowType = WindowType.HANN, power: float = 2.0,
                 normalized: bool = False, center: bool = True, pad_mode: BorderType = BorderType.REFLECT,
                 onesided: bool = True, norm: NormType = NormType.NONE, mel_scale: MelType = MelType.HTK) -> None:
        self.spec = Spectrogram(n_fft, win_length, hop_length, pad, window, power, normalized, center, pad_mode,
                                onesided)
        self.mel = MelScale(n_mels, sample_rate, f_min, f_max, n_fft // 2 + 1, norm, mel_scale)

    def __call__(self, data: Any) -> np.ndarray:
        return self.mel(self.spec(data))


def _cepstrum(spec: np.ndarray, dct: np.ndarray, log: bool) -> np.ndarray:
    feats = np.log(spec + 1e-6) if log else AmplitudeToDB(ScaleType.POWER, 1.0, 1e-10, 80.0)(spec)
    return np.swapaxes(np.swapaxes(feats, -1, -2) @ dct, -1, -2).astype(np.float32)


class MFCC:
    """``MFCC(sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO, log_mels=False, melkwargs=None)``:
    the DCT-II of the (decibel, or with ``log_mels`` natural-log) mel spectrogram -> float32
    (..., n_mfcc, frames). ``melkwargs`` are MelSpectrogram's keywords (``n_mels`` 128 by default)."""

    def __init__(self, sample_rate: int = 16000, n_mfcc: int = 40, dct_type: int = 2,
                 norm: NormMode = NormMode.ORTHO, log_mels: bool = False, melkwargs: dict | None = None) -> None:
        if dct_type != 2:
            raise ValueError(f"MFCC: only dct_type 2 is supported (MindSpore's only type), got {dct_type!r}")
        kwargs = dict(melkwargs or {})
        kwargs.setdefault("sample_rate", sample_rate)
        self.mel = MelSpectrogram(**kwargs)
        n_mels = self.mel.mel.fb.shape[1]
        if n_mfcc > n_mels:
            raise ValueError(f"MFCC: n_mfcc {n_mfcc} must not exceed the number of mel bands {n_mels}")
        self.dct = create_dct(check_int("MFCC", "n_mfcc", n_mfcc, 1), n_mels, norm)
        self.log_mels = bool(log_mels)

    def __call__(self, data: Any) -> np.ndarray:
        return _cepstrum(self.mel(data), self.dct, self.log_mels)


class LFCC:
    """``LFCC(sample_rate=16000, n_filter=128, n_lfcc=40, f_min=0.0, f_max=None, dct_type=2,
    norm=NormMode.ORTHO, log_lf=False, speckwargs=None)``: as MFCC over linear (Hz-spaced) filters -> float32
    (..., n_lfcc, frames). ``speckwargs`` are Spectrogram's keywords."""

    def __init__(self, sample_rate: int = 16000, n_filter: int = 128, n_lfcc: int = 40, f_min: float = 0.0,
                 f_max: float | None = None, dct_type: int = 2, norm: NormMode = NormMode.ORTHO,
                 log_lf: bool = False, speckwargs: dict | None = None) -> None:
        if dct_type != 2:
            raise ValueError(f"LFCC: only dct_type 2 is supported (MindSpore's only type), got {dct_type!r}")
        if n_lfcc > n_filter:
            raise ValueError(f"LFCC: n_lfcc {n_lfcc} must not exceed n_filter {n_filter}")
        self.spec = Spectrogram(**dict(speckwargs or {}))
        f_max = float(sample_rate // 2) if f_max is None else f_max
        self.fb = linear_fbanks(self.spec.frames.n_fft // 2 + 1, f_min, f_max, n_filter, sample_rate)
        self.dct = create_dct(check_int("LFCC", "n_lfcc", n_lfcc, 1), n_filter, norm)
        self.log_lf = bool(log_lf)

    def __call__(self, data: Any) -> np.ndarray:
        spec = self.spec(data)
        lin = np.swapaxes(np.swapaxes(spec, -1, -2) @ self.fb, -1, -2)
        return _cepstrum(lin, self.dct, self.log_lf)


__all__ = ["melscale_fbanks", "linear_fbanks", "create_dct", "MelScale", "InverseMelScale", "MelSpectrogram",
           "MFCC", "LFCC"]
