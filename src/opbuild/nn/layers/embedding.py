"""Embedding: a lookup table from integer ids to vectors."""

from __future__ import annotations

import math

import numpy as np

from ... import ops
from ...common.initializer import init_array
from ...core.dtypes import INTS, DType, dtype_of, int32
from ...core.errors import ShapeError
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ._checks import positive_int


class Embedding(Cell):
    """Maps ids of any shape ``S`` (dtype ``dtype``, int32 or int64) to vectors: output shape
    ``S + (embedding_size,)``, rows of ``embedding_table`` (vocab_size, embedding_size).

    ``use_one_hot=False`` gathers rows (Gather); ``use_one_hot=True`` multiplies a one-hot encoding of the
    ids with the table (MatMul), as MindSpore does. An id outside [-vocab_size, vocab_size) raises a
    KernelInputError (a RuntimeError) in the gathered form, as MindSpore's Gather raises (a negative one counts
    from the end); in the one-hot form it matches no column and yields a zero vector, as MindSpore's does.
    """

    def __init__(self, vocab_size: int, embedding_size: int, use_one_hot: bool = False,
                 embedding_table="normal", dtype: DType | str = int32, padding_idx: int | None = None) -> None:
        super().__init__()
        self.vocab_size = positive_int("Embedding", "vocab_size", vocab_size)
        self.embedding_size = positive_int("Embedding", "embedding_size", embedding_size)
        self.use_one_hot = bool(use_one_hot)
        self.dtype = dtype_of(dtype)
        if self.dtype.name not in INTS:
            raise ValueError(f"Embedding: dtype must be opbuild.int32 or opbuild.int64, got {self.dtype!r}")
        table = init_array(embedding_table, (vocab_size, embedding_size))
        if padding_idx is not None:
            if not isinstance(padding_idx, int) or not 0 <= padding_idx < vocab_size:
                raise ValueError(f"Embedding: padding_idx must be in [0, {vocab_size}), got {padding_idx!r}")
            table[padding_idx] = 0  # MindSpore zeroes the padding row at initialisation
        self.padding_idx = padding_idx
        self.embedding_table = Parameter(table, name="embedding_table")
        self.gather = ops.Gather()
        self.reshape = ops.Reshape()
        self.matmul = ops.MatMul()
        self.cast = ops.Cast()
        self.equal = ops.Equal()
        # One-hot encoding compares each id with 0..vocab-1 (a constant row broadcast against a column).
        self._vocab_ids = Tensor(np.arange(vocab_size, dtype=self.dtype.np_dtype).reshape(1, vocab_size))

    def construct(self, ids: Tensor) -> Tensor:
        if ids.dtype.name != self.dtype.name:
            raise ShapeError("Embedding", f"ids must have dtype {self.dtype.name} (the layer's dtype)", [ids._type])
        if not self.use_one_hot:
            return self.gather(self.embedding_table, ids, 0)
        n = math.prod(ids.shape)
        column = self.reshape(ids, (n, 1))
        one_hot = self.cast(self.equal(column, self._vocab_ids), self.embedding_table.dtype)
        out = self.matmul(one_hot, self.embedding_table)
        return self.reshape(out, (*ids.shape, self.embedding_size))
