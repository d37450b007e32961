"""``mindspore.dataset.audio``: waveform and spectrogram transforms on NumPy arrays (time on the last axis), with
MindSpore's names, defaults and formulas (those of torchaudio, which MindSpore's follow): the biquad filter
family and ``LFilter``/``Filtfilt``, gains and companding, masking, fades, deltas; the spectral transforms and
filter banks live in audio_spectral.py and are re-exported here. Float inputs keep their dtype."""

from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np

from .vision_geometry import rng


class ScaleType(str, enum.Enum):
    """The scale of ``AmplitudeToDB``'s input."""

    MAGNITUDE = "magnitude"
    POWER = "power"


class GainType(str, enum.Enum):
    """How ``Vol`` reads its gain."""

    AMPLITUDE = "amplitude"
    POWER = "power"
    DB = "db"


class FadeShape(str, enum.Enum):
    """The curves of ``Fade``."""

    LINEAR = "linear"
    EXPONENTIAL = "exponential"
    LOGARITHMIC = "logarithmic"
    QUARTER_SINE = "quarter_sine"
    HALF_SINE = "half_sine"


class BorderType(str, enum.Enum):
    """Padding modes of ``ComputeDeltas`` and the spectral transforms."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


def _wave(who: str, x: Any) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim < 1 or arr.dtype.kind not in "fiu":
        raise TypeError(f"{who}: the input must be a real waveform array (time last), got {arr.dtype} {arr.shape}")
    return arr if arr.dtype.kind == "f" else arr.astype(np.float32)


def lfilter(x: np.ndarray, a: list[float], b: list[float], clamp: bool = True) -> np.ndarray:
    """IIR filter along the last axis: ``a[0] y[n] = sum b[k] x[n-k] - sum_{k>=1} a[k] y[n-k]``."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    if a.shape != b.shape or a[0] == 0:
        raise ValueError("lfilter: a_coeffs and b_coeffs must have the same length and a_coeffs[0] != 0")
    a, b = a / a[0], b / a[0]
    flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
    out = np.zeros_like(flat)
    order = a.size
    for n in range(flat.shape[1]):
        acc = np.zeros(flat.shape[0])
        for k in range(order):
            if n - k < 0:
                break
            acc += b[k] * flat[:, n - k]
            if k:
                acc -= a[k] * out[:, n - k]
        out[:, n] = acc
    if clamp:
        out = np.clip(out, -1.0, 1.0)
    return out.reshape(x.shape).astype(x.dtype)


class LFilter:
    """``LFilter(a_coeffs, b_coeffs, clamp=True)``: the IIR filter ``b/a`` along time."""

    def __init__(self, a_coeffs, b_coeffs, clamp: bool = True) -> None:
        self.a, self.b, self.clamp = list(a_coeffs), list(b_coeffs), bool(clamp)

    def __call__(self, waveform: Any) -> np.ndarray:
        return lfilter(_wave("LFilter", waveform), self.a, self.b, self.clamp)


class Filtfilt:
    """``Filtfilt(a_coeffs, b_coeffs, clamp=True)``: the filter forward, then backward (zero phase)."""

    def __init__(self, a_coeffs, b_coeffs, clamp: bool = True) -> None:
        self.a, self.b, self.clamp = list(a_coeffs), list(b_coeffs), bool(clamp)

    def __call__(self, waveform: Any) -> np.ndarray:
        x = _wave("Filtfilt", waveform)
        fwd = lfilter(x, self.a, self.b, False)  # the first pass is never clamped
        return lfilter(fwd[..., ::-1].copy(), self.a, self.b, self.clamp)[..., ::-1].copy()


def _w0_alpha(sample_rate: int, freq: float, q: float) -> tuple[float, float]:
    if sample_rate == 0:
        raise ValueError("the sample rate must not be 0")
    if not 0 < q <= 1:
        raise ValueError(f"Q must be in (0, 1], got {q!r}")
    w0 = 2 * math.pi * freq / sample_rate
    return w0, math.sin(w0) / 2 / q


