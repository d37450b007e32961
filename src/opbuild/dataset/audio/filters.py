"""IIR filtering of waveforms: ``LFilter``, ``Filtfilt``, ``Biquad`` and the biquad designs of
``mindspore.dataset.audio`` (all-pass, band, band-pass, band-reject, bass, treble, equalizer, high/low-pass,
de-emphasis, RIAA). Each designs second-order coefficients (the Audio EQ Cookbook formulas MindSpore uses),
runs a direct-form difference equation along the last axis and clamps the result to [-1, 1]."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._common import check_positive, waveform


def lfilter(x: np.ndarray, a: Sequence[float], b: Sequence[float], clamp: bool = True) -> np.ndarray:
    """``y[n] = (sum_k b[k] x[n-k] - sum_{k>=1} a[k] y[n-k]) / a[0]`` along the last axis, zero initial state,
    in the input's dtype; clamped to [-1, 1] when ``clamp``."""
    a_arr, b_arr = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a_arr.ndim != 1 or a_arr.shape != b_arr.shape or a_arr.size == 0:
        raise ValueError(f"LFilter: a_coeffs and b_coeffs must be non-empty lists of the same length, got "
                         f"{len(a_arr)} and {len(b_arr)}")
    if a_arr[0] == 0:
        raise ValueError("LFilter: a_coeffs[0] must not be zero (every coefficient is divided by it)")
    a_arr, b_arr = a_arr / a_arr[0], b_arr / a_arr[0]
    flat = x.reshape(-1, x.shape[-1]).astype(np.float64)
    order = a_arr.size
    n = flat.shape[1]
    pad = np.concatenate([np.zeros((flat.shape[0], order - 1)), flat], axis=1)
    # The feed-forward part is a correlation; the recursive part runs sample by sample.
    ff = sum(b_arr[k] * pad[:, order - 1 - k:order - 1 - k + n] for k in range(order))
    y = np.zeros((flat.shape[0], n + order - 1))
    for t in range(n):
        acc = ff[:, t]
        for k in range(1, order):
            acc = acc - a_arr[k] * y[:, order - 1 + t - k]
        y[:, order - 1 + t] = acc
    out = y[:, order - 1:]
    if clamp:
        out = np.clip(out, -1.0, 1.0)
    return out.reshape(x.shape).astype(x.dtype)


class LFilter:
    """``LFilter(a_coeffs, b_coeffs, clamp=True)``: an IIR filter along the last axis (denominator
    ``a_coeffs``, numerator ``b_coeffs``, both of the filter's order + 1 values)."""

    def __init__(self, a_coeffs: Sequence[float], b_coeffs: Sequence[float], clamp: bool = True) -> None:
        self.a_coeffs, self.b_coeffs, self.clamp = list(a_coeffs), list(b_coeffs), bool(clamp)
        if len(self.a_coeffs) != len(self.b_coeffs) or not self.a_coeffs:
            raise ValueError(f"LFilter: a_coeffs and b_coeffs must be non-empty lists of the same length, got "
                             f"{len(self.a_coeffs)} and {len(self.b_coeffs)}")

    def __call__(self, data: Any) -> np.ndarray:
        return lfilter(waveform(type(self).__name__, data), self.a_coeffs, self.b_coeffs, self.clamp)


class Filtfilt(LFilter):
    """``Filtfilt(a_coeffs, b_coeffs, clamp=True)``: the filter run forward, then backward over the result
    (zero phase); only the second pass clamps."""

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("Filtfilt", data)
        forward = lfilter(x, self.a_coeffs, self.b_coeffs, clamp=False)
        return lfilter(forward[..., ::-1], self.a_coeffs, self.b_coeffs, self.clamp)[..., ::-1].copy()


class _Biquad:
    """A second-order section: subclasses set ``self.b`` and ``self.a`` (three values each)."""

    b: tuple[float, float, float]
    a: tuple[float, float, float]

    def __call__(self, data: Any) -> np.ndarray:
        return lfilter(waveform(type(self).__name__, data), self.a, self.b, clamp=True)


def _w0_alpha(who: str, sample_rate: int, freq: float, q: float) -> tuple[float, float]:
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, int) or sample_rate == 0:
        raise ValueError(f"{who}: sample_rate must be a non-zero int, got {sample_rate!r}")
    if isinstance(freq, bool) or not isinstance(freq, (int, float)):
        raise TypeError(f"{who}: the frequency must be a number, got {freq!r}")
    check_positive(who, "Q", q)
    if q > 1:
        raise ValueError(f"{who}: Q must be in (0, 1], got {q!r}")
    w0 = 2 * math.pi * freq / sample_rate
    return w0, math.sin(w0) / 2 / q


class Biquad(_Biquad):
    """``Biquad(b0, b1, b2, a0, a1, a2)``: a second-order IIR filter with the given coefficients."""

    def __init__(self, b0: float, b1: float, b2: float, a0: float, a1: float, a2: float) -> None:
        if a0 == 0:
            raise ValueError("Biquad: a0 must not be zero")
        self.b, self.a = (float(b0), float(b1), float(b2)), (float(a0), float(a1), float(a2))


