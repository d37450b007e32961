"""Readers of image sets laid out as folders and list files: ``CelebADataset`` (the aligned faces with
``list_attr_celeba.txt`` and ``list_eval_partition.txt``), ``Caltech256Dataset`` (one folder per class),
``Food101Dataset``, ``FlickrDataset`` (captions), ``DIV2KDataset`` (high/low resolution pairs) and
``CityscapesDataset``,
with MindSpore's columns, dtypes and order."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import Row
from .readers import ImageFolderDataset, _check_dir
from .sources import _RandomAccessSource
from .vision import decode_image

_CELEBA_PARTS = {"train": "0", "valid": "1", "test": "2"}


class CelebADataset(_RandomAccessSource):
    """``CelebADataset(dataset_dir, num_parallel_workers=None, shuffle=None, usage='all', sampler=None,
    decode=False, extensions=None, num_samples=None, num_shards=None, shard_id=None, cache=None,
    decrypt=None)``: the images of ``list_attr_celeba.txt`` (files in ``dataset_dir``): ``image`` (the file's
    bytes, or RGB HWC uint8 with ``decode``) and ``attr`` (uint32, one 0/1 per attribute; the file's -1 is
    0). ``usage`` 'train', 'valid' or 'test' keeps the images of that split in ``list_eval_partition.txt``;
    ``extensions`` keeps the files with those suffixes."""

    def __init__(self, dataset_dir: str, num_parallel_workers: int | None = None, shuffle: bool | None = None,
                 usage: str = "all", sampler: Any = None, decode: bool = False,
                 extensions: Sequence[str] | None = None, num_samples: int | None = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None,
                 decrypt: Any = None) -> None:
        who = "CelebADataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None or decrypt is not None:
            raise NotImplementedError(f"{who}: cache and decrypt are not supported")
        if not isinstance(decode, bool):
            raise TypeError(f"{who}: decode must be a bool, got {decode!r}")
        if usage not in ("train", "valid", "test", "all"):
            raise ValueError(f"{who}: usage must be 'train', 'valid', 'test' or 'all', got {usage!r}")
        root = _check_dir(who, dataset_dir)
        attr_path = os.path.join(root, "list_attr_celeba.txt")
        if not os.path.isfile(attr_path):
            raise ValueError(f"{who}: {attr_path} not found")
        with open(attr_path, encoding="utf-8") as f:
            lines = [line.split() for line in f if line.strip()]
        if len(lines) < 2:
            raise ValueError(f"{who}: {attr_path} needs a count line and a line of attribute names")
        n_attr = len(lines[1])
        keep = None
        if usage != "all":
            part_path = os.path.join(root, "list_eval_partition.txt")
            if not os.path.isfile(part_path):
                raise ValueError(f"{who}: {part_path} not found; usage {usage!r} needs it (or use usage='all')")
            with open(part_path, encoding="utf-8") as f:
                keep = {p[0] for p in (line.split() for line in f) if len(p) == 2 and p[1] == _CELEBA_PARTS[usage]}
        exts = tuple(extensions) if extensions else None
        self._decode = decode
        self._items: list[tuple[str, np.ndarray]] = []
        for k, fields in enumerate(lines[2:], 3):
            if len(fields) != n_attr + 1:
                raise ValueError(f"{who}: line {k} of {attr_path} has {len(fields) - 1} attributes, expected {n_attr}")
            name = fields[0]
            if (keep is not None and name not in keep) or (exts is not None and not name.endswith(exts)):
                continue
            attrs = np.asarray([1 if int(v) > 0 else 0 for v in fields[1:]], np.uint32)
            self._items.append((os.path.join(root, name), attrs))
        if not self._items:
            raise ValueError(f"{who}: no image of {attr_path} matches usage {usage!r} and extensions {extensions!r}")

    def _column_names(self) -> list[str]:
        return ["image", "attr"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, attrs = self._items[index]
        if not os.path.isfile(path):
            raise ValueError(f"CelebADataset: image file {path} does not exist")
        data = np.fromfile(path, np.uint8)
        return (decode_image(data) if self._decode else data), attrs


class Caltech256Dataset(ImageFolderDataset):
    """``Caltech256Dataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)``: ``256_ObjectCategories``'s
    layout (``001.ak47/``, ... ``257.clutter/``): ``image`` and ``label`` (int32, the folder's index in sorted
    order), as ``ImageFolderDataset``."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        super().__init__(dataset_dir, num_samples=num_samples, shuffle=shuffle, sampler=sampler, decode=decode,
                         num_shards=num_shards, shard_id=shard_id, cache=cache)