def _shelf(gain: float, w0: float, alpha: float) -> tuple[float, float, float, float]:
    a = math.exp(gain / 40 * math.log(10))
    return a, 2 * math.sqrt(a) * alpha, (a - 1) * math.cos(w0), (a + 1) * math.cos(w0)


def _biquad_class(name: str, params: tuple[tuple[str, Any], ...], coeffs, doc: str):
    """A transform class ``name(sample_rate, *params)`` filtering with ``coeffs(sample_rate, *params)``."""
    def __init__(self, sample_rate: int, *args: Any, **kwargs: Any) -> None:
        values = dict(params)
        for (key, _), value in zip(params, args):
            values[key] = value
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{name}: unexpected argument {key!r}")
            values[key] = value
        missing = [k for k, v in values.items() if v is inspect_required]
        if missing:
            raise TypeError(f"{name}: missing argument(s) {missing}")
        self.sample_rate, self.values = int(sample_rate), values
        self.b, self.a = coeffs(self.sample_rate, **values)

    def __call__(self, waveform: Any) -> np.ndarray:
        return lfilter(_wave(name, waveform), self.a, self.b, True)

    return type(name, (), {"__init__": __init__, "__call__": __call__, "__doc__": doc})


inspect_required = object()


def _allpass(sr, central_freq, Q):
    w0, alpha = _w0_alpha(sr, central_freq, Q)
    c = math.cos(w0)
    return [1 - alpha, -2 * c, 1 + alpha], [1 + alpha, -2 * c, 1 - alpha]


def _band(sr, central_freq, Q, noise):
    w0, _ = _w0_alpha(sr, central_freq, Q)
    bw = central_freq / Q
    a2 = math.exp(-2 * math.pi * bw / sr)
    a1 = -4 * a2 / (1 + a2) * math.cos(w0)
    b0 = math.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
    if noise:
        b0 *= math.sqrt(((1 + a2) ** 2 - a1 * a1) * (1 - a2) / (1 + a2)) / b0
    return [b0, 0.0, 0.0], [1.0, a1, a2]


def _bandpass(sr, central_freq, Q, const_skirt_gain):
    w0, alpha = _w0_alpha(sr, central_freq, Q)
    t = math.sin(w0) / 2 if const_skirt_gain else alpha
    return [t, 0.0, -t], [1 + alpha, -2 * math.cos(w0), 1 - alpha]


def _bandreject(sr, central_freq, Q):
    w0, alpha = _w0_alpha(sr, central_freq, Q)
    c = math.cos(w0)
    return [1.0, -2 * c, 1.0], [1 + alpha, -2 * c, 1 - alpha]


def _bass(sr, gain, central_freq, Q):
    w0, alpha = _w0_alpha(sr, central_freq, Q)
    a, t1, t2, t3 = _shelf(gain, w0, alpha)
    return ([a * ((a + 1) - t2 + t1), 2 * a * ((a - 1) - t3), a * ((a + 1) - t2 - t1)],
            [(a + 1) + t2 + t1, -2 * ((a - 1) + t3), (a + 1) + t2 - t1])


def _treble(sr, gain, central_freq, Q):
    w0, alpha = _w0_alpha(sr, central_freq, Q)
    a, t1, t2, t3 = _shelf(gain, w0, alpha)
    return ([a * ((a + 1) + t2 + t1), -2 * a * ((a - 1) + t3), a * ((a + 1) + t2 - t1)],
            [(a + 1) - t2 + t1, 2 * ((a - 1) - t3), (a + 1) - t2 - t1])


def _equalizer(sr, center_freq, gain, Q):
    w0, alpha = _w0_alpha(sr, center_freq, Q)
    a = math.exp(gain / 40 * math.log(10))
    c = math.cos(w0)
    return [1 + alpha * a, -2 * c, 1 - alpha * a], [1 + alpha / a, -2 * c, 1 - alpha / a]


