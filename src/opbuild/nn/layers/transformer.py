"""Attention and transformer layers with MindSpore 2.x's interface (which follows torch's):
MultiheadAttention, TransformerEncoderLayer, TransformerDecoderLayer and TransformerEncoder.

Everything is composed from existing primitives (MatMul, BatchMatMul, Softmax, LayerNorm, elementwise ops),
so every piece is an ordinary cached kernel. Parameter names match MindSpore 2.x: ``in_proj_weight``,
``in_proj_bias``, ``out_proj.weight``, ``self_attn.out_proj.weight``, ``dense1.weight``, ``norm1.gamma``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

import numpy as np

from ... import ops
from ...common.initializer import XavierUniform, init_array
from ...core.dtypes import float32
from ...core.errors import ShapeError
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ._checks import positive_int
from .basic import Dense, Dropout
from .containers import CellList
from .normalization import LayerNorm


def _additive_mask(mask: Tensor, dtype) -> Tensor:
    """A mask as an additive bias: bool True (masked out) becomes -inf, a float mask is added as is."""
    if mask.dtype.name == "bool":
        return ops.where(mask, float("-inf"), Tensor(np.zeros((), dtype.np_dtype)))
    return mask


class MultiheadAttention(Cell):
    """Multi-head attention ``softmax(Q K^T / sqrt(d) + mask) V`` over ``num_heads`` heads.

    ``MultiheadAttention(embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
    add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=mstype.float32)``.
    ``construct(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True)`` returns ``(attn_output, attn_weights)``: the output (L, N, E) ((N, L, E) with
    ``batch_first``) and, when ``need_weights``, the weights (N, L, S) averaged over heads (or (N, H, L, S)),
    else None. Boolean masks mark positions to ignore with True; float masks are added to the scores.
    ``attn_mask`` is (L, S) or (N * num_heads, L, S); ``key_padding_mask`` is (N, S).
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, has_bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, dtype=float32) -> None:
        super().__init__()
        self.embed_dim = positive_int("MultiheadAttention", "embed_dim", embed_dim)
        self.num_heads = positive_int("MultiheadAttention", "num_heads", num_heads)
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by num_heads "
                             f"({num_heads})")
        self.kdim = embed_dim if kdim is None else positive_int("MultiheadAttention", "kdim", kdim)
        self.vdim = embed_dim if vdim is None else positive_int("MultiheadAttention", "vdim", vdim)
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        self.batch_first = bool(batch_first)
        self.has_bias = bool(has_bias)
        self.add_zero_attn = bool(add_zero_attn)
        e = embed_dim
        # MindSpore 2.x (like torch): Xavier-uniform projections, zero projection biases.
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(init_array(XavierUniform(), (3 * e, e), dtype), name="in_proj_weight")
        else:
            self.q_proj_weight = Parameter(init_array(XavierUniform(), (e, e), dtype), name="q_proj_weight")
            self.k_proj_weight = Parameter(init_array(XavierUniform(), (e, self.kdim), dtype), name="k_proj_weight")
            self.v_proj_weight = Parameter(init_array(XavierUniform(), (e, self.vdim), dtype), name="v_proj_weight")
        if self.has_bias:
            self.in_proj_bias = Parameter(init_array("zeros", (3 * e,), dtype), name="in_proj_bias")
        self.out_proj = Dense(e, e, has_bias=self.has_bias, bias_init="zeros")
        if add_bias_kv:
            self.bias_k = Parameter(init_array(XavierUniform(), (1, 1, e), dtype), name="bias_k")
            self.bias_v = Parameter(init_array(XavierUniform(), (1, 1, e), dtype), name="bias_v")
        self.add_bias_kv = bool(add_bias_kv)
        self.attn_drop = Dropout(p=float(dropout))
        self.matmul = ops.MatMul(transpose_b=True)
        self.bmm_qk = ops.BatchMatMul(transpose_b=True)
        self.bmm = ops.BatchMatMul()

    def _project(self, x: Tensor, which: int) -> Tensor:
        """``x @ W_which^T + b_which`` for which = 0 (q), 1 (k), 2 (v); x is (len, N, dim)."""
        length, batch, width = x.shape
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w = ops.split(self.in_proj_weight, e, axis=0)[which]
        else:
            w = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)[which]
        y = self.matmul(ops.reshape(x, (length * batch, width)), w)
        if self.has_bias:
            y = y + ops.split(self.in_proj_bias, e, axis=0)[which]
        return ops.reshape(y, (length, batch, e))

    def _heads(self, x: Tensor) -> Tensor:
        """(len, N, E) -> (N * H, len, head_dim)."""
        length, batch, _ = x.shape
        x = ops.reshape(x, (length, batch * self.num_heads, self.head_dim))
        return ops.transpose(x, (1, 0, 2))

    def _check(self, query: Tensor, key: Tensor, value: Tensor) -> None:
        for name, t, width in (("query", query, self.embed_dim), ("key", key, self.kdim),
                               ("value", value, self.vdim)):
            if not isinstance(t, Tensor) or t.ndim != 3 or t.shape[2] != width:
                got = [t._type] if isinstance(t, Tensor) else []
                raise ShapeError("MultiheadAttention", f"{name} must be a rank-3 Tensor with {width} features on "
                                                       "its last axis", got)
        b = 0 if self.batch_first else 1
        if not (query.shape[b] == key.shape[b] == value.shape[b]) or key.shape[1 - b] != value.shape[1 - b]:
            raise ShapeError("MultiheadAttention", "query, key and value must share the batch size, and key "
                                                   "and value the sequence length", [query._type, key._type,
                                                                                     value._type])

    def construct(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                  need_weights: bool = True, attn_mask: Tensor | None = None,
                  average_attn_weights: bool = True) -> tuple[Tensor, Tensor | None]:
        self._check(query, key, value)
        if self.batch_first:
            query, key, value = (ops.transpose(t, (1, 0, 2)) for t in (query, key, value))
        tgt_len, batch, e = query.shape
        heads = self.num_heads
        q = self._project(query, 0) * (1.0 / math.sqrt(self.head_dim))
        k = self._project(key, 1)
        v = self._project(value, 2)
        if self.add_bias_kv:
            k = ops.cat([k, ops.broadcast_to(self.bias_k, (1, batch, e))], axis=0)
            v = ops.cat([v, ops.broadcast_to(self.bias_v, (1, batch, e))], axis=0)
        q, k, v = self._heads(q), self._heads(k), self._heads(v)
        if self.add_zero_attn:
            zero = Tensor(np.zeros((batch * heads, 1, self.head_dim), q.dtype.np_dtype))
            k, v = ops.cat([k, zero], axis=1), ops.cat([v, zero], axis=1)
        src_len = k.shape[1]
        extra = src_len - key.shape[0]  # columns added by bias_kv / zero_attn: never masked
        scores = self.bmm_qk(q, k)  # (N * H, L, S)
        if attn_mask is not None:
            if tuple(attn_mask.shape) not in ((tgt_len, src_len - extra), (batch * heads, tgt_len, src_len - extra)):
                raise ShapeError("MultiheadAttention", f"attn_mask must be ({tgt_len}, {src_len - extra}) or "
                                                       f"({batch * heads}, {tgt_len}, {src_len - extra})",
                                 [attn_mask._type])
            m = _additive_mask(attn_mask, scores.dtype)
            if extra:
                m = ops.pad(m, (0, extra))
            scores = scores + m
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (batch, src_len - extra):
                raise ShapeError("MultiheadAttention", f"key_padding_mask must be ({batch}, {src_len - extra})",
                                 [key_padding_mask._type])
            m = _additive_mask(key_padding_mask, scores.dtype)
            if extra:
                m = ops.pad(m, (0, extra))
            scores = ops.reshape(ops.reshape(scores, (batch, heads, tgt_len, src_len))
                                 + ops.reshape(m, (batch, 1, 1, src_len)), (batch * heads, tgt_len, src_len))
        attn = ops.softmax(scores, axis=-1)
        out = self.bmm(self.attn_drop(attn), v)  # (N * H, L, head_dim)
        out = ops.reshape(ops.transpose(out, (1, 0, 2)), (tgt_len, batch, e))
        out = self.out_proj(out)
        if self.batch_first:
            out = ops.transpose(out, (1, 0, 2))
        if not need_weights:
            return out, None
        weights = ops.reshape(attn, (batch, heads, tgt_len, src_len))
        return out, (ops.mean(weights, axis=1) if average_attn_weights else weights)


