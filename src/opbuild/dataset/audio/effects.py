"""SoX-style delay effects and Kaldi-style pitch detection of ``mindspore.dataset.audio``:
``DetectPitchFrequency`` (normalized cross-correlation per frame, median-smoothed lags), ``Flanger`` (a
modulated delay line with feedback) and ``Phaser`` (a modulated, decaying delay line). Each works along the
last axis; the output dtypes are MindSpore's (see each class)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .enums import Interpolation, Modulation

_EPS = 1e-9


def float_waveform(who: str, data: Any, min_ndim: int = 1, floats_only: bool = False) -> np.ndarray:
    """``data`` as an array of at least ``min_ndim`` dims (RuntimeError otherwise, as MindSpore's kernels):
    float64 stays float64, other numbers become float32; with ``floats_only`` integer input is refused, as
    MindSpore's ``DetectPitchFrequency`` refuses it."""
    arr = np.asarray(data)
    if arr.ndim == 0:
        raise TypeError(f"{who}: the input must be a NumPy array of audio, got {type(data).__name__} {data!r}")
    if arr.dtype.kind not in ("f" if floats_only else "fiub"):
        kinds = "a float array (float16, float32 or float64)" if floats_only else "a numeric array"
        raise RuntimeError(f"{who}: the input must be {kinds}, got dtype {arr.dtype}; convert it with "
                           f"astype(np.float32) first")
    if arr.ndim < min_ndim:
        shape = "<..., channel, time>" if min_ndim == 2 else "<..., time>"
        raise RuntimeError(f"{who}: the input must be of shape {shape}, got shape {arr.shape}")
    return arr.astype(np.float64 if arr.dtype == np.float64 else np.float32)


def check_number(who: str, name: str, value: Any, low: float | None = None, high: float | None = None,
                 low_open: bool = False) -> float:
    """``value`` as a float after MindSpore's checks: a number (TypeError) within [low, high] (ValueError;
    ``low_open`` excludes ``low``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{who}: {name} must be a float, got {type(value).__name__} {value!r}")
    value = float(value)
    too_low = low is not None and (value <= low if low_open else value < low)
    if too_low or (high is not None and value > high):
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        bounds = f"({lo}, {hi}]" if low_open else f"[{lo}, {hi}]"
        raise ValueError(f"{who}: {name} must be in {bounds}, got {value!r}")
    return value


def check_rate(who: str, sample_rate: Any, positive: bool = False) -> int:
    """``sample_rate`` must be an int (TypeError), non-zero (or positive when ``positive``: ValueError).
    Flanger, Phaser and DetectPitchFrequency ask for positive: MindSpore 2.10 accepts a negative rate when
    they are built and fails inside the pipeline when they are called."""
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, (int, np.integer)):
        raise TypeError(f"{who}: sample_rate must be an int, got {type(sample_rate).__name__} {sample_rate!r}")
    if sample_rate == 0 or (positive and sample_rate < 0):
        raise ValueError(f"{who}: sample_rate must be {'positive' if positive else 'non-zero'}, got {sample_rate}")
    return int(sample_rate)


def _check_int(who: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{who}: {name} must be an int, got {type(value).__name__} {value!r}")
    if value <= 0:
        raise ValueError(f"{who}: {name} must be positive, got {value}")
    return int(value)


def wave_table(sine: bool, size: int, low: float, high: float, phase: float, as_int: bool) -> np.ndarray:
    """SoX's modulation table: ``size`` points of a sine or triangle between ``low`` and ``high`` starting at
    ``phase`` radians; rounded half away from zero to ints when ``as_int``, float32 otherwise."""
    offset = int(phase / math.pi / 2 * size + 0.5)
    point = (np.arange(size) + offset) % size
    if sine:
        d = (np.sin(point / size * 2 * math.pi) + 1) / 2
    else:
        d = point * 2.0 / size
        quarter = (4 * point) // size
        d = np.select([quarter == 0, quarter == 1, quarter == 2, quarter == 3],
                      [d + 0.5, 1.5 - d, 1.5 - d, d - 1.5], d)
    d = d * (high - low) + low
    if as_int:
        return np.trunc(np.where(d < 0, d - 0.5, d + 0.5)).astype(np.int64)
    return d.astype(np.float32)


class DetectPitchFrequency:
    """``DetectPitchFrequency(sample_rate, frame_time=0.01, win_length=30, freq_low=85, freq_high=3400)``:
    the pitch (Hz, float32) of each frame of ``frame_time`` seconds, from the lag in
    [sample_rate / freq_high, sample_rate / freq_low] that maximizes the normalized cross-correlation (a lag in
    the first half wins when it is within 1% of the best), median-smoothed over ``win_length`` frames. Float
    input only (MindSpore refuses integers); the result is float32 of shape (..., frames)."""

    def __init__(self, sample_rate: int, frame_time: float = 0.01, win_length: int = 30, freq_low: int = 85,
                 freq_high: int = 3400) -> None:
        who = "DetectPitchFrequency"
        self.sample_rate = check_rate(who, sample_rate, positive=True)
        self.frame_time = check_number(who, "frame_time", frame_time, 0.0, low_open=True)
        self.win_length = _check_int(who, "win_length", win_length)
        self.freq_low = check_number(who, "freq_low", freq_low, 0.0, low_open=True)
        self.freq_high = check_number(who, "freq_high", freq_high, 0.0, low_open=True)

    def _nccf(self, x: np.ndarray) -> np.ndarray:
        """(rows, frames, lags) normalized cross-correlations of each frame with its lagged copy."""
        lags = int(math.ceil(self.sample_rate / self.freq_low))
        frame = int(math.ceil(self.sample_rate * self.frame_time))
        n = x.shape[-1]
        frames = int(math.ceil(n / frame))
        padded = np.concatenate([x, np.zeros((x.shape[0], lags + frames * frame - n), x.dtype)], axis=1)
        s1 = padded[:, :frames * frame].reshape(x.shape[0], frames, frame)
        out = np.empty((x.shape[0], frames, lags), np.float64)
        for lag in range(1, lags + 1):
            s2 = padded[:, lag:lag + frames * frame].reshape(x.shape[0], frames, frame)
            out[:, :, lag - 1] = ((s1 * s2).sum(-1) / (_EPS + np.sqrt((s1 * s1).sum(-1))) ** 2
                                  / (_EPS + np.sqrt((s2 * s2).sum(-1))) ** 2)
        return out

    def _best_lags(self, nccf: np.ndarray) -> np.ndarray:
        """Per frame, the lag index (from 0) of the highest correlation at or above sample_rate / freq_high,
        or of the highest in the first half of the lags when that one is within 1% of it. With no lag to
        search (freq_high too low for freq_low) every frame gets the minimal lag, as in MindSpore."""
        lags = nccf.shape[-1]
        lag_min = int(math.ceil(self.sample_rate / self.freq_high))
        if lag_min >= lags:
            return np.full(nccf.shape[:-1], lag_min, np.int64)
        tail = nccf[..., lag_min:]
        best_val, best_idx = tail.max(-1), tail.argmax(-1)
        half = max(lags // 2, lag_min + 1)
        head = nccf[..., lag_min:half]
        half_val, half_idx = head.max(-1), head.argmax(-1)
        return np.where(half_val > 0.99 * best_val, half_idx, best_idx) + lag_min

    def __call__(self, data: Any) -> np.ndarray:
        x = float_waveform("DetectPitchFrequency", data, floats_only=True)
        shape = x.shape
        if shape[-1] == 0:  # as MindSpore, an error (NumPy's reshape error named nothing)
            raise RuntimeError(f"DetectPitchFrequency: the input has no samples (shape {shape})")
        flat = x.reshape(-1, shape[-1]).astype(np.float64)
        nccf = self._nccf(flat)
        idx = self._best_lags(nccf) + 1
        pad = (self.win_length - 1) // 2
        idx = np.concatenate([np.repeat(idx[:, :1], pad, axis=1), idx], axis=1)
        if idx.shape[1] < self.win_length:
            raise RuntimeError(f"DetectPitchFrequency: the input gives {idx.shape[1] - pad} frame(s), fewer than "
                               f"win_length ({self.win_length}) needs; give a longer waveform")
        windows = np.lib.stride_tricks.sliding_window_view(idx, self.win_length, axis=1)
        # The lower median of each window, as the reference implementation takes.
        med = np.sort(windows, axis=-1)[..., (self.win_length - 1) // 2]
        freq = self.sample_rate / (_EPS + med.astype(np.float32))
        return freq.astype(np.float32).reshape(shape[:-1] + freq.shape[-1:])


def _interpolate(d0: np.ndarray, d1: np.ndarray, d2: np.ndarray | None, frac: np.ndarray) -> np.ndarray:
    """The delay line's value ``frac`` of the way from tap ``d0`` to ``d1`` (SoX's linear or quadratic
    interpolation; ``d2`` is the third tap of the quadratic one)."""
    if d2 is None:
        return d0 + (d1 - d0) * frac
    d2, d1 = d2 - d0, d1 - d0
    return d0 + ((d2 * 0.5 - d1) * frac + (d1 * 2 - d2 * 0.5)) * frac


def _delay_taps_direct(w: np.ndarray, whole: np.ndarray, frac: np.ndarray, buf_len: int,
                       quadratic: bool) -> np.ndarray:
    """The delayed signal without feedback: the ring buffer of ``buf_len`` samples then holds the input itself,
    so tap ``k`` at step ``i`` is the input ``k % buf_len`` steps earlier (zero before the start)."""
    n = w.shape[-1]
    padded = np.concatenate([np.zeros(w.shape[:2] + (buf_len,)), w], axis=-1)
    steps = np.arange(n)[None, :]

    def tap(k: np.ndarray) -> np.ndarray:
        index = np.broadcast_to(buf_len + steps - k % buf_len, w.shape)
        return np.take_along_axis(padded, index, axis=-1)

    return _interpolate(tap(whole), tap(whole + 1), tap(whole + 2) if quadratic else None, frac)


def _delay_taps_feedback(w: np.ndarray, whole: np.ndarray, frac: np.ndarray, buf_len: int, quadratic: bool,
                         feedback: float) -> np.ndarray:
    """The delayed signal with feedback: SoX's ring buffer, written backwards one sample per step with the
    input plus ``feedback`` times the previous delayed value."""
    bufs = np.zeros(w.shape[:2] + (buf_len,))
    last = np.zeros(w.shape[:2])
    delayed = np.empty_like(w)
    chan = np.arange(w.shape[1])
    pos = 0
    for i in range(w.shape[-1]):
        pos = (pos + buf_len - 1) % buf_len
        bufs[:, :, pos] = w[:, :, i] + last * feedback
        d0 = bufs[:, chan, (pos + whole[:, i]) % buf_len]
        d1 = bufs[:, chan, (pos + whole[:, i] + 1) % buf_len]
        d2 = bufs[:, chan, (pos + whole[:, i] + 2) % buf_len] if quadratic else None
        last = delayed[:, :, i] = _interpolate(d0, d1, d2, frac[:, i])
    return delayed


class Flanger:
    """``Flanger(sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5, phase=25.0,
    modulation=Modulation.SINUSOIDAL, interpolation=Interpolation.LINEAR)``: SoX's flanger on a
    <..., channel, time> input (delays in ms, regen/width in percent, channel phases in percent of the
    modulation period); the result is clamped to [-1, 1] and keeps the input's dtype (as MindSpore's: an
    integer input gives integers); at most 4 channels."""

    def __init__(self, sample_rate: int, delay: float = 0.0, depth: float = 2.0, regen: float = 0.0,
                 width: float = 71.0, speed: float = 0.5, phase: float = 25.0,
                 modulation: Modulation = Modulation.SINUSOIDAL,
                 interpolation: Interpolation = Interpolation.LINEAR) -> None:
        who = "Flanger"
        self.sample_rate = check_rate(who, sample_rate, positive=True)
        self.delay = check_number(who, "delay", delay, 0, 30)
        self.depth = check_number(who, "depth", depth, 0, 10)
        self.regen = check_number(who, "regen", regen, -95, 95)
        self.width = check_number(who, "width", width, 0, 100)
        self.speed = check_number(who, "speed", speed, 0.1, 10)
        self.phase = check_number(who, "phase", phase, 0, 100)
        if not isinstance(modulation, Modulation):
            raise TypeError(f"Flanger: modulation must be a Modulation, got {modulation!r}")
        if not isinstance(interpolation, Interpolation):
            raise TypeError(f"Flanger: interpolation must be an Interpolation, got {interpolation!r}")
        self.modulation, self.interpolation = modulation, interpolation

    def __call__(self, data: Any) -> np.ndarray:
        original = np.asarray(data)
        x = float_waveform("Flanger", data, 2)
        shape = x.shape
        if shape[-2] > 4:
            raise RuntimeError(f"Flanger: the input may have at most 4 channels (axis -2), got shape {shape}")
        w = x.reshape(-1, shape[-2], shape[-1]).astype(np.float64)
        rate, channels = self.sample_rate, shape[-2]
        feedback = self.regen / 100
        delay_gain = self.width / 100
        in_gain = 1.0 / (1 + delay_gain)
        delay_gain = delay_gain / (1 + delay_gain) * (1 - abs(feedback))
        buf_len = int((self.delay + self.depth) / 1000 * rate + 0.5) + 2
        lfo_len = int(rate / self.speed)
        lfo = wave_table(self.modulation == Modulation.SINUSOIDAL, lfo_len,
                         float(math.floor(self.delay / 1000 * rate + 0.5)), buf_len - 2.0, 3 * math.pi / 2, False)
        chan_offset = (np.arange(channels) * lfo_len * (self.phase / 100) + 0.5).astype(np.int64)
        steps = np.arange(w.shape[-1]) % lfo_len
        delay = lfo[(steps[None, :] + chan_offset[:, None]) % lfo_len].astype(np.float64)  # (channels, time)
        whole = np.floor(delay).astype(np.int64)
        quadratic = self.interpolation == Interpolation.QUADRATIC
        if feedback == 0:
            delayed = _delay_taps_direct(w, whole, delay - whole, buf_len, quadratic)
        else:
            delayed = _delay_taps_feedback(w, whole, delay - whole, buf_len, quadratic, feedback)
        out = w * in_gain + delayed * delay_gain
        # MindSpore gives the result in the input's dtype (integers truncated after the clamp).
        return np.clip(out, -1.0, 1.0).astype(x.dtype).reshape(shape).astype(original.dtype)


class Phaser:
    """``Phaser(sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4, mod_speed=0.5,
    sinusoidal=True)``: SoX's phaser along the last axis (a delay line of ``delay_ms`` whose read point is
    modulated at ``mod_speed`` Hz, fed back with ``decay``); the result is clamped to [-1, 1], float64 for
    float64 input and float32 otherwise."""

    def __init__(self, sample_rate: int, gain_in: float = 0.4, gain_out: float = 0.74, delay_ms: float = 3.0,
                 decay: float = 0.4, mod_speed: float = 0.5, sinusoidal: bool = True) -> None:
        who = "Phaser"
        self.sample_rate = check_rate(who, sample_rate, positive=True)
        self.gain_in = check_number(who, "gain_in", gain_in, 0.0, 1.0)
        self.gain_out = check_number(who, "gain_out", gain_out, 0.0, 1e9)
        self.delay_ms = check_number(who, "delay_ms", delay_ms, 0.0, 5.0)
        self.decay = check_number(who, "decay", decay, 0.0, 0.99)
        self.mod_speed = check_number(who, "mod_speed", mod_speed, 0.1, 2.0)
        if not isinstance(sinusoidal, bool):
            raise TypeError(f"Phaser: sinusoidal must be a bool, got {type(sinusoidal).__name__} {sinusoidal!r}")
        self.sinusoidal = sinusoidal

    def __call__(self, data: Any) -> np.ndarray:
        x = float_waveform("Phaser", data)
        shape = x.shape
        w = x.reshape(-1, shape[-1]).astype(np.float64) * self.gain_in
        buf_len = int(self.delay_ms * 0.001 * self.sample_rate + 0.5)
        mod_len = int(self.sample_rate / self.mod_speed + 0.5)
        mod = wave_table(self.sinusoidal, mod_len, 1.0, float(buf_len), math.pi / 2, True)
        buf = np.zeros((w.shape[0], max(buf_len, 1)))
        out = np.empty_like(w)
        pos = mod_pos = 0
        for i in range(w.shape[-1]):
            idx = int((pos + mod[mod_pos]) % buf_len) if buf_len else 0
            mod_pos = (mod_pos + 1) % mod_len
            pos = (pos + 1) % buf_len if buf_len else 0
            out[:, i] = w[:, i] + buf[:, idx]
            buf[:, pos] = out[:, i] * self.decay
        return np.clip(out * self.gain_out, -1.0, 1.0).reshape(shape).astype(x.dtype)


__all__ = ["DetectPitchFrequency", "Flanger", "Phaser"]