def _highpass(sr, cutoff_freq, Q):
    w0, alpha = _w0_alpha(sr, cutoff_freq, Q)
    c = math.cos(w0)
    return [(1 + c) / 2, -1 - c, (1 + c) / 2], [1 + alpha, -2 * c, 1 - alpha]


def _lowpass(sr, cutoff_freq, Q):
    w0, alpha = _w0_alpha(sr, cutoff_freq, Q)
    c = math.cos(w0)
    return [(1 - c) / 2, 1 - c, (1 - c) / 2], [1 + alpha, -2 * c, 1 - alpha]


def _deemph(sr):
    if sr not in (44100, 48000):
        raise ValueError(f"DeemphBiquad: sample_rate must be 44100 or 48000, got {sr}")
    cf, slope, gain = (5283.0, 0.4845, -9.477) if sr == 44100 else (5356.0, 0.479, -9.62)
    w0 = 2 * math.pi * cf / sr
    a = math.exp(gain / 40 * math.log(10))
    alpha = math.sin(w0) / 2 * math.sqrt((a + 1 / a) * (1 / slope - 1) + 2)
    t1, t2, t3 = 2 * math.sqrt(a) * alpha, (a - 1) * math.cos(w0), (a + 1) * math.cos(w0)
    return ([a * ((a + 1) + t2 + t1), -2 * a * ((a - 1) + t3), a * ((a + 1) + t2 - t1)],
            [(a + 1) - t2 + t1, 2 * ((a - 1) - t3), (a + 1) - t2 - t1])


R = inspect_required
AllpassBiquad = _biquad_class("AllpassBiquad", (("central_freq", R), ("Q", 0.707)), _allpass,
                              "``AllpassBiquad(sample_rate, central_freq, Q=0.707)``.")
BandBiquad = _biquad_class("BandBiquad", (("central_freq", R), ("Q", 0.707), ("noise", False)), _band,
                           "``BandBiquad(sample_rate, central_freq, Q=0.707, noise=False)``.")
BandpassBiquad = _biquad_class("BandpassBiquad", (("central_freq", R), ("Q", 0.707), ("const_skirt_gain", False)),
                               _bandpass, "``BandpassBiquad(sample_rate, central_freq, Q=0.707, "
                               "const_skirt_gain=False)``.")
BandrejectBiquad = _biquad_class("BandrejectBiquad", (("central_freq", R), ("Q", 0.707)), _bandreject,
                                 "``BandrejectBiquad(sample_rate, central_freq, Q=0.707)``.")
BassBiquad = _biquad_class("BassBiquad", (("gain", R), ("central_freq", 100.0), ("Q", 0.707)), _bass,
                           "``BassBiquad(sample_rate, gain, central_freq=100.0, Q=0.707)``.")
TrebleBiquad = _biquad_class("TrebleBiquad", (("gain", R), ("central_freq", 3000.0), ("Q", 0.707)), _treble,
                             "``TrebleBiquad(sample_rate, gain, central_freq=3000.0, Q=0.707)``.")
EqualizerBiquad = _biquad_class("EqualizerBiquad", (("center_freq", R), ("gain", R), ("Q", 0.707)), _equalizer,
                                "``EqualizerBiquad(sample_rate, center_freq, gain, Q=0.707)``.")
HighpassBiquad = _biquad_class("HighpassBiquad", (("cutoff_freq", R), ("Q", 0.707)), _highpass,
                               "``HighpassBiquad(sample_rate, cutoff_freq, Q=0.707)``.")
LowpassBiquad = _biquad_class("LowpassBiquad", (("cutoff_freq", R), ("Q", 0.707)), _lowpass,
                              "``LowpassBiquad(sample_rate, cutoff_freq, Q=0.707)``.")
DeemphBiquad = _biquad_class("DeemphBiquad", (), _deemph, "``DeemphBiquad(sample_rate)``: 44100 or 48000.")


