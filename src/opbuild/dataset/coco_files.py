"""``CocoDataset``: images and their COCO JSON annotations, for the Detection, Stuff, Keypoint, Panoptic and
Captioning tasks, with MindSpore's columns, dtypes and order (the images in the order of the file's
``images`` list)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from .detection_files import _AnnotatedImages, _check_decode, _refuse
from .readers import _check_dir

_COLUMNS = {"Detection": ["image", "bbox", "category_id", "iscrowd"],
            "Stuff": ["image", "segmentation", "iscrowd"],
            "Keypoint": ["image", "keypoints", "num_keypoints"],
            "Panoptic": ["image", "bbox", "category_id", "iscrowd", "area"],
            "Captioning": ["image", "captions"]}


def _col(values: list[Any], dtype: Any) -> np.ndarray:
    return np.asarray([[v] for v in values], dtype)


def _need(ann: dict, key: str, path: str) -> Any:
    if key not in ann:
        raise ValueError(f"CocoDataset: an annotation in {path} has no {key!r}, which this task needs")
    return ann[key]


def _detection(anns: list[dict], path: str) -> tuple[np.ndarray, ...]:
    bbox = np.asarray([_need(a, "bbox", path) for a in anns], np.float32).reshape(-1, 4)
    return (bbox, _col([_need(a, "category_id", path) for a in anns], np.uint32),
            _col([a.get("iscrowd", 0) for a in anns], np.uint32))


def _stuff(anns: list[dict], path: str) -> tuple[np.ndarray, ...]:
    # One row per polygon (a crowd region's RLE counts are one row), padded with -1 to the longest.
    rows: list[list[float]] = []
    for a in anns:
        seg = _need(a, "segmentation", path)
        if a.get("iscrowd", 0):
            if not isinstance(seg, dict) or "counts" not in seg:
                raise ValueError(f"CocoDataset: a crowd annotation in {path} needs segmentation {{'counts': ...}}")
            rows.append([float(v) for v in seg["counts"]])
        else:
            rows += [[float(v) for v in poly] for poly in seg]
    width = max((len(r) for r in rows), default=0)
    seg_arr = np.full((len(rows), width), -1.0, np.float32)
    for k, r in enumerate(rows):
        seg_arr[k, :len(r)] = r
    return seg_arr, _col([a.get("iscrowd", 0) for a in anns], np.uint32)


def _keypoint(anns: list[dict], path: str) -> tuple[np.ndarray, ...]:
    kps = [_need(a, "keypoints", path) for a in anns]
    return (np.asarray(kps, np.float32).reshape(len(anns), -1),
            _col([_need(a, "num_keypoints", path) for a in anns], np.uint32))


def _panoptic(segments: list[dict], path: str) -> tuple[np.ndarray, ...]:
    det = _detection(segments, path)
    return (*det, _col([_need(s, "area", path) for s in segments], np.uint32))


def _captioning(anns: list[dict], path: str) -> tuple[np.ndarray, ...]:
    return (np.asarray([[str(_need(a, "caption", path))] for a in anns]),)


_TASKS: dict[str, Callable[[list[dict], str], tuple[np.ndarray, ...]]] = {
    "Detection": _detection, "Stuff": _stuff, "Keypoint": _keypoint, "Panoptic": _panoptic,
    "Captioning": _captioning}


class CocoDataset(_AnnotatedImages):
    """``CocoDataset(dataset_dir, annotation_file, task='Detection', num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None, extra_metadata=False,
    decrypt=None)``: one row per image of ``annotation_file`` that has annotations (``dataset_dir/file_name``:
    the bytes, or RGB HWC uint8 with ``decode``). Columns by task: Detection ``bbox`` (float32 (N, 4)),
    ``category_id``, ``iscrowd`` (uint32 (N, 1)); Stuff ``segmentation`` (float32, one row per polygon, padded
    with -1), ``iscrowd``; Keypoint ``keypoints`` (float32 (N, 3K)), ``num_keypoints``; Panoptic ``bbox``,
    ``category_id``, ``iscrowd``, ``area`` (from each annotation's ``segments_info``); Captioning ``captions``
    (strings (N, 1))."""

    def __init__(self, dataset_dir: str, annotation_file: str, task: str = "Detection",
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, decode: bool = False, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None,
                 extra_metadata: bool = False, decrypt: Any = None) -> None:
        who = "CocoDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        _refuse(who, cache, decrypt, extra_metadata)
        self._decode = _check_decode(who, decode)
        if task not in _TASKS:
            raise ValueError(f"{who}: task must be one of {list(_TASKS)}, got {task!r}")
        root = _check_dir(who, dataset_dir)
        if not isinstance(annotation_file, (str, os.PathLike)) or not os.path.isfile(annotation_file):
            raise ValueError(f"{who}: annotation_file {annotation_file!r} is not an existing JSON file")
        try:
            with open(annotation_file, encoding="utf-8") as f:
                doc = json.load(f)
        except json.JSONDecodeError as err:
            raise ValueError(f"{who}: {annotation_file} is not JSON ({err})") from None
        if not isinstance(doc, dict) or "images" not in doc or "annotations" not in doc:
            raise ValueError(f"{who}: {annotation_file} needs 'images' and 'annotations' lists (COCO format)")
        self._task = task
        self._categories = doc.get("categories", [])
        by_image: dict[Any, list[dict]] = {}
        for ann in doc["annotations"]:
            if task == "Panoptic":
                by_image.setdefault(_need(ann, "image_id", annotation_file), []).extend(
                    _need(ann, "segments_info", annotation_file))
            else:
                by_image.setdefault(_need(ann, "image_id", annotation_file), []).append(ann)
        self._names = list(_COLUMNS[task])
        self._items = []
        for image in doc["images"]:
            anns = by_image.get(image.get("id"))
            if anns:
                path = os.path.join(root, str(image.get("file_name", "")))
                self._items.append((path, _TASKS[task](anns, annotation_file)))

    def get_class_indexing(self) -> dict[str, list[int]]:
        """Category name -> ``[id]`` (Panoptic: ``[id, isthing]``), from the file's ``categories``."""
        if self._task == "Captioning":
            raise RuntimeError("CocoDataset.get_class_indexing is not available for task='Captioning'")
        out = {}
        for c in self._categories:
            out[c["name"]] = [c["id"], c.get("isthing", 0)] if self._task == "Panoptic" else [c["id"]]
        return out


__all__ = ["CocoDataset"]
