"""Readers of image classification sets laid out as class folders: ``RenderedSST2Dataset``,
``SUN397Dataset``, ``OmniglotDataset`` and ``Places365Dataset``, with MindSpore's columns, dtypes and order."""

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


_PLACES_LISTS = {"train-standard": ("places365_train_standard.txt", "data_{}_standard"),
                 "train-challenge": ("places365_train_challenge.txt", "data_{}_challenge"),
                 "val": ("places365_val.txt", "val_{}")}


class Places365Dataset(_LabelledImages):
    """``Places365Dataset(dataset_dir, usage=None, small=True, decode=False, num_samples=None,
    num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)``: the
    images of ``places365_<train_standard|train_challenge|val>.txt`` (``<path> <label>`` lines, in that
    order; usage None: 'train-standard'), read from ``data_<256|large>_<standard|challenge>/`` or
    ``val_<256|large>/`` (``small`` picks 256); ``label`` uint32."""

    def __init__(self, dataset_dir: str, usage: str | None = None, small: bool = True, decode: bool = False,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        who = "Places365Dataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        self._setup(who, decode, cache)
        usage = "train-standard" if usage is None else usage
        if usage not in _PLACES_LISTS:
            raise ValueError(f"{who}: usage must be one of {list(_PLACES_LISTS)}, got {usage!r}")
        if not isinstance(small, bool):
            raise TypeError(f"{who}: small must be a bool, got {small!r}")
        root = _check_dir(who, dataset_dir)
        list_name, folder = _PLACES_LISTS[usage]
        listing = os.path.join(root, list_name)
        if not os.path.isfile(listing):
            raise ValueError(f"{who}: {listing} not found (usage {usage!r})")
        images = os.path.join(root, folder.format("256" if small else "large"))
        with open(listing, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != 2 or not fields[1].isdigit():
                    raise ValueError(f"{who}: line {k} of {listing} is not '<image path> <label>'")
                self._items.append((os.path.join(images, fields[0].lstrip("/")), int(fields[1])))

    def _row(self, index: int) -> Row:
        path = self._items[index][0]
        if not os.path.isfile(path):
            raise ValueError(f"Places365Dataset: image file {path} does not exist")
        return super()._row(index)


__all__ = ["RenderedSST2Dataset", "SUN397Dataset", "OmniglotDataset", "Places365Dataset"]
