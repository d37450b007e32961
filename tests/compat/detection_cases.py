"""Cases of the detection and sequence operators (ops/api/detection.py, ops/ms_prim_detection.py), written
once against a MindSpore-shaped namespace: scripts/record_detection.py runs them on real MindSpore 2.10 into
tests/fixtures/detection.npz; tests/compat/test_detection.py runs them on opbuild and compares.

Each case is ``name -> (fn(ms, ops, *tensors), inputs)``; this module imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RNG = np.random.default_rng(77)


def _i(*values, dtype=np.int64) -> np.ndarray:
    return np.array(values, dtype)


BOXES = np.array([[0, 0, 10, 9, 0.95], [1, 1, 11, 11, 0.9], [20, 20, 30, 30, 0.7], [0, 0, 10, 10, 0.5],
                  [21, 21, 30, 30, 0.1], [40, 0, 44, 3, 0.7]], np.float32)
FEATURES = RNG.uniform(-1, 1, (2, 3, 6, 7)).astype(np.float32)
ROIS = np.array([[0, 0.5, 1.0, 4.0, 3.5], [1, 2.2, 0.3, 6.8, 5.9], [0, -1.0, -0.5, 2.0, 8.0],
                 [1, 3.0, 3.0, 3.2, 3.1]], np.float32)
CTC_LOGITS = RNG.normal(0, 1, (5, 3, 4)).astype(np.float32)
CTC_INDICES = _i([0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2])
CTC_VALUES = _i(1, 1, 2, 0, 2, 2, dtype=np.int32)
CTC_LENGTHS = _i(5, 4, 5, dtype=np.int32)
GREEDY = RNG.normal(0, 1, (6, 3, 4)).astype(np.float32)

CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "NMSWithMask": (lambda ms, ops, b: ops.NMSWithMask(0.5)(b), [BOXES]),
    "NMSWithMask_08": (lambda ms, ops, b: ops.NMSWithMask(0.8)(b), [BOXES]),
    "NMSWithMask_float16": (lambda ms, ops, b: ops.NMSWithMask(0.3)(b), [BOXES.astype(np.float16)]),
    "ROIAlign": (lambda ms, ops, f, r: ops.ROIAlign(2, 3, 0.5, 2)(f, r), [FEATURES, ROIS]),
    "ROIAlign_end_mode0": (lambda ms, ops, f, r: ops.ROIAlign(3, 2, 1.0, 1, 0)(f, r), [FEATURES, ROIS]),
    "ROIAlign_adaptive": (lambda ms, ops, f, r: ops.ROIAlign(2, 2, 0.75, 0)(f, r), [FEATURES, ROIS]),
    "CTCGreedyDecoder": (lambda ms, ops, x, n: ops.CTCGreedyDecoder()(x, n), [GREEDY, _i(6, 3, 5, dtype=np.int32)]),
    "ctc_greedy_decoder_no_merge": (lambda ms, ops, x, n: ops.ctc_greedy_decoder(x, n, False),
                                    [GREEDY, _i(4, 6, 2, dtype=np.int32)]),
    "CTCLoss": (lambda ms, ops, x, i, v, n: ops.CTCLoss()(x, i, v, n),
                [CTC_LOGITS, CTC_INDICES, CTC_VALUES, CTC_LENGTHS]),
    "CTCLoss_collapse": (lambda ms, ops, x, i, v, n: ops.CTCLoss(preprocess_collapse_repeated=True)(x, i, v, n),
                         [CTC_LOGITS, CTC_INDICES, CTC_VALUES, CTC_LENGTHS]),
    "CTCLoss_no_merge": (lambda ms, ops, x, i, v, n: ops.CTCLoss(ctc_merge_repeated=False)(x, i, v, n),
                         [CTC_LOGITS, CTC_INDICES, CTC_VALUES, CTC_LENGTHS]),
    "CTCLoss_ignore_longer": (lambda ms, ops, x, i, v, n: ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(
        x, i, v, n), [CTC_LOGITS, CTC_INDICES, CTC_VALUES, _i(5, 4, 2, dtype=np.int32)]),
    "EditDistance": (lambda ms, ops, hi, hv, ti, tv: ops.EditDistance(True)(
        hi, hv, ms.Tensor(_i(2, 2, 3)), ti, tv, ms.Tensor(_i(2, 2, 4))),
        [_i([0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 2], [1, 1, 0], [1, 1, 1]), _i(1, 2, 3, 4, 5, 6),
         _i([0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 1, 0], [1, 0, 0], [1, 1, 3]), _i(1, 3, 2, 3, 7, 6)]),
    "EditDistance_raw": (lambda ms, ops, hi, hv, ti, tv: ops.EditDistance(False)(
        hi, hv, ms.Tensor(_i(3, 2)), ti, tv, ms.Tensor(_i(2, 3))),
        [_i([0, 0], [0, 1], [2, 0]), np.array([1.0, 2.0, 3.0], np.float32), _i([0, 0], [1, 2]),
         np.array([1.0, 5.0], np.float32)]),
    "NoRepeatNGram": (lambda ms, ops, s, p: ops.NoRepeatNGram(3)(s, p),
                      [_i([[1, 2, 1, 2, 5, 1, 2], [9, 3, 9, 5, 4, 1, 5]], dtype=np.int32),
                       RNG.uniform(0, 1, (1, 2, 10)).astype(np.float32)]),
    "NoRepeatNGram_1": (lambda ms, ops, s, p: ops.NoRepeatNGram(1)(s, p),
                        [_i([[0, 3, 3]], [[4, 1, 0]], dtype=np.int32),
                         RNG.uniform(0, 1, (2, 1, 6)).astype(np.float32)]),
    "NoRepeatNGram_2_float16": (lambda ms, ops, s, p: ops.NoRepeatNGram(2)(s, p),
                                [_i([[7, 1, 7, 2, 7]], dtype=np.int32),
                                 RNG.uniform(0, 1, (1, 1, 9)).astype(np.float16)]),
    "ROIAlign_float16": (lambda ms, ops, f, r: ops.ROIAlign(2, 2, 0.5, 2)(f, r),
                         [FEATURES[:1].astype(np.float16), ROIS[:2].astype(np.float16) * np.array(
                             [0, 1, 1, 1, 1], np.float16)]),
    "NMSWithMask_tie": (lambda ms, ops, b: ops.NMSWithMask(1.0 / 3.0)(b),
                        [np.array([[0, 0, 2, 2, 0.9], [1, 0, 3, 2, 0.8], [5, 5, 6, 6, 0.7]], np.float32)]),
    "EditDistance_empty_truth": (lambda ms, ops, hi, hv, ti, tv: ops.EditDistance(True)(
        hi, hv, ms.Tensor(_i(3, 2)), ti, tv, ms.Tensor(_i(3, 2))),
        [_i([0, 0], [0, 1], [2, 0]), np.array([1.0, 2.0, 3.0], np.float32), _i([0, 0], [1, 1]),
         np.array([1.0, 5.0], np.float32)]),
}

# Inputs read eagerly: value-dependent output shapes (decoder, edit distance) and host computations (CTCLoss's
# options other than the defaults; its default in a graph is the composition of ops/api/ctc_traced.py).
# NMSWithMask (static output shapes) traces as a host node, so its cases run in both modes.
PYNATIVE_ONLY = {"ROIAlign_adaptive", "CTCGreedyDecoder", "ctc_greedy_decoder_no_merge", "CTCLoss_collapse",
                 "CTCLoss_no_merge", "EditDistance", "EditDistance_raw", "EditDistance_empty_truth"}


def outputs(result) -> list[np.ndarray]:
    """A case's result as a list of NumPy arrays."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [r.asnumpy() if hasattr(r, "asnumpy") else np.asarray(r) for r in items]