class AllpassBiquad(_Biquad):
    """``AllpassBiquad(sample_rate, central_freq, Q=0.707)``: a two-pole all-pass filter."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707) -> None:  # noqa: N803
        w0, alpha = _w0_alpha("AllpassBiquad", sample_rate, central_freq, Q)
        c = math.cos(w0)
        self.b, self.a = (1 - alpha, -2 * c, 1 + alpha), (1 + alpha, -2 * c, 1 - alpha)


class BandBiquad(_Biquad):
    """``BandBiquad(sample_rate, central_freq, Q=0.707, noise=False)``: a two-pole band filter (``noise``:
    the unpitched-audio gain mode)."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707,  # noqa: N803
                 noise: bool = False) -> None:
        w0, _ = _w0_alpha("BandBiquad", sample_rate, central_freq, Q)
        bw_hz = central_freq / Q
        a2 = math.exp(-2 * math.pi * bw_hz / sample_rate)
        a1 = -4 * a2 / (1 + a2) * math.cos(w0)
        b0 = math.sqrt(1 - a1 * a1 / (4 * a2)) * (1 - a2)
        if noise:
            b0 *= math.sqrt(((1 + a2) ** 2 - a1 * a1) * (1 - a2) / (1 + a2)) / b0
        self.b, self.a = (b0, 0.0, 0.0), (1.0, a1, a2)


