"""Readers of photo collections in their distributed layouts: ``LFWDataset`` (Labeled Faces in the Wild:
people and pairs lists), ``SBUDataset`` (SBU captioned photos), ``PhotoTourDataset`` (64x64 patches tiled
in 1024x1024 bitmaps) and ``LSUNDataset`` (scene folders), with MindSpore's columns, dtypes, row order and
sampling arguments. The lists are read when the dataset is created, the images when a row is read."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .core import Row
from .readers import _check_dir
from .sources import _RandomAccessSource
from .vision import decode_image


def _check_options(who: str, decode: Any, cache: Any) -> None:
    if not isinstance(decode, bool):
        raise TypeError(f"{who}: decode must be a bool, got {decode!r}")
    if cache is not None:
        raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")


def _choice(who: str, name: str, value: Any, allowed: tuple[str, ...], default: str | None = None) -> str:
    """``value`` checked against ``allowed``; None means ``default`` where there is one."""
    if value is None and default is not None:
        return default
    if not isinstance(value, str):
        raise TypeError(f"{who}: {name} must be a str, got {type(value).__name__}")
    if value not in allowed:
        raise ValueError(f"{who}: {name} must be one of {list(allowed)}, got {value!r}")
    return value


def _image(who: str, path: str, decode: bool) -> np.ndarray:
    if not os.path.isfile(path):
        raise RuntimeError(f"{who}: image file {path} does not exist")
    data = np.fromfile(path, np.uint8)
    return decode_image(data) if decode else data


def _lfw_name(person: str, number: str) -> str:
    """``Aaron_Eckhart`` and ``1`` -> ``Aaron_Eckhart_0001`` (LFW's file names: the number to 4 digits)."""
    return f"{person}_{number.rjust(4, '0')}"


_LFW_SETS = {"original": "lfw", "funneled": "lfw_funneled", "deepfunneled": "lfw-deepfunneled"}


class LFWDataset(_RandomAccessSource):
    """``LFWDataset(dataset_dir, task=None, usage=None, image_set=None, num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
    cache=None)``: ``task`` 'people' (None; columns ``image``, ``label`` uint32: the person's line in
    ``lfw-names.txt``) or 'pairs' (``image1``, ``image2``, ``label`` uint32: 1 for the same person). ``usage``
    '10fold' (``people.txt``/``pairs.txt``), 'train' (``*DevTrain.txt``), 'test' (``*DevTest.txt``) or
    'all' (None: train then test); ``image_set`` 'original' (``lfw/``), 'funneled' (None, ``lfw_funneled/``)
    or 'deepfunneled' (``lfw-deepfunneled/``). Images are the files' bytes, decoded to RGB with ``decode``."""

    def __init__(self, dataset_dir: str, task: str | None = None, usage: str | None = None,
                 image_set: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "LFWDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _check_options(who, decode, cache)
        root = _check_dir(who, dataset_dir)
        self._task = _choice(who, "task", task, ("people", "pairs"), "people")
        usage = _choice(who, "usage", usage, ("10fold", "train", "test", "all"), "all")
        folder = os.path.join(root, _LFW_SETS[_choice(who, "image_set", image_set, tuple(_LFW_SETS), "funneled")])
        self._decode = decode
        lists = {"10fold": [""], "train": ["DevTrain"], "test": ["DevTest"], "all": ["DevTrain", "DevTest"]}[usage]
        self._items: list[tuple] = []
        for suffix in lists:
            path = os.path.join(root, f"{self._task}{suffix}.txt")
            if not os.path.isfile(path):
                raise RuntimeError(f"{who}: {path} not found (needed for task {self._task!r}, usage {usage!r})")
            with open(path, encoding="utf-8") as f:
                lines = [line.split() for line in f]
            try:
                parse = self._people if self._task == "people" else self._pairs
                self._items += parse(lines, usage == "10fold", folder)
            except (IndexError, ValueError) as e:
                raise RuntimeError(f"{who}: {path} is not an LFW {self._task} list ({e})") from None
        names_path = os.path.join(root, "lfw-names.txt")
        if not os.path.isfile(names_path):
            raise RuntimeError(f"{who}: {names_path} not found (it numbers the people: the labels)")
        with open(names_path, encoding="utf-8") as f:
            self._classes = {p[0]: i for i, p in enumerate(line.split() for line in f) if p}

    @staticmethod
    def _people(lines: list[list[str]], folds: bool, folder: str) -> list[tuple]:
        """(path, person) per image: blocks of ``<count>`` then ``<person> <n images>`` lines (10fold: a
        leading number of blocks)."""
        if not lines:
            raise ValueError("the file is empty")
        n_blocks, at = (int(lines[0][0]), 1) if folds else (1, 0)
        items = []
        for _ in range(n_blocks):
            count = int(lines[at][0])
            if at + 1 + count > len(lines):  # a cut file: fewer people than its block announces
                raise ValueError(f"a block announces {count} people but only {len(lines) - at - 1} lines follow")
            for person, n in ((p[0], int(p[1])) for p in lines[at + 1:at + 1 + count]):
                items += [(os.path.join(folder, person, _lfw_name(person, str(k)) + ".jpg"), person)
                          for k in range(1, n + 1)]
            at += count + 1
        return items

    @staticmethod
    def _pairs(lines: list[list[str]], folds: bool, folder: str) -> list[tuple]:
        """(path1, path2, match) per pair: ``n`` matched lines ``<person> <i> <j>`` then ``n`` mismatched
        ``<person1> <i> <person2> <j>``, per fold (the first line: ``<folds> <n>``, or ``<n>``)."""
        if not lines:
            raise ValueError("the file is empty")
        n_folds, n = (int(lines[0][0]), int(lines[0][1])) if folds else (1, int(lines[0][0]))
        items, at = [], 1
        for _ in range(n_folds):
            if at + 2 * n > len(lines):  # a cut file: fewer pairs than its first line announces
                raise ValueError(f"a fold announces {n} matched and {n} mismatched pairs but only "
                                 f"{len(lines) - at} lines follow")
            for p in lines[at:at + n]:
                items.append((os.path.join(folder, p[0], _lfw_name(p[0], p[1]) + ".jpg"),
                              os.path.join(folder, p[0], _lfw_name(p[0], p[2]) + ".jpg"), 1))
            for p in lines[at + n:at + 2 * n]:
                items.append((os.path.join(folder, p[0], _lfw_name(p[0], p[1]) + ".jpg"),
                              os.path.join(folder, p[2], _lfw_name(p[2], p[3]) + ".jpg"), 0))
            at += 2 * n
        return items

    def _column_names(self) -> list[str]:
        return ["image", "label"] if self._task == "people" else ["image1", "image2", "label"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        item = self._items[index]
        if self._task == "people":
            # A person missing from lfw-names.txt gets label 0, as in MindSpore.
            return (_image("LFWDataset", item[0], self._decode),
                    np.asarray(self._classes.get(item[1], 0), np.uint32))
        return (_image("LFWDataset", item[0], self._decode), _image("LFWDataset", item[1], self._decode),
                np.asarray(item[2], np.uint32))


class SBUDataset(_RandomAccessSource):
    """``SBUDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: ``SBU_captioned_photo_dataset_urls.txt`` and
    ``..._captions.txt`` line by line; each photo present in ``sbu_images/`` (its URL from the 24th character
    on, '/' replaced by '_') gives ``image`` (bytes, RGB with ``decode``) and ``caption`` (a string, trailing
    spaces removed). Photos not downloaded are left out."""

    _URLS, _CAPTIONS = "SBU_captioned_photo_dataset_urls.txt", "SBU_captioned_photo_dataset_captions.txt"

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "SBUDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _check_options(who, decode, cache)
        root = _check_dir(who, dataset_dir)
        paths = [os.path.join(root, n) for n in (self._URLS, self._CAPTIONS)]
        for p in paths:
            if not os.path.isfile(p):
                raise ValueError(f"{who}: {p} not found")
        images = os.path.join(root, "sbu_images")
        if not os.path.isdir(images):
            raise ValueError(f"{who}: the image folder {images} not found")
        with open(paths[0], encoding="utf-8", newline="\n") as f:
            urls = f.read().split("\n")
        with open(paths[1], encoding="utf-8", newline="\n") as f:
            captions = f.read().split("\n")
        # A final newline ends the last line; a different count of lines means the files do not pair up (zip
        # would give every photo after a missing line another one's caption).
        urls, captions = (x[:-1] if x and x[-1] == "" else x for x in (urls, captions))
        if len(urls) != len(captions):
            raise RuntimeError(f"{who}: {paths[0]} has {len(urls)} lines but {paths[1]} has {len(captions)}; "
                               "they pair up line by line (download them again)")
        self._decode = decode
        self._items: list[tuple[str, str]] = []
        for k, (url, caption) in enumerate(zip(urls, captions, strict=True), 1):
            if bool(url) != bool(caption):
                raise RuntimeError(f"{who}: line {k} of {paths[0]} and {paths[1]} do not pair up (one is empty)")
            if url:
                path = os.path.join(images, url[23:].replace("/", "_"))
                if os.path.isfile(path):
                    self._items.append((path, caption.rstrip(" ")))
        if not self._items:
            raise RuntimeError(f"{who}: no image of {paths[0]} found in {images}")

    def _column_names(self) -> list[str]:
        return ["image", "caption"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, caption = self._items[index]
        return _image("SBUDataset", path, self._decode), np.array(caption)


_PHOTOTOUR_NAMES = ("notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris", "liberty_harris")


def _tokens(who: str, path: str, width: int) -> list[list[str]]:
    """The whitespace-separated tokens of ``path`` in records of ``width``."""
    if not os.path.isfile(path):
        raise RuntimeError(f"{who}: {path} not found")
    with open(path, encoding="utf-8") as f:
        tokens = f.read().split()
    if not tokens:
        raise RuntimeError(f"{who}: {path} is empty")
    return [tokens[i:i + width] for i in range(0, len(tokens) - width + 1, width)]


def _count(who: str, path: str, record: int, token: str) -> int:
    """``token`` (a patch number or point id of record ``record`` of ``path``) as a non-negative int."""
    try:
        value = int(token)
    except ValueError:
        value = -1
    if value < 0:
        raise RuntimeError(f"{who}: record {record} of {path} holds {token!r} where a non-negative integer "
                           "belongs; the file is damaged or not PhotoTour's")
    return value


class PhotoTourDataset(_RandomAccessSource):
    """``PhotoTourDataset(dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)``: ``dataset_dir/<name>/`` holds
    ``patches*.bmp`` (1024x1024 grayscale, 16x16 patches of 64x64, left to right, top to bottom, files in
    name order), ``info.txt`` (one line per patch: 3D point id, unused) and ``m50_100000_100000_0.txt``
    (patch1, point1, unused, patch2, point2, unused, unused). usage 'train' (None): ``image`` uint8
    (64, 64, 1) per line of info.txt; 'test': ``image1``, ``image2`` and ``matches`` (uint32: 1 when the
    points are the same) per line of the matches file."""

    def __init__(self, dataset_dir: str, name: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "PhotoTourDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _check_options(who, False, cache)
        root = _check_dir(who, dataset_dir)
        name = _choice(who, "name", name, _PHOTOTOUR_NAMES)
        self._train = _choice(who, "usage", usage, ("train", "test"), "train") == "train"
        folder = os.path.join(root, name)
        if not os.path.isdir(folder):
            raise RuntimeError(f"{who}: {folder} does not exist")
        self._bitmaps = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith("bmp"))
        self._cache: dict[int, np.ndarray] = {}
        info = os.path.join(folder, "info.txt")
        self._labels = [_count(who, info, k, r[0]) for k, r in enumerate(_tokens(who, info, 2), 1)]
        path = os.path.join(folder, "m50_100000_100000_0.txt")
        # A negative patch number would read a patch of the last bitmap (Python's negative indexing).
        self._matches = [(_count(who, path, k, r[0]), _count(who, path, k, r[3]), int(r[1] == r[4]))
                         for k, r in enumerate(_tokens(who, path, 7), 1)]

    def _column_names(self) -> list[str]:
        return ["image"] if self._train else ["image1", "image2", "matches"]

    def _num_rows(self) -> int:
        return len(self._labels) if self._train else len(self._matches)

    def _patch(self, index: int) -> np.ndarray:
        sheet, cell = divmod(index, 256)
        if sheet >= len(self._bitmaps):
            raise RuntimeError(f"PhotoTourDataset: patch {index} needs bitmap {sheet}, but only "
                               f"{len(self._bitmaps)} patches*.bmp file(s) exist")
        if sheet not in self._cache:
            try:
                from PIL import Image
            except ImportError:
                raise ImportError("PhotoTourDataset reads its bitmaps with Pillow: pip install opbuild[vision]") \
                    from None
            with Image.open(self._bitmaps[sheet]) as img:
                pixels = np.asarray(img.convert("L"), np.uint8)
            if pixels.shape != (1024, 1024):  # a smaller sheet would give empty or cut patches
                raise RuntimeError(f"PhotoTourDataset: {self._bitmaps[sheet]} is {pixels.shape[1]}x"
                                   f"{pixels.shape[0]} pixels; a PhotoTour bitmap holds 16x16 patches of 64x64 "
                                   "(1024x1024)")
            self._cache[sheet] = pixels
        row, col = divmod(cell, 16)
        return self._cache[sheet][row * 64:row * 64 + 64, col * 64:col * 64 + 64, None].copy()

    def _row(self, index: int) -> Row:
        if self._train:
            return (self._patch(index),)
        a, b, same = self._matches[index]
        return self._patch(a), self._patch(b), np.asarray(same, np.uint32)


LSUN_CLASSES = ("bedroom", "bridge", "church_outdoor", "classroom", "conference_room", "dining_room", "kitchen",
                "living_room", "restaurant", "tower")


class LSUNDataset(_RandomAccessSource):
    """``LSUNDataset(dataset_dir, usage=None, classes=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)``: the LSUN scenes
    extracted into folders (as MindSpore reads them; not the LMDB databases): usage 'train' (folders whose
    name contains ``<class>_train``), 'valid' (``<class>_val``), 'all' (None: both) or 'test' (the ``test``
    folder); ``classes`` a list among the ten scene classes (None: all). Rows: ``image`` (bytes, RGB with
    ``decode``) and ``label`` uint32, the folder's index in sorted order; files in sorted order."""

    def __init__(self, dataset_dir: str, usage: str | None = None, classes: list[str] | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "LSUNDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _check_options(who, decode, cache)
        root = _check_dir(who, dataset_dir)
        usage = _choice(who, "usage", usage, ("train", "test", "valid", "all"), "all")
        if classes is not None and not isinstance(classes, list):
            raise TypeError(f"{who}: classes must be a list of class names, got {type(classes).__name__}")
        for name in classes or []:
            _choice(who, "classes", name, LSUN_CLASSES)
        self._decode = decode
        if usage == "test":
            folders = ["test"]
        else:
            splits = [s for s, u in (("_train", "train"), ("_val", "valid")) if usage in (u, "all")]
            folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))
                             for split in splits for c in (classes or LSUN_CLASSES) if c + split in d)
        self._items: list[tuple[str, int]] = []
        for label, folder in enumerate(folders):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                raise RuntimeError(f"{who}: the folder {path} does not exist")
            self._items += [(os.path.join(path, f), label) for f in sorted(os.listdir(path))
                            if os.path.isfile(os.path.join(path, f))]
        if not self._items:
            raise RuntimeError(f"{who}: no image found in {root} for usage {usage!r} and classes {classes!r}")

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, label = self._items[index]
        return _image("LSUNDataset", path, self._decode), np.asarray(label, np.uint32)


__all__ = ["LFWDataset", "SBUDataset", "PhotoTourDataset", "LSUNDataset"]
