"""The layers of MindSpore's THOR second-order optimizer: ``DenseThor`` and ``EmbeddingThor``.

Their forward results are Dense's and Embedding's. While ``thor`` is True (the default) each call also stores
the input statistic THOR preconditions with, as MindSpore's CPU layers do: DenseThor's ``matrix_a`` becomes
``x^T x / N`` and EmbeddingThor's ``matrix_a`` the count of each id in the batch. MindSpore fills
``matrix_g`` from the output gradient through a gradient hook of its THOR training loop; opbuild has neither
that loop nor the THOR optimizer, so ``matrix_g`` keeps its initial value (identity, or zeros)."""

from __future__ import annotations

import numpy as np

from ...core.dtypes import DType, float32
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.api import array as A
from ...ops.api import math as M
from ...ops.api.misc_names import assign, unsorted_segment_sum
from .basic import Dense
from .embedding import Embedding


class DenseThor(Dense):
    """``DenseThor(in_channels, out_channels, weight_init='normal', bias_init='zeros', has_bias=True,
    activation=None)``: Dense over (N, in_channels) that also keeps ``matrix_a`` (in, in) = ``x^T x / N``
    and ``matrix_g`` (out, out, identity; see the module docstring)."""

    def __init__(self, in_channels: int, out_channels: int, weight_init="normal", bias_init="zeros",
                 has_bias: bool = True, activation=None) -> None:
        super().__init__(in_channels, out_channels, weight_init, bias_init, has_bias, activation)
        self.thor = True
        self.matrix_a = Parameter(np.eye(in_channels, dtype=np.float32), name="matrix_a", requires_grad=False)
        self.matrix_g = Parameter(np.eye(out_channels, dtype=np.float32), name="matrix_g", requires_grad=False)

    def construct(self, x: Tensor) -> Tensor:
        if self.thor:
            cov = A.matmul(A.transpose(x, (1, 0)), x)
            assign(self.matrix_a, M.div(M._cast(cov, "float32"), float(x.shape[0])))
        return super().construct(x)


class EmbeddingThor(Embedding):
    """``EmbeddingThor(vocab_size, embedding_size, use_one_hot=False, embedding_table='normal',
    dtype=float32, padding_idx=None)``: Embedding (``dtype`` is the one-hot values' type, as MindSpore's;
    ids int32 or int64) that also keeps ``matrix_a`` (vocab_size,), the count of each id of the last call
    (gather mode), and ``matrix_g`` (embedding_size, embedding_size, zeros; see the module docstring)."""

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False, embedding_table="normal",
                 dtype: DType = float32, padding_idx: int | None = None) -> None:
        super().__init__(vocab_size, embedding_size, use_one_hot, embedding_table, "int32", padding_idx)
        self.thor = True
        self.matrix_a = Parameter(np.zeros(vocab_size, np.float32), name="matrix_a", requires_grad=False)
        self.matrix_g = Parameter(np.zeros((embedding_size, embedding_size), np.float32), name="matrix_g",
                                  requires_grad=False)

    def construct(self, ids: Tensor) -> Tensor:
        ids = ids if ids.dtype.name == "int32" else M._cast(ids, "int32")
        if self.thor and not self.use_one_hot:
            flat = A.reshape(ids, (-1,))
            ones = Tensor(np.ones(flat.shape, np.float32))
            assign(self.matrix_a, unsorted_segment_sum(ones, flat, self.vocab_size))
        return super().construct(ids)


__all__ = ["DenseThor", "EmbeddingThor"]
