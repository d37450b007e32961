"""Cases of MindSpore's dataset colour transforms (``dataset.vision.AdjustBrightness``, ``AdjustContrast``,
``AdjustGamma``, ``AdjustSaturation``, ``AdjustSharpness``) on uint8 and float32 HWC images, written once against
a ``dataset.vision``-shaped namespace: scripts/record_optim_image.py runs them on MindSpore 2.10
(tests/fixtures/optim_image.npz) and tests/compat/test_vision_adjust.py on opbuild. Imports neither."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

RNG = np.random.default_rng(2514)
U8 = RNG.integers(0, 256, (9, 11, 3)).astype(np.uint8)
F32 = RNG.uniform(0, 1, (9, 11, 3)).astype(np.float32)

CASES: dict[str, tuple[Callable, np.ndarray]] = {}
for _tag, _img in (("u8", U8), ("f32", F32)):
    CASES.update({
        f"AdjustBrightness_{_tag}": (lambda v: v.AdjustBrightness(1.3), _img),
        f"AdjustBrightness_dark_{_tag}": (lambda v: v.AdjustBrightness(0.45), _img),
        f"AdjustContrast_{_tag}": (lambda v: v.AdjustContrast(0.7), _img),
        f"AdjustContrast_up_{_tag}": (lambda v: v.AdjustContrast(1.8), _img),
        f"AdjustGamma_{_tag}": (lambda v: v.AdjustGamma(1.5, 1.2), _img),
        f"AdjustGamma_low_{_tag}": (lambda v: v.AdjustGamma(0.4), _img),
        f"AdjustSaturation_{_tag}": (lambda v: v.AdjustSaturation(0.5), _img),
        f"AdjustSaturation_up_{_tag}": (lambda v: v.AdjustSaturation(2.2), _img),
        f"AdjustSharpness_{_tag}": (lambda v: v.AdjustSharpness(2.0), _img),
        f"AdjustSharpness_blur_{_tag}": (lambda v: v.AdjustSharpness(0.3), _img),
    })


def run(ms: Any, vision: Any, name: str) -> list[np.ndarray]:
    """Case ``name``: the transform applied to a copy of its image."""
    make, img = CASES[name]
    return [np.asarray(make(vision)(img.copy()))]


__all__ = ["CASES", "run"]
