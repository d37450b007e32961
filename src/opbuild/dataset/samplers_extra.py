"""Samplers that weigh or group rows: ``WeightedRandomSampler`` (rows drawn with given probabilities) and
``PKSampler`` (``num_val`` rows of every class, for metric learning), with MindSpore's arguments and sizes.
Their random draws come from opbuild's seeded streams, not MindSpore's numbers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .samplers import Sampler


class WeightedRandomSampler(Sampler):
    """``WeightedRandomSampler(weights, num_samples=None, replacement=True)``: ``num_samples`` (default: as many
    as there are weights) rows, row ``i`` drawn with probability ``weights[i] / sum(weights)``; without
    ``replacement`` every row at most once."""

    def __init__(self, weights: Sequence[float], num_samples: int | None = None, replacement: bool = True) -> None:
        super().__init__(num_samples)
        w = np.asarray(list(weights), np.float64)
        if w.ndim != 1 or w.size == 0:
            raise ValueError(f"WeightedRandomSampler: weights must be a non-empty list of numbers, got {weights!r}")
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() == 0:
            raise ValueError("WeightedRandomSampler: weights must be finite, >= 0 and not all zero, got "
                             f"{w.tolist()}")
        if not isinstance(replacement, bool):
            raise TypeError(f"WeightedRandomSampler: replacement must be a bool, got {replacement!r}")
        self.weights = w
        self.replacement = replacement

    def _all(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        w = self.weights[:num_rows]
        count = self.num_samples or len(self.weights)
        if not self.replacement and count > int((w > 0).sum()):
            raise ValueError(f"WeightedRandomSampler: {count} samples without replacement need as many rows of "
                             f"non-zero weight, there are {int((w > 0).sum())}; lower num_samples or set "
                             "replacement=True")
        return rng.choice(len(w), count, replace=self.replacement, p=w / w.sum())


class PKSampler(Sampler):
    """``PKSampler(num_val, num_class=None, shuffle=False, class_column='label', num_samples=None)``: ``num_val``
    rows of every class (the values of the ``class_column`` column), the classes in ascending order (random
    order with ``shuffle``), each drawn uniformly among the class's rows with replacement (MindSpore 2.10
    repeats rows even of classes with ``num_val`` rows or more). Works on random-access
    sources (file readers, ``NumpySlicesDataset``); ``num_class`` is not supported, as in MindSpore."""

    def __init__(self, num_val: int, num_class: int | None = None, shuffle: bool = False,
                 class_column: str = "label", num_samples: int | None = None) -> None:
        super().__init__(num_samples)
        if isinstance(num_val, bool) or not isinstance(num_val, (int, np.integer)):
            raise TypeError(f"PKSampler: num_val must be an int, got {num_val!r}")
        if num_val <= 0:
            raise RuntimeError(f"PKSampler: num_val must be positive, got {num_val}")
        self.num_val = int(num_val)
        if num_class is not None:
            raise NotImplementedError("PKSampler: num_class is not supported (as in MindSpore); leave it None")
        if not isinstance(shuffle, bool):
            raise TypeError(f"PKSampler: shuffle must be a bool, got {shuffle!r}")
        if not isinstance(class_column, str) or not class_column:
            raise TypeError(f"PKSampler: class_column must be a column name, got {class_column!r}")
        self.shuffle = shuffle
        self.class_column = class_column
        self._source: Any = None

    def _bind_source(self, source: Any) -> None:
        """The source whose ``class_column`` gives each row's class (set by the source taking this sampler)."""
        self._source = source

    def _labels(self, num_rows: int) -> np.ndarray:
        if self._source is None:
            raise RuntimeError("PKSampler needs the rows' classes: give it as sampler= to a file reader or "
                               "another random-access source")
        names = self._source._column_names()
        if self.class_column not in names:
            raise RuntimeError(f"PKSampler: class_column {self.class_column!r} is not a column of the dataset "
                               f"{names}")
        col = names.index(self.class_column)
        labels = []
        for i in range(num_rows):
            value = np.asarray(self._source._row(i)[col])
            if value.size != 1 or value.dtype.kind not in "iu":
                raise RuntimeError(f"PKSampler: column {self.class_column!r} must hold one integer class per row, "
                                   f"row {i} has {value.dtype} {value.shape}")
            labels.append(int(value.reshape(())))
        return np.asarray(labels, np.int64)

    def _all(self, num_rows: int, rng: np.random.Generator) -> np.ndarray:
        labels = self._labels(num_rows)
        classes = np.unique(labels)
        if self.shuffle:
            classes = rng.permutation(classes)
        out = []
        for c in classes:
            rows = np.flatnonzero(labels == c)
            out.append(rows[rng.integers(0, len(rows), self.num_val)])
        return np.concatenate(out) if out else np.zeros(0, np.int64)


__all__ = ["WeightedRandomSampler", "PKSampler"]
