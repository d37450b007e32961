"""SpecAugment-style masking of spectrograms (..., freq, time): ``MaskAlongAxis``, ``MaskAlongAxisIID``,
``TimeMasking`` and ``FrequencyMasking``. Random widths and starts follow ``ds.config.set_seed`` (a stream
other than MindSpore's)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import check_int, rng, waveform


def _axis(who: str, axis: int) -> int:
    """MindSpore's axis numbering: 1 is frequency (second to last), 2 is time (last)."""
    if axis not in (1, 2):
        raise ValueError(f"{who}: axis must be 1 (frequency) or 2 (time), got {axis!r}")
    return -2 if axis == 1 else -1


def _masked(x: np.ndarray, axis: int, start: int, width: int, value: float) -> np.ndarray:
    out = x.copy()
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, start + width)
    out[tuple(index)] = value
    return out


class MaskAlongAxis:
    """``MaskAlongAxis(mask_start, mask_width, mask_value, axis)``: set ``mask_width`` rows (``axis`` 1) or
    columns (``axis`` 2) from ``mask_start`` to ``mask_value``."""

    def __init__(self, mask_start: int, mask_width: int, mask_value: float, axis: int) -> None:
        self.mask_start = check_int("MaskAlongAxis", "mask_start", mask_start)
        self.mask_width = check_int("MaskAlongAxis", "mask_width", mask_width, 1)
        self.mask_value, self.axis = float(mask_value), _axis("MaskAlongAxis", axis)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("MaskAlongAxis", data, 2)
        if self.mask_start + self.mask_width > x.shape[self.axis]:
            raise ValueError(f"MaskAlongAxis: mask_start + mask_width ({self.mask_start + self.mask_width}) "
                             f"exceeds the axis length {x.shape[self.axis]}")
        return _masked(x, self.axis, self.mask_start, self.mask_width, self.mask_value)


class MaskAlongAxisIID:
    """``MaskAlongAxisIID(mask_param, mask_value, axis=0)``: mask a random width in [0, mask_param] at a
    random start along ``axis`` (1 frequency, 2 time)."""

    def __init__(self, mask_param: int, mask_value: float, axis: int = 0) -> None:
        self.mask_param = check_int("MaskAlongAxisIID", "mask_param", mask_param)
        self.mask_value, self.axis = float(mask_value), _axis("MaskAlongAxisIID", axis)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform("MaskAlongAxisIID", data, 2)
        size = x.shape[self.axis]
        if self.mask_param > size:
            raise ValueError(f"MaskAlongAxisIID: mask_param {self.mask_param} exceeds the axis length {size}")
        gen = rng()
        width = int(gen.uniform(0, self.mask_param))
        start = int(gen.uniform(0, size - width))
        return _masked(x, self.axis, start, width, self.mask_value)


class _Masking:
    axis = -1
    who = ""

    def __init__(self, iid_masks: bool, mask_param: int, mask_start: int, mask_value: float) -> None:
        self.iid_masks = bool(iid_masks)
        self.mask_param = check_int(self.who, "mask_param", mask_param)
        self.mask_start = check_int(self.who, "mask_start", mask_start)
        self.mask_value = float(mask_value)

    def __call__(self, data: Any) -> np.ndarray:
        x = waveform(self.who, data, 2)
        size = x.shape[self.axis]
        if self.mask_param > size:
            raise ValueError(f"{self.who}: the mask parameter {self.mask_param} exceeds the axis length {size}")
        gen = rng()
        width = int(gen.integers(0, self.mask_param + 1))
        if self.iid_masks:
            start = int(gen.integers(0, size - width + 1))
        else:
            if self.mask_start + width > size:
                raise ValueError(f"{self.who}: mask_start {self.mask_start} + the drawn width {width} exceeds "
                                 f"the axis length {size}")
            start = self.mask_start
        return _masked(x, self.axis, start, width, self.mask_value)


class TimeMasking(_Masking):
    """``TimeMasking(iid_masks=False, time_mask_param=0, mask_start=0, mask_value=0.0)``: mask a random number
    (at most ``time_mask_param``) of consecutive time steps, at ``mask_start`` or, with ``iid_masks``, at a
    random start."""

    axis, who = -1, "TimeMasking"

    def __init__(self, iid_masks: bool = False, time_mask_param: int = 0, mask_start: int = 0,
                 mask_value: float = 0.0) -> None:
        super().__init__(iid_masks, time_mask_param, mask_start, mask_value)


class FrequencyMasking(_Masking):
    """``FrequencyMasking(iid_masks=False, freq_mask_param=0, mask_start=0, mask_value=0.0)``: as
    ``TimeMasking`` over frequency bins."""

    axis, who = -2, "FrequencyMasking"

    def __init__(self, iid_masks: bool = False, freq_mask_param: int = 0, mask_start: int = 0,
                 mask_value: float = 0.0) -> None:
        super().__init__(iid_masks, freq_mask_param, mask_start, mask_value)


__all__ = ["MaskAlongAxis", "MaskAlongAxisIID", "TimeMasking", "FrequencyMasking"]
