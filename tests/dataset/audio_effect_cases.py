"""Cases of the SoX/Kaldi-style audio effects (``DetectPitchFrequency``, ``Flanger``, ``Phaser``, ``Vad``):
``build(A, ds)`` over a framework's ``dataset.audio`` and ``dataset`` modules gives name -> (callable, input).
scripts/record_audio_effects.py records MindSpore 2.10's outputs (or its exception's type) into
tests/fixtures/mindspore/audio_effects.npz; tests/dataset/test_audio_effects.py compares opbuild's."""

import numpy as np


def tones(sample_rate: int, seconds: float, freqs: tuple, noise: float = 0.01) -> np.ndarray:
    """One sine channel per frequency, with a little deterministic noise."""
    t = np.arange(int(sample_rate * seconds)) / sample_rate
    rs = np.random.RandomState(5)
    return np.stack([0.5 * np.sin(2 * np.pi * f * t) + noise * rs.standard_normal(t.size) for f in freqs])


def speech_like(sample_rate: int) -> np.ndarray:
    """Quiet noise, a loud burst of tones, quiet noise (a case Vad trims)."""
    rs = np.random.RandomState(6)
    n = sample_rate
    x = 0.001 * rs.standard_normal((2, 2 * n))
    t = np.arange(n // 2) / sample_rate
    burst = 0.6 * np.sin(2 * np.pi * 300 * t) * np.sin(2 * np.pi * 3 * t)
    x[:, n // 2 + n // 4:n + n // 4] += np.stack([burst, 0.5 * burst])
    return x


def pipeline(ds, transform, data: np.ndarray):
    """``transform`` applied inside ``NumpySlicesDataset(...).map``; every row's output."""
    def run(_):
        d = ds.NumpySlicesDataset(data=data, column_names=["audio"], shuffle=False)
        d = d.map(operations=[transform], input_columns=["audio"])
        return tuple(row["audio"] for row in d.create_dict_iterator(num_epochs=1, output_numpy=True))
    return run


def build(A, ds) -> dict:
    """name -> (callable, input)."""
    rand16 = np.random.RandomState(1).random_sample(16)
    rand5x16 = np.random.RandomState(2).random_sample((5, 16))
    w = (np.random.RandomState(3).random_sample((2, 64)) - 0.5)
    w3 = (np.random.RandomState(4).random_sample((3, 2, 40)) - 0.5)
    pitch = tones(8000, 0.5, (220.0, 440.0))
    pitch_f32 = tones(16000, 0.3, (300.0, 1000.0, 123.0)).astype(np.float32)
    rand1000 = np.random.RandomState(7).random_sample(1000)
    talk = speech_like(4000)
    cases = {
        "DPF_doc": (A.DetectPitchFrequency(30, 0.1, 3, 5, 25), rand16),
        "DPF_doc_map": (pipeline(ds, A.DetectPitchFrequency(30, 0.1, 3, 5, 25), rand5x16), None),
        "DPF_tones": (A.DetectPitchFrequency(8000), pitch),
        "DPF_tones_f32": (A.DetectPitchFrequency(16000, 0.02, 5, 100, 2000), pitch_f32),
        "DPF_short_win": (A.DetectPitchFrequency(8000, 0.005, 1, 85, 3400), pitch[:, :1000]),
        "DPF_int": (A.DetectPitchFrequency(8000, 0.01, 3), (pitch * 1000).astype(np.int16)),
        "DPF_f16": (A.DetectPitchFrequency(30, 0.1, 3, 5, 25), rand16.astype(np.float16)),
        "DPF_batch": (A.DetectPitchFrequency(30, 0.1, 3, 5, 25), np.random.RandomState(12).random_sample((2, 3, 16))),
        "DPF_empty_search": (A.DetectPitchFrequency(30, 0.1, 3, 10, 11), rand16),
        "DPF_half_empty": (A.DetectPitchFrequency(30, 0.1, 3, 10, 20), rand16),
        "Flanger_default": (A.Flanger(44100), w),
        "Flanger_int": (A.Flanger(8000, 3.0, 4.0), (w * 8).astype(np.int32)),
        "Flanger_f16": (A.Flanger(8000, 3.0, 4.0), w.astype(np.float16)),
        "Flanger_f32": (A.Flanger(44100), w.astype(np.float32)),
        "Flanger_3d": (A.Flanger(8000, 2.0, 5.0, 10.0, 50.0, 2.0, 40.0), w3),
        "Flanger_tri_quad": (A.Flanger(8000, 1.0, 3.0, -20.0, 80.0, 1.5, 60.0, A.Modulation.TRIANGULAR,
                                       A.Interpolation.QUADRATIC), w),
        "Flanger_quad": (A.Flanger(8000, 0.0, 10.0, 0.0, 100.0, 10.0, 30.0, A.Modulation.SINUSOIDAL,
                                   A.Interpolation.QUADRATIC), w),
        "Flanger_regen": (A.Flanger(4000, 5.0, 10.0, 60.0, 100.0, 10.0, 0.0), w),
        "Flanger_map": (pipeline(ds, A.Flanger(44100), np.random.RandomState(8).random_sample((5, 4, 16))), None),
        "Phaser_default": (A.Phaser(44100), w),
        "Phaser_f32": (A.Phaser(44100), w.astype(np.float32)),
        "Phaser_tri": (A.Phaser(8000, 0.8, 2.0, 5.0, 0.9, 2.0, False), w),
        "Phaser_3d": (A.Phaser(16000, 0.5, 0.5, 1.0, 0.2, 0.1, True), w3),
        "Phaser_1d": (A.Phaser(44100), w[0]),
        "Phaser_int": (A.Phaser(8000), (w * 8).astype(np.int32)),
        "Phaser_f16": (A.Phaser(8000), w.astype(np.float16)),
        "Phaser_map": (pipeline(ds, A.Phaser(44100), np.random.RandomState(9).random_sample((5, 12))), None),
        "Vad_doc": (A.Vad(sample_rate=600), rand1000),
        "Vad_doc_map": (pipeline(ds, A.Vad(sample_rate=600), np.random.RandomState(10).random_sample((2, 1000))),
                        None),
        "Vad_talk": (A.Vad(4000), talk),
        "Vad_talk_f32": (A.Vad(4000), talk[0].astype(np.float32)),
        "Vad_talk_opts": (A.Vad(4000, trigger_level=5.0, trigger_time=0.1, search_time=0.5, allowed_gap=0.1,
                                pre_trigger_time=0.05, boot_time=0.2, measure_freq=25.0, measure_duration=0.05,
                                hp_filter_freq=40.0, lp_filter_freq=1800.0, hp_lifter_freq=100.0,
                                lp_lifter_freq=1500.0), talk),
        "Vad_int": (A.Vad(sample_rate=600), (rand1000 * 100).astype(np.int32)),
        "Vad_short": (A.Vad(4000), talk[:, :1000]),
        "Vad_silence": (A.Vad(4000), 0.0001 * np.random.RandomState(11).standard_normal(4000)),
    }
    return cases


def bad_arguments(A) -> dict:
    """name -> a callable that builds (and calls) a transform with a bad argument."""
    w = np.zeros((2, 16))
    return {
        "DPF_rate0": lambda: A.DetectPitchFrequency(0),
        "DPF_rate_float": lambda: A.DetectPitchFrequency(8000.0),
        "DPF_frame0": lambda: A.DetectPitchFrequency(8000, 0.0),
        "DPF_frame_int": lambda: A.DetectPitchFrequency(8000, 1),
        "DPF_win0": lambda: A.DetectPitchFrequency(8000, 0.01, 0),
        "DPF_low_float": lambda: A.DetectPitchFrequency(8000, 0.01, 3, 85.0),
        "DPF_high0": lambda: A.DetectPitchFrequency(8000, 0.01, 3, 85, 0),
        "DPF_too_short": lambda: A.DetectPitchFrequency(8000)(np.zeros(10)),
        "DPF_string": lambda: A.DetectPitchFrequency(8000)(np.array(["a", "b"])),
        "Flanger_rate0": lambda: A.Flanger(0),
        "Flanger_delay": lambda: A.Flanger(44100, 31.0),
        "Flanger_depth": lambda: A.Flanger(44100, 0.0, 11.0),
        "Flanger_quad": (A.Flanger(8000, 0.0, 10.0, 0.0, 100.0, 10.0, 30.0, A.Modulation.SINUSOIDAL,
                                   A.Interpolation.QUADRATIC), w),
        "Flanger_regen": lambda: A.Flanger(44100, 0.0, 2.0, 96.0),
        "Flanger_width": lambda: A.Flanger(44100, 0.0, 2.0, 0.0, -1.0),
        "Flanger_speed": lambda: A.Flanger(44100, 0.0, 2.0, 0.0, 71.0, 0.05),
        "Flanger_phase": lambda: A.Flanger(44100, 0.0, 2.0, 0.0, 71.0, 0.5, 101.0),
        "Flanger_int_delay": lambda: A.Flanger(44100, 1),
        "Flanger_mod": lambda: A.Flanger(44100, modulation="sinusoidal"),
        "Flanger_1d": lambda: A.Flanger(44100)(w[0]),
        "Flanger_5ch": lambda: A.Flanger(44100)(np.zeros((5, 8))),
        "Phaser_scalar": lambda: A.Phaser(44100)(np.float64(1.0)),
        "Vad_lifters": lambda: A.Vad(4000, hp_lifter_freq=1900.0)(np.zeros(4000)),
        "Vad_filters": lambda: A.Vad(4000, hp_filter_freq=1900.0, lp_filter_freq=1800.0)(np.zeros(4000)),
        "Phaser_gain_in": lambda: A.Phaser(44100, 1.5),
        "Phaser_gain_out": lambda: A.Phaser(44100, 0.4, -1.0),
        "Phaser_delay": lambda: A.Phaser(44100, delay_ms=6.0),
        "Phaser_decay": lambda: A.Phaser(44100, decay=0.995),
        "Phaser_speed": lambda: A.Phaser(44100, mod_speed=3.0),
        "Phaser_sin": lambda: A.Phaser(44100, sinusoidal=1),
        "Phaser_rate_float": lambda: A.Phaser(44100.0),
        "Vad_rate0": lambda: A.Vad(0),
        "Vad_trigger_time": lambda: A.Vad(16000, trigger_time=-1.0),
        "Vad_noise_times": lambda: A.Vad(16000, noise_up_time=0.01, noise_down_time=0.1),
        "Vad_measure_freq": lambda: A.Vad(16000, measure_freq=0.0),
        "Vad_int_level": lambda: A.Vad(16000, trigger_level=7),
        "Vad_lp0": lambda: A.Vad(16000, lp_lifter_freq=0.0),
        "Vad_duration": lambda: A.Vad(16000, measure_duration=-0.1),
    }
