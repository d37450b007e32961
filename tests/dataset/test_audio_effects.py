"""``dataset.audio``'s ``DetectPitchFrequency``, ``Flanger``, ``Phaser`` and ``Vad`` give MindSpore 2.10's outputs
(fixtures recorded by scripts/record_audio_effects.py from tests/dataset/audio_effect_cases.py), eagerly and
inside ``Dataset.map``, and refuse the arguments MindSpore refuses with the same exception types."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opbuild.dataset as ds
from opbuild.dataset import audio as A
from opbuild.dataset.audio.effects import _delay_taps_direct, _delay_taps_feedback
from tests.dataset.audio_effect_cases import bad_arguments, build, speech_like

FIXTURE = dict(np.load(Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "audio_effects.npz"))
CALLS = build(A, ds)
# MindSpore 2.10's Vad never triggers (its cepstral measure reads zeros): where a signal triggers, its recorded
# output is the untrimmed tail; test_vad_trims_at_the_burst checks opbuild's trimming instead.
MS_VAD_BUG = {"Vad_talk", "Vad_talk_f32", "Vad_talk_opts"}


@pytest.mark.parametrize("name", sorted(set(CALLS) - MS_VAD_BUG))
def test_effect_matches_mindspore(name):
    fn, data = CALLS[name]
    if f"{name}/error" in FIXTURE:
        exc = str(FIXTURE[f"{name}/error"]).split(":", 1)[1]
        with pytest.raises(Exception) as info:
            fn(data)
        assert type(info.value).__name__ == exc
        return
    out = fn(data)
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == len([k for k in FIXTURE if k.startswith(f"{name}/")])
    for i, got in enumerate(outs):
        exp = FIXTURE[f"{name}/{i}"]
        assert got.shape == exp.shape and got.dtype == exp.dtype, (name, got.shape, got.dtype, exp.shape, exp.dtype)
        np.testing.assert_allclose(got.astype(np.float64), exp.astype(np.float64), rtol=1e-5, atol=3e-6,
                                   err_msg=name)


@pytest.mark.parametrize("name", sorted(bad_arguments(A)))
def test_bad_arguments_match_mindspore(name):
    expected = str(FIXTURE[f"bad/{name}"])
    make = bad_arguments(A)[name]
    if expected == "ok":
        make()
        return
    with pytest.raises(Exception) as info:
        make()
    assert type(info.value).__name__ == expected.split(":", 1)[1], info.value
    assert str(info.value)


def test_vad_trims_at_the_burst():
    # speech_like(4000): quiet noise, a tone burst over samples [3000, 5000), quiet noise. The detected start
    # must lie within one measurement window, one measurement period and the pre-trigger time before the
    # burst, and the output is a tail.
    talk = speech_like(4000)
    for vad, before in ((A.Vad(4000), 400 + 200), (A.Vad(4000, trigger_level=5.0, trigger_time=0.1, search_time=0.5,
                                                   allowed_gap=0.1, pre_trigger_time=0.05, measure_freq=25.0,
                                                   measure_duration=0.05), 200 + 200 + 160)):
        out = vad(talk)
        start = talk.shape[-1] - out.shape[-1]
        assert 3000 - before <= start <= 3000, start
        np.testing.assert_array_equal(out, talk[:, start:])
    assert A.Vad(4000)(talk[0].astype(np.float32)).shape[-1] == talk.shape[-1] - 2600


def test_vad_without_activity_keeps_the_last_window():
    quiet = 1e-4 * np.random.RandomState(0).standard_normal(9000)
    # pre-trigger (0) + search (20 measures of 200 samples) + measurement (400 samples)
    np.testing.assert_array_equal(A.Vad(4000)(quiet), quiet[-4400:])


def test_flanger_channels_are_phase_shifted():
    # Identical channels differ only through the per-channel phase of the modulation.
    x = np.tile(np.sin(np.arange(400) / 7.0)[None] * 0.5, (2, 1))
    same = A.Flanger(8000, depth=5.0, phase=0.0)(x)
    np.testing.assert_array_equal(same[0], same[1])
    shifted = A.Flanger(8000, depth=5.0, phase=50.0)(x)
    assert not np.allclose(shifted[0], shifted[1])


@pytest.mark.parametrize("quadratic", [False, True])
def test_flanger_without_feedback_is_the_ring_buffer(quadratic):
    # The vectorized path (regen 0) reads the same taps as the ring buffer, including the tap that wraps
    # around to the sample just written (delay = buffer length - 2 with quadratic interpolation).
    rs = np.random.RandomState(0)
    w = rs.standard_normal((2, 3, 50))
    buf_len = 7
    whole = rs.randint(0, buf_len - 1, (3, 50))
    whole[:, ::5] = buf_len - 2
    frac = rs.random_sample((3, 50))
    np.testing.assert_allclose(_delay_taps_direct(w, whole, frac, buf_len, quadratic),
                               _delay_taps_feedback(w, whole, frac, buf_len, quadratic, 0.0), rtol=1e-12, atol=1e-12)