class Biquad:
    """``Biquad(b0, b1, b2, a0, a1, a2)``: the biquad filter of these coefficients."""

    def __init__(self, b0: float, b1: float, b2: float, a0: float, a1: float, a2: float) -> None:
        self.b, self.a = [b0, b1, b2], [a0, a1, a2]

    def __call__(self, waveform: Any) -> np.ndarray:
        return lfilter(_wave("Biquad", waveform), self.a, self.b, True)


class AmplitudeToDB:
    """``AmplitudeToDB(stype=ScaleType.POWER, ref_value=1.0, amin=1e-10, top_db=80.0)``: decibels, floored at
    ``top_db`` below the maximum."""

    def __init__(self, stype: ScaleType = ScaleType.POWER, ref_value: float = 1.0, amin: float = 1e-10,
                 top_db: float = 80.0) -> None:
        if ref_value <= 0 or amin <= 0 or (top_db is not None and top_db < 0):
            raise ValueError("AmplitudeToDB: ref_value and amin must be positive and top_db >= 0")
        self.mult = 10.0 if ScaleType(stype) == ScaleType.POWER else 20.0
        self.ref, self.amin, self.top_db = float(ref_value), float(amin), top_db

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("AmplitudeToDB", x)
        db = self.mult * np.log10(np.maximum(arr, self.amin)) - self.mult * math.log10(max(self.amin, self.ref))
        if self.top_db is not None:
            db = np.maximum(db, db.max() - self.top_db)
        return db.astype(arr.dtype)


class DBToAmplitude:
    """``DBToAmplitude(ref, power)``: ``ref * (10 ** (x / 10)) ** power``."""

    def __init__(self, ref: float, power: float) -> None:
        self.ref, self.power = float(ref), float(power)

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("DBToAmplitude", x)
        return (self.ref * np.power(np.power(10.0, arr * 0.1), self.power)).astype(arr.dtype)


def _complex(who: str, x: Any) -> np.ndarray:
    arr = _wave(who, x)
    if arr.shape[-1] != 2:
        raise TypeError(f"{who}: the input must hold complex numbers as a last axis of 2, got {arr.shape}")
    return arr


class Angle:
    """``Angle()``: the phase of complex values stored as (..., 2)."""

    def __call__(self, x: Any) -> np.ndarray:
        arr = _complex("Angle", x)
        return np.arctan2(arr[..., 1], arr[..., 0]).astype(arr.dtype)


class ComplexNorm:
    """``ComplexNorm(power=1.0)``: ``|z| ** power`` of complex values stored as (..., 2)."""

    def __init__(self, power: float = 1.0) -> None:
        self.power = float(power)

    def __call__(self, x: Any) -> np.ndarray:
        arr = _complex("ComplexNorm", x)
        return np.power(np.sqrt(arr[..., 0] ** 2 + arr[..., 1] ** 2), self.power).astype(arr.dtype)


class Magphase:
    """``Magphase(power=1.0)``: (``ComplexNorm(power)``, ``Angle``) of complex values stored as (..., 2)."""

    def __init__(self, power: float = 1.0) -> None:
        self.power = float(power)

    def __call__(self, x: Any) -> tuple[np.ndarray, np.ndarray]:
        return ComplexNorm(self.power)(x), Angle()(x)


class DCShift:
    """``DCShift(shift, limiter_gain=None)``: add ``shift``, clipped to [-1, 1] (or limited)."""

    def __init__(self, shift: float, limiter_gain: float | None = None) -> None:
        if not -2 <= shift <= 2:
            raise ValueError(f"DCShift: shift must be in [-2, 2], got {shift!r}")
        self.shift, self.gain = float(shift), limiter_gain

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("DCShift", x)
        s, g = self.shift, self.gain
        if g is None or s == 0:
            return np.clip(arr + s, -1, 1).astype(arr.dtype)
        thr = 1.0 - (abs(s) - g)
        out = np.clip(arr + s, -1, 1)
        if s > 0:
            m = arr > thr
            out[m] = np.minimum((arr[m] - thr) * g / (1 - thr) + thr + s, thr)
        else:
            m = arr < -thr
            # MindSpore's negative branch: the scaled excess plus the threshold plus the shift.
            out[m] = np.maximum((arr[m] + thr) * g / (1 - thr) + thr + s, -thr)
        return out.astype(arr.dtype)


