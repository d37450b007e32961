"""Datasets built from other datasets or from samples: ``FlatMapDataset`` (``Dataset.flat_map``) and
``PaddedDataset`` (a source of given sample dicts)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .core import Dataset, Row
from .sources import GeneratorDataset


class FlatMapDataset(Dataset):
    """The rows of the datasets ``func`` makes from each row of ``child``, in order."""

    def __init__(self, child: Dataset, func: Callable[..., Any]) -> None:
        super().__init__(child)
        self._func = func

    def _inner(self, row: Row) -> Dataset:
        out = self._func(*[np.asarray(v) for v in row])
        if not isinstance(out, Dataset):
            raise TypeError(f"flat_map: func must return a dataset, got {type(out).__name__}")
        return out

    def _column_names(self) -> list[str]:
        first = next(iter(self._child._rows(0, 0)), None)
        return self._child._column_names() if first is None else self._inner(first)._column_names()

    def _size(self) -> int | None:
        return None

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        for row in self._child._rows(epoch, seed):
            yield from self._inner(row)._rows(epoch, seed)


class PaddedDataset(GeneratorDataset):
    """``PaddedDataset(padded_samples)``: a source of the given samples (dicts with the same keys, the
    columns), read in order."""

    def __init__(self, padded_samples: Sequence[dict]) -> None:
        if not isinstance(padded_samples, (list, tuple)) or not padded_samples or \
                not all(isinstance(d, dict) for d in padded_samples):
            raise TypeError("PaddedDataset: padded_samples must be a non-empty list of dicts")
        keys = list(padded_samples[0])
        if any(list(d) != keys for d in padded_samples):
            raise ValueError(f"PaddedDataset: every sample must have the keys {keys}")
        super().__init__([tuple(np.asarray(d[k]) for k in keys) for d in padded_samples], keys, shuffle=False)
