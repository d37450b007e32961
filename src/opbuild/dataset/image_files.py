"""Readers of more image-classification files in MindSpore's formats: ``Cifar100Dataset`` (the binary
version), the MNIST-format family ``FashionMnistDataset``, ``KMnistDataset``, ``EMnistDataset`` and
``QMnistDataset``, with MindSpore's columns, dtypes, split order and sampling arguments."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .readers import _ArraySource, _check_dir, read_idx

_CIFAR100_RECORD = 2 + 32 * 32 * 3
_EMNIST_NAMES = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")


def _splits(who: str, usage: str | None, allowed: tuple[str, ...], all_order: tuple[str, ...]) -> list[str]:
    usage = "all" if usage is None else usage
    if usage not in allowed:
        raise ValueError(f"{who}: usage must be one of {list(allowed)}, got {usage!r}")
    return list(all_order) if usage == "all" else [usage]


def _need(who: str, paths: list[str], usage: Any) -> None:
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        raise ValueError(f"{who}: {missing} not found (needed for usage {usage!r})")


class Cifar100Dataset(_ArraySource):
    """``Cifar100Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: rows ``image`` (uint8 (32, 32, 3) HWC),
    ``coarse_label`` and ``fine_label`` (uint32 scalars) from the binary version's ``train.bin`` and
    ``test.bin`` (records of the coarse label byte, the fine label byte and 3072 bytes in CHW order).
    ``usage`` 'train', 'test' or 'all' (None: 'all', train first). Unlike MindSpore, a file need not hold
    exactly 50000 / 10000 records."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        who = "Cifar100Dataset"
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        root = _check_dir(who, dataset_dir)
        records = []
        for part in _splits(who, usage, ("train", "test", "all"), ("train", "test")):
            path = os.path.join(root, f"{part}.bin")
            _need(who, [path], usage)
            raw = np.fromfile(path, np.uint8)
            if raw.size % _CIFAR100_RECORD:
                raise ValueError(f"{who}: {path} has {raw.size} bytes, not a whole number of {_CIFAR100_RECORD}-"
                                 "byte records (truncated, or not the CIFAR-100 binary version)")
            records.append(raw.reshape(-1, _CIFAR100_RECORD))
        data = np.concatenate(records)
        self._names = ["image", "coarse_label", "fine_label"]
        self._columns = [data[:, 2:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1),
                         data[:, 0].astype(np.uint32), data[:, 1].astype(np.uint32)]


class _IdxPairs(_ArraySource):
    """Images and labels from pairs of IDX files, one pair per split, the splits concatenated."""

    def _read(self, who: str, pairs: list[tuple[str, str]], usage: Any) -> None:
        images, labels = [], []
        for img_path, lbl_path in pairs:
            _need(who, [img_path, lbl_path], usage)
            img, lbl = read_idx(img_path, 3), self._labels(lbl_path)
            if len(img) != len(lbl):
                raise ValueError(f"{who}: {img_path} has {len(img)} images but {lbl_path} {len(lbl)} labels")
            images.append(img[..., None])
            labels.append(lbl)
        self._names = ["image", "label"]
        self._columns = [np.concatenate(images), np.concatenate(labels)]

    def _labels(self, path: str) -> np.ndarray:
        return read_idx(path, 1).astype(np.uint32)


def _mnist_like(who: str, self: _IdxPairs, dataset_dir: Any, usage: str | None) -> None:
    root = _check_dir(who, dataset_dir)
    prefix = {"train": "train", "test": "t10k"}
    parts = _splits(who, usage, ("train", "test", "all"), ("test", "train"))
    self._read(who, [(os.path.join(root, f"{prefix[p]}-images-idx3-ubyte"),
                      os.path.join(root, f"{prefix[p]}-labels-idx1-ubyte")) for p in parts], usage)


