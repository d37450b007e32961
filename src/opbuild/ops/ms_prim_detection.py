"""MindSpore's detection and sequence primitive classes over ops/api/detection.py and sequence_ops.py:
``NMSWithMask``, ``ROIAlign``, ``CTCGreedyDecoder``, ``CTCLoss``, ``EditDistance`` and ``NoRepeatNGram`` (one
table row each, the pattern of ms_prim_classes.py). Checked against MindSpore in tests/compat/test_detection.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .api import detection as D
from .api import sequence_ops as S
from .ms_prim_classes import REQUIRED, make_primitive
from .primitive import Primitive

TABLE: dict[str, tuple[tuple[tuple[str, Any], ...], Callable, str]] = {
    "NMSWithMask": ((("iou_threshold", 0.5),), lambda a, bboxes: D.nms_with_mask(bboxes, a["iou_threshold"]),
                    "Greedy non-maximum suppression of (N, 5) scored boxes: sorted boxes, indices, kept mask."),
    "ROIAlign": ((("pooled_height", REQUIRED), ("pooled_width", REQUIRED), ("spatial_scale", REQUIRED),
                  ("sample_num", 2), ("roi_end_mode", 1)),
                 lambda a, features, rois: D.roi_align(features, rois, a["pooled_height"], a["pooled_width"],
                                                       a["spatial_scale"], a["sample_num"], a["roi_end_mode"]),
                 "Bilinear region-of-interest pooling of (N, C, H, W) features over (R, 5) regions."),
    "CTCGreedyDecoder": ((("merge_repeated", True),),
                         lambda a, inputs, lengths: D.ctc_greedy_decoder(inputs, lengths, a["merge_repeated"]),
                         "Greedy (best path) CTC decoding (``ops.ctc_greedy_decoder``)."),
    "CTCLoss": ((("preprocess_collapse_repeated", False), ("ctc_merge_repeated", True),
                 ("ignore_longer_outputs_than_inputs", False)),
                lambda a, x, idx, val, n: S.ctc_loss_with_grad(x, idx, val, n, a["preprocess_collapse_repeated"],
                                                               a["ctc_merge_repeated"],
                                                               a["ignore_longer_outputs_than_inputs"]),
                "TensorFlow's CTC loss of logits with sparse labels (blank: the last class) and its gradient."),
    "EditDistance": ((("normalize", True),),
                     lambda a, hi, hv, hs, ti, tv, ts: S.edit_distance(hi, hv, hs, ti, tv, ts, a["normalize"]),
                     "Levenshtein distance between sparse hypothesis and truth sequences."),
    "NoRepeatNGram": ((("ngram_size", 1),), lambda a, seq, lp: S.no_repeat_ngram(seq, lp, a["ngram_size"]),
                      "Bans (-FLT_MAX) every token that would repeat an n-gram of the sequence so far."),
}

PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
