"""Sample-wise and frame-wise audio transforms of ``mindspore.dataset.audio``: decibel conversions, complex
magnitude/phase, gains, fades, mu-law companding, contrast, DC shift, overdrive, dither, deltas and
sliding-window mean normalization."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._common import check_int, check_positive, complex_input, rng, waveform
from .enums import BorderType, DensityFunction, FadeShape, GainType, ScaleType


class AmplitudeToDB:
    """``AmplitudeToDB(stype=ScaleType.POWER, ref_value=1.0, amin=1e-10, top_db=80.0)``: a power (10 log10) or
    magnitude (20 log10) spectrogram in decibels relative to ``ref_value``, floored ``top_db`` below the
    spectrogram's maximum."""

    def __init__(self, stype: ScaleType = ScaleType.POWER, ref_value: float = 1.0, amin: float = 1e-10,
                 top_db: float = 80.0) -> None:
        self.stype = ScaleType(stype)
        self.ref_value = check_positive("AmplitudeToDB", "ref_value", ref_value)
        self.amin = check_positive("AmplitudeToDB", "amin", amin)
        self.top_db = check_positive("AmplitudeToDB", "top_db", top_db) if top_db is not None else None

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("AmplitudeToDB", data, 2)
        mult = 10.0 if self.stype == ScaleType.POWER else 20.0
        db = mult * np.log10(np.maximum(x, self.amin)) - mult * math.log10(max(self.amin, self.ref_value))
        if self.top_db is not None:
            # The floor is relative to the maximum over the last three axes (all channels of a sample).
            axes = tuple(range(-min(db.ndim, 3), 0))
            peak = db.max(axis=axes, keepdims=True)
            db = np.maximum(db, peak - self.top_db)
        return db.astype(x.dtype)


class DBToAmplitude:
    """``DBToAmplitude(ref, power)``: decibels back to amplitude: ``ref * 10 ** (x / 10 * power)``."""

    def __init__(self, ref: float, power: float) -> None:
        self.ref, self.power = float(ref), float(power)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("DBToAmplitude", data)
        return (self.ref * np.power(np.power(10.0, 0.1 * x), self.power)).astype(x.dtype)


class Angle:
    """``Angle()``: the phase of a complex (..., 2) input, in radians."""

    def __call__(self, data: Any) -> np.ndarray:
        x = complex_input("Angle", data)
        return np.arctan2(x[..., 1], x[..., 0]).astype(x.dtype)


class ComplexNorm:
    """``ComplexNorm(power=1.0)``: the magnitude of a complex (..., 2) input raised to ``power``."""

    def __init__(self, power: float = 1.0) -> None:
        self.power = check_positive("ComplexNorm", "power", power, allow_zero=True)

    def __call__(self, data: Any) -> np.ndarray:
        x = complex_input("ComplexNorm", data)
        return np.power(x[..., 0] ** 2 + x[..., 1] ** 2, self.power / 2).astype(x.dtype)