class FashionMnistDataset(_IdxPairs):
    """``FashionMnistDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: the MNIST file layout and columns (``image``
    uint8 (28, 28, 1), ``label`` uint32); ``usage`` None means 'all', the test images first."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{type(self).__name__}: cache (a dataset cache server) is not supported")
        _mnist_like(type(self).__name__, self, dataset_dir, usage)


class KMnistDataset(FashionMnistDataset):
    """``KMnistDataset(dataset_dir, usage=None, ...)``: Kuzushiji-MNIST, in the MNIST file layout and columns
    (see :class:`FashionMnistDataset`)."""


class EMnistDataset(_IdxPairs):
    """``EMnistDataset(dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: the EMNIST split ``name`` ('byclass',
    'bymerge', 'balanced', 'letters', 'digits' or 'mnist') from ``emnist-<name>-<train|test>-images-idx3-ubyte``
    and ``-labels-idx1-ubyte``: ``image`` uint8 (28, 28, 1), ``label`` uint32; 'all' lists the test images
    first."""

    def __init__(self, dataset_dir: str, name: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        who = "EMnistDataset"
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        if name not in _EMNIST_NAMES:
            raise ValueError(f"{who}: name must be one of {list(_EMNIST_NAMES)}, got {name!r}")
        root = _check_dir(who, dataset_dir)
        parts = _splits(who, usage, ("train", "test", "all"), ("test", "train"))
        self._read(who, [(os.path.join(root, f"emnist-{name}-{p}-images-idx3-ubyte"),
                          os.path.join(root, f"emnist-{name}-{p}-labels-idx1-ubyte")) for p in parts], usage)


def read_idx_int(path: str) -> np.ndarray:
    """A 2-D IDX file of big-endian int32 (QMNIST's label files: magic 0x00000C02)."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 12 or raw[:4] != bytes((0, 0, 0x0C, 2)):
        raise ValueError(f"{path} is not a 2-D IDX file of int32 (bad magic number)")
    rows, cols = (int(d) for d in np.frombuffer(raw, ">i4", 2, 4))
    if len(raw) != 12 + 4 * rows * cols:
        raise ValueError(f"{path}: dimensions [{rows}, {cols}] need {12 + 4 * rows * cols} bytes, the file has "
                         f"{len(raw)} (truncated or corrupt)")
    return np.frombuffer(raw, ">i4", offset=12).reshape(rows, cols)


_QMNIST_FILES = {"train": "qmnist-train", "test": "qmnist-test", "nist": "xnist"}


class QMnistDataset(_IdxPairs):
    """``QMnistDataset(dataset_dir, usage=None, compat=True, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)``: QMNIST's
    ``qmnist-<train|test>-`` and ``xnist-`` files (``images-idx3-ubyte``, ``labels-idx2-int``): ``image``
    uint8 (28, 28, 1), ``label`` uint32: the class (a scalar) with ``compat``, else all 8 label fields.
    ``usage`` 'train', 'test', 'test10k', 'test50k', 'nist' or 'all' (None: 'all', in the order train, test,
    nist)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, compat: bool = True,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        who = "QMnistDataset"
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        if not isinstance(compat, bool):
            raise TypeError(f"{who}: compat must be a bool, got {compat!r}")
        self._compat = compat
        root = _check_dir(who, dataset_dir)
        parts = _splits(who, usage, ("train", "test", "test10k", "test50k", "nist", "all"),
                        ("train", "test", "nist"))
        files = [_QMNIST_FILES["test" if p.startswith("test") else p] for p in parts]
        self._read(who, [(os.path.join(root, f"{f}-images-idx3-ubyte"), os.path.join(root, f"{f}-labels-idx2-int"))
                         for f in files], usage)
        if usage in ("test10k", "test50k"):  # the first 10000 test images, or the 50000 after them
            keep = slice(0, 10000) if usage == "test10k" else slice(10000, None)
            self._columns = [c[keep] for c in self._columns]

    def _labels(self, path: str) -> np.ndarray:
        lab = read_idx_int(path).astype(np.uint32)
        return lab[:, 0] if self._compat else lab


__all__ = ["Cifar100Dataset", "FashionMnistDataset", "KMnistDataset", "EMnistDataset", "QMnistDataset",
           "read_idx_int"]
