"""Readers of local files in MindSpore's dataset formats: ``MnistDataset`` (IDX files), ``Cifar10Dataset``
(the binary version) and ``ImageFolderDataset`` (one folder per class), with MindSpore's columns, dtypes,
order and sampling arguments. Files are read when the dataset is created (these formats are small)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import Row
from .sources import _RandomAccessSource
from .vision import decode_image

_MNIST_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
                "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
_CIFAR10_FILES = {"train": [f"data_batch_{i}.bin" for i in range(1, 6)], "test": ["test_batch.bin"]}
_CIFAR10_RECORD = 1 + 32 * 32 * 3


def _usage(who: str, usage: str | None, all_order: tuple[str, str]) -> list[str]:
    usage = "all" if usage is None else usage
    if usage not in ("train", "test", "all"):
        raise ValueError(f"{who}: usage must be 'train', 'test' or 'all', got {usage!r}")
    return list(all_order) if usage == "all" else [usage]


def _check_dir(who: str, dataset_dir: Any) -> str:
    if not isinstance(dataset_dir, (str, os.PathLike)):
        raise TypeError(f"{who}: dataset_dir must be a str, got {type(dataset_dir).__name__}")
    path = os.fspath(dataset_dir)
    if not os.path.isdir(path):
        raise ValueError(f"{who}: dataset_dir {path} is not a directory")
    return path


def read_idx(path: str, ndim: int) -> np.ndarray:
    """An IDX file of unsigned bytes with ``ndim`` dimensions (the MNIST format: magic 0x0000 08 <ndim>, then
    the dimensions as big-endian int32, then the data)."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 + 4 * ndim or raw[:4] != bytes((0, 0, 8, ndim)):
        raise ValueError(f"{path} is not an IDX file of unsigned bytes with {ndim} dimensions (bad magic number)")
    dims = tuple(int(d) for d in np.frombuffer(raw, ">i4", ndim, 4))
    expected = 4 + 4 * ndim + int(np.prod(dims))
    if len(raw) != expected:
        raise ValueError(f"{path}: dimensions {list(dims)} need {expected} bytes, the file has {len(raw)} "
                         "(truncated or corrupt)")
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(dims)


class _ArraySource(_RandomAccessSource):
    """A source over in-memory columns: subclasses set ``_names`` and ``_columns``."""

    _names: list[str]
    _columns: list[Any]

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._columns[0])

    def _row(self, index: int) -> Row:
        return tuple(np.asarray(c[index]) for c in self._columns)


class MnistDataset(_ArraySource):
    """``MnistDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: rows ``image`` (uint8, (28, 28, 1)) and
    ``label`` (uint32 scalar) from ``train-images-idx3-ubyte`` / ``train-labels-idx1-ubyte`` and the
    ``t10k-`` files. ``usage`` 'train', 'test' or 'all' (None: 'all', the test images first, as MindSpore
    orders them)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError("MnistDataset: cache (a dataset cache server) is not supported")
        root = _check_dir("MnistDataset", dataset_dir)
        images, labels = [], []
        parts = _usage("MnistDataset", usage, ("test", "train"))
        # 'all' reads the splits whose files are there (as MindSpore does: the tutorials' MNIST_Data/train
        # holds the train files only); a split asked for by name, or no split at all, must be there.
        present = [p for p in parts if any(os.path.isfile(os.path.join(root, n)) for n in _MNIST_FILES[p])]
        # 'all': the test files first (MindSpore reads the files in name order: t10k- before train-).
        for part in present if len(parts) > 1 and present else parts:
            img_name, lbl_name = _MNIST_FILES[part]
            paths = [os.path.join(root, n) for n in (img_name, lbl_name)]
            missing = [p for p in paths if not os.path.isfile(p)]
            if missing:
                raise ValueError(f"MnistDataset: {missing} not found (usage {usage!r} needs {img_name} and "
                                 f"{lbl_name} in {root})")
            img, lbl = read_idx(paths[0], 3), read_idx(paths[1], 1)
            if len(img) != len(lbl):
                raise ValueError(f"MnistDataset: {img_name} has {len(img)} images but {lbl_name} {len(lbl)} labels")
            images.append(img[..., None])
            labels.append(lbl.astype(np.uint32))
        self._names = ["image", "label"]
        self._columns = [np.concatenate(images), np.concatenate(labels)]


class Cifar10Dataset(_ArraySource):
    """``Cifar10Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: rows ``image`` (uint8, (32, 32, 3), HWC) and
    ``label`` (uint32 scalar) from the binary version's ``data_batch_1.bin`` .. ``data_batch_5.bin`` (train)
    and ``test_batch.bin`` (test): records of one label byte and 3072 bytes in CHW order. The train files
    present are read in order; usage None means 'all'."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError("Cifar10Dataset: cache (a dataset cache server) is not supported")
        root = _check_dir("Cifar10Dataset", dataset_dir)
        records = []
        parts = _usage("Cifar10Dataset", usage, ("train", "test"))
        for part in parts:
            found = [os.path.join(root, n) for n in _CIFAR10_FILES[part] if os.path.isfile(os.path.join(root, n))]
            if not found and len(parts) > 1:
                continue  # 'all' reads the splits whose files are there, as MindSpore does
            if not found:
                raise ValueError(f"Cifar10Dataset: no {part} file ({', '.join(_CIFAR10_FILES[part])}) in {root}")
            for path in found:
                raw = np.fromfile(path, np.uint8)
                if raw.size % _CIFAR10_RECORD:
                    raise ValueError(f"Cifar10Dataset: {path} has {raw.size} bytes, not a whole number of "
                                     f"{_CIFAR10_RECORD}-byte records (truncated, or not the binary version)")
                records.append(raw.reshape(-1, _CIFAR10_RECORD))
        if not records:
            raise ValueError(f"Cifar10Dataset: no CIFAR-10 binary file ({', '.join(sum(_CIFAR10_FILES.values(), []))}) "
                             f"in {root}")
        data = np.concatenate(records)
        self._names = ["image", "label"]
        self._columns = [data[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), data[:, 0].astype(np.uint32)]