class Gain:
    """``Gain(gain_db=1.0)``: ``x * 10 ** (gain_db / 20)``."""

    def __init__(self, gain_db: float = 1.0) -> None:
        self.gain_db = float(gain_db)

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("Gain", x)
        return (arr * 10 ** (self.gain_db / 20)).astype(arr.dtype)


class Vol:
    """``Vol(gain, gain_type=GainType.AMPLITUDE)``: scale by ``gain`` (an amplitude ratio, a power ratio or
    decibels), clipped to [-1, 1]."""

    def __init__(self, gain: float, gain_type: GainType = GainType.AMPLITUDE) -> None:
        self.gain, self.type = float(gain), GainType(gain_type)
        if self.type != GainType.DB and self.gain < 0:
            raise ValueError(f"Vol: gain must be >= 0 for {self.type.value} gains, got {gain!r}")

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("Vol", x)
        if self.type == GainType.AMPLITUDE:
            out = arr * self.gain
        else:
            db = self.gain if self.type == GainType.DB else 10 * math.log10(self.gain)
            out = arr * 10 ** (db / 20)
        return np.clip(out, -1, 1).astype(arr.dtype)


class MuLawEncoding:
    """``MuLawEncoding(quantization_channels=256)``: mu-law companding to integers in [0, channels)."""

    def __init__(self, quantization_channels: int = 256) -> None:
        self.mu = float(quantization_channels - 1)

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("MuLawEncoding", x).astype(np.float64)
        x_mu = np.sign(arr) * np.log1p(self.mu * np.abs(arr)) / math.log1p(self.mu)
        return ((x_mu + 1) / 2 * self.mu + 0.5).astype(np.int32)


class MuLawDecoding:
    """``MuLawDecoding(quantization_channels=256)``: the inverse of MuLawEncoding."""

    def __init__(self, quantization_channels: int = 256) -> None:
        self.mu = float(quantization_channels - 1)

    def __call__(self, x: Any) -> np.ndarray:
        arr = np.asarray(x)
        y = arr.astype(np.float64) / self.mu * 2 - 1.0
        out = np.sign(y) * (np.exp(np.abs(y) * math.log1p(self.mu)) - 1.0) / self.mu
        return out.astype(arr.dtype if arr.dtype.kind == "f" else np.float32)


class Contrast:
    """``Contrast(enhancement_amount=75.0)``: ``sin(x pi/2 + amount/750 sin(2 pi x))``."""

    def __init__(self, enhancement_amount: float = 75.0) -> None:
        if not 0 <= enhancement_amount <= 100:
            raise ValueError(f"Contrast: enhancement_amount must be in [0, 100], got {enhancement_amount!r}")
        self.amount = float(enhancement_amount)

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("Contrast", x)
        t = arr * (math.pi / 2)
        return np.sin(t + self.amount / 750.0 * np.sin(t * 4)).astype(arr.dtype)


_PAD = {BorderType.CONSTANT: "constant", BorderType.EDGE: "edge", BorderType.REFLECT: "reflect",
        BorderType.SYMMETRIC: "symmetric"}


class ComputeDeltas:
    """``ComputeDeltas(win_length=5, pad_mode=BorderType.EDGE)``: delta coefficients along time."""

    def __init__(self, win_length: int = 5, pad_mode: BorderType = BorderType.EDGE) -> None:
        if win_length < 3:
            raise ValueError(f"ComputeDeltas: win_length must be >= 3, got {win_length}")
        self.n, self.mode = (win_length - 1) // 2, BorderType(pad_mode)

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("ComputeDeltas", x)
        n = self.n
        padded = np.pad(arr, [(0, 0)] * (arr.ndim - 1) + [(n, n)], mode=_PAD[self.mode])
        denom = n * (n + 1) * (2 * n + 1) / 3
        t = arr.shape[-1]
        out = sum(k * padded[..., n + k:n + k + t] for k in range(-n, n + 1)) / denom
        return out.astype(arr.dtype)


