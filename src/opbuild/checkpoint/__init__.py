"""Checkpoints in MindSpore's ``.ckpt`` (protobuf) format: ``save_checkpoint``, ``load_checkpoint``,
``load_param_into_net``, re-exported as ``opbuild.save_checkpoint`` etc."""

from __future__ import annotations

from .serialization import (
    TENSOR_TYPES,
    CheckpointError,
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "CheckpointError", "TENSOR_TYPES"]
