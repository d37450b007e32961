"""The enumerations of ``mindspore.dataset.audio`` (values are MindSpore's strings)."""

from __future__ import annotations

import enum


class _StrEnum(str, enum.Enum):
    def __str__(self) -> str:
        return self.value


class BorderType(_StrEnum):
    """Padding modes: CONSTANT, EDGE, REFLECT, SYMMETRIC."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class DensityFunction(_StrEnum):
    """Dither noise distributions: triangular, rectangular, Gaussian."""

    TPDF = "TPDF"
    RPDF = "RPDF"
    GPDF = "GPDF"


class FadeShape(_StrEnum):
    """Fade curves."""

    LINEAR = "linear"
    EXPONENTIAL = "exponential"
    LOGARITHMIC = "logarithmic"
    QUARTER_SINE = "quarter_sine"
    HALF_SINE = "half_sine"


class GainType(_StrEnum):
    """How ``Vol``'s gain is given: an amplitude ratio, a power ratio, or decibels."""

    AMPLITUDE = "amplitude"
    POWER = "power"
    DB = "db"


class Interpolation(_StrEnum):
    """Delay-line interpolation of Flanger."""

    LINEAR = "linear"
    QUADRATIC = "quadratic"


class MelType(_StrEnum):
    """Mel scales: HTK or Slaney."""

    HTK = "htk"
    SLANEY = "slaney"


class Modulation(_StrEnum):
    """Flanger/Phaser modulation waveforms."""

    SINUSOIDAL = "sinusoidal"
    TRIANGULAR = "triangular"


class NormMode(_StrEnum):
    """DCT normalization: none or orthonormal."""

    NONE = "none"
    ORTHO = "ortho"


class NormType(_StrEnum):
    """Mel filter bank normalization: none or Slaney's area normalization."""

    NONE = "none"
    SLANEY = "slaney"


class ResampleMethod(_StrEnum):
    """Resample's low-pass windows: Hann (sinc interpolation) or Kaiser."""

    SINC_INTERPOLATION = "sinc_interpolation"
    KAISER_WINDOW = "kaiser_window"


class ScaleType(_StrEnum):
    """Whether a spectrogram holds magnitudes or powers."""

    MAGNITUDE = "mag"
    POWER = "power"


class WindowType(_StrEnum):
    """STFT windows."""

    BARTLETT = "bartlett"
    BLACKMAN = "blackman"
    HAMMING = "hamming"
    HANN = "hann"
    KAISER = "kaiser"


__all__ = ["BorderType", "DensityFunction", "FadeShape", "GainType", "Interpolation", "MelType", "Modulation",
           "NormMode", "NormType", "ResampleMethod", "ScaleType", "WindowType"]