class Food101Dataset(_RandomAccessSource):
    """``Food101Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)``: the images listed in
    ``meta/<train|test>.txt`` (``<class>/<id>`` lines, 'all' (None): train then test), read from
    ``images/<class>/<id>.jpg``: ``image`` (bytes, or RGB HWC uint8 with ``decode``) and ``label`` (the class
    name, a string)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "Food101Dataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        if not isinstance(decode, bool):
            raise TypeError(f"{who}: decode must be a bool, got {decode!r}")
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "all"):
            raise ValueError(f"{who}: usage must be 'train', 'test' or 'all', got {usage!r}")
        root = _check_dir(who, dataset_dir)
        self._decode = decode
        self._items: list[tuple[str, str]] = []
        for part in (("train", "test") if usage == "all" else (usage,)):
            listing = os.path.join(root, "meta", f"{part}.txt")
            if not os.path.isfile(listing):
                raise ValueError(f"{who}: {listing} not found (needed for usage {usage!r})")
            with open(listing, encoding="utf-8") as f:
                for line in f:
                    rel = line.strip()
                    if rel:
                        self._items.append((os.path.join(root, "images", rel + ".jpg"), rel.split("/")[0]))

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, label = self._items[index]
        if not os.path.isfile(path):
            raise ValueError(f"Food101Dataset: image file {path} does not exist")
        data = np.fromfile(path, np.uint8)
        return (decode_image(data) if self._decode else data), np.array(label)


def _decode_flag(who: str, decode: Any) -> bool:
    if decode is None:
        return False
    if not isinstance(decode, bool):
        raise TypeError(f"{who}: decode must be a bool, got {decode!r}")
    return decode


def _image(path: str, decode: bool, who: str) -> np.ndarray:
    if not os.path.isfile(path):
        raise ValueError(f"{who}: image file {path} does not exist")
    data = np.fromfile(path, np.uint8)
    return decode_image(data) if decode else data


class FlickrDataset(_RandomAccessSource):
    """``FlickrDataset(dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=None, sampler=None, num_shards=None, shard_id=None, cache=None)``: Flickr8k/30k: the images named in
    ``annotation_file`` (``<image>#<k>\t<caption>`` lines), in sorted order, read from ``dataset_dir``:
    ``image`` (bytes, or RGB HWC uint8 with ``decode``) and ``annotation`` (the captions, 1-D strings)."""

    def __init__(self, dataset_dir: str, annotation_file: str, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool | None = None,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "FlickrDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        self._decode = _decode_flag(who, decode)
        root = _check_dir(who, dataset_dir)
        if not isinstance(annotation_file, (str, os.PathLike)) or not os.path.isfile(annotation_file):
            raise ValueError(f"{who}: annotation_file {annotation_file!r} is not an existing file")
        captions: dict[str, list[str]] = {}
        with open(annotation_file, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                key, sep, caption = line.partition("\t")
                if not sep or "#" not in key:
                    raise ValueError(f"{who}: line {k} of {annotation_file} is not '<image>#<k><TAB><caption>'")
                captions.setdefault(key.rsplit("#", 1)[0], []).append(caption)
        self._items = [(os.path.join(root, name), np.array(caps)) for name, caps in sorted(captions.items())]

    def _column_names(self) -> list[str]:
        return ["image", "annotation"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, caps = self._items[index]
        return _image(path, self._decode, "FlickrDataset"), caps


_DIV2K_SCALES = {"bicubic": (2, 3, 4, 8), "unknown": (2, 3, 4), "mild": (4,), "difficult": (4,), "wild": (4,)}


class DIV2KDataset(_RandomAccessSource):
    """``DIV2KDataset(dataset_dir, usage='train', downgrade='bicubic', scale=2, num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None,
    cache=None)``: pairs ``hr_image`` (``DIV2K_<usage>_HR/<id>.png``) and ``lr_image``
    (``DIV2K_<usage>_LR_<downgrade>/X<scale>/<id>x<scale>.png``; for 'mild', 'difficult' and 'wild'
    ``DIV2K_<usage>_LR_<downgrade>/<id>x4<m|d|w>.png``), in id order; 'all' reads train then valid."""

    def __init__(self, dataset_dir: str, usage: str = "train", downgrade: str = "bicubic", scale: int = 2,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "DIV2KDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        self._decode = _decode_flag(who, decode)
        if usage not in ("train", "valid", "all"):
            raise ValueError(f"{who}: usage must be 'train', 'valid' or 'all', got {usage!r}")
        if downgrade not in _DIV2K_SCALES:
            raise ValueError(f"{who}: downgrade must be one of {list(_DIV2K_SCALES)}, got {downgrade!r}")
        if scale not in _DIV2K_SCALES[downgrade]:
            raise ValueError(f"{who}: downgrade {downgrade!r} comes in scales {list(_DIV2K_SCALES[downgrade])}, got "
                             f"{scale!r}")
        root = _check_dir(who, dataset_dir)
        self._items: list[tuple[str, str]] = []
        for part in (("train", "valid") if usage == "all" else (usage,)):
            hr_dir = os.path.join(root, f"DIV2K_{part}_HR")
            lr_dir = os.path.join(root, f"DIV2K_{part}_LR_{downgrade}")
            if downgrade in ("bicubic", "unknown"):
                lr_dir, suffix = os.path.join(lr_dir, f"X{scale}"), f"x{scale}"
            else:
                suffix = f"x4{downgrade[0]}"
            for d in (hr_dir, lr_dir):
                if not os.path.isdir(d):
                    raise ValueError(f"{who}: folder {d} not found (usage {usage!r}, downgrade {downgrade!r}, scale "
                                     f"{scale})")
            for name in sorted(n for n in os.listdir(hr_dir) if n.endswith(".png")):
                stem = name[:-4]
                lr = os.path.join(lr_dir, f"{stem}{suffix}.png")
                if not os.path.isfile(lr):
                    raise ValueError(f"{who}: {lr}, the low-resolution image of {name}, not found")
                self._items.append((os.path.join(hr_dir, name), lr))

    def _column_names(self) -> list[str]:
        return ["hr_image", "lr_image"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        hr, lr = self._items[index]
        return _image(hr, self._decode, "DIV2KDataset"), _image(lr, self._decode, "DIV2KDataset")


_CITYSCAPES_TASKS = {"instance": "instanceIds.png", "semantic": "labelIds.png", "color": "color.png",
                     "polygon": "polygons.json"}


class CityscapesDataset(_RandomAccessSource):
    """``CityscapesDataset(dataset_dir, usage='train', quality_mode='fine', task='instance', num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None,
    cache=None)``: ``leftImg8bit/<usage>/<city>/<name>_leftImg8bit.png`` (cities and files sorted) with their
    ``gtFine`` (or ``gtCoarse``) annotation: ``image`` and ``task`` (the ``instanceIds``/``labelIds``/``color``
    PNG, bytes or decoded with ``decode``; for 'polygon' the JSON as compact text with sorted keys, as MindSpore
    writes it). ``usage`` 'train', 'test', 'val' (fine) or 'train', 'train_extra', 'val' (coarse), or 'all'."""

    def __init__(self, dataset_dir: str, usage: str = "train", quality_mode: str = "fine", task: str = "instance",
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "CityscapesDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        self._decode = _decode_flag(who, decode)
        if quality_mode not in ("fine", "coarse"):
            raise ValueError(f"{who}: quality_mode must be 'fine' or 'coarse', got {quality_mode!r}")
        if task not in _CITYSCAPES_TASKS:
            raise ValueError(f"{who}: task must be one of {list(_CITYSCAPES_TASKS)}, got {task!r}")
        splits = ("train", "test", "val") if quality_mode == "fine" else ("train", "train_extra", "val")
        if usage not in (*splits, "all"):
            raise ValueError(f"{who}: usage for quality_mode {quality_mode!r} must be one of {[*splits, 'all']}, "
                             f"got {usage!r}")
        root = _check_dir(who, dataset_dir)
        gt = "gtFine" if quality_mode == "fine" else "gtCoarse"
        self._task = task
        self._items: list[tuple[str, str]] = []
        for part in (splits if usage == "all" else (usage,)):
            images = os.path.join(root, "leftImg8bit", part)
            if not os.path.isdir(images):  # 'all' needs every split, as in MindSpore
                raise ValueError(f"{who}: folder {images} not found (usage {usage!r})")
            for city in sorted(os.listdir(images)):
                for name in sorted(os.listdir(os.path.join(images, city))):
                    if not name.endswith("_leftImg8bit.png"):
                        continue
                    stem = name[:-len("_leftImg8bit.png")]
                    target = os.path.join(root, gt, part, city, f"{stem}_{gt}_{_CITYSCAPES_TASKS[task]}")
                    if not os.path.isfile(target):
                        raise ValueError(f"{who}: {target}, the {task} annotation of {name}, not found")
                    self._items.append((os.path.join(images, city, name), target))

    def _column_names(self) -> list[str]:
        return ["image", "task"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        image, target = self._items[index]
        if self._task == "polygon":
            with open(target, encoding="utf-8") as f:
                text = json.dumps(json.load(f), separators=(",", ":"), sort_keys=True, ensure_ascii=False)
            return _image(image, self._decode, "CityscapesDataset"), np.array(text)
        return _image(image, self._decode, "CityscapesDataset"), _image(target, self._decode, "CityscapesDataset")


__all__ = ["CelebADataset", "Caltech256Dataset", "Food101Dataset", "FlickrDataset", "DIV2KDataset",
           "CityscapesDataset"]