def _activation(name: str | Cell | Callable) -> Callable:
    if isinstance(name, str):
        if name == "relu":
            return ops.relu
        if name == "gelu":
            return ops.gelu  # the exact (erf) form, as MindSpore's transformer layers use
        raise ValueError(f"activation must be 'relu', 'gelu' or a callable, got {name!r}")
    if callable(name):
        return name
    raise ValueError(f"activation must be 'relu', 'gelu' or a callable, got {name!r}")


class _FeedForwardMixin:
    """The position-wise feed-forward block shared by the encoder and decoder layers."""

    def _ff(self, x: Tensor) -> Tensor:
        return self.dropout_ff(self.dense2(self.dropout(self.activation(self.dense1(x)))))


class TransformerEncoderLayer(_FeedForwardMixin, Cell):
    """One encoder block: self-attention and a feed-forward network, each with a residual connection and
    LayerNorm (after the block, or before it with ``norm_first``).

    ``TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation='relu',
    layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=mstype.float32)``;
    ``construct(src, src_mask=None, src_key_padding_mask=None)``. Sub-cells: ``self_attn``, ``dense1``,
    ``dense2``, ``norm1``, ``norm2`` (LayerNorm: ``gamma``/``beta``), ``dropout``, ``dropout1``, ``dropout2``.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Cell | Callable = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=float32) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, positive_int("TransformerEncoderLayer", "dim_feedforward", dim_feedforward))
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.activation = _activation(activation)

    @property
    def dropout_ff(self) -> Dropout:
        return self.dropout2

    def _sa(self, x: Tensor, mask: Tensor | None, kpm: Tensor | None) -> Tensor:
        return self.dropout1(self.self_attn(x, x, x, key_padding_mask=kpm, need_weights=False,
                                            attn_mask=mask)[0])

    def construct(self, src: Tensor, src_mask: Tensor | None = None,
                  src_key_padding_mask: Tensor | None = None) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa(self.norm1(x), src_mask, src_key_padding_mask)
            return x + self._ff(self.norm2(x))
        x = self.norm1(x + self._sa(x, src_mask, src_key_padding_mask))
        return self.norm2(x + self._ff(x))


class TransformerDecoderLayer(_FeedForwardMixin, Cell):
    """One decoder block: self-attention, cross-attention over ``memory``, feed-forward, each with a residual
    connection and LayerNorm (``norm1``..``norm3``; before each block with ``norm_first``).

    Same arguments as :class:`TransformerEncoderLayer`; ``construct(tgt, memory, tgt_mask=None,
    memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None)``. Sub-cells: ``self_attn``,
    ``multihead_attn``, ``dense1``, ``dense2``, ``norm1``..``norm3``, ``dropout``, ``dropout1``..``dropout3``.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Cell | Callable = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=float32) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 dtype=dtype)
        self.dense1 = Dense(d_model, positive_int("TransformerDecoderLayer", "dim_feedforward", dim_feedforward))
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps)
        self.norm3 = LayerNorm((d_model,), epsilon=layer_norm_eps)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.dropout3 = Dropout(p=dropout)
        self.activation = _activation(activation)

    @property
    def dropout_ff(self) -> Dropout:
        return self.dropout3

    def _sa(self, x: Tensor, mask: Tensor | None, kpm: Tensor | None) -> Tensor:
        return self.dropout1(self.self_attn(x, x, x, key_padding_mask=kpm, need_weights=False,
                                            attn_mask=mask)[0])

    def _mha(self, x: Tensor, mem: Tensor, mask: Tensor | None, kpm: Tensor | None) -> Tensor:
        return self.dropout2(self.multihead_attn(x, mem, mem, key_padding_mask=kpm, need_weights=False,
                                                 attn_mask=mask)[0])

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                  memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                  memory_key_padding_mask: Tensor | None = None) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            return x + self._ff(self.norm3(x))
        x = self.norm1(x + self._sa(x, tgt_mask, tgt_key_padding_mask))
        x = self.norm2(x + self._mha(x, memory, memory_mask, memory_key_padding_mask))
        return self.norm3(x + self._ff(x))


def _clone(cell: Cell) -> Cell:
    """A deep copy of ``cell`` with fresh (equal-valued) parameters and no compiled graphs."""
    twin = copy.deepcopy(cell)
    for _, c in twin.cells_and_names():
        c._graphs.clear()
    return twin


class TransformerEncoder(Cell):
    """A stack of ``num_layers`` copies of ``encoder_layer`` (each with its own parameters, starting equal),
    then ``norm`` if given. ``construct(src, src_mask=None, src_key_padding_mask=None)``. Parameters are named
    ``layers.<i>.<name>`` (``layers.0.self_attn.in_proj_weight``)."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Cell | None = None) -> None:
        super().__init__()
        if not isinstance(encoder_layer, Cell):
            raise TypeError(f"TransformerEncoder: encoder_layer must be a Cell, got {type(encoder_layer).__name__}")
        self.num_layers = positive_int("TransformerEncoder", "num_layers", num_layers)
        self.layers = CellList([_clone(encoder_layer) for _ in range(num_layers)])
        self.norm = norm

    def construct(self, src: Tensor, src_mask: Tensor | None = None,
                  src_key_padding_mask: Tensor | None = None) -> Tensor:
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.norm(x) if self.norm is not None else x
