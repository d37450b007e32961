"""Readers of image classification sets laid out as class folders: ``RenderedSST2Dataset``,
``SUN397Dataset`` and ``OmniglotDataset``, with MindSpore's columns, dtypes and order."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .core import Row
from .readers import _check_dir
from .sources import _RandomAccessSource
from .vision import decode_image


def _files(folder: str) -> list[str]:
    return [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if os.path.isfile(os.path.join(folder, n))]


class _LabelledImages(_RandomAccessSource):
    """Rows ``image`` (bytes, or RGB HWC uint8 with ``decode``) and ``label`` (``_LABEL_DTYPE``) from a list
    of (path, label) that the subclass fills."""

    _LABEL_DTYPE: Any = np.uint32

    def _setup(self, who: str, decode: Any, cache: Any) -> None:
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        if not isinstance(decode, bool):
            raise TypeError(f"{who}: decode must be a bool, got {decode!r}")
        self._decode = decode
        self._items: list[tuple[str, int]] = []

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, label = self._items[index]
        data = np.fromfile(path, np.uint8)
        return (decode_image(data) if self._decode else data), np.asarray(label, self._LABEL_DTYPE)


class RenderedSST2Dataset(_LabelledImages):
    """``RenderedSST2Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)``: ``<train|valid|test>/negative``
    (label 0) and ``/positive`` (label 1, uint32) images; 'all' (None) reads test, train, valid."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "RenderedSST2Dataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        self._setup(who, decode, cache)
        usage = "all" if usage is None else usage
        if usage not in ("train", "valid", "test", "all"):
            raise ValueError(f"{who}: usage must be 'train', 'valid', 'test' or 'all', got {usage!r}")
        root = _check_dir(who, dataset_dir)
        for part in (("test", "train", "valid") if usage == "all" else (usage,)):  # 'all': MindSpore's order
            for label, cls in enumerate(("negative", "positive")):
                folder = os.path.join(root, part, cls)
                if not os.path.isdir(folder):
                    raise ValueError(f"{who}: folder {folder} not found (usage {usage!r})")
                self._items += [(p, label) for p in _files(folder)]


class SUN397Dataset(_LabelledImages):
    """``SUN397Dataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: the classes listed in ``ClassName.txt``
    (``/a/abbey`` lines; label uint32, the line's index), images in ``dataset_dir/a/abbey/``, read class by
    class in sorted order."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "SUN397Dataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        self._setup(who, decode, cache)
        root = _check_dir(who, dataset_dir)
        listing = os.path.join(root, "ClassName.txt")
        if not os.path.isfile(listing):
            raise ValueError(f"{who}: {listing} not found")
        with open(listing, encoding="utf-8") as f:
            classes = [line.strip().strip("/") for line in f if line.strip()]
        # Labels follow ClassName.txt; the images come in the order of the sorted class paths (MindSpore's).
        for cls, label in sorted((c, k) for k, c in enumerate(classes)):
            folder = os.path.join(root, cls)
            if not os.path.isdir(folder):
                raise ValueError(f"{who}: class folder {folder} (from ClassName.txt) not found")
            self._items += [(p, label) for p in _files(folder)]


class OmniglotDataset(_LabelledImages):
    """``OmniglotDataset(dataset_dir, background=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)``: the characters of
    ``images_background`` (``background`` None or True) or ``images_evaluation`` (False), one class per
    ``<alphabet>/<character>`` folder in sorted order (label int32)."""

    _LABEL_DTYPE = np.int32

    def __init__(self, dataset_dir: str, background: bool | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "OmniglotDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        self._setup(who, decode, cache)
        if background is not None and not isinstance(background, bool):
            raise TypeError(f"{who}: background must be a bool or None, got {background!r}")
        root = os.path.join(_check_dir(who, dataset_dir),
                            "images_evaluation" if background is False else "images_background")
        if not os.path.isdir(root):
            raise ValueError(f"{who}: folder {root} not found")
        label = 0
        for alphabet in sorted(os.listdir(root)):
            if not os.path.isdir(os.path.join(root, alphabet)):
                continue
            for char in sorted(os.listdir(os.path.join(root, alphabet))):
                folder = os.path.join(root, alphabet, char)
                if os.path.isdir(folder):
                    self._items += [(p, label) for p in _files(folder)]
                    label += 1


__all__ = ["RenderedSST2Dataset", "SUN397Dataset", "OmniglotDataset"]
