"""Deterministic ``dataset.audio`` transforms and filter banks (``build(A)`` over the framework's audio module:
name -> (callable, input)); scripts/record_vision_transforms.py records MindSpore 2.10's outputs into
tests/fixtures/mindspore/audio_transforms.npz, tests/dataset/test_audio_transforms.py compares opbuild's."""

import numpy as np


def wave() -> np.ndarray:
    """A (2, 64) float32 waveform in [-0.5, 0.5)."""
    return (np.random.RandomState(1).random_sample((2, 64)) - 0.5).astype(np.float32)


def build(A) -> dict:
    """name -> (callable, input)."""
    w = wave()
    spec = np.abs(np.random.RandomState(2).standard_normal((2, 201, 5))).astype(np.float32)
    cplx = np.random.RandomState(3).standard_normal((3, 4, 2)).astype(np.float32)
    speck = {"n_fft": 16, "win_length": 16, "hop_length": 8, "pad": 0, "window": A.WindowType.HANN, "power": 2.0,
             "normalized": False, "center": True, "pad_mode": A.BorderType.REFLECT, "onesided": True}

    def mel(n_mels: int) -> dict:
        kw = {k: v for k, v in speck.items()}
        kw.update({"f_min": 0.0, "f_max": 2000.0, "n_mels": n_mels, "norm": A.NormType.NONE,
                   "mel_scale": A.MelType.HTK})
        return kw

    return {
        "AllpassBiquad": (A.AllpassBiquad(44100, 200.0), w),
        "BandBiquad": (A.BandBiquad(44100, 200.0), w), "BandBiquad_noise": (A.BandBiquad(44100, 200.0, 0.5, True), w),
        "BandpassBiquad": (A.BandpassBiquad(44100, 200.0), w),
        "BandpassBiquad_skirt": (A.BandpassBiquad(44100, 300.0, 0.6, True), w),
        "BandrejectBiquad": (A.BandrejectBiquad(44100, 200.0), w), "BassBiquad": (A.BassBiquad(44100, 100.0), w),
        "TrebleBiquad": (A.TrebleBiquad(44100, 200.0), w),
        "EqualizerBiquad": (A.EqualizerBiquad(44100, 1500, 5.5, 0.7), w),
        "HighpassBiquad": (A.HighpassBiquad(44100, 1500, 0.7), w),
        "LowpassBiquad": (A.LowpassBiquad(4000, 1500, 0.7), w),
        "DeemphBiquad": (A.DeemphBiquad(44100), w), "Biquad": (A.Biquad(0.01, 0.02, 0.13, 1, 0.12, 0.3), w),
        "LFilter": (A.LFilter([0.1, 0.2, 0.3], [0.4, 0.5, 0.6]), w),
        "Filtfilt": (A.Filtfilt([0.1, 0.2, 0.3], [0.4, 0.5, 0.6]), w),
        "AmplitudeToDB": (A.AmplitudeToDB(), spec), "AmplitudeToDB_mag": (A.AmplitudeToDB(A.ScaleType.MAGNITUDE,
                                                                                          top_db=10.0), spec),
        "DBToAmplitude": (A.DBToAmplitude(0.5, 0.5), w), "Angle": (A.Angle(), cplx),
        "ComplexNorm": (A.ComplexNorm(2.0), cplx), "Magphase": (A.Magphase(), cplx),
        "DCShift": (A.DCShift(0.5), w), "DCShift_limit": (A.DCShift(0.5, 0.02), w),
        "DCShift_neg": (A.DCShift(-0.6, 0.05), w), "Gain": (A.Gain(1.2), w),
        "Vol": (A.Vol(0.2), w), "Vol_db": (A.Vol(3.0, A.GainType.DB), w),
        "Vol_power": (A.Vol(2.0, A.GainType.POWER), w),
        "MuLawEncoding": (A.MuLawEncoding(), w), "MuLawDecoding": (A.MuLawDecoding(), np.arange(0, 256, 17)),
        "Contrast": (A.Contrast(), w), "ComputeDeltas": (A.ComputeDeltas(), spec[0, :4]),
        "Fade": (A.Fade(10, 20), w), "Fade_exp": (A.Fade(10, 20, A.FadeShape.EXPONENTIAL), w),
        "Fade_log": (A.Fade(10, 20, A.FadeShape.LOGARITHMIC), w),
        "Fade_quarter": (A.Fade(10, 20, A.FadeShape.QUARTER_SINE), w),
        "Fade_half": (A.Fade(10, 20, A.FadeShape.HALF_SINE), w),
        "MaskAlongAxis_freq": (A.MaskAlongAxis(0, 2, 9.0, 1), spec[0, :6]),
        "MaskAlongAxis_time": (A.MaskAlongAxis(1, 2, -1.0, 2), spec[0, :6]),
        "melscale_fbanks": (lambda _: A.melscale_fbanks(20, 0.0, 8000.0, 8, 16000), None),
        "melscale_fbanks_slaney": (lambda _: A.melscale_fbanks(20, 0.0, 8000.0, 8, 16000, A.NormType.SLANEY,
                                                               A.MelType.SLANEY), None),
        "linear_fbanks": (lambda _: A.linear_fbanks(20, 0.0, 8000.0, 8, 16000), None),
        "create_dct": (lambda _: A.create_dct(6, 8), None),
        "create_dct_ortho": (lambda _: A.create_dct(6, 8, A.NormMode.ORTHO), None),
        "Spectrogram": (A.Spectrogram(n_fft=16), w), "Spectrogram_opts": (A.Spectrogram(n_fft=16, win_length=12,
                                                                                       hop_length=5, power=1.0,
                                                                                       normalized=True), w),
        "MelScale": (A.MelScale(n_mels=16, sample_rate=16000), spec),
        "MelSpectrogram": (A.MelSpectrogram(sample_rate=16000, n_fft=16, n_mels=4), w),
        "SpectralCentroid": (A.SpectralCentroid(44100, n_fft=16), w),
        "MFCC": (A.MFCC(4000, n_mfcc=4, melkwargs=mel(6)), w),
        "MFCC_log": (A.MFCC(4000, n_mfcc=3, log_mels=True, melkwargs=mel(5)), w),
        "LFCC": (A.LFCC(4000, n_filter=6, n_lfcc=4, speckwargs=speck), w),
    }
