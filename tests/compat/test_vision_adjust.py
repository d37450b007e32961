"""dataset.vision's colour transforms (AdjustBrightness, AdjustContrast, AdjustGamma, AdjustSaturation,
AdjustSharpness) against real MindSpore 2.10 (tests/fixtures/optim_image.npz, recorded by
scripts/record_optim_image.py from tests/compat/vision_adjust_cases.py): uint8 images bit for bit, float32
within rounding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opbuild.dataset import vision

from .vision_adjust_cases import CASES, run

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "optim_image.npz")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mindspore(name: str) -> None:
    got, want = run(None, vision, name)[0], FIXTURE[f"{name}:out0"]
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype == np.uint8:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=3e-7)


def test_bad_inputs_are_refused_clearly() -> None:
    with pytest.raises(TypeError, match=r"must be \(H, W, 3\) RGB"):
        vision.AdjustContrast(0.5)(np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match="brightness_factor must be a number >= 0"):
        vision.AdjustBrightness(-1)
