"""A BERT-style transformer encoder: token + position embeddings, post-LayerNorm encoder layers of multi-head
self-attention (BatchMatMul + Softmax) and a GELU MLP."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import nn, ops
from ..core.errors import ShapeError
from ..core.parameter import set_seed
from ..core.tensor import Tensor


@dataclass(frozen=True)
class TransformerConfig:
    """Sizes of the encoder and of its example input (``batch`` x ``seq_len`` token ids)."""

    vocab_size: int = 1000
    hidden: int = 64
    heads: int = 4
    layers: int = 2
    intermediate: int = 256
    seq_len: int = 16
    batch: int = 2
    layer_norm_eps: float = 1e-12

    def __post_init__(self) -> None:
        if self.hidden % self.heads:
            raise ValueError(f"TransformerConfig: hidden ({self.hidden}) must be divisible by heads ({self.heads})")


#: BERT-base: 12 layers, hidden 768, 12 heads, MLP 3072, sequence 128, batch 1.
BERT_BASE = TransformerConfig(vocab_size=30522, hidden=768, heads=12, layers=12, intermediate=3072, seq_len=128,
                              batch=1)


class MultiHeadAttention(nn.Cell):
    """Self-attention: ``softmax(Q K^T / sqrt(d)) V`` per head, heads concatenated and projected."""

    def __init__(self, hidden: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Dense(hidden, hidden, weight_init="xavier_uniform", bias_init="uniform")
        self.key = nn.Dense(hidden, hidden, weight_init="xavier_uniform", bias_init="uniform")
        self.value = nn.Dense(hidden, hidden, weight_init="xavier_uniform", bias_init="uniform")
        self.output = nn.Dense(hidden, hidden, weight_init="xavier_uniform", bias_init="uniform")
        self.reshape = ops.Reshape()
        self.transpose = ops.Transpose()
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.context = ops.BatchMatMul()
        self.softmax = nn.Softmax(-1)
        self.scale = 1.0 / math.sqrt(self.head_dim)

    def _split_heads(self, x: Tensor, batch: int, seq: int) -> Tensor:
        # (B, S, H) -> (B, heads, S, head_dim)
        return self.transpose(self.reshape(x, (batch, seq, self.heads, self.head_dim)), (0, 2, 1, 3))

    def construct(self, x: Tensor) -> Tensor:
        batch, seq, hidden = x.shape
        q = self._split_heads(self.query(x), batch, seq)
        k = self._split_heads(self.key(x), batch, seq)
        v = self._split_heads(self.value(x), batch, seq)
        probs = self.softmax(self.scores(q, k) * self.scale)
        ctx = self.transpose(self.context(probs, v), (0, 2, 1, 3))
        return self.output(self.reshape(ctx, (batch, seq, hidden)))


class EncoderLayer(nn.Cell):
    """``x = LN(x + attention(x)); x = LN(x + W2 gelu(W1 x))`` (post-LN, as BERT)."""

    def __init__(self, hidden: int, heads: int, intermediate: int, eps: float) -> None:
        super().__init__()
        self.attention = MultiHeadAttention(hidden, heads)
        self.attention_norm = nn.LayerNorm((hidden,), epsilon=eps)
        self.intermediate = nn.Dense(hidden, intermediate, weight_init="xavier_uniform", bias_init="uniform",
                                     activation=nn.GELU())
        self.output = nn.Dense(intermediate, hidden, weight_init="xavier_uniform", bias_init="uniform")
        self.output_norm = nn.LayerNorm((hidden,), epsilon=eps)

    def construct(self, x: Tensor) -> Tensor:
        x = self.attention_norm(x + self.attention(x))
        return self.output_norm(x + self.output(self.intermediate(x)))


class TransformerEncoder(nn.Cell):
    """Token ids (batch, seq) int32 -> hidden states (batch, seq, hidden) float32."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.config = config
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden, embedding_table="normal")
        self.position_embeddings = nn.Embedding(config.seq_len, config.hidden, embedding_table="normal")
        self.embedding_norm = nn.LayerNorm((config.hidden,), epsilon=config.layer_norm_eps)
        self.layers = nn.SequentialCell([
            EncoderLayer(config.hidden, config.heads, config.intermediate, config.layer_norm_eps)
            for _ in range(config.layers)])
        # Position ids are a constant of the graph; one row broadcasts over the batch.
        self._positions = Tensor(np.arange(config.seq_len, dtype=np.int32).reshape(1, config.seq_len))

    def construct(self, ids: Tensor) -> Tensor:
        if ids.ndim != 2 or ids.shape[1] != self.config.seq_len:
            raise ShapeError("TransformerEncoder", f"expects token ids of shape (batch, {self.config.seq_len})",
                             [ids._type])
        x = self.word_embeddings(ids) + self.position_embeddings(self._positions)
        return self.layers(self.embedding_norm(x))


def transformer_encoder(config: TransformerConfig = TransformerConfig(), seed: int = 0) -> TransformerEncoder:
    """A transformer encoder of the given size with weights drawn deterministically from ``seed``."""
    set_seed(seed)
    return TransformerEncoder(config)


def transformer_input(config: TransformerConfig = TransformerConfig(), seed: int = 0) -> Tensor:
    """Random int32 token ids of shape (config.batch, config.seq_len) in [0, vocab_size)."""
    rng = np.random.default_rng(seed)
    return Tensor(rng.integers(0, config.vocab_size, (config.batch, config.seq_len)).astype(np.int32))
