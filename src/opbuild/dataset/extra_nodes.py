"""Datasets built by the methods of dataset/extras.py (``flat_map``, ``sync_wait``) and the sources
``PaddedDataset`` and ``FakeImageDataset``, plus the module-level ``zip``."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .core import Dataset
from .samplers import Sampler
from .sources import _RandomAccessSource

Row = tuple


class FlatMapDataset(Dataset):
    """The rows of the dataset ``func(*row)`` returns for each row of the child, one after another."""

    def __init__(self, child: Dataset, func: Callable[..., Any]) -> None:
        super().__init__(child)
        if not callable(func):
            raise TypeError(f"flat_map: func must be callable, got {type(func).__name__}")
        self.func = func
        self._names: list[str] | None = None

    def _expand(self, row: Row) -> Dataset:
        out = self.func(*row)
        if not isinstance(out, Dataset):
            raise TypeError(f"flat_map: func must return a dataset, got {type(out).__name__}")
        return out

    def _column_names(self) -> list[str]:
        if self._names is None:
            first = next(iter(self._child._rows(0, 0)), None)
            if first is None:
                raise RuntimeError("flat_map: the dataset is empty, so the result's columns are unknown")
            self._names = self._expand(first)._column_names()
        return list(self._names)

    def _size(self) -> int | None:
        return None

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        for row in self._child._rows(epoch, seed):
            yield from self._expand(row)._rows(epoch, seed)


class SyncWaitDataset(Dataset):
    """A named barrier (``sync_wait``): passes rows through; ``sync_update`` calls its callback."""

    def __init__(self, child: Dataset, condition_name: str, num_batch: int,
                 callback: Callable[[Any], Any] | None) -> None:
        super().__init__(child)
        self.condition_name, self.num_batch, self.callback = str(condition_name), num_batch, callback

    def _column_names(self) -> list[str]:
        return self._child._column_names()

    def _size(self) -> int | None:
        return self._child._size()

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        yield from self._child._rows(epoch, seed)


class PaddedDataset(_RandomAccessSource):
    """``PaddedDataset(padded_samples)``: rows from a list of dicts (column -> value), in order; mainly to
    pad a dataset to a multiple of the shard count with ``concat``."""

    def __init__(self, padded_samples: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(False, None, None, None)
        if not isinstance(padded_samples, (list, tuple)) or not padded_samples or \
                not all(isinstance(r, Mapping) for r in padded_samples):
            raise TypeError("PaddedDataset: padded_samples must be a non-empty list of dicts")
        self._names = list(padded_samples[0])
        if any(list(r) != self._names for r in padded_samples):
            raise ValueError(f"PaddedDataset: every sample must have the columns {self._names}, in that order")
        self._samples = [tuple(np.asarray(r[k]) for k in self._names) for r in padded_samples]

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._samples)

    def _row(self, index: int) -> Row:
        return self._samples[index]


class FakeImageDataset(_RandomAccessSource):
    """``FakeImageDataset(num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0,
    num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
    shard_id=None)``: random uint8 ``image`` and uint32 ``label`` columns, each row reproducible from
    ``base_seed`` and its index (values differ from MindSpore's generator)."""

    def __init__(self, num_images: int = 1000, image_size: Sequence[int] = (224, 224, 3), num_classes: int = 10,
                 base_seed: int = 0, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if num_images <= 0 or num_classes <= 0 or len(image_size) != 3 or min(image_size) <= 0:
            raise ValueError(f"FakeImageDataset: num_images and num_classes must be positive and image_size three "
                             f"positive ints, got {num_images}, {num_classes}, {image_size}")
        self.num_images, self.image_size = int(num_images), tuple(int(s) for s in image_size)
        self.num_classes, self.base_seed = int(num_classes), int(base_seed)

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return self.num_images

    def _row(self, index: int) -> Row:
        gen = np.random.default_rng((self.base_seed, index))
        img = gen.integers(0, 256, self.image_size, dtype=np.uint8)
        return img, np.array(gen.integers(0, self.num_classes), np.uint32)


def _pad_stack(values: list[np.ndarray], shape: Sequence[int | None] | None, value: Any) -> np.ndarray:
    """Rows padded at the end of each axis to ``shape`` (None: the batch's largest) and stacked."""
    ndim = values[0].ndim
    target = [max(v.shape[i] for v in values) for i in range(ndim)]
    if shape is not None:
        target = [t if s is None else int(s) for t, s in builtins.zip(target, shape, strict=True)]
    out = np.full((len(values), *target), 0 if value is None else value, dtype=values[0].dtype)
    for i, v in enumerate(values):
        region = tuple(slice(0, min(a, b)) for a, b in builtins.zip(v.shape, target, strict=True))
        out[(i, *region)] = v[region]
    return out


class BucketBatchDataset(Dataset):
    """Rows grouped into buckets by length, each bucket batched at its own size, padded per ``pad_info``
    (see :meth:`PipelineExtras.bucket_batch_by_length`)."""

    def __init__(self, child: Dataset, column_names: Sequence[str], bucket_boundaries: Sequence[int],
                 bucket_batch_sizes: Sequence[int], element_length_function: Callable[..., int] | None,
                 pad_info: Mapping[str, tuple[Any, Any]] | None, pad_to_bucket_boundary: bool,
                 drop_remainder: bool) -> None:
        super().__init__(child)
        bounds = list(bucket_boundaries)
        if not bounds or any(b <= 0 for b in bounds) or bounds != sorted(set(bounds)):
            raise ValueError(f"bucket_batch_by_length: bucket_boundaries must be increasing positive ints, got "
                             f"{bucket_boundaries!r}")
        if len(bucket_batch_sizes) != len(bounds) + 1 or any(b <= 0 for b in bucket_batch_sizes):
            raise ValueError(f"bucket_batch_by_length: bucket_batch_sizes needs {len(bounds) + 1} positive sizes "
                             f"(one per bucket), got {bucket_batch_sizes!r}")
        names = child._column_names()
        self._in_idx = [names.index(c) for c in column_names]
        self.bounds, self.sizes = bounds, list(bucket_batch_sizes)
        self.length_fn, self.pad_info = element_length_function, dict(pad_info or {})
        self.pad_to_boundary, self.drop_remainder = bool(pad_to_bucket_boundary), bool(drop_remainder)

    def _column_names(self) -> list[str]:
        return self._child._column_names()

    def _size(self) -> int | None:
        return None

    def _batch(self, rows: list[Row], bucket: int) -> Row:
        names = self._column_names()
        out = []
        for c, name in enumerate(names):
            values = [np.asarray(r[c]) for r in rows]
            if name in self.pad_info:
                shape, value = self.pad_info[name]
                if self.pad_to_boundary and bucket < len(self.bounds) and values[0].ndim:
                    shape = [self.bounds[bucket] - 1] + list(shape or [None] * values[0].ndim)[1:]
                out.append(_pad_stack(values, shape, value))
            else:
                out.append(np.stack(values))
        return tuple(out)

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        pending: list[list[Row]] = [[] for _ in self.sizes]
        for row in self._child._rows(epoch, seed):
            args = [row[i] for i in self._in_idx]
            length = int(self.length_fn(*args)) if self.length_fn else len(np.asarray(args[0]))
            bucket = sum(1 for b in self.bounds if length >= b)
            pending[bucket].append(row)
            if len(pending[bucket]) == self.sizes[bucket]:
                yield self._batch(pending[bucket], bucket)
                pending[bucket] = []
        if not self.drop_remainder:
            for bucket, rows in enumerate(pending):
                if rows:
                    yield self._batch(rows, bucket)


def zip(datasets: Sequence[Dataset]) -> Dataset:  # noqa: A001  (MindSpore's name; the module uses builtins.zip)
    """``ds.zip((ds1, ds2, ...))``: the datasets' columns side by side (as many rows as the shortest)."""
    if not isinstance(datasets, (list, tuple)) or len(datasets) < 2:
        raise TypeError("zip: pass a tuple of at least two datasets")
    return datasets[0].zip(list(datasets[1:]))


__all__ = ["Sampler", "BucketBatchDataset", "FlatMapDataset", "SyncWaitDataset", "PaddedDataset",
           "FakeImageDataset", "zip"]
