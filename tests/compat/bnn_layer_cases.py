"""Cases for ``nn.probability.bnn_layers`` shared by scripts/record_bnn_layers.py (MindSpore 2.10's values) and
test_bnn_layers.py: layers with their posterior parameters set to fixed values, so the KL terms are exact and
the outputs deterministic where the posterior sd is negligible (untransformed_std = -40)."""

from __future__ import annotations

import numpy as np

F = np.float32
TINY = -40.0


def posterior_values(shape: tuple, offset: float) -> np.ndarray:
    """Fixed posterior means of ``shape``."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n, dtype=np.float64) + offset) * 0.5).astype(F).reshape(shape)


# name -> (class, constructor arguments, input)
LAYERS = {
    "dense": ("DenseReparam", (3, 2), {}, F([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])),
    "dense_local": ("DenseLocalReparam", (3, 2), {"activation": "relu"}, F([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])),
    "conv": ("ConvReparam", (2, 3, 3), {"has_bias": True},
             (np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5) / 25.0 - 1.0)),
}