class Magphase:
    """``Magphase(power=1.0)``: ``(ComplexNorm(power)(x), Angle()(x))`` of a complex (..., 2) input."""

    def __init__(self, power: float = 1.0) -> None:
        self.power = check_positive("Magphase", "power", power, allow_zero=True)

    def __call__(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        return ComplexNorm(self.power)(data), Angle()(data)


class Contrast:
    """``Contrast(enhancement_amount=75.0)``: SoX's contrast effect, ``sin(x*pi/2 + a/750 * sin(x*2*pi))``."""

    def __init__(self, enhancement_amount: float = 75.0) -> None:
        if not 0 <= enhancement_amount <= 100:
            raise ValueError(f"Contrast: enhancement_amount must be in [0, 100], got {enhancement_amount!r}")
        self.amount = float(enhancement_amount)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("Contrast", data)
        t = x * (math.pi / 2)
        return np.sin(t + self.amount / 750 * np.sin(t * 4)).astype(x.dtype)


class DCShift:
    """``DCShift(shift, limiter_gain=None)``: add ``shift`` (in [-2, 2]); with ``limiter_gain``, samples
    beyond ``1 - (|shift| - limiter_gain)`` are compressed instead of clipped."""

    def __init__(self, shift: float, limiter_gain: float | None = None) -> None:
        if not -2 <= shift <= 2:
            raise ValueError(f"DCShift: shift must be in [-2, 2], got {shift!r}")
        self.shift = float(shift)
        self.limiter_gain = None if limiter_gain is None else float(limiter_gain)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("DCShift", data)
        s, g = self.shift, self.limiter_gain
        plain = np.clip(x + s, -1, 1)
        if g is None or s == 0:
            return plain.astype(x.dtype)
        thr = 1.0 - (abs(s) - g)
        if s > 0:
            mask = x > thr
            limited = np.minimum((x - thr) * g / (1 - thr) + thr + s, thr)
        else:
            # MindSpore adds the threshold back on this side too (not subtracts it), unclamped.
            mask = x < -thr
            limited = (x + thr) * g / (1 - thr) + thr + s
        return np.where(mask, limited, plain).astype(x.dtype)


class Gain:
    """``Gain(gain_db=1.0)``: amplify by ``gain_db`` decibels (no clipping)."""

    def __init__(self, gain_db: float = 1.0) -> None:
        self.gain_db = float(gain_db)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("Gain", data)
        return (x * 10 ** (self.gain_db / 20)).astype(x.dtype)


class Vol:
    """``Vol(gain, gain_type=GainType.AMPLITUDE)``: scale by an amplitude ratio, a power ratio or decibels,
    clipped to [-1, 1]."""

    def __init__(self, gain: float, gain_type: GainType = GainType.AMPLITUDE) -> None:
        self.gain_type = GainType(gain_type)
        if self.gain_type != GainType.DB and gain < 0:
            raise ValueError(f"Vol: gain must be non-negative for {self.gain_type.name}, got {gain!r}")
        if self.gain_type == GainType.POWER and gain == 0:
            raise ValueError("Vol: gain must be positive for GainType.POWER")
        self.gain = float(gain)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("Vol", data)
        if self.gain_type == GainType.AMPLITUDE:
            factor = self.gain
        elif self.gain_type == GainType.DB:
            factor = 10 ** (self.gain / 20)
        else:
            factor = 10 ** (10 * math.log10(self.gain) / 20)
        return np.clip(x * factor, -1, 1).astype(x.dtype)


def _fade_curve(n: int, shape: FadeShape, fade_in: bool) -> np.ndarray:
    t = np.linspace(0, 1, n) if n > 1 else np.zeros(n)
    if shape == FadeShape.LINEAR:
        return t if fade_in else 1 - t
    if shape == FadeShape.EXPONENTIAL:
        return t * 2 ** (t - 1) if fade_in else (1 - t) * 2 ** (-t)
    if shape == FadeShape.LOGARITHMIC:
        return np.log10(0.1 + t) + 1 if fade_in else np.log10(1.1 - t) + 1
    if shape == FadeShape.QUARTER_SINE:
        return np.sin(t * math.pi / 2) if fade_in else np.sin(t * math.pi / 2 + math.pi / 2)
    return (np.sin(t * math.pi - math.pi / 2) / 2 + 0.5 if fade_in
            else np.sin(t * math.pi + math.pi / 2) / 2 + 0.5)


class Fade:
    """``Fade(fade_in_len=0, fade_out_len=0, fade_shape=FadeShape.LINEAR)``: fade the first ``fade_in_len``
    samples in and the last ``fade_out_len`` out along the last axis."""

    def __init__(self, fade_in_len: int = 0, fade_out_len: int = 0,
                 fade_shape: FadeShape = FadeShape.LINEAR) -> None:
        self.fade_in_len = check_int("Fade", "fade_in_len", fade_in_len)
        self.fade_out_len = check_int("Fade", "fade_out_len", fade_out_len)
        self.fade_shape = FadeShape(fade_shape)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("Fade", data)
        n = x.shape[-1]
        if self.fade_in_len > n or self.fade_out_len > n:
            raise ValueError(f"Fade: fade_in_len {self.fade_in_len} and fade_out_len {self.fade_out_len} must "
                             f"not exceed the waveform length {n}")
        gain = np.ones(n)
        gain[:self.fade_in_len] *= _fade_curve(self.fade_in_len, self.fade_shape, True)
        if self.fade_out_len:
            gain[n - self.fade_out_len:] *= _fade_curve(self.fade_out_len, self.fade_shape, False)
        return (x * gain).astype(x.dtype)


class MuLawEncoding:
    """``MuLawEncoding(quantization_channels=256)``: mu-law companding of [-1, 1] audio to int32 codes."""

    def __init__(self, quantization_channels: int = 256) -> None:
        self.channels = check_int("MuLawEncoding", "quantization_channels", quantization_channels, 1)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("MuLawEncoding", data)
        mu = self.channels - 1.0
        x_mu = np.sign(x) * np.log1p(mu * np.abs(x)) / math.log1p(mu)
        return ((x_mu + 1) / 2 * mu + 0.5).astype(np.int32)


class MuLawDecoding:
    """``MuLawDecoding(quantization_channels=256)``: mu-law codes back to [-1, 1] audio."""

    def __init__(self, quantization_channels: int = 256) -> None:
        self.channels = check_int("MuLawDecoding", "quantization_channels", quantization_channels, 1)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("MuLawDecoding", data)
        mu = self.channels - 1.0
        y = x / mu * 2 - 1.0
        return (np.sign(y) * (np.exp(np.abs(y) * math.log1p(mu)) - 1.0) / mu).astype(x.dtype)


class Overdrive:
    """``Overdrive(gain=20.0, color=20.0)``: SoX's overdrive: a cubic soft clipper after ``gain`` dB, with
    ``color`` adding even harmonics, high-passed and mixed with half the dry signal."""

    def __init__(self, gain: float = 20.0, color: float = 20.0) -> None:
        if not 0 <= gain <= 100 or not 0 <= color <= 100:
            raise ValueError(f"Overdrive: gain and color must be in [0, 100], got {gain!r} and {color!r}")
        self.gain, self.color = float(gain), float(color)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("Overdrive", data)
        flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
        t = flat * 10 ** (self.gain / 20) + self.color / 200
        t = np.where(t < -1, -2.0 / 3, np.where(t > 1, 2.0 / 3, t - t ** 3 / 3))
        out = np.empty_like(t)
        last_in = np.zeros(t.shape[0])
        last_out = np.zeros(t.shape[0])
        for i in range(t.shape[1]):
            last_out = t[:, i] - last_in + 0.995 * last_out
            last_in = t[:, i]
            out[:, i] = flat[:, i] * 0.5 + last_out * 0.75
        return np.clip(out, -1, 1).reshape(x.shape).astype(x.dtype)


class Dither:
    """``Dither(density_function=DensityFunction.TPDF, noise_shaping=False)``: requantize to 16 bits with
    triangular, rectangular or Gaussian noise (one LSB wide); ``noise_shaping`` feeds the quantization error
    back. Random: follows ``ds.config.set_seed`` with a stream other than MindSpore's."""

    def __init__(self, density_function: DensityFunction = DensityFunction.TPDF, noise_shaping: bool = False) -> None:
        self.density_function = DensityFunction(density_function)
        self.noise_shaping = bool(noise_shaping)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("Dither", data)
        gen = rng()
        scale = 2.0 ** 15
        if self.density_function == DensityFunction.RPDF:
            noise = gen.uniform(-0.5, 0.5, x.shape)
        elif self.density_function == DensityFunction.GPDF:
            noise = gen.normal(0.0, 0.5, x.shape)
        else:
            noise = gen.uniform(-0.5, 0.5, x.shape) + gen.uniform(-0.5, 0.5, x.shape)
        scaled = x.astype(np.float64) * (scale - 2)
        if not self.noise_shaping:
            return (np.round(scaled + noise) / scale).astype(x.dtype)
        flat, nz = scaled.reshape(-1, x.shape[-1]), noise.reshape(-1, x.shape[-1])
        out = np.empty_like(flat)
        err = np.zeros(flat.shape[0])
        for i in range(flat.shape[1]):
            want = flat[:, i] - err
            out[:, i] = np.round(want + nz[:, i])
            err = out[:, i] - want
        return (out / scale).reshape(x.shape).astype(x.dtype)


_PAD = {BorderType.CONSTANT: "constant", BorderType.EDGE: "edge", BorderType.REFLECT: "reflect",
        BorderType.SYMMETRIC: "symmetric"}


class ComputeDeltas:
    """``ComputeDeltas(win_length=5, pad_mode=BorderType.EDGE)``: delta coefficients along the time (last)
    axis: ``sum_k k * (x[t+k] - x[t-k]) / (2 * sum_k k**2)`` over ``k = 1..(win_length-1)//2``."""

    def __init__(self, win_length: int = 5, pad_mode: BorderType = BorderType.EDGE) -> None:
        self.win_length = check_int("ComputeDeltas", "win_length", win_length, 3)
        self.pad_mode = BorderType(pad_mode)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("ComputeDeltas", data, 2)
        n = (self.win_length - 1) // 2
        denom = n * (n + 1) * (2 * n + 1) / 3
        widths = [(0, 0)] * (x.ndim - 1) + [(n, n)]
        padded = np.pad(x.astype(np.float64), widths, mode=_PAD[self.pad_mode])
        t = x.shape[-1]
        out = sum(k * padded[..., n + k:n + k + t] for k in range(-n, n + 1) if k)
        return (out / denom).astype(x.dtype)


class SlidingWindowCmn:
    """``SlidingWindowCmn(cmn_window=600, min_cmn_window=100, center=False, norm_vars=False)``: Kaldi's
    sliding-window cepstral mean (and variance) normalization of (..., time, feature) features."""

    def __init__(self, cmn_window: int = 600, min_cmn_window: int = 100, center: bool = False,
                 norm_vars: bool = False) -> None:
        self.cmn_window = check_int("SlidingWindowCmn", "cmn_window", cmn_window)
        self.min_cmn_window = check_int("SlidingWindowCmn", "min_cmn_window", min_cmn_window)
        self.center, self.norm_vars = bool(center), bool(norm_vars)

    def _window(self, t: int, frames: int) -> tuple[int, int]:
        if self.center:
            start = t - self.cmn_window // 2
            end = start + self.cmn_window
        else:
            start, end = t - self.cmn_window, t + 1
        if start < 0:
            end -= start
            start = 0
        if not self.center and end > t:
            end = max(t + 1, self.min_cmn_window)
        if end > frames:
            start = max(start - (end - frames), 0)
            end = frames
        return start, end

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("SlidingWindowCmn", data, 2)
        frames = x.shape[-2]
        src = x.astype(np.float64)
        out = np.empty_like(src)
        for t in range(frames):
            start, end = self._window(t, frames)
            part = src[..., start:end, :]
            mean = part.mean(axis=-2)
            out[..., t, :] = src[..., t, :] - mean
            if self.norm_vars:
                if end - start == 1:
                    out[..., t, :] = 0.0
                else:
                    var = (part ** 2).mean(axis=-2) - mean ** 2
                    out[..., t, :] *= var ** -0.5
        return out.astype(x.dtype)


__all__ = ["AmplitudeToDB", "DBToAmplitude", "Angle", "ComplexNorm", "Magphase", "Contrast", "DCShift", "Gain",
           "Vol", "Fade", "MuLawEncoding", "MuLawDecoding", "Overdrive", "Dither", "ComputeDeltas",
           "SlidingWindowCmn"]
