"""Readers of the image sets whose labels are MATLAB ``.mat`` files: ``SVHNDataset``, ``Flowers102Dataset``,
``Caltech101Dataset`` and ``SBDataset``, with MindSpore's columns, dtypes, order and sampling arguments
(these are Python generator sources in MindSpore: ``num_parallel_workers=1`` by default, no ``cache``).
Reading ``.mat`` files needs SciPy, the optional extra ``opbuild[mat]``; it is imported when a dataset is
created, so the rest of the package works without it."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .core import Row
from .readers import _check_dir
from .sources import _RandomAccessSource
from .vision import decode_image


def loadmat(who: str, path: str) -> dict:
    """The variables of the MATLAB file ``path`` (SciPy's reader)."""
    try:
        from scipy.io import loadmat as scipy_loadmat
    except ImportError:
        raise ImportError(f"{who} reads MATLAB .mat files with SciPy: pip install 'opbuild[mat]' (or scipy)") \
            from None
    if not os.path.isfile(path):
        raise ValueError(f"{who}: {path} not found")
    try:
        return scipy_loadmat(path)
    except Exception as e:  # SciPy raises several types for a file that is not a .mat file
        raise RuntimeError(f"{who}: {path} is not a readable MATLAB file ({e})") from None


def _variable(who: str, path: str, mat: dict, name: str) -> Any:
    """The variable ``name`` of the loaded MATLAB file ``path``; a RuntimeError naming both when it is missing."""
    if name not in mat:
        present = sorted(k for k in mat if not k.startswith("__"))
        raise RuntimeError(f"{who}: {path} has no variable {name!r} (it holds {present}); is it the dataset's "
                           f"own file?")
    return mat[name]


def _choice(who: str, name: str, value: Any, allowed: tuple[str, ...], default: str) -> str:
    value = default if value is None else value
    if not isinstance(value, str):
        raise TypeError(f"{who}: {name} must be a str, got {type(value).__name__}")
    if value not in allowed:
        raise ValueError(f"{who}: {name} must be one of {list(allowed)}, got {value!r}")
    return value


def _read_image(who: str, path: str, decode: bool) -> np.ndarray:
    if not os.path.isfile(path):
        raise RuntimeError(f"{who}: image file {path} does not exist")
    data = np.fromfile(path, np.uint8)
    return decode_image(data) if decode else data


class _MatSource(_RandomAccessSource):
    """The shared checks: ``decode`` a bool, ``num_parallel_workers`` a positive int."""

    def __init__(self, who: str, dataset_dir: Any, decode: Any, num_parallel_workers: Any, shuffle: Any,
                 num_shards: Any, shard_id: Any, num_samples: Any, sampler: Any) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if not isinstance(decode, bool):
            raise TypeError(f"{who}: decode must be a bool, got {decode!r}")
        if isinstance(num_parallel_workers, bool) or not isinstance(num_parallel_workers, int) \
                or num_parallel_workers < 1:
            raise ValueError(f"{who}: num_parallel_workers must be a positive int, got {num_parallel_workers!r}")
        self._root = _check_dir(who, dataset_dir)
        self._decode = decode


class SVHNDataset(_MatSource):
    """``SVHNDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=1, shuffle=None,
    sampler=None, num_shards=None, shard_id=None)``: ``<usage>_32x32.mat`` (``X`` of 32x32x3xN, ``y`` of
    classes 1-10): ``image`` uint8 (32, 32, 3), ``label`` uint32 (digit 0 stored as class 10 is 0).
    ``usage`` 'train', 'test', 'extra' or 'all' (None: train, test, extra)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int = 1, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None) -> None:
        who = "SVHNDataset"
        super().__init__(who, dataset_dir, False, num_parallel_workers, shuffle, num_shards, shard_id, num_samples,
                         sampler)
        usage = _choice(who, "usage", usage, ("train", "test", "extra", "all"), "all")
        images, labels = [], []
        for part in ("train", "test", "extra") if usage == "all" else (usage,):
            path = os.path.join(self._root, f"{part}_32x32.mat")
            mat = loadmat(who, path)
            x, y = np.asarray(_variable(who, path, mat, "X")), np.asarray(_variable(who, path, mat, "y")).reshape(-1)
            if x.ndim != 4:
                raise RuntimeError(f"{who}: {path} needs X (32x32x3xN), got X of shape {list(x.shape)}")
            # One label per image: otherwise every later label (the next parts' too) would pair with another image.
            if x.shape[3] != y.size:
                raise RuntimeError(f"{who}: {path} holds {x.shape[3]} images (X) but {y.size} labels (y); the "
                                   "file is damaged or cut short (download it again)")
            images.append(np.transpose(x, (3, 0, 1, 2)))
            y = y.astype(np.uint32)
            labels.append(np.where(y == 10, 0, y).astype(np.uint32))
        self._images, self._labels = np.concatenate(images), np.concatenate(labels)

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return len(self._images)

    def _row(self, index: int) -> Row:
        return np.ascontiguousarray(self._images[index]), self._labels[index]


class Flowers102Dataset(_MatSource):
    """``Flowers102Dataset(dataset_dir, task='Classification', usage='all', num_samples=None,
    num_parallel_workers=1, shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None)``:
    ``jpg/image_<5 digits>.jpg`` listed by ``setid.mat`` (``trnid``, ``valid``, ``tstid``; 'all': train, test,
    valid), ``label`` uint32 from ``imagelabels.mat`` (class - 1); 'Segmentation' adds ``segmentation``
    (``segmim/segmim_<5 digits>.jpg``) before the label. Images are bytes, RGB with ``decode``."""

    def __init__(self, dataset_dir: str, task: str = "Classification", usage: str = "all",
                 num_samples: int | None = None, num_parallel_workers: int = 1, shuffle: bool | None = None,
                 decode: bool = False, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None) -> None:
        who = "Flowers102Dataset"
        super().__init__(who, dataset_dir, decode, num_parallel_workers, shuffle, num_shards, shard_id, num_samples,
                         sampler)
        self._task = _choice(who, "task", task, ("Classification", "Segmentation"), "Classification")
        usage = _choice(who, "usage", usage, ("train", "valid", "test", "all"), "all")
        for sub in ("jpg",) + (("segmim",) if self._task == "Segmentation" else ()):
            if not os.path.isdir(os.path.join(self._root, sub)):
                raise ValueError(f"{who}: the folder {os.path.join(self._root, sub)} not found")
        labels_path, setid_path = (os.path.join(self._root, f) for f in ("imagelabels.mat", "setid.mat"))
        labels = np.asarray(_variable(who, labels_path, loadmat(who, labels_path), "labels")).reshape(-1)
        setid = loadmat(who, setid_path)
        self._labels = (labels - 1).astype(np.uint32)
        keys = {"train": ["trnid"], "valid": ["valid"], "test": ["tstid"], "all": ["trnid", "tstid", "valid"]}
        self._ids = [int(i) for key in keys[usage] for i in np.asarray(_variable(who, setid_path, setid, key))
                     .reshape(-1)]
        # An id of 0 would read the last label (index -1); one past the labels, an IndexError mid-epoch.
        bad = next((i for i in self._ids if not 1 <= i <= len(labels)), None)
        if bad is not None:
            raise RuntimeError(f"{who}: {setid_path} lists image id {bad}, but {labels_path} labels images 1 to "
                               f"{len(labels)}; the files do not belong together (download them again)")

    def _column_names(self) -> list[str]:
        return ["image", "label"] if self._task == "Classification" else ["image", "segmentation", "label"]

    def _num_rows(self) -> int:
        return len(self._ids)

    def _row(self, index: int) -> Row:
        k = self._ids[index]
        image = _read_image("Flowers102Dataset", os.path.join(self._root, "jpg", f"image_{k:05d}.jpg"), self._decode)
        label = self._labels[k - 1]
        if self._task == "Classification":
            return image, label
        seg = os.path.join(self._root, "segmim", f"segmim_{k:05d}.jpg")
        return image, _read_image("Flowers102Dataset", seg, self._decode), label


# Caltech101's annotation folders named differently from their image folders.
_CALTECH_ANNOTATION_DIRS = {"Faces": "Faces_2", "Faces_easy": "Faces_3", "Motorbikes": "Motorbikes_16",
                            "airplanes": "Airplanes_Side_2"}


class Caltech101Dataset(_MatSource):
    """``Caltech101Dataset(dataset_dir, target_type=None, num_samples=None, num_parallel_workers=1,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None)``: the classes of
    ``101_ObjectCategories/`` in sorted order (``BACKGROUND_Google`` left out), ``image_<4 digits>.jpg``
    numbered from 1 up to each folder's file count. ``target_type`` 'category' (None: ``category`` int64),
    'annotation' (``annotation``: ``obj_contour`` of ``Annotations/<class>/annotation_<4 digits>.mat``,
    float64 (2, N)) or 'all' (both)."""

    def __init__(self, dataset_dir: str, target_type: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int = 1, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None) -> None:
        who = "Caltech101Dataset"
        super().__init__(who, dataset_dir, decode, num_parallel_workers, shuffle, num_shards, shard_id, num_samples,
                         sampler)
        self._target = _choice(who, "target_type", target_type, ("category", "annotation", "all"), "category")
        images = os.path.join(self._root, "101_ObjectCategories")
        if not os.path.isdir(images):
            raise FileNotFoundError(f"{who}: the image folder {images} not found")
        self._classes = [c for c in sorted(os.listdir(images)) if c != "BACKGROUND_Google"]
        self._items: list[tuple[int, int]] = []
        for label, name in enumerate(self._classes):
            folder = os.path.join(images, name)
            if os.path.isdir(folder) and os.access(folder, os.R_OK):
                self._items += [(label, k) for k in range(1, len(os.listdir(folder)) + 1)]

    def _column_names(self) -> list[str]:
        return {"category": ["image", "category"], "annotation": ["image", "annotation"],
                "all": ["image", "category", "annotation"]}[self._target]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        who = "Caltech101Dataset"
        label, k = self._items[index]
        name = self._classes[label]
        path = os.path.join(self._root, "101_ObjectCategories", name, f"image_{k:04d}.jpg")
        if not os.path.isfile(path):
            raise ValueError(f"{who}: the image file {path} does not exist")
        image = _read_image(who, path, self._decode)
        category = np.asarray(label, np.int64)
        if self._target == "category":
            return image, category
        mat_path = os.path.join(self._root, "Annotations", _CALTECH_ANNOTATION_DIRS.get(name, name),
                                f"annotation_{k:04d}.mat")
        if not os.path.isfile(mat_path):
            raise ValueError(f"{who}: the annotation file {mat_path} does not exist")
        contour = np.asarray(_variable(who, mat_path, loadmat(who, mat_path), "obj_contour"))
        return (image, contour) if self._target == "annotation" else (image, category, contour)


class SBDataset(_MatSource):
    """``SBDataset(dataset_dir, task='Boundaries', usage='all', num_samples=None, num_parallel_workers=1,
    shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None)``: the Semantic Boundaries
    Dataset: names listed in ``<usage>.txt`` ('train', 'val', 'train_noval'; 'all': train then val), images
    ``img/<name>.jpg`` and ``cls/<name>.mat``: ``image`` (bytes, RGB with ``decode``) and ``task``: the 20
    class boundary maps stacked (20, H, W) for 'Boundaries', the (H, W) class map for 'Segmentation'."""

    def __init__(self, dataset_dir: str, task: str = "Boundaries", usage: str = "all",
                 num_samples: int | None = None, num_parallel_workers: int = 1, shuffle: bool | None = None,
                 decode: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None) -> None:
        who = "SBDataset"
        super().__init__(who, dataset_dir, bool(decode) if decode is None else decode, num_parallel_workers,
                         shuffle, num_shards, shard_id, num_samples, sampler)
        self._task = _choice(who, "task", task, ("Boundaries", "Segmentation"), "Boundaries")
        usage = _choice(who, "usage", usage, ("train", "val", "train_noval", "all"), "all")
        self._names: list[str] = []
        for part in ("train", "val") if usage == "all" else (usage,):
            listing = os.path.join(self._root, f"{part}.txt")
            if not os.path.isfile(listing):
                raise FileNotFoundError(f"{who}: {listing} not found")
            with open(listing, encoding="utf-8") as f:
                self._names += [line.strip() for line in f]

    def _column_names(self) -> list[str]:
        return ["image", "task"]

    def _num_rows(self) -> int:
        return len(self._names)

    def _row(self, index: int) -> Row:
        who = "SBDataset"
        name = self._names[index]
        image = _read_image(who, os.path.join(self._root, "img", f"{name}.jpg"), self._decode)
        mat_path = os.path.join(self._root, "cls", f"{name}.mat")
        try:
            gt = _variable(who, mat_path, loadmat(who, mat_path), "GTcls")[0][self._task][0]
        except (IndexError, ValueError, TypeError) as e:  # a GTcls that is not the struct SBD writes
            raise RuntimeError(f"{who}: {mat_path}'s GTcls is not SBD's struct with a {self._task!r} field "
                               f"({e})") from None
        if self._task == "Segmentation":
            return image, np.asarray(gt)
        return image, np.stack([np.asarray(gt[i][0].toarray()) for i in range(20)])


__all__ = ["SVHNDataset", "Flowers102Dataset", "Caltech101Dataset", "SBDataset"]