def _fade_curve(length: int, shape: FadeShape, rising: bool) -> np.ndarray:
    f = np.linspace(0, 1, length) if rising else np.linspace(0, 1, length)[::-1]
    if shape == FadeShape.LINEAR:
        return f
    if shape == FadeShape.EXPONENTIAL:  # MindSpore's curve (0 at the silent end)
        return f * np.power(2, f - 1)
    if shape == FadeShape.LOGARITHMIC:
        return np.log10(0.1 + f) + 1
    if shape == FadeShape.QUARTER_SINE:
        return np.sin(f * math.pi / 2)
    return np.sin(f * math.pi - math.pi / 2) / 2 + 0.5


class Fade:
    """``Fade(fade_in_len=0, fade_out_len=0, fade_shape=FadeShape.LINEAR)``: fade in and out."""

    def __init__(self, fade_in_len: int = 0, fade_out_len: int = 0,
                 fade_shape: FadeShape = FadeShape.LINEAR) -> None:
        if fade_in_len < 0 or fade_out_len < 0:
            raise ValueError("Fade: fade_in_len and fade_out_len must be >= 0")
        self.fin, self.fout, self.shape = int(fade_in_len), int(fade_out_len), FadeShape(fade_shape)

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("Fade", x)
        t = arr.shape[-1]
        if self.fin > t or self.fout > t:
            raise ValueError(f"Fade: fade lengths ({self.fin}, {self.fout}) exceed the waveform's {t} samples")
        curve = np.ones(t)
        curve[:self.fin] = _fade_curve(self.fin, self.shape, True)
        curve[t - self.fout:] = _fade_curve(self.fout, self.shape, False)
        return (arr * curve).astype(arr.dtype)


class MaskAlongAxis:
    """``MaskAlongAxis(mask_start, mask_width, mask_value=0.0, axis=0)``: set ``mask_width`` rows (axis 1:
    frequency) or columns (axis 2: time) of a (..., freq, time) spectrogram to ``mask_value``."""

    def __init__(self, mask_start: int, mask_width: int, mask_value: float = 0.0, axis: int = 0) -> None:
        if axis not in (1, 2):
            raise ValueError(f"MaskAlongAxis: axis must be 1 (frequency) or 2 (time), got {axis}")
        self.start, self.width, self.value, self.axis = int(mask_start), int(mask_width), mask_value, axis

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("MaskAlongAxis", x).copy()
        idx = [slice(None)] * arr.ndim
        idx[-1 if self.axis == 2 else -2] = slice(self.start, self.start + self.width)
        arr[tuple(idx)] = self.value
        return arr


class _RandomMask:
    axis = -1

    def _mask(self, arr: np.ndarray, param: int, start: int | None, value: float, axis: int) -> np.ndarray:
        arr = arr.copy()
        n = arr.shape[axis]
        width = int(self._rng.integers(0, min(param, n) + 1))
        begin = int(self._rng.integers(0, n - width + 1)) if start is None else start
        idx = [slice(None)] * arr.ndim
        idx[axis] = slice(begin, begin + width)
        arr[tuple(idx)] = value
        return arr


class FrequencyMasking(_RandomMask):
    """``FrequencyMasking(iid_masks=False, freq_mask_param=0, mask_start=0, mask_value=0.0)``: a band of
    random width up to ``freq_mask_param`` set to ``mask_value`` (starting at ``mask_start``, or at random
    with ``iid_masks``)."""

    def __init__(self, iid_masks: bool = False, freq_mask_param: int = 0, mask_start: int = 0,
                 mask_value: float = 0.0) -> None:
        self.iid, self.param, self.start, self.value, self._rng = iid_masks, freq_mask_param, mask_start, \
            mask_value, rng()

    def __call__(self, x: Any) -> np.ndarray:
        return self._mask(_wave("FrequencyMasking", x), self.param, None if self.iid else self.start,
                          self.value, -2)


