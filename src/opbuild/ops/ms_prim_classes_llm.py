"""Primitive classes of MindSpore's fused large-model operators that MindSpore 2.10 runs on Ascend only,
provided from their documented definitions (see ms_prim_classes.py for the pattern): ``FlashAttentionScore``
(four outputs: softmax_max, softmax_sum, softmax_out, attention_out) and ``RmsNorm``. Checked against torch in
tests/ops/test_llm_ops.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .api.inplace_ext import rms_norm
from .api.llm_attention import INT_MAX, flash_attention_outputs
from .ms_prim_classes import REQUIRED, make_primitive
from .primitive import Primitive


def _flash_attention_score(a: dict, query: Any, key: Any, value: Any, real_shift: Any = None, drop_mask: Any = None,
                           padding_mask: Any = None, attn_mask: Any = None, prefix: Any = None,
                           actual_seq_qlen: Any = None, actual_seq_kvlen: Any = None) -> tuple:
    return flash_attention_outputs(query, key, value, a["head_num"], real_shift, drop_mask, padding_mask, attn_mask,
                                   prefix, actual_seq_qlen, actual_seq_kvlen, a["keep_prob"], a["scale_value"],
                                   a["pre_tokens"], a["next_tokens"], a["input_layout"], a["sparse_mode"])


TABLE: dict[str, tuple[tuple[tuple[str, Any], ...], Callable, str]] = {
    "FlashAttentionScore": ((("head_num", REQUIRED), ("keep_prob", 1.0), ("scale_value", 1.0),
                             ("pre_tokens", INT_MAX), ("next_tokens", INT_MAX), ("inner_precise", 0),
                             ("input_layout", "BSH"), ("sparse_mode", 0)), _flash_attention_score,
                            "Attention softmax(mask(scale_value * q @ k^T + real_shift)) @ v; returns (softmax_max, "
                            "softmax_sum, softmax_out, attention_out) as ``ops.flash_attention_score`` describes."),
    "RmsNorm": ((("epsilon", 1e-6),), lambda a, x, gamma: rms_norm(x, gamma, a["epsilon"]),
                "x / sqrt(mean(x^2) + epsilon) * gamma over gamma's trailing axes, and the reciprocal RMS."),
}

PRIMITIVES: dict[str, type[Primitive]] = {n: make_primitive(n, *row) for n, row in TABLE.items()}
