"""More of MindSpore's initializers: ``Identity``, ``Dirac``, ``Orthogonal``, ``VarianceScaling`` and ``Sparse``,
registered under their names (``'identity'``, ``'dirac'``, ``'orthogonal'``, ``'varianceScaling'``,
``'sparse'``) next to those of core/initializer.py. Random ones draw as MindSpore 2.10's do (one seed from
the seed source, MindSpore's fills; Sparse also NumPy permutations), so they give its values after set_seed."""

from __future__ import annotations

import math

import numpy as np

from .init_values import _NAMES, Initializer, _fans, draw_seed
from .philox_fill import normal_fill, truncated_normal_fill, uniform_fill


class Identity(Initializer):
    """The identity matrix of a 2-D shape (ones on the main diagonal)."""

    random = False

    def sample(self, shape, rng):
        if len(shape) != 2:
            raise ValueError(f"Identity: the shape must be 2-D, got {list(shape)}")
        return np.eye(shape[0], shape[1])


class Dirac(Initializer):
    """Convolution weights (3-D to 5-D) that pass ``groups`` groups of input channels through unchanged: a one
    at the kernel centre of each output channel's matching input channel."""

    random = False

    def __init__(self, groups: int = 1) -> None:
        super().__init__(groups=groups)
        if not isinstance(groups, int) or groups < 1:
            raise ValueError(f"Dirac: groups must be an int >= 1, got {groups!r}")
        self.groups = groups

    def sample(self, shape, rng):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: the shape must be 3-D, 4-D or 5-D, got {list(shape)}")
        if shape[0] % self.groups:
            raise ValueError(f"Dirac: the first dimension {shape[0]} is not divisible by groups {self.groups}")
        out = np.zeros(shape)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for d in range(min(per_group, shape[1])):
                out[(g * per_group + d, d, *centre)] = 1
        return out


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``, of the shape flattened to (shape[0], rest)."""

    def __init__(self, gain: float = 1.0) -> None:
        super().__init__(gain=gain)
        self.gain = float(gain)

    def sample(self, shape, rng):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the shape must have at least 2 dimensions, got {list(shape)}")
        rows, cols = shape[0], int(np.prod(shape[1:]))
        # float32 draws and a float32 QR, as MindSpore's (the signs of R's diagonal fix Q's column signs).
        flat = normal_fill(draw_seed(rng), (rows, cols), 0.0, 1.0)
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return self.gain * q.reshape(shape)


class VarianceScaling(Initializer):
    """Values of variance ``scale / n`` (n: fan_in, fan_out or their mean, per ``mode``) from a truncated
    normal, a normal or a uniform ``distribution``."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal") -> None:
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0:
            raise ValueError(f"VarianceScaling: scale must be positive, got {scale!r}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"VarianceScaling: mode must be 'fan_in', 'fan_out' or 'fan_avg', got {mode!r}")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("VarianceScaling: distribution must be 'uniform', 'truncated_normal' or "
                             f"'untruncated_normal', got {distribution!r}")
        self.scale, self.mode, self.distribution = float(scale), mode, distribution

    def sample(self, shape, rng):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * scale)
            return uniform_fill(draw_seed(rng), shape, -limit, limit)
        if self.distribution == "untruncated_normal":
            return normal_fill(draw_seed(rng), shape, 0.0, math.sqrt(scale))
        # The standard deviation of N(0, 1) truncated to [-2, 2] is 0.8796...: divide it out. MindSpore 2.10
        # draws uniform values here instead (it tests for 'truncated_norm'); opbuild keeps the documented
        # distribution, with MindSpore's truncated-normal fill, cut at two standard deviations.
        std = math.sqrt(scale) / 0.87962566103423978
        return truncated_normal_fill(draw_seed(rng), shape, -2 * std, 2 * std, 0.0, std)


class Sparse(Initializer):
    """A 2-D matrix whose columns each have ``ceil(sparsity * rows)`` zeros at random rows, N(0, sigma^2)
    elsewhere."""

    def __init__(self, sparsity: float, sigma: float = 0.01) -> None:
        super().__init__(sparsity=sparsity, sigma=sigma)
        if not 0 <= sparsity <= 1:
            raise ValueError(f"Sparse: sparsity must be in [0, 1], got {sparsity!r}")
        self.sparsity, self.sigma = float(sparsity), float(sigma)

    def sample(self, shape, rng):
        if len(shape) != 2:
            raise ValueError(f"Sparse: the shape must be 2-D, got {list(shape)}")
        rows, cols = shape
        out = normal_fill(draw_seed(rng), shape, 0.0, self.sigma)
        zeros = int(math.ceil(self.sparsity * rows))
        for c in range(cols):
            out[rng.permutation(rows)[:zeros], c] = 0.0
        return out


_NAMES.update({"identity": Identity, "eye": Identity, "dirac": Dirac, "orthogonal": Orthogonal,
               "variancescaling": VarianceScaling, "sparse": Sparse})

__all__ = ["Identity", "Dirac", "Orthogonal", "VarianceScaling", "Sparse"]