class TimeMasking(_RandomMask):
    """``TimeMasking(iid_masks=False, time_mask_param=0, mask_start=0, mask_value=0.0)``: as
    FrequencyMasking, along time."""

    def __init__(self, iid_masks: bool = False, time_mask_param: int = 0, mask_start: int = 0,
                 mask_value: float = 0.0) -> None:
        self.iid, self.param, self.start, self.value, self._rng = iid_masks, time_mask_param, mask_start, \
            mask_value, rng()

    def __call__(self, x: Any) -> np.ndarray:
        return self._mask(_wave("TimeMasking", x), self.param, None if self.iid else self.start, self.value, -1)


class MaskAlongAxisIID(_RandomMask):
    """``MaskAlongAxisIID(mask_param, mask_value, axis=0)``: a random band (width up to ``mask_param``)
    along frequency (axis 1) or time (axis 2)."""

    def __init__(self, mask_param: int, mask_value: float, axis: int = 0) -> None:
        if axis not in (1, 2):
            raise ValueError(f"MaskAlongAxisIID: axis must be 1 (frequency) or 2 (time), got {axis}")
        self.param, self.value, self.axis_, self._rng = int(mask_param), mask_value, axis, rng()

    def __call__(self, x: Any) -> np.ndarray:
        return self._mask(_wave("MaskAlongAxisIID", x), self.param, None, self.value,
                          -1 if self.axis_ == 2 else -2)


class Dither:
    """``Dither(density_function=DensityFunction.TPDF, noise_shaping=False)``: add quantisation noise of one
    16-bit step (triangular by default)."""

    def __init__(self, density_function: str = "TPDF", noise_shaping: bool = False) -> None:
        self.kind, self._rng = str(getattr(density_function, "value", density_function)).upper(), rng()

    def __call__(self, x: Any) -> np.ndarray:
        arr = _wave("Dither", x)
        step = 1.0 / 32768
        if self.kind == "RPDF":
            noise = self._rng.uniform(-step, step, arr.shape)
        elif self.kind == "GPDF":
            noise = self._rng.normal(0, step, arr.shape)
        else:
            noise = self._rng.uniform(-step, step, arr.shape) + self._rng.uniform(-step, step, arr.shape)
        return np.clip(arr + noise, -1, 1).astype(arr.dtype)


# The spectral transforms and filter banks live in audio_spectral.py; MindSpore's path is audio.<Name>.
from .audio_spectral import (  # noqa: E402
    LFCC,
    MFCC,
    MelScale,
    MelSpectrogram,
    MelType,
    NormMode,
    NormType,
    SpectralCentroid,
    Spectrogram,
    WindowType,
    create_dct,
    linear_fbanks,
    melscale_fbanks,
)

__all__ = ["ScaleType", "GainType", "FadeShape", "BorderType", "LFilter", "Filtfilt", "AllpassBiquad",
           "BandBiquad", "BandpassBiquad", "BandrejectBiquad", "BassBiquad", "TrebleBiquad", "EqualizerBiquad",
           "HighpassBiquad", "LowpassBiquad", "DeemphBiquad", "Biquad", "AmplitudeToDB", "DBToAmplitude", "Angle",
           "ComplexNorm", "Magphase", "DCShift", "Gain", "Vol", "MuLawEncoding", "MuLawDecoding", "Contrast",
           "ComputeDeltas", "Fade", "MaskAlongAxis", "FrequencyMasking", "TimeMasking", "MaskAlongAxisIID",
           "Dither", "MelScale", "MelSpectrogram", "MelType", "NormMode", "NormType", "SpectralCentroid",
           "Spectrogram", "WindowType", "create_dct", "linear_fbanks", "melscale_fbanks", "MFCC", "LFCC"]
