"""``nn.MultiFieldEmbeddingLookup``: MindSpore's embedding lookup pooled per field, with its signature, checks
and results (tests/compat/test_nn_surface.py compares them with MindSpore 2.10's CPU outputs).

For a batch of (ids, values, field ids), each (batch_size, seq_len): every looked-up row is scaled by its
value, and the rows of each (sample, field) are combined by ``operator``: 'SUM'; 'MEAN', the sum divided by
the sum of the values' magnitudes (0 where that is 0); 'MAX', the element-wise maximum over the entries
whose value is not 0 (a field without such entries gives 0). The result is (batch_size, field_size,
embedding_size). ``max_norm`` is refused, as EmbeddingLookup's: MindSpore 2.10's CPU result for it is not
the per-row clipping it documents (the fixture records it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import ops
from ...core.dtypes import float32
from ...core.tensor import Tensor
from .reshaping import EmbeddingLookup

_LOWEST = float(np.finfo(np.float32).min)  # what MindSpore adds to the zero-valued entries before MAX


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """``MultiFieldEmbeddingLookup(vocab_size, embedding_size, field_size, param_init='normal', target='CPU',
    slice_mode='batch_slice', feature_num_list=None, max_norm=None, sparse=True, operator='SUM',
    dtype=mstype.float32)``: ``construct(input_indices, input_values, field_ids)`` (see the module docstring).
    ``input_indices`` int32/int64, ``input_values`` float32, ``field_ids`` int32 in [0, field_size). The
    distribution arguments are accepted for one device."""

    def __init__(self, vocab_size: int, embedding_size: int, field_size: int, param_init: Any = "normal",
                 target: str = "CPU", slice_mode: str = "batch_slice", feature_num_list: Any = None,
                 max_norm: float | None = None, sparse: bool = True, operator: str = "SUM",
                 dtype: Any = float32) -> None:
        if not isinstance(field_size, int) or isinstance(field_size, bool) or field_size <= 0:
            raise ValueError(f"MultiFieldEmbeddingLookup: field_size must be an int > 0, got {field_size!r}")
        if operator not in ("SUM", "MAX", "MEAN"):
            raise ValueError(f"MultiFieldEmbeddingLookup: operator must be 'SUM', 'MAX' or 'MEAN', got {operator!r}")
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, None, None, sparse, dtype)
        if max_norm is not None:  # as EmbeddingLookup: MindSpore 2.10's CPU clipping is not its documented one
            raise NotImplementedError("MultiFieldEmbeddingLookup: max_norm is not supported (leave it None)")
        self.field_size, self.operator, self.feature_num_list = field_size, operator, feature_num_list
        self.max_norm = max_norm

    def construct(self, input_indices: Tensor, input_values: Tensor, field_ids: Tensor) -> Tensor:
        cls = "MultiFieldEmbeddingLookup"
        for name, t in (("input_indices", input_indices), ("input_values", input_values), ("field_ids", field_ids)):
            if t.ndim != 2:
                raise ValueError(f"{cls}: {name} must be 2-D (batch_size, seq_len), got {t.ndim}-D")
        if input_indices.dtype.name not in ("int32", "int64"):
            raise TypeError(f"{cls}: input_indices must be int32 or int64, got {input_indices.dtype}")
        if input_values.dtype != float32:
            raise TypeError(f"{cls}: input_values must be float32, got {input_values.dtype}")
        if field_ids.dtype.name != "int32":
            raise TypeError(f"{cls}: field_ids must be int32, got {field_ids.dtype}")
        batch, seq = input_indices.shape
        segments = batch * self.field_size
        offsets = Tensor((np.arange(batch, dtype=np.int32) * self.field_size)[:, None])
        flat_ids = ops.reshape(field_ids + offsets, (-1,))
        rows = ops.gather(self.embedding_table, input_indices, 0)                  # (batch, seq, emb)
        weights = ops.reshape(input_values, (batch, seq, 1))
        rows = ops.reshape(rows * weights, (batch * seq, -1))
        magnitude = ops.reshape(ops.abs(input_values), (-1,))
        if self.operator == "MAX":
            empty = ops.cast(ops.equal(ops.reshape(input_values, (-1, 1)), 0.0), float32) * _LOWEST
            merged = ops.unsorted_segment_max(rows + empty, flat_ids, segments)
            present = ops.cast(ops.not_equal(ops.unsorted_segment_sum(magnitude, flat_ids, segments), 0.0), float32)
            merged = merged * ops.expand_dims(present, -1)
        else:
            merged = ops.unsorted_segment_sum(rows, flat_ids, segments)
            if self.operator == "MEAN":
                count = ops.expand_dims(ops.unsorted_segment_sum(magnitude, flat_ids, segments), -1)
                none = ops.equal(count, 0.0)  # MindSpore's DivNoNan: 0 where the count is 0
                merged = ops.select(ops.broadcast_to(none, merged.shape), ops.zeros_like(merged),
                                    merged / ops.select(none, ops.ones_like(count), count))
        return ops.reshape(merged, (batch, self.field_size, -1))
