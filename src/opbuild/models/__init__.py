"""A small model zoo for tests, examples and benchmarks: each model has a constructor taking a ``seed`` and a
function returning an example input."""

from __future__ import annotations

from .mlp import MLP, mlp, mlp_input
from .resnet import BasicBlock, Bottleneck, ResNet, resnet50, resnet_input, resnet_small
from .transformer import (
    BERT_BASE,
    EncoderLayer,
    MultiHeadAttention,
    TransformerConfig,
    TransformerEncoder,
    transformer_encoder,
    transformer_input,
)

__all__ = ["MLP", "mlp", "mlp_input", "BasicBlock", "Bottleneck", "ResNet", "resnet_small", "resnet50",
           "resnet_input", "TransformerConfig", "BERT_BASE", "MultiHeadAttention", "EncoderLayer",
           "TransformerEncoder", "transformer_encoder", "transformer_input"]
