"""Deterministic calls of ``mindspore.dataset.audio`` transforms on fixed inputs, run by
scripts/record_dataset_ops.py under MindSpore 2.10 and by tests/dataset/test_audio.py under opbuild.
Imports neither framework: ``run(audio)`` takes the ``audio`` module. Each case gives an array (or a list of
arrays); a case that raises is recorded as the exception's type name."""

from __future__ import annotations

import numpy as np


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.RandomState(7)
    return {
        "wave": rng.uniform(-0.8, 0.8, (2, 64)),
        "wave32": rng.uniform(-0.8, 0.8, (64,)).astype(np.float32),
        "long": rng.uniform(-0.5, 0.5, (2, 600)),
        "spec": rng.uniform(0.0, 4.0, (201, 6)),
        "spec3": rng.uniform(0.0, 4.0, (2, 21, 7)),
        "cplx": rng.uniform(-1.0, 1.0, (9, 5, 2)),
        "feats": rng.uniform(-1.0, 1.0, (12, 3)),
        "codes": rng.randint(0, 256, (3, 5)).astype(np.float64),
    }


def cases(audio) -> dict:
    x = _inputs()
    w, w32, long, spec, spec3 = x["wave"], x["wave32"], x["long"], x["spec"], x["spec3"]
    # MindSpore 2.10's MelSpectrogram (and so MFCC/LFCC) reads garbage for float64 input: float32 is compared.
    w_f, long_f = w.astype(np.float32), long.astype(np.float32)
    return {
        "allpass": lambda: audio.AllpassBiquad(44100, 200.0)(w),
        "allpass32": lambda: audio.AllpassBiquad(44100, 200.0, 0.5)(w32),
        "band": lambda: audio.BandBiquad(44100, 200.0)(w),
        "band_noise": lambda: audio.BandBiquad(16000, 1000.0, 0.5, True)(w),
        "bandpass": lambda: audio.BandpassBiquad(44100, 2000.0)(w),
        "bandpass_skirt": lambda: audio.BandpassBiquad(44100, 2000.0, 0.6, True)(w),
        "bandreject": lambda: audio.BandrejectBiquad(44100, 3000.0)(w),
        "bass": lambda: audio.BassBiquad(44100, 10.0)(w),
        "treble": lambda: audio.TrebleBiquad(44100, -6.0, 2000.0)(w),
        "equalizer": lambda: audio.EqualizerBiquad(44100, 1500, 5.5, 0.7)(w),
        "highpass": lambda: audio.HighpassBiquad(44100, 1500, 0.7)(w),
        "lowpass": lambda: audio.LowpassBiquad(4000, 1500, 0.7)(w),
        "deemph": lambda: audio.DeemphBiquad(44100)(w),
        "riaa": lambda: audio.RiaaBiquad(48000)(w),
        "biquad": lambda: audio.Biquad(0.01, 0.02, 0.13, 1, 0.12, 0.3)(w),
        "lfilter": lambda: audio.LFilter([1.0, -0.5, 0.2], [0.3, 0.2, 0.1])(w),
        "lfilter_noclamp": lambda: audio.LFilter([0.5, -0.2, 0.1], [0.9, 0.4, 0.3], clamp=False)(w),
        "filtfilt": lambda: audio.Filtfilt([1.0, -0.5, 0.2], [0.3, 0.2, 0.1])(w),
        "amp_to_db": lambda: audio.AmplitudeToDB()(spec),
        "amp_to_db_mag": lambda: audio.AmplitudeToDB(audio.ScaleType.MAGNITUDE, 2.0, 1e-5, 10.0)(spec3),
        "db_to_amp": lambda: audio.DBToAmplitude(0.5, 0.5)(w),
        "angle": lambda: audio.Angle()(x["cplx"]),
        "complex_norm": lambda: audio.ComplexNorm(1.5)(x["cplx"]),
        "magphase": lambda: list(audio.Magphase(2.0)(x["cplx"])),
        "contrast": lambda: audio.Contrast(60.0)(w),
        "dcshift": lambda: audio.DCShift(0.5)(w),
        "dcshift_limit": lambda: audio.DCShift(0.5, 0.05)(w),
        "dcshift_neg_limit": lambda: audio.DCShift(-0.4, 0.1)(w),
        "gain": lambda: audio.Gain(1.2)(w),
        "vol_amp": lambda: audio.Vol(1.5)(w),
        "vol_db": lambda: audio.Vol(10, audio.GainType.DB)(w),
        "vol_power": lambda: audio.Vol(2.0, audio.GainType.POWER)(w),
        **{f"fade_{s.name.lower()}": (lambda s=s: audio.Fade(7, 5, s)(w)) for s in audio.FadeShape},
        "mulaw_enc": lambda: audio.MuLawEncoding()(w),
        "mulaw_enc_16": lambda: audio.MuLawEncoding(16)(w32),
        "mulaw_dec": lambda: audio.MuLawDecoding()(x["codes"]),
        "overdrive": lambda: audio.Overdrive(10.0, 30.0)(w),
        "deltas": lambda: audio.ComputeDeltas()(spec),
        "deltas_reflect": lambda: audio.ComputeDeltas(7, audio.BorderType.REFLECT)(spec3),
        "cmn": lambda: audio.SlidingWindowCmn(5, 3)(x["feats"]),
        "cmn_center_vars": lambda: audio.SlidingWindowCmn(4, 2, True, True)(x["feats"]),
        "mask_axis_freq": lambda: audio.MaskAlongAxis(2, 3, 0.5, 1)(spec3),
        "mask_axis_time": lambda: audio.MaskAlongAxis(1, 2, -1.0, 2)(spec3),
        "spectrogram": lambda: audio.Spectrogram()(long),
        "spectrogram_small": lambda: audio.Spectrogram(n_fft=32, hop_length=8, power=1.0)(w),
        "spectrogram_win": lambda: audio.Spectrogram(n_fft=32, win_length=20, hop_length=10,
                                                     window=audio.WindowType.HAMMING, normalized=True)(w),
        "spectrogram_nocenter": lambda: audio.Spectrogram(n_fft=16, hop_length=8, center=False,
                                                          window=audio.WindowType.BLACKMAN)(w),
        "spectrogram_complex": lambda: audio.Spectrogram(n_fft=16, hop_length=8, power=0.0)(w),
        "spectrogram_pad": lambda: audio.Spectrogram(n_fft=16, hop_length=4, pad=3,
                                                     pad_mode=audio.BorderType.CONSTANT)(w),
        "spectrogram_bartlett": lambda: audio.Spectrogram(n_fft=16, window=audio.WindowType.BARTLETT)(w),
        "spectrogram_kaiser": lambda: audio.Spectrogram(n_fft=16, window=audio.WindowType.KAISER)(w),
        "inverse_spectrogram": lambda: audio.InverseSpectrogram(
            None, 16, hop_length=4)(audio.Spectrogram(n_fft=16, hop_length=4, power=0.0)(w)),
        "inverse_spectrogram_len": lambda: audio.InverseSpectrogram(
            60, 16, hop_length=4)(audio.Spectrogram(n_fft=16, hop_length=4, power=0.0)(w)),
        "melscale": lambda: audio.MelScale(20, 16000, 0.0, None, 201)(spec),
        "melscale_slaney": lambda: audio.MelScale(6, 8000, 100.0, 3000.0, 21, audio.NormType.SLANEY,
                                                  audio.MelType.SLANEY)(spec3),
        "melspectrogram": lambda: audio.MelSpectrogram(sample_rate=16000, n_fft=16, win_length=16, hop_length=8,
                                                       f_max=5000.0, n_mels=4)(w_f),
        "mfcc": lambda: audio.MFCC(4000, 12)(long_f),
        "mfcc_log": lambda: audio.MFCC(8000, 8, 2, audio.NormMode.NONE, True)(long_f),
        "lfcc": lambda: audio.LFCC(16000, 20, 10)(long_f),
        "lfcc_log": lambda: audio.LFCC(8000, 30, 12, 100.0, 3000.0, log_lf=True)(long_f),
        "time_stretch_default": lambda: audio.TimeStretch()(x["cplx"]),
        "spectral_centroid": lambda: audio.SpectralCentroid(44100, n_fft=32, hop_length=16)(w),
        "melscale_fbanks": lambda: audio.melscale_fbanks(33, 0, 8000, 10, 16000),
        "melscale_fbanks_slaney": lambda: audio.melscale_fbanks(33, 50, 7000, 10, 16000, audio.NormType.SLANEY,
                                                                audio.MelType.SLANEY),
        "linear_fbanks": lambda: audio.linear_fbanks(33, 0, 8000, 10, 16000),
        "dct": lambda: audio.create_dct(10, 20, audio.NormMode.NONE),
        "dct_ortho": lambda: audio.create_dct(10, 20, audio.NormMode.ORTHO),
        "phase_vocoder": lambda: audio.PhaseVocoder(1.3, np.linspace(0, np.pi * 4, 9)[:, None])(x["cplx"]),
        "time_stretch": lambda: audio.TimeStretch(4, 9, 0.8)(x["cplx"]),
        "resample": lambda: audio.Resample(48000, 16000)(long),
        "resample_up": lambda: audio.Resample(16000, 44100, lowpass_filter_width=4, rolloff=0.9)(w),
        "resample_kaiser": lambda: audio.Resample(32000, 24000, audio.ResampleMethod.KAISER_WINDOW, 6, 0.99,
                                                  None)(w),
        "pitch_shift": lambda: audio.PitchShift(16000, 3, n_fft=64)(long),
    }


def run(audio) -> dict:
    """Each case's result as arrays (a list for several outputs), or the name of the exception it raised."""
    out = {}
    for name, fn in cases(audio).items():
        try:
            res = fn()
        except Exception as e:  # recorded: a case where MindSpore refuses is compared as a refusal
            out[name] = type(e).__name__
            continue
        out[name] = [np.asarray(r) for r in res] if isinstance(res, list) else np.asarray(res)
    return out