class BandpassBiquad(_Biquad):
    """``BandpassBiquad(sample_rate, central_freq, Q=0.707, const_skirt_gain=False)``: a two-pole band-pass
    filter (constant skirt gain, or constant 0 dB peak gain)."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707,  # noqa: N803
                 const_skirt_gain: bool = False) -> None:
        w0, alpha = _w0_alpha("BandpassBiquad", sample_rate, central_freq, Q)
        gain = math.sin(w0) / 2 if const_skirt_gain else alpha
        self.b, self.a = (gain, 0.0, -gain), (1 + alpha, -2 * math.cos(w0), 1 - alpha)


class BandrejectBiquad(_Biquad):
    """``BandrejectBiquad(sample_rate, central_freq, Q=0.707)``: a two-pole band-reject (notch) filter."""

    def __init__(self, sample_rate: int, central_freq: float, Q: float = 0.707) -> None:  # noqa: N803
        w0, alpha = _w0_alpha("BandrejectBiquad", sample_rate, central_freq, Q)
        c = math.cos(w0)
        self.b, self.a = (1.0, -2 * c, 1.0), (1 + alpha, -2 * c, 1 - alpha)


def _shelf(gain: float, w0: float, alpha: float, treble: bool) -> tuple[tuple, tuple]:
    """Low (bass) or high (treble) shelving coefficients for ``gain`` dB."""
    big_a = math.exp(gain / 40 * math.log(10))
    t1, t2, t3 = 2 * math.sqrt(big_a) * alpha, (big_a - 1) * math.cos(w0), (big_a + 1) * math.cos(w0)
    if treble:
        b = (big_a * ((big_a + 1) + t2 + t1), -2 * big_a * ((big_a - 1) + t3), big_a * ((big_a + 1) + t2 - t1))
        a = ((big_a + 1) - t2 + t1, 2 * ((big_a - 1) - t3), (big_a + 1) - t2 - t1)
    else:
        b = (big_a * ((big_a + 1) - t2 + t1), 2 * big_a * ((big_a - 1) - t3), big_a * ((big_a + 1) - t2 - t1))
        a = ((big_a + 1) + t2 + t1, -2 * ((big_a - 1) + t3), (big_a + 1) + t2 - t1)
    return b, a


class BassBiquad(_Biquad):
    """``BassBiquad(sample_rate, gain, central_freq=100.0, Q=0.707)``: a low-shelf filter boosting or cutting
    the bass by ``gain`` dB."""

    def __init__(self, sample_rate: int, gain: float, central_freq: float = 100.0,
                 Q: float = 0.707) -> None:  # noqa: N803
        w0, alpha = _w0_alpha("BassBiquad", sample_rate, central_freq, Q)
        self.b, self.a = _shelf(float(gain), w0, alpha, treble=False)


class TrebleBiquad(_Biquad):
    """``TrebleBiquad(sample_rate, gain, central_freq=3000, Q=0.707)``: a high-shelf filter boosting or
    cutting the treble by ``gain`` dB."""

    def __init__(self, sample_rate: int, gain: float, central_freq: float = 3000,
                 Q: float = 0.707) -> None:  # noqa: N803
        w0, alpha = _w0_alpha("TrebleBiquad", sample_rate, central_freq, Q)
        self.b, self.a = _shelf(float(gain), w0, alpha, treble=True)


class EqualizerBiquad(_Biquad):
    """``EqualizerBiquad(sample_rate, center_freq, gain, Q=0.707)``: a peaking equalizer of ``gain`` dB."""

    def __init__(self, sample_rate: int, center_freq: float, gain: float, Q: float = 0.707) -> None:  # noqa: N803
        w0, alpha = _w0_alpha("EqualizerBiquad", sample_rate, center_freq, Q)
        big_a = math.exp(gain / 40 * math.log(10))
        c = math.cos(w0)
        self.b = (1 + alpha * big_a, -2 * c, 1 - alpha * big_a)
        self.a = (1 + alpha / big_a, -2 * c, 1 - alpha / big_a)


class HighpassBiquad(_Biquad):
    """``HighpassBiquad(sample_rate, cutoff_freq, Q=0.707)``: a two-pole high-pass filter."""

    def __init__(self, sample_rate: int, cutoff_freq: float, Q: float = 0.707) -> None:  # noqa: N803
        w0, alpha = _w0_alpha("HighpassBiquad", sample_rate, cutoff_freq, Q)
        c = math.cos(w0)
        self.b, self.a = ((1 + c) / 2, -1 - c, (1 + c) / 2), (1 + alpha, -2 * c, 1 - alpha)


class LowpassBiquad(_Biquad):
    """``LowpassBiquad(sample_rate, cutoff_freq, Q=0.707)``: a two-pole low-pass filter."""

    def __init__(self, sample_rate: int, cutoff_freq: float, Q: float = 0.707) -> None:  # noqa: N803
        w0, alpha = _w0_alpha("LowpassBiquad", sample_rate, cutoff_freq, Q)
        c = math.cos(w0)
        self.b, self.a = ((1 - c) / 2, 1 - c, (1 - c) / 2), (1 + alpha, -2 * c, 1 - alpha)


# (central frequency, width slope, gain dB) of the de-emphasis shelf per supported sample rate.
_DEEMPH = {44100: (5283.0, 0.4845, -9.477), 48000: (5356.0, 0.479, -9.62)}
# (zeros, poles) of the RIAA playback curve per supported sample rate.
_RIAA = {44100: ((-0.2014898, 0.9233820), (0.7083149, 0.9924091)),
         48000: ((-0.1766069, 0.9321590), (0.7396325, 0.9931330)),
         88200: ((-0.1168735, 0.9648312), (0.7938172, 0.9964216)),
         96000: ((-0.1141486, 0.9676817), (0.8027106, 0.9966078))}


class DeemphBiquad(_Biquad):
    """``DeemphBiquad(sample_rate)``: the CD de-emphasis filter; ``sample_rate`` 44100 or 48000."""

    def __init__(self, sample_rate: int) -> None:
        if sample_rate not in _DEEMPH:
            raise ValueError(f"DeemphBiquad: sample_rate must be 44100 or 48000, got {sample_rate!r}")
        freq, slope, gain = _DEEMPH[sample_rate]
        w0 = 2 * math.pi * freq / sample_rate
        big_a = math.exp(gain / 40 * math.log(10))
        alpha = math.sin(w0) / 2 * math.sqrt((big_a + 1 / big_a) * (1 / slope - 1) + 2)
        self.b, self.a = _shelf(gain, w0, alpha, treble=True)


class RiaaBiquad(_Biquad):
    """``RiaaBiquad(sample_rate)``: RIAA vinyl playback equalization; ``sample_rate`` 44100, 48000, 88200 or
    96000 (unity gain at 1 kHz)."""

    def __init__(self, sample_rate: int) -> None:
        if sample_rate not in _RIAA:
            raise ValueError(f"RiaaBiquad: sample_rate must be 44100, 48000, 88200 or 96000, got {sample_rate!r}")
        (z0, z1), (p0, p1) = _RIAA[sample_rate]
        b = [1.0, -(z0 + z1), z0 * z1]
        a = [1.0, -(p0 + p1), p0 * p1]
        y = 2 * math.pi * 1000 / sample_rate
        b_re = b[0] + b[1] * math.cos(-y) + b[2] * math.cos(-2 * y)
        a_re = a[0] + a[1] * math.cos(-y) + a[2] * math.cos(-2 * y)
        b_im = b[1] * math.sin(-y) + b[2] * math.sin(-2 * y)
        a_im = a[1] * math.sin(-y) + a[2] * math.sin(-2 * y)
        g = 1 / math.sqrt((b_re ** 2 + b_im ** 2) / (a_re ** 2 + a_im ** 2))
        self.b, self.a = (b[0] * g, b[1] * g, b[2] * g), (a[0], a[1], a[2])


__all__ = ["lfilter", "LFilter", "Filtfilt", "Biquad", "AllpassBiquad", "BandBiquad", "BandpassBiquad",
           "BandrejectBiquad", "BassBiquad", "TrebleBiquad", "EqualizerBiquad", "HighpassBiquad", "LowpassBiquad",
           "DeemphBiquad", "RiaaBiquad"]
