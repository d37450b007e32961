"""``nn.TransformerDecoder`` (a stack of decoder layers, then an optional norm) and ``nn.Transformer`` (encoder and
decoder stacks with final LayerNorms), built from nn/layers/transformer.py's layers with MindSpore 2.10's
arguments and parameter names (``encoder.layers.<i>...``, ``encoder.norm``, ``decoder.layers.<i>...``,
``decoder.norm``)."""

from __future__ import annotations

from collections.abc import Callable

from ...core.dtypes import float32
from ...core.tensor import Tensor
from ..cell import Cell
from ._checks import positive_int
from .containers import CellList
from .normalization import LayerNorm
from .transformer import TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer, _clone


class TransformerDecoder(Cell):
    """``TransformerDecoder(decoder_layer, num_layers, norm=None)``: ``num_layers`` copies of ``decoder_layer``
    (each its own parameters, starting equal), then ``norm`` if given. ``construct(tgt, memory, tgt_mask=None,
    memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None)``."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Cell | None = None) -> None:
        super().__init__()
        if not isinstance(decoder_layer, Cell):
            raise TypeError(f"TransformerDecoder: decoder_layer must be a Cell, got {type(decoder_layer).__name__}")
        self.num_layers = positive_int("TransformerDecoder", "num_layers", num_layers)
        self.layers = CellList([_clone(decoder_layer) for _ in range(num_layers)])
        self.norm = norm

    def construct(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                  memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                  memory_key_padding_mask: Tensor | None = None) -> Tensor:
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask)
        return self.norm(x) if self.norm is not None else x


class Transformer(Cell):
    """``Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
    dropout=0.1, activation='relu', custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-05,
    batch_first=False, norm_first=False, dtype=float32)``: an encoder stack (final LayerNorm ``encoder.norm``)
    over ``src`` and a decoder stack (``decoder.norm``) over ``tgt`` attending to the encoder's output.
    ``construct(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None)``."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: str | Cell | Callable = "relu",
                 custom_encoder: Cell | None = None, custom_decoder: Cell | None = None, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, dtype=float32) -> None:
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm((d_model,), epsilon=layer_norm_eps))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm((d_model,), epsilon=layer_norm_eps))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, bool(batch_first)

    def construct(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                  memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                  tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None) -> Tensor:
        batch_axis = 0 if self.batch_first else 1
        if src.shape[batch_axis] != tgt.shape[batch_axis] or src.shape[-1] != self.d_model \
                or tgt.shape[-1] != self.d_model:
            raise ValueError(f"Transformer: src and tgt need the same batch size and {self.d_model} features, got "
                             f"{src.shape} and {tgt.shape}")
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)


__all__ = ["TransformerDecoder", "Transformer"]
