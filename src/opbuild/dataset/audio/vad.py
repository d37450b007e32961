"""``Vad``: SoX's voice-activity detector, which trims the quiet start of a recording. Every
``1 / measure_freq`` seconds it measures each channel's speech-likeness (the cepstral power of a Hann-windowed,
noise-reduced spectrum); once a smoothed measure reaches ``trigger_level`` it searches back for quieter
bursts within ``allowed_gap`` and returns the waveform from there on."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .effects import check_number, check_rate, float_waveform


def _hann(n: int) -> np.ndarray:
    """The periodic Hann window of ``n`` points."""
    return 0.5 - 0.5 * np.cos(2 * math.pi * np.arange(n) / n) if n else np.zeros(0)


@dataclass
class _Plan:
    """Sizes and constants of one Vad run (SoX's names, in samples ``_ns`` or measures)."""

    measure_len: int
    dft_len: int
    period: int
    measures_len: int
    gap_len: int
    samples_len: int
    window: np.ndarray
    spec_start: int
    spec_end: int
    cep_window: np.ndarray
    cep_start: int
    cep_end: int
    mults: tuple[float, float, float, float]  # noise up, noise down, smoothing, trigger
    boot_max: int


# MindSpore 2.10's bounds: sample_rate an int32 > 0, every time/frequency/level within float32's exact
# integers (|x| <= 2**24).
_INT32_MAX = 2**31 - 1
_FLOAT_BOUND = 16777216.0
# The largest analysis window (samples) a Vad allocates; beyond it one call would need gigabytes.
_MAX_WINDOW = 1 << 27

class Vad:
    """``Vad(sample_rate, trigger_level=7.0, trigger_time=0.25, search_time=1.0, allowed_gap=0.25,
    pre_trigger_time=0.0, boot_time=0.35, noise_up_time=0.1, noise_down_time=0.01, noise_reduction_amount=1.35,
    measure_freq=20.0, measure_duration=None, measure_smooth_time=0.4, hp_filter_freq=50.0,
    lp_filter_freq=6000.0, hp_lifter_freq=150.0, lp_lifter_freq=2000.0)``: the input (<..., time>) from the
    detected start of activity on (all leading axes cut at the same point); a waveform that never triggers
    keeps its last (pre-trigger + search + measurement) window of samples, as MindSpore's does. float64 stays
    float64, other numeric input gives float32.

    MindSpore 2.10's kernel never triggers: its cepstral measure reads a buffer of zeros (the spectrum values
    are appended after it), so every measure is 0 and it always returns that last window. opbuild measures as
    SoX does, so it trims where MindSpore's would not (identical results where nothing triggers)."""

    def __init__(self, sample_rate: int, trigger_level: float = 7.0, trigger_time: float = 0.25,
                 search_time: float = 1.0, allowed_gap: float = 0.25, pre_trigger_time: float = 0.0,
                 boot_time: float = 0.35, noise_up_time: float = 0.1, noise_down_time: float = 0.01,
                 noise_reduction_amount: float = 1.35, measure_freq: float = 20.0,
                 measure_duration: float | None = None, measure_smooth_time: float = 0.4,
                 hp_filter_freq: float = 50.0, lp_filter_freq: float = 6000.0, hp_lifter_freq: float = 150.0,
                 lp_lifter_freq: float = 2000.0) -> None:
        who = "Vad"
        self.sample_rate = check_rate(who, sample_rate, positive=True)
        if self.sample_rate > _INT32_MAX:
            raise ValueError(f"{who}: sample_rate must be in [1, {_INT32_MAX}], got {sample_rate}")
        self.trigger_level = check_number(who, "trigger_level", trigger_level, -_FLOAT_BOUND, _FLOAT_BOUND)
        for name, value in (("trigger_time", trigger_time), ("search_time", search_time),
                            ("allowed_gap", allowed_gap), ("pre_trigger_time", pre_trigger_time),
                            ("boot_time", boot_time), ("noise_up_time", noise_up_time),
                            ("noise_down_time", noise_down_time), ("noise_reduction_amount", noise_reduction_amount),
                            ("measure_smooth_time", measure_smooth_time)):
            setattr(self, name, check_number(who, name, value, 0.0, _FLOAT_BOUND))
        if self.noise_up_time < self.noise_down_time:
            raise ValueError(f"Vad: noise_up_time ({noise_up_time}) must not be less than noise_down_time "
                             f"({noise_down_time})")
        self.measure_freq = check_number(who, "measure_freq", measure_freq, 0.0, _FLOAT_BOUND, low_open=True)
        self.measure_duration = (None if measure_duration is None
                                 else check_number(who, "measure_duration", measure_duration, 0.0, _FLOAT_BOUND))
        for name, value in (("hp_filter_freq", hp_filter_freq), ("lp_filter_freq", lp_filter_freq),
                            ("hp_lifter_freq", hp_lifter_freq), ("lp_lifter_freq", lp_lifter_freq)):
            setattr(self, name, check_number(who, name, value, 0.0, _FLOAT_BOUND, low_open=True))

    def _plan(self) -> _Plan:
        rate, freq = self.sample_rate, self.measure_freq
        duration = 2.0 / freq if self.measure_duration is None else self.measure_duration
        measure_len = int(rate * duration + 0.5)
        dft_len = 16
        while dft_len < measure_len:
            dft_len *= 2
        period = int(rate / freq + 0.5)
        measures_len = math.ceil(self.search_time * freq)
        samples_len = int(self.pre_trigger_time * rate + 0.5) + measures_len * period + measure_len
        spec_start = max(int(self.hp_filter_freq / rate * dft_len + 0.5), 1)
        spec_end = min(int(self.lp_filter_freq / rate * dft_len + 0.5), dft_len // 2)
        width = spec_end - spec_start
        cep_start = math.ceil(rate * 0.5 / self.lp_lifter_freq)
        cep_end = min(math.floor(rate * 0.5 / self.hp_lifter_freq), dft_len // 4)
        if max(dft_len, samples_len) > _MAX_WINDOW:
            raise ValueError(f"Vad: sample_rate {rate} with these times asks for a {max(dft_len, samples_len):,}-"
                             f"sample window (at most {_MAX_WINDOW:,}); lower search_time, pre_trigger_time or "
                             "measure_duration, or raise measure_freq")
        if cep_end <= cep_start or width <= 0:
            raise RuntimeError("Vad: the filter and lifter frequencies leave nothing to measure at this "
                               "sample_rate; raise lp_lifter_freq or lower hp_lifter_freq/hp_filter_freq")
        mults = tuple(math.exp(-1.0 / (t * freq)) if t > 0 else 0.0 for t in
                      (self.noise_up_time, self.noise_down_time, self.measure_smooth_time, self.trigger_time))
        return _Plan(measure_len, dft_len, period, measures_len, int(self.allowed_gap * freq + 0.5), samples_len,
                     np.full(measure_len, 2.0 / math.sqrt(measure_len)) * _hann(measure_len) if measure_len else
                     np.zeros(0), spec_start, spec_end,
                     np.full(width, 2.0 / math.sqrt(width)) * _hann(width), cep_start, cep_end, mults,
                     int(self.boot_time * freq - 0.5))

    def _measure(self, p: _Plan, frame: np.ndarray, spectrum: np.ndarray, noise: np.ndarray,
                 boot_count: int) -> float:
        """One channel's measure of ``frame``; updates its smoothed ``spectrum`` and ``noise`` in place."""
        buf = np.zeros(p.dft_len)
        buf[:p.measure_len] = frame * p.window
        mag = np.abs(np.fft.rfft(buf))[p.spec_start:p.spec_end]
        s, e = p.spec_start, p.spec_end
        mult = boot_count / (1.0 + boot_count) if boot_count >= 0 else p.mults[2]
        spectrum[s:e] = spectrum[s:e] * mult + mag * (1 - mult)
        power = spectrum[s:e] ** 2
        nmult = (np.zeros(e - s) if boot_count >= 0
                 else np.where(power > noise[s:e], p.mults[0], p.mults[1]))
        noise[s:e] = noise[s:e] * nmult + power * (1 - nmult)
        cep = np.zeros(p.dft_len >> 1)
        cep[s:e] = np.sqrt(np.maximum(0.0, power - self.noise_reduction_amount * noise[s:e])) * p.cep_window
        total = float(np.sum(np.abs(np.fft.rfft(cep)[p.cep_start:p.cep_end]) ** 2))
        result = math.log(total / (p.cep_end - p.cep_start)) if total > 0 else -math.inf
        return max(0.0, 21 + result)

    def _flush_count(self, p: _Plan, measures: np.ndarray, index: int) -> int:
        """How many measures back from ``index`` the activity starts: walking back, each measure at the
        trigger level within ``gap_len`` of the last one found extends the start, a zero measure after it
        ends the search (SoX's rule)."""
        n, k = p.measures_len, index
        j_trigger = j_zero = n
        for j in range(n):
            if measures[k] >= self.trigger_level and j <= j_trigger + p.gap_len:
                j_zero = j_trigger = j
            elif measures[k] == 0 and j_trigger >= j_zero:
                j_zero = j
            k = (k + n - 1) % n
        return j_zero

    def __call__(self, data: Any) -> np.ndarray:
        x = float_waveform("Vad", data)
        shape = x.shape
        if shape[-1] == 0:  # as MindSpore, an error (NumPy's reshape error named nothing)
            raise RuntimeError(f"Vad: the input has no samples (shape {shape})")
        w = x.reshape(-1, shape[-1])
        p = self._plan()
        rows, length = w.shape
        spectrum = np.zeros((rows, p.dft_len))
        noise = np.zeros((rows, p.dft_len))
        measures = np.zeros((rows, max(p.measures_len, 1)))
        mean = np.zeros(rows)
        timer, boot, m_index, flush = p.measure_len, 0, 0, 0
        triggered = False
        pos = 0
        # SoX's sample ring is replaced by reading the waveform directly: the measured window is the
        # measure_len samples before the current one (zeros before the start).
        while pos < length and not triggered:
            timer -= 1
            if timer == 0:
                start = pos - p.measure_len
                for i in range(rows):
                    frame = w[i, max(start, 0):pos].astype(np.float64)
                    frame = np.concatenate([np.zeros(p.measure_len - frame.size), frame])
                    meas = self._measure(p, frame, spectrum[i], noise[i], boot)
                    measures[i, m_index] = meas
                    mean[i] = mean[i] * p.mults[3] + meas * (1.0 - p.mults[3])
                    triggered = triggered or bool(mean[i] >= self.trigger_level)
                    if triggered:
                        flush = min(max(flush, self._flush_count(p, measures[i], m_index)), p.measures_len)
                timer = p.period
                m_index = (m_index + 1) % max(p.measures_len, 1)
                if boot >= 0:
                    boot = -1 if boot == p.boot_max else boot + 1
            pos += 1
        flushed = (p.measures_len - flush) * p.period if triggered else 0
        start = pos - p.samples_len + flushed
        # A negative start counts from the end, as in the reference implementations.
        return w[:, start:].reshape(shape[:-1] + (-1,)).copy()


__all__ = ["Vad"]
