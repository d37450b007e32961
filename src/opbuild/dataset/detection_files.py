"""Readers of annotated image files in MindSpore's formats: ``ManifestDataset`` (ModelArts JSON-lines
manifests), ``VOCDataset`` (PASCAL VOC: Detection and Segmentation tasks, XML annotations) and
``CocoDataset`` (COCO JSON: Detection, Stuff, Keypoint, Panoptic and Captioning tasks), with MindSpore's
columns, dtypes, order and sampling arguments. Annotations are parsed when the dataset is created; images
are read (and decoded with ``decode``) row by row."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from .core import Row
from .readers import _check_dir
from .sources import _RandomAccessSource
from .vision import decode_image

# Leading bytes of the image formats MindSpore's manifest reader accepts (it skips other files).
_IMAGE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"BM", b"GIF8", b"II*\x00", b"MM\x00*")


def _refuse(who: str, cache: Any, decrypt: Any = None, extra_metadata: bool = False) -> None:
    if cache is not None or decrypt is not None:
        raise NotImplementedError(f"{who}: cache and decrypt are not supported")
    if extra_metadata:
        raise NotImplementedError(f"{who}: extra_metadata is not supported (the _meta-filename column); leave it "
                                  "False")


def _image(path: str, decode: bool) -> np.ndarray:
    if not os.path.isfile(path):
        raise ValueError(f"image file {path} does not exist")
    data = np.fromfile(path, np.uint8)
    return decode_image(data) if decode else data


class _AnnotatedImages(_RandomAccessSource):
    """Rows of an image file and annotation arrays: subclasses fill ``_names`` and ``_items`` (the image
    path and the annotation columns) in their constructor."""

    _names: list[str]
    _items: list[tuple[str, tuple[np.ndarray, ...]]]
    _decode: bool

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, ann = self._items[index]
        return (_image(path, self._decode), *ann)


def _check_decode(who: str, decode: Any) -> bool:
    if not isinstance(decode, bool):
        raise TypeError(f"{who}: decode must be a bool, got {decode!r}")
    return decode


class ManifestDataset(_AnnotatedImages):
    """``ManifestDataset(dataset_file, usage='train', num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, class_indexing=None, decode=False, num_shards=None, shard_id=None, cache=None)``: one row per
    line of the manifest whose ``usage`` matches (case-insensitively; 'train', 'eval' or 'inference'), has
    ``modelarts/image_classification`` annotations and whose ``source`` is an image file: ``image`` (the
    file's bytes, or RGB HWC uint8 with ``decode``) and ``label`` (int32: a scalar for one annotation, a 1-D
    array for several). Labels index the class names in sorted order, or ``class_indexing``."""

    def __init__(self, dataset_file: str, usage: str = "train", num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 class_indexing: dict[str, int] | None = None, decode: bool = False, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        who = "ManifestDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _refuse(who, cache)
        self._decode = _check_decode(who, decode)
        if usage not in ("train", "eval", "inference"):
            raise ValueError(f"{who}: usage must be 'train', 'eval' or 'inference', got {usage!r}")
        if not isinstance(dataset_file, (str, os.PathLike)) or not os.path.isfile(dataset_file):
            raise ValueError(f"{who}: dataset_file {dataset_file!r} is not an existing manifest file")
        if class_indexing is not None and not isinstance(class_indexing, dict):
            raise TypeError(f"{who}: class_indexing must be a dict of class name -> label, got {class_indexing!r}")
        entries: list[tuple[str, list[str]]] = []
        with open(dataset_file, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    js = json.loads(line)
                except json.JSONDecodeError as err:
                    raise ValueError(f"{who}: line {k} of {dataset_file} is not JSON ({err})") from None
                if str(js.get("usage", "")).lower() != usage:
                    continue
                names = [a.get("name", "") for a in js.get("annotation") or []
                         if a.get("type") == "modelarts/image_classification"]
                source = str(js.get("source", ""))
                if names and self._is_image(source):
                    entries.append((source, names))
        if not entries:
            raise ValueError(f"{who}: {dataset_file} has no {usage!r} line with a classification annotation and "
                             "an existing image file")
        if class_indexing is None:
            class_indexing = {n: i for i, n in enumerate(sorted({n for _, ns in entries for n in ns}))}
        self._classes = dict(class_indexing)
        self._names = ["image", "label"]
        self._items = []
        for source, names in entries:
            unknown = [n for n in names if n not in self._classes]
            if unknown:
                raise ValueError(f"{who}: {source} is labelled {unknown}, which class_indexing does not name")
            labels = np.asarray([self._classes[n] for n in names], np.int32)
            self._items.append((source, (labels[0] if len(labels) == 1 else labels,)))

    @staticmethod
    def _is_image(path: str) -> bool:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as f:
            head = f.read(4)
        return head.startswith(_IMAGE_MAGIC)

    def get_class_indexing(self) -> dict[str, int]:
        """The class name -> label mapping."""
        return dict(self._classes)


def _xml_int(node: ET.Element, tag: str, default: int = 0) -> int:
    child = node.find(tag)
    return default if child is None or child.text is None else int(float(child.text))


class VOCDataset(_AnnotatedImages):
    """``VOCDataset(dataset_dir, task='Segmentation', usage='train', class_indexing=None, num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
    cache=None, extra_metadata=False, decrypt=None)``: the images listed in ``ImageSets/<Main|Segmentation>/
    <usage>.txt``. Detection: ``image``, ``bbox`` (float32 (N, 4): xmin, ymin, width, height), ``label``,
    ``difficult``, ``truncate`` (uint32 (N, 1)) from ``Annotations/<id>.xml``; labels index the object names
    in sorted order, or ``class_indexing`` (objects it does not name are left out). Segmentation: ``image`` and
    ``target`` (``SegmentationClass/<id>.png``). Images are the file bytes, or decoded with ``decode``."""

    def __init__(self, dataset_dir: str, task: str = "Segmentation", usage: str = "train",
                 class_indexing: dict[str, int] | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None, cache: Any = None,
                 extra_metadata: bool = False, decrypt: Any = None) -> None:
        who = "VOCDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _refuse(who, cache, decrypt, extra_metadata)
        self._decode = _check_decode(who, decode)
        if task not in ("Detection", "Segmentation"):
            raise ValueError(f"{who}: task must be 'Detection' or 'Segmentation', got {task!r}")
        if class_indexing is not None:
            if task != "Detection":
                raise ValueError(f"{who}: class_indexing is only for task='Detection'")
            if not isinstance(class_indexing, dict):
                raise TypeError(f"{who}: class_indexing must be a dict of class name -> label")
        root = _check_dir(who, dataset_dir)
        listing = os.path.join(root, "ImageSets", "Main" if task == "Detection" else "Segmentation", f"{usage}.txt")
        if not os.path.isfile(listing):
            raise ValueError(f"{who}: {listing} not found (task {task!r}, usage {usage!r} reads that list of images)")
        with open(listing, encoding="utf-8") as f:
            ids = [line.strip() for line in f if line.strip()]
        self._task = task
        self._items = []
        if task == "Segmentation":
            self._names = ["image", "target"]
            self._classes: dict[str, int] = {}
            for i in ids:
                target = os.path.join(root, "SegmentationClass", f"{i}.png")
                self._items.append((os.path.join(root, "JPEGImages", f"{i}.jpg"), (target,)))
            return
        objects = {i: self._objects(os.path.join(root, "Annotations", f"{i}.xml")) for i in ids}
        if class_indexing is None:
            class_indexing = {n: k for k, n in enumerate(sorted({o[0] for objs in objects.values() for o in objs}))}
        self._classes = dict(class_indexing)
        self._names = ["image", "bbox", "label", "difficult", "truncate"]
        for i in ids:
            kept = [o for o in objects[i] if o[0] in self._classes]
            if not kept:
                continue
            bbox = np.asarray([o[3] for o in kept], np.float32).reshape(-1, 4)
            col = [np.asarray([[v] for v in vals], np.uint32) for vals in
                   ([self._classes[o[0]] for o in kept], [o[1] for o in kept], [o[2] for o in kept])]
            self._items.append((os.path.join(root, "JPEGImages", f"{i}.jpg"), (bbox, *col)))

    @staticmethod
    def _objects(path: str) -> list[tuple[str, int, int, list[float]]]:
        if not os.path.isfile(path):
            raise ValueError(f"VOCDataset: annotation file {path} not found")
        try:
            tree = ET.parse(path)
        except ET.ParseError as err:
            raise ValueError(f"VOCDataset: {path} is not valid XML ({err})") from None
        out = []
        for obj in tree.getroot().iter("object"):
            name = (obj.findtext("name") or "").strip()
            box = obj.find("bndbox")
            if not name or box is None:
                raise ValueError(f"VOCDataset: an object in {path} has no name or no bndbox")
            x0, y0, x1, y1 = (float(box.findtext(t) or "nan") for t in ("xmin", "ymin", "xmax", "ymax"))
            if not (x1 > x0 and y1 > y0):
                raise ValueError(f"VOCDataset: bndbox {[x0, y0, x1, y1]} of {name!r} in {path} is empty or "
                                 "missing a coordinate")
            out.append((name, _xml_int(obj, "difficult"), _xml_int(obj, "truncated"), [x0, y0, x1 - x0, y1 - y0]))
        return out

    def _row(self, index: int) -> Row:
        if self._task == "Segmentation":
            path, (target,) = self._items[index]
            return _image(path, self._decode), _image(target, self._decode)
        return super()._row(index)

    def get_class_indexing(self) -> dict[str, int]:
        """The object name -> label mapping (task 'Detection' only)."""
        if self._task != "Detection":
            raise RuntimeError("VOCDataset.get_class_indexing is only for task='Detection'")
        return dict(self._classes)


_WIDER_COLUMNS = ["image", "bbox", "blur", "expression", "illumination", "occlusion", "pose", "invalid"]


class WIDERFaceDataset(_AnnotatedImages):
    """``WIDERFaceDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)``: the images of
    ``wider_face_split/wider_face_<train|val>_bbx_gt.txt`` in its order (``WIDER_<train|val>/images/``), 'all'
    (None) train then valid: ``image``, ``bbox`` (int32 (N, 4)) and ``blur``, ``expression``,
    ``illumination``, ``occlusion``, ``pose``, ``invalid`` (int32 (N,): the line's fields after the box, in
    that order, as MindSpore reads them). An image without faces keeps its placeholder line, as MindSpore.
    Usage 'test' (images without annotations) is not supported."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "WIDERFaceDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _refuse(who, cache)
        self._decode = _check_decode(who, decode)
        usage = "all" if usage is None else usage
        if usage == "test":
            raise NotImplementedError(f"{who}: usage 'test' (images without annotations) is not supported")
        if usage not in ("train", "valid", "all"):
            raise ValueError(f"{who}: usage must be 'train', 'valid', 'test' or 'all', got {usage!r}")
        root = _check_dir(who, dataset_dir)
        self._names = list(_WIDER_COLUMNS)
        self._items = []
        for part in (("train", "val") if usage == "all" else ("val" if usage == "valid" else "train",)):
            listing = os.path.join(root, "wider_face_split", f"wider_face_{part}_bbx_gt.txt")
            if not os.path.isfile(listing):
                raise ValueError(f"{who}: {listing} not found (usage {usage!r})")
            with open(listing, encoding="utf-8") as f:
                lines = [line.strip() for line in f if line.strip()]
            pos = 0
            while pos < len(lines):
                name = lines[pos]
                try:
                    count = int(lines[pos + 1])
                    boxes = [[int(v) for v in lines[pos + 2 + k].split()[:10]] for k in range(max(count, 1))]
                except (IndexError, ValueError):
                    raise ValueError(f"{who}: the annotation of {name} in {listing} is not '<count>' then that many "
                                     "lines of 10 numbers") from None
                pos += 2 + max(count, 1)
                arr = np.asarray(boxes, np.int32).reshape(-1, 10)
                path = os.path.join(root, f"WIDER_{part}", "images", name)
                self._items.append((path, (arr[:, :4].copy(), *(arr[:, c].copy() for c in range(4, 10)))))


