"""Readers of small image sets in their distributed formats: ``SemeionDataset`` (text rows of 256 pixels and
a one-hot class), ``USPSDataset`` (LIBSVM-format lines) and ``STL10Dataset`` (column-major binary), with
MindSpore's columns, dtypes and order."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .readers import _ArraySource, _check_dir
from .text_files import Shuffle, _FileRowsSource


def _no_cache(who: str, cache: Any) -> None:
    if cache is not None:
        raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")


class SemeionDataset(_ArraySource):
    """``SemeionDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
    num_shards=None, shard_id=None, cache=None)``: ``semeion.data``, one handwritten digit per line (256
    pixel values 0/1, then 10 one-hot class values): ``image`` uint8 (16, 16), ``label`` uint32."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        who = "SemeionDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _no_cache(who, cache)
        path = os.path.join(_check_dir(who, dataset_dir), "semeion.data")
        if not os.path.isfile(path):
            raise ValueError(f"{who}: {path} not found")
        images, labels = [], []
        with open(path, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                vals = line.split()
                if not vals:
                    continue
                if len(vals) != 266:
                    raise ValueError(f"{who}: line {k} of {path} has {len(vals)} values, expected 256 pixels and 10 "
                                     "class values")
                nums = np.asarray(vals, np.float64)
                images.append(nums[:256].astype(np.uint8).reshape(16, 16))
                labels.append(int(np.argmax(nums[256:])))
        self._names = ["image", "label"]
        self._columns = [np.asarray(images, np.uint8).reshape(-1, 16, 16), np.asarray(labels, np.uint32)]


class USPSDataset(_FileRowsSource):
    """``USPSDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None)``: ``usps`` (train) and ``usps.t``
    (test), LIBSVM lines ``<class 1-10> 1:<v> ... 256:<v>`` with v in [-1, 1]: ``image`` uint8 (16, 16, 1)
    (``(v + 1) / 2 * 255`` truncated), ``label`` uint32 (class - 1)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "USPSDataset"
        super().__init__(who, shuffle, num_shards, shard_id, num_samples, cache, num_parallel_workers)
        root = _check_dir(who, dataset_dir)
        usage = "all" if usage is None else usage
        files = {"train": ["usps"], "test": ["usps.t"], "all": ["usps", "usps.t"]}.get(usage)
        if files is None:
            raise ValueError(f"{who}: usage must be 'train', 'test' or 'all', got {usage!r}")
        self._names = ["image", "label"]
        for name in files:
            path = os.path.join(root, name)
            if not os.path.isfile(path):
                raise ValueError(f"{who}: {path} not found (needed for usage {usage!r})")
            rows = []
            with open(path, encoding="utf-8") as f:
                for k, line in enumerate(f, 1):
                    parts = line.split()
                    if not parts:
                        continue
                    if len(parts) != 257 or not all(":" in p for p in parts[1:]):
                        raise ValueError(f"{who}: line {k} of {path} is not '<class> 1:<v> ... 256:<v>'")
                    vals = np.asarray([p.split(":", 1)[1] for p in parts[1:]], np.float64)
                    image = ((vals + 1.0) / 2.0 * 255.0).astype(np.uint8).reshape(16, 16, 1)
                    rows.append((image, np.asarray(int(float(parts[0])) - 1, np.uint32)))
            self._data += rows
            self._file_rows.append(len(rows))


_STL_SPLITS = {"train": ["train"], "test": ["test"], "unlabeled": ["unlabeled"],
               "train+unlabeled": ["train", "unlabeled"], "all": ["test", "train", "unlabeled"]}
_STL_IMAGE = 3 * 96 * 96


class STL10Dataset(_ArraySource):
    """``STL10Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: the binary version (``<split>_X.bin`` of
    column-major 3x96x96 images, ``<split>_y.bin`` of classes 1-10): ``image`` uint8 (96, 96, 3), ``label``
    int32 (class - 1; -1 for 'unlabeled'). ``usage`` 'train', 'test', 'unlabeled', 'train+unlabeled' or
    'all' (None: 'all', in the order test, train, unlabeled)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "STL10Dataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _no_cache(who, cache)
        root = _check_dir(who, dataset_dir)
        usage = "all" if usage is None else usage
        if usage not in _STL_SPLITS:
            raise ValueError(f"{who}: usage must be one of {list(_STL_SPLITS)}, got {usage!r}")
        images, labels = [], []
        for split in _STL_SPLITS[usage]:
            xpath = os.path.join(root, f"{split}_X.bin")
            if not os.path.isfile(xpath):
                raise ValueError(f"{who}: {xpath} not found (needed for usage {usage!r})")
            raw = np.fromfile(xpath, np.uint8)
            if raw.size % _STL_IMAGE:
                raise ValueError(f"{who}: {xpath} has {raw.size} bytes, not a whole number of 96x96x3 images")
            x = raw.reshape(-1, 3, 96, 96).transpose(0, 3, 2, 1)  # stored column-major: (C, W, H) -> (H, W, C)
            if split == "unlabeled":
                y = np.full(len(x), -1, np.int32)
            else:
                ypath = os.path.join(root, f"{split}_y.bin")
                if not os.path.isfile(ypath):
                    raise ValueError(f"{who}: {ypath} not found (needed for usage {usage!r})")
                y = np.fromfile(ypath, np.uint8).astype(np.int32) - 1
                if len(y) != len(x):
                    raise ValueError(f"{who}: {xpath} has {len(x)} images but {ypath} {len(y)} labels")
            images.append(x)
            labels.append(y)
        self._names = ["image", "label"]
        self._columns = [np.concatenate(images), np.concatenate(labels)]


__all__ = ["SemeionDataset", "USPSDataset", "STL10Dataset"]
