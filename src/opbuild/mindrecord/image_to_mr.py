"""``MnistToMR`` and ``Cifar10ToMR``: the MNIST (gzipped IDX) and CIFAR-10 (Python pickle batches) datasets
to MindRecord files, with MindSpore's file names, schemas, index fields and batches. Images are stored as JPEG
(quality 95, as OpenCV's encoder that MindSpore uses); Pillow (the ``vision`` extra) encodes them, so the
JPEG bytes differ from MindSpore's while decoding to nearly the same pixels."""

from __future__ import annotations

import gzip
import io
import os
import pickle
import re
from typing import Any

import numpy as np

from .filewriter import SUCCESS, FileWriter

_MNIST_FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
                "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}


def _jpeg(image: np.ndarray) -> bytes:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("encoding images as JPEG needs Pillow: pip install 'opbuild[vision]'") from None
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image.astype(np.uint8).squeeze())).save(out, "JPEG", quality=95)
    return out.getvalue()


def _write(file_name: str, shards: int, schema: dict[str, Any], desc: str, index: list[str] | None,
           rows: list[dict[str, Any]], sizes: bool, batch_size: int | None) -> None:
    writer = FileWriter(file_name, shards)
    if sizes:
        writer.set_header_size(1 << 24)
        writer.set_page_size(1 << 26)
    writer.add_schema(schema, desc)
    if index:
        writer.add_index(index)
    step = batch_size or max(len(rows), 1)
    for start in range(0, len(rows), step):
        writer.write_raw_data(rows[start:start + step])
    writer.commit()


class MnistToMR:
    """Convert the gzipped MNIST files in ``source`` to ``<destination>_train.mindrecord`` and
    ``<destination>_test.mindrecord`` (``partition_number`` shards each): ``label`` (int64, indexed) and
    ``data`` (the image as JPEG bytes)."""

    def __init__(self, source: str, destination: str, partition_number: int = 1) -> None:
        if not isinstance(partition_number, int) or isinstance(partition_number, bool):
            raise ValueError("The parameter partition_number must be int")
        for names in _MNIST_FILES.values():
            for name in names:
                if not os.path.isfile(os.path.join(source, name)):
                    raise ValueError(f"MnistToMR: {os.path.join(source, name)} does not exist")
        self.source, self.destination, self.partition_number = source, destination, partition_number

    def _rows(self, usage: str) -> list[dict[str, Any]]:
        images_file, labels_file = (os.path.join(self.source, n) for n in _MNIST_FILES[usage])
        with gzip.open(images_file, "rb") as f:
            images = np.frombuffer(f.read()[16:], np.uint8).reshape(-1, 28, 28)
        with gzip.open(labels_file, "rb") as f:
            labels = np.frombuffer(f.read()[8:], np.uint8)
        return [{"label": int(label), "data": _jpeg(image)} for image, label in zip(images, labels)]

    def run(self) -> int:
        """Convert; returns SUCCESS (0)."""
        for usage in ("train", "test"):
            _write(f"{self.destination}_{usage}.mindrecord", self.partition_number,
                   {"label": {"type": "int64"}, "data": {"type": "bytes"}}, "mnist_schema", ["label"],
                   self._rows(usage), sizes=True, batch_size=256)
        return SUCCESS

    def transform(self) -> int:
        """Convert (as ``run``)."""
        return self.run()


def _unpickle(path: str) -> dict:
    class _Restricted(pickle.Unpickler):
        """CIFAR batches hold dicts, lists, bytes and numpy arrays; anything else is refused."""

        def find_class(self, module: str, name: str) -> Any:
            if module.split(".")[0] == "numpy" or (module == "builtins" and name in ("dict", "list", "bytes")):
                return super().find_class(module, name)
            raise pickle.UnpicklingError(f"{path}: global '{module}.{name}' is not allowed in a CIFAR batch")

    with open(path, "rb") as f:
        return _Restricted(f, encoding="bytes").load()