# KITTI's object classes, indexed in sorted order (MindSpore's labels).
_KITTI_CLASSES = {n: i for i, n in enumerate(sorted(("Car", "Van", "Truck", "Pedestrian", "Person_sitting", "Cyclist",
                                                      "Tram", "Misc", "DontCare")))}
_KITTI_COLUMNS = ["image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions", "location", "rotation_y"]


class KITTIDataset(_AnnotatedImages):
    """``KITTIDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None)``: the object detection set:
    'train' (None) reads ``data_object_image_2/training/image_2/*.png`` with ``data_object_label_2/training/
    label_2/<id>.txt``: ``image``, ``label`` (uint32 (N, 1), the class in sorted order of KITTI's nine),
    ``truncated``, ``occluded`` (uint32), ``alpha`` (N, 1), ``bbox`` (N, 4), ``dimensions``, ``location`` (N,
    3), ``rotation_y`` (N, 1) (float32 unless said); 'test' reads the ``testing`` images, column ``image``."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, decode: bool = False,
                 sampler: Any = None, num_shards: int | None = None, shard_id: int | None = None,
                 cache: Any = None) -> None:
        who = "KITTIDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _refuse(who, cache)
        self._decode = _check_decode(who, decode)
        usage = "train" if usage is None else usage
        if usage not in ("train", "test"):
            raise ValueError(f"{who}: usage must be 'train' or 'test', got {usage!r}")
        root = _check_dir(who, dataset_dir)
        part = "training" if usage == "train" else "testing"
        images = os.path.join(root, "data_object_image_2", part, "image_2")
        if not os.path.isdir(images):
            raise ValueError(f"{who}: folder {images} not found (usage {usage!r})")
        names = sorted(n for n in os.listdir(images) if n.endswith(".png"))
        self._names = list(_KITTI_COLUMNS) if usage == "train" else ["image"]
        self._items = []
        for name in names:
            if usage == "test":
                self._items.append((os.path.join(images, name), ()))
                continue
            label = os.path.join(root, "data_object_label_2", part, "label_2", name[:-4] + ".txt")
            self._items.append((os.path.join(images, name), self._objects(who, label)))

    @staticmethod
    def _objects(who: str, path: str) -> tuple[np.ndarray, ...]:
        if not os.path.isfile(path):
            raise ValueError(f"{who}: label file {path} not found")
        with open(path, encoding="utf-8") as f:
            rows = [line.split() for line in f if line.strip()]
        for k, r in enumerate(rows, 1):
            if len(r) != 15 or r[0] not in _KITTI_CLASSES:
                raise ValueError(f"{who}: line {k} of {path} is not '<class> 14 numbers' with a KITTI class")
        nums = np.asarray([[float(v) for v in r[1:]] for r in rows], np.float32).reshape(-1, 14)
        labels = np.asarray([[_KITTI_CLASSES[r[0]]] for r in rows], np.uint32).reshape(-1, 1)
        return (labels, nums[:, 0:1].copy(), nums[:, 1:2].astype(np.uint32), nums[:, 2:3].copy(), nums[:, 3:7].copy(),
                nums[:, 7:10].copy(), nums[:, 10:13].copy(), nums[:, 13:14].copy())


__all__ = ["ManifestDataset", "VOCDataset", "WIDERFaceDataset", "KITTIDataset"]
