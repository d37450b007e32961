"""``mindspore.dataset.audio``: audio transforms on NumPy arrays (in ``Dataset.map`` or eagerly), with
MindSpore's names, signatures, defaults and output dtypes (float64 input stays float64, other inputs give
float32; ``MuLawEncoding`` gives int32, ``MFCC``/``LFCC`` float32). Complex spectrograms are (..., 2) arrays of
(real, imaginary). Random transforms (masks, ``Dither``, ``GriffinLim``'s initial phase, ``InverseMelScale``'s
start) follow ``ds.config.set_seed`` with a stream other than MindSpore's.

``DetectPitchFrequency``, ``Flanger``, ``Phaser`` and ``Vad`` (the SoX/Kaldi-style effects) take float input
only, as MindSpore's do."""

from __future__ import annotations

from .effects import DetectPitchFrequency, Flanger, Phaser
from .elementwise import (
    AmplitudeToDB,
    Angle,
    ComplexNorm,
    ComputeDeltas,
    Contrast,
    DBToAmplitude,
    DCShift,
    Dither,
    Fade,
    Gain,
    Magphase,
    MuLawDecoding,
    MuLawEncoding,
    Overdrive,
    SlidingWindowCmn,
    Vol,
)
from .enums import (
    BorderType,
    DensityFunction,
    FadeShape,
    GainType,
    Interpolation,
    MelType,
    Modulation,
    NormMode,
    NormType,
    ResampleMethod,
    ScaleType,
    WindowType,
)
from .filters import (
    AllpassBiquad,
    BandBiquad,
    BandpassBiquad,
    BandrejectBiquad,
    BassBiquad,
    Biquad,
    DeemphBiquad,
    EqualizerBiquad,
    Filtfilt,
    HighpassBiquad,
    LFilter,
    LowpassBiquad,
    RiaaBiquad,
    TrebleBiquad,
)
from .masks import FrequencyMasking, MaskAlongAxis, MaskAlongAxisIID, TimeMasking
from .mel import LFCC, MFCC, InverseMelScale, MelScale, MelSpectrogram, create_dct, linear_fbanks, melscale_fbanks
from .resample import PitchShift, Resample
from .spectral import GriffinLim, InverseSpectrogram, PhaseVocoder, SpectralCentroid, Spectrogram, TimeStretch
from .vad import Vad

__all__ = [
    "BorderType", "DensityFunction", "FadeShape", "GainType", "Interpolation", "MelType", "Modulation", "NormMode",
    "NormType", "ResampleMethod", "ScaleType", "WindowType",
    "AllpassBiquad", "BandBiquad", "BandpassBiquad", "BandrejectBiquad", "BassBiquad", "Biquad", "DeemphBiquad",
    "EqualizerBiquad", "Filtfilt", "HighpassBiquad", "LFilter", "LowpassBiquad", "RiaaBiquad", "TrebleBiquad",
    "AmplitudeToDB", "Angle", "ComplexNorm", "ComputeDeltas", "Contrast", "DBToAmplitude", "DCShift", "Dither",
    "Fade", "Gain", "Magphase", "MuLawDecoding", "MuLawEncoding", "Overdrive", "SlidingWindowCmn", "Vol",
    "FrequencyMasking", "MaskAlongAxis", "MaskAlongAxisIID", "TimeMasking",
    "LFCC", "MFCC", "InverseMelScale", "MelScale", "MelSpectrogram", "create_dct", "linear_fbanks",
    "melscale_fbanks", "PitchShift", "Resample",
    "GriffinLim", "InverseSpectrogram", "PhaseVocoder", "SpectralCentroid", "Spectrogram", "TimeStretch",
    "DetectPitchFrequency", "Flanger", "Phaser", "Vad",
]