class Cifar10ToMR:
    """Convert the CIFAR-10 Python batches in ``source`` (``data_batch_*``, ``test_batch``) to
    ``destination`` and ``<destination>_test``: ``id`` (int64), ``label`` (int64) and ``data`` (the image as
    JPEG bytes). ``fields`` given to ``transform`` are indexed. Batches are read in name order (MindSpore reads
    them in directory order)."""

    def __init__(self, source: str, destination: str) -> None:
        files = os.listdir(source) if os.path.isdir(source) else []
        if not any(f.startswith("data_batch_") for f in files):
            raise ValueError(f"Cifar10ToMR: no data_batch_* file in {source}")
        if "test_batch" not in files:
            raise ValueError(f"Cifar10ToMR: no test_batch file in {source}")
        self.source, self.destination = source, destination

    def _load(self, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
        batches = [_unpickle(os.path.join(self.source, n)) for n in names]
        images = np.concatenate([np.asarray(b[b"data"]).reshape(-1, 3, 32, 32) for b in batches])
        labels = np.concatenate([np.asarray(b[b"labels"]) for b in batches])
        return images.transpose(0, 2, 3, 1), labels

    def run(self, fields: list[str] | None = None) -> int:
        """Convert; returns SUCCESS (0)."""
        if fields and not isinstance(fields, list):
            raise ValueError("The parameter fields should be None or list")
        train = sorted(f for f in os.listdir(self.source) if re.match("data_batch_", f))
        schema = {"id": {"type": "int64"}, "label": {"type": "int64"}, "data": {"type": "bytes"}}
        for file_name, names, desc in ((self.destination, train, "img_train"),
                                       (self.destination + "_test", ["test_batch"], "img_test")):
            images, labels = self._load(names)
            rows = [{"id": i, "data": _jpeg(img), "label": int(label)}
                    for i, (img, label) in enumerate(zip(images, labels))]
            _write(file_name, 1, schema, desc, fields, rows, sizes=False, batch_size=None)
        return SUCCESS

    def transform(self, fields: list[str] | None = None) -> int:
        """Convert (as ``run``)."""
        return self.run(fields)


class Cifar100ToMR:
    """Convert the CIFAR-100 Python files in ``source`` (``train``, ``test``) to ``destination`` and
    ``<destination>_test``: ``id``, ``fine_label``, ``coarse_label`` (int64) and ``data`` (JPEG bytes).
    ``fields`` given to ``transform`` are indexed."""

    def __init__(self, source: str, destination: str) -> None:
        for name in ("train", "test"):
            if not os.path.isfile(os.path.join(source, name)):
                raise ValueError(f"Cifar100ToMR: no {name} file in {source}")
        self.source, self.destination = source, destination

    def run(self, fields: list[str] | None = None) -> int:
        """Convert; returns SUCCESS (0)."""
        if fields and not isinstance(fields, list):
            raise ValueError("The parameter fields should be None or list")
        schema = {"id": {"type": "int64"}, "fine_label": {"type": "int64"}, "coarse_label": {"type": "int64"},
                  "data": {"type": "bytes"}}
        for file_name, name, desc in ((self.destination, "train", "img_train"),
                                      (self.destination + "_test", "test", "img_test")):
            batch = _unpickle(os.path.join(self.source, name))
            images = np.asarray(batch[b"data"]).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
            rows = [{"id": i, "data": _jpeg(img), "fine_label": int(fine), "coarse_label": int(coarse)}
                    for i, (img, fine, coarse) in enumerate(zip(images, batch[b"fine_labels"],
                                                                 batch[b"coarse_labels"]))]
            _write(file_name, 1, schema, desc, fields, rows, sizes=False, batch_size=None)
        return SUCCESS

    def transform(self, fields: list[str] | None = None) -> int:
        """Convert (as ``run``)."""
        return self.run(fields)
