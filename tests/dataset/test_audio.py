"""``opbuild.dataset.audio`` gives MindSpore 2.10's results: tests/dataset/audio_programs.py's cases against
the outputs MindSpore gave on the same inputs (scripts/record_dataset_ops.py), plus the random transforms'
shapes, seeding and argument checks."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild.dataset as ds
from opbuild.dataset import audio
from tests.dataset import audio_programs
from tests.dataset.ops_fixture import assert_same, expected

EXPECTED = expected("audio")
RESULTS = audio_programs.run(audio)
# Iterative or accumulated results, compared to a looser tolerance.
# MindSpore designs some filters' coefficients in float32, and float32 inputs run in float32.
LOOSE = {"pitch_shift": 1e-4, "inverse_spectrogram": 1e-5, "inverse_spectrogram_len": 1e-5, "riaa": 1e-5,
         "mfcc_log": 5e-4, "lfcc_log": 5e-4, "mfcc": 5e-4, "lfcc": 5e-4}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_matches_mindspore(case):
    want = EXPECTED[case]
    atol = LOOSE.get(case, 1e-5 if getattr(want, "dtype", None) == np.float32 else 1e-6)
    assert_same(RESULTS[case], want, case, rtol=1e-4 if atol > 1e-6 else 1e-5, atol=atol)


def test_every_case_was_recorded():
    assert set(RESULTS) == set(EXPECTED)


def _spec(shape=(2, 20, 30)):
    return np.random.RandomState(0).uniform(0.1, 1.0, shape)


@pytest.mark.parametrize("op,axis", [(audio.TimeMasking(True, 10), -1), (audio.FrequencyMasking(True, 8), -2),
                                     (audio.MaskAlongAxisIID(6, 0.0, 2), -1), (audio.MaskAlongAxisIID(6, 0.0, 1), -2)])
def test_random_masks_zero_one_band_and_follow_the_dataset_seed(op, axis):
    x = _spec()
    ds.config.set_seed(5)
    first = [op(x) for _ in range(4)]
    ds.config.set_seed(5)
    again = [op(x) for _ in range(4)]
    try:
        for a, b in zip(first, again, strict=True):
            np.testing.assert_array_equal(a, b)
            assert a.shape == x.shape and a.dtype == x.dtype
            zeroed = np.all(a == 0, axis=tuple(i for i in range(a.ndim) if i != a.ndim + axis))
            idx = np.flatnonzero(zeroed)
            if idx.size:  # one contiguous band, the rest untouched
                assert idx[-1] - idx[0] + 1 == idx.size
            keep = np.ones(a.shape[axis], bool)
            keep[idx] = False
            np.testing.assert_array_equal(np.compress(keep, a, axis), np.compress(keep, x, axis))
        assert any(np.any(a == 0) for a in first)
    finally:
        ds.config.reset_seed()


def test_time_masking_without_iid_starts_at_mask_start():
    out = audio.TimeMasking(False, 5, mask_start=3, mask_value=-1.0)(_spec((4, 12)))
    cols = np.flatnonzero(np.all(out == -1.0, axis=0))
    assert cols.size == 0 or cols[0] == 3


def test_dither_griffinlim_inverse_mel_shapes_and_seeding():
    x = np.random.RandomState(1).uniform(-0.5, 0.5, (2, 50))
    ds.config.set_seed(3)
    d1 = audio.Dither()(x)
    ds.config.set_seed(3)
    d2 = audio.Dither()(x)
    ds.config.reset_seed()
    np.testing.assert_array_equal(d1, d2)
    assert d1.dtype == np.float64 and np.abs(d1 - x).max() < 3 / 2 ** 15
    mag = audio.Spectrogram(n_fft=16, hop_length=4)(np.sin(np.arange(200) * 0.3))
    wav = audio.GriffinLim(n_fft=16, n_iter=20, hop_length=4, length=200)(mag)
    assert wav.shape == (200,)
    rebuilt = audio.Spectrogram(n_fft=16, hop_length=4)(wav)
    assert np.abs(rebuilt - mag).mean() < 0.5 * mag.mean()  # the phase search roughly reproduces the magnitudes
    spec = audio.Spectrogram(n_fft=38)(np.sin(np.arange(400) * 0.2))
    mel = audio.MelScale(6, 16000, n_stft=20)(spec)
    inv = audio.InverseMelScale(20, 6, 16000, max_iter=200)(mel)
    assert inv.shape == spec.shape and inv.min() >= 0
    assert np.abs(audio.MelScale(6, 16000, n_stft=20)(inv) - mel).mean() < np.abs(mel).mean()


def test_melspectrogram_is_melscale_of_spectrogram():
    x = np.random.RandomState(2).uniform(-1, 1, (3, 300))
    got = audio.MelSpectrogram(8000, n_fft=64, hop_length=16, n_mels=10)(x)
    want = audio.MelScale(10, 8000, n_stft=33)(audio.Spectrogram(n_fft=64, hop_length=16)(x))
    np.testing.assert_allclose(got, want)
    assert got.dtype == np.float64


def test_in_a_pipeline_outputs_keep_mindspore_dtypes():
    data = ds.NumpySlicesDataset(np.random.RandomState(0).uniform(-1, 1, (3, 16, 2)), ["audio"], shuffle=False)
    data = data.map(operations=audio.Magphase(), input_columns=["audio"], output_columns=["spect", "phase"])
    row = next(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert row["spect"].shape == (16,) and row["phase"].dtype == np.float64
    assert audio.MuLawEncoding()(np.zeros(4)).dtype == np.int32
    assert audio.Gain()(np.zeros(4, np.int16)).dtype == np.float32


@pytest.mark.parametrize("make,match", [
    (lambda: audio.LowpassBiquad(4000, 1500, 1.5), "Q must be in"),
    (lambda: audio.DeemphBiquad(22050), "44100 or 48000"),
    (lambda: audio.LFilter([0.0, 1.0], [1.0, 1.0])(np.zeros(4)), "a_coeffs\\[0\\]"),
    (lambda: audio.LFilter([1.0], [1.0, 2.0]), "same length"),
    (lambda: audio.Angle()(np.zeros((3, 3))), "real/imaginary"),
    (lambda: audio.MaskAlongAxis(0, 3, 0.0, 3), "axis must be 1"),
    (lambda: audio.Spectrogram(n_fft=8, win_length=9), "win_length 9"),
    (lambda: audio.Fade(10, 0)(np.zeros(5)), "must not exceed"),
    (lambda: audio.MelScale(4, n_stft=20)(np.zeros((21, 3))), "21 frequency bins"),
    (lambda: audio.Resample(16000.5, 8000), "whole numbers"),
])
def test_bad_arguments_get_one_line_errors(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()
