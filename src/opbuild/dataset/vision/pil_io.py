"""PIL images in, PIL images out: the operations that MindSpore runs with Pillow when given a PIL image
(``Resize``, ``CenterCrop``, ``Pad``, ``RandomHorizontalFlip``, ``RandomVerticalFlip``, recorded from
MindSpore 2.10 in tests/fixtures/mindspore/tutorial_cases.json) return a PIL image then, as the dataset
tutorials' eager examples show; the others return arrays."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np


def is_pil(img: Any) -> bool:
    """Whether ``img`` is a PIL image (checked without importing Pillow)."""
    return type(img).__module__.startswith("PIL.")


def keeps_pil(call: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Wrap an operation's ``__call__`` so that a PIL image given gives a PIL image back (same mode)."""
    @functools.wraps(call)
    def wrapper(self: Any, img: Any) -> Any:
        out = call(self, img)
        if is_pil(img) and isinstance(out, np.ndarray):
            from PIL import Image  # present: the input is a PIL image

            return Image.fromarray(out[..., 0] if out.ndim == 3 and out.shape[-1] == 1 else out, img.mode)
        return out

    return wrapper