class ImageFolderDataset(_RandomAccessSource):
    """``ImageFolderDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, extensions=None, class_indexing=None, decode=False, num_shards=None, shard_id=None,
    cache=None, decrypt=None)``: one row per file in the sub-folders of ``dataset_dir``: ``image`` (the file's
    bytes, uint8 1-D; decoded to RGB HWC uint8 with ``decode``) and ``label`` (int32: the folder's index in
    sorted order, or ``class_indexing[folder]``). Folders and files are read in sorted order; ``extensions``
    (e.g. ``[".png", ".JPEG"]``) keeps the files with those suffixes (None: every file)."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, extensions: Sequence[str] | None = None,
                 class_indexing: dict[str, int] | None = None, decode: bool = False, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None, decrypt: Any = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None or decrypt is not None:
            raise NotImplementedError("ImageFolderDataset: cache and decrypt are not supported")
        root = _check_dir("ImageFolderDataset", dataset_dir)
        if not isinstance(decode, bool):
            raise TypeError(f"ImageFolderDataset: decode must be a bool, got {decode!r}")
        if class_indexing is not None and not isinstance(class_indexing, dict):
            raise RuntimeError("ImageFolderDataset: class_indexing must be a dict, got "
                               f"{type(class_indexing).__name__}")
        exts = tuple(extensions) if extensions else None
        folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        if class_indexing:
            unknown = [k for k in class_indexing if k not in folders]
            if unknown:
                raise ValueError(f"ImageFolderDataset: class_indexing names folders {unknown} that are not in {root}")
            folders = [f for f in folders if f in class_indexing]
            self._classes = dict(class_indexing)
        else:
            self._classes = {f: i for i, f in enumerate(folders)}
        self._files: list[tuple[str, int]] = []
        for folder in folders:
            for name in sorted(os.listdir(os.path.join(root, folder))):
                path = os.path.join(root, folder, name)
                if os.path.isfile(path) and (exts is None or name.endswith(exts)):
                    self._files.append((path, self._classes[folder]))
        self._decode = decode

    def get_class_indexing(self) -> dict[str, int]:
        """The folder name -> label mapping."""
        return dict(self._classes)

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _num_rows(self) -> int:
        return len(self._files)

    def _row(self, index: int) -> Row:
        path, label = self._files[index]
        data = np.fromfile(path, np.uint8)
        if self._decode:
            data = decode_image(data)  # imports Pillow on first use
        return data, np.asarray(label, np.int32)


__all__ = ["MnistDataset", "Cifar10Dataset", "ImageFolderDataset", "read_idx"]
