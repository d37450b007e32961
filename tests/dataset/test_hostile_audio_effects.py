"""Audio effects given a negative sample rate or a waveform without samples: MindSpore 2.10 fails inside its
pipeline for each (recorded by hand: Flanger, Phaser, DetectPitchFrequency with -8000; DetectPitchFrequency
and Vad on a (1, 0) input); opbuild raised IndexError, computed on, or raised NumPy's reshape error. Each is
now an error naming the transform and the argument or input."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild.dataset.audio as A

_X = np.random.default_rng(0).standard_normal((2, 400)).astype(np.float32)


@pytest.mark.parametrize("make", [A.Flanger, A.Phaser, A.DetectPitchFrequency])
def test_a_negative_sample_rate_is_refused(make):
    with pytest.raises(ValueError, match=rf"{make.__name__}: sample_rate must be positive, got -8000"):
        make(-8000)


@pytest.mark.parametrize("make", [lambda: A.DetectPitchFrequency(8000), lambda: A.Vad(8000)])
def test_a_waveform_without_samples_is_refused(make):
    with pytest.raises(RuntimeError, match=r": the input has no samples \(shape \(1, 0\)\)"):
        make()(np.zeros((1, 0), np.float32))


def test_positive_rates_still_work():
    assert A.Flanger(8000)(_X).shape == _X.shape
    assert A.DetectPitchFrequency(8000, win_length=3)(_X).shape[0] == 2


# MindSpore 2.10's Vad bounds (run by hand: Vad(10**12) and every time/frequency at 16777217 raise
# ValueError; 2**31 - 1 and 16777216 are accepted). opbuild accepted them and ran out of memory in the call.
@pytest.mark.parametrize("kwargs", [{"sample_rate": 10**12}, {"sample_rate": 8000, "search_time": 16777217.0},
                                    {"sample_rate": 8000, "trigger_level": -16777217.0},
                                    {"sample_rate": 8000, "measure_duration": 1e9},
                                    {"sample_rate": 8000, "lp_lifter_freq": 16777217.0}])
def test_vad_bounds_are_mindspores(kwargs):
    name = next(iter(k for k in kwargs if k != "sample_rate"), "sample_rate")
    with pytest.raises(ValueError, match=rf"Vad: {name} must be in "):
        A.Vad(**kwargs)


def test_vad_window_too_large_for_memory_is_refused_before_allocating():
    vad = A.Vad(8000, search_time=16777216.0)  # accepted, as MindSpore does: a 1.3e11-sample search window
    with pytest.raises(ValueError, match=r"Vad: sample_rate 8000 with these times asks for a [\d,]+-sample window"):
        vad(_X)
    assert A.Vad(8000, search_time=1000.0)._plan().samples_len > 8_000_000  # long but within the bound
