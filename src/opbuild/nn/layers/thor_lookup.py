"""``nn.EmbeddingLookupThor``: MindSpore's THOR form of ``EmbeddingLookup`` (its sibling layers DenseThor and
EmbeddingThor are in thor.py). The lookup is EmbeddingLookup's. With ``target='CPU'`` MindSpore records no
statistic (``matrix_a`` keeps its zeros, as its CPU outputs show); with ``target='DEVICE'`` and ``thor`` True
each call stores in ``matrix_a`` the count of each id in the batch. ``matrix_g`` (embedding_size,
embedding_size) keeps its zeros: MindSpore fills it from the output gradient in its THOR training loop, which
opbuild does not have."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.api import array as A
from ...ops.api.misc_names import assign, unsorted_segment_sum
from .reshaping import EmbeddingLookup


class EmbeddingLookupThor(EmbeddingLookup):
    """``EmbeddingLookupThor(vocab_size, embedding_size, param_init='normal', target='CPU',
    slice_mode='batch_slice', manual_shapes=None, max_norm=None, sparse=True)``: EmbeddingLookup that also keeps
    ``matrix_a`` (vocab_size,) and ``matrix_g`` (embedding_size, embedding_size) (see the module docstring)."""

    def __init__(self, vocab_size: int, embedding_size: int, param_init: Any = "normal", target: str = "CPU",
                 slice_mode: str = "batch_slice", manual_shapes: Any = None, max_norm: float | None = None,
                 sparse: bool = True) -> None:
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode, manual_shapes, max_norm,
                         sparse)
        self.thor = True
        self.matrix_a = Parameter(np.zeros(vocab_size, np.float32), name="matrix_a", requires_grad=False)
        self.matrix_g = Parameter(np.zeros((embedding_size, embedding_size), np.float32), name="matrix_g",
                                  requires_grad=False)

    def construct(self, indices: Tensor) -> Tensor:
        out = super().construct(indices)
        if self.target != "CPU" and self.thor:
            flat = A.reshape(indices, (-1,))
            assign(self.matrix_a, unsorted_segment_sum(Tensor(np.ones(flat.shape, np.float32)), flat,
                                                       self.vocab_size))
        return out
