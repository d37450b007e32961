"""``mindspore.run_check``: check that the installation computes, and say so."""

from __future__ import annotations

import numpy as np

from ._version import MINDSPORE_API_VERSION, __version__
from .core.tensor import Tensor


def run_check() -> None:
    """Multiply two small tensors through a built kernel and compare with NumPy, then print the MindSpore
    API version opbuild follows and whether the result was right (``mindspore.run_check``)."""
    print(f"MindSpore version:  {MINDSPORE_API_VERSION}")
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    b = np.array([[2.0, 0.5], [1.0, 3.0]], np.float32)
    try:
        got = (Tensor(a) * Tensor(b)).asnumpy()
    except Exception as exc:  # reported, not raised: run_check is a diagnostic
        print(f"The result of multiplication calculation failed on opbuild {__version__}: "
              f"{type(exc).__name__}: {exc}")
        return
    if np.allclose(got, a * b):
        print("The result of multiplication calculation is correct, MindSpore has been installed on platform "
              "[CPU] successfully!")
    else:
        print(f"The result of multiplication calculation is not correct on opbuild {__version__}: "
              f"got {got.tolist()}, expected {(a * b).tolist()}")
