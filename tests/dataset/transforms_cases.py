"""Deterministic ``dataset.transforms`` calls (``build(T)`` over the framework's transforms module: name ->
(transform, input)); scripts/record_vision_transforms.py records MindSpore 2.10's outputs into
tests/fixtures/mindspore/data_transforms.npz, tests/dataset/test_vision_transforms.py compares opbuild's."""

import numpy as np


def build(T) -> dict:
    """name -> (transform, input)."""
    return {
        "Concatenate": (T.Concatenate(0, np.array([10, 20]), np.array([100])), np.array([1, 2, 3])),
        "Concatenate_str": (T.Concatenate(0, np.array(["dw", "df"]), np.array(["dwsdf", "df"])),
                            np.array(["This", "is", "a", "string"])),
        "Duplicate": (T.Duplicate(), np.array([1, 2, 3])),
        "Fill": (T.Fill(100), np.array([1, 2, 3])),
        "Fill_float": (T.Fill(2.5), np.array([1.0, 2.0], np.float32)),
        "Mask_eq": (T.Mask(T.Relational.EQ, 2), np.array([1, 2, 3])),
        "Mask_gt": (T.Mask(T.Relational.GT, 1), np.array([1, 2, 3])),
        "PadEnd": (T.PadEnd(pad_shape=[4], pad_value=10), np.array([1, 2, 3])),
        "PadEnd_2d": (T.PadEnd(pad_shape=[3, 3]), np.array([[1, 2], [3, 4]])),
        "PadEnd_cut": (T.PadEnd(pad_shape=[2]), np.array([1, 2, 3])),
        "Slice": (T.Slice(slice(1, 3)), np.array([1, 2, 3])),
        "Slice_list": (T.Slice([0, 2]), np.array([1, 2, 3])),
        "Unique": (T.Unique(), np.array([[0, -1, -2, -1, 2], [2, -0, 2, 1, -3]])),
    }
