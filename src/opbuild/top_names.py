"""The names MindSpore 2.10 also puts at its top level from ``mindspore.runtime`` (streams, events, memory
figures, device limits), ``mindspore.common.dtype`` (the non-tensor types), ``mindspore.context`` (the syntax
levels) and the training helpers, gathered here so ``opbuild/__init__.py`` re-exports them in one line.
The checkpoint and training ones import protobuf, so the package resolves them on first use (:data:`LAZY`).
"""

from __future__ import annotations

from .amp import build_train_network
from .common.dtype_kinds import Int, QuantDtype, TensorType, list_, number, string, tensor_type, tuple_, type_none
from .context import COMPATIBLE, LAX, STRICT
from .framework_names import set_dump, shard, swap_tensors
from .runtime import (
    Event,
    Stream,
    StreamCtx,
    StreamLimitCtx,
    communication_stream,
    current_stream,
    default_stream,
    empty_cache,
    get_device_limit,
    get_stream_limit,
    launch_blocking,
    max_memory_allocated,
    max_memory_reserved,
    memory_allocated,
    memory_reserved,
    memory_stats,
    memory_summary,
    reset_max_memory_allocated,
    reset_max_memory_reserved,
    reset_peak_memory_stats,
    reset_stream_limit,
    set_cur_stream,
    set_device_limit,
    set_kernel_launch_capture,
    set_stream_limit,
    synchronize,
)

#: Top-level names resolved on first use: ``{name: (module, attribute)}`` (attribute None: the module).
LAZY = {"hal": ("opbuild.hal", None), "device_context": ("opbuild.device_context", None),
        "boost": ("opbuild.boost", None), "load": ("opbuild.train.serialization", "load"),
        "load_mindir": ("opbuild.train.serialization", "load_mindir"),
        "save_mindir": ("opbuild.train.serialization", "save_mindir"),
        "data_sink": ("opbuild.train.data_sink", "data_sink"),
        "names": ("opbuild.train", "names"), "BackupAndRestore": ("opbuild.train", "BackupAndRestore"),
        **{n: ("opbuild.train.ckpt_convert", n) for n in (
            "ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async", "load_segmented_checkpoints")}}

__all__ = ["Event", "Stream", "StreamCtx", "StreamLimitCtx", "launch_blocking", "communication_stream",
           "current_stream", "default_stream", "empty_cache", "get_device_limit", "get_stream_limit",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "memory_summary", "reset_max_memory_allocated", "reset_max_memory_reserved", "reset_peak_memory_stats",
           "reset_stream_limit", "set_cur_stream", "set_device_limit", "set_kernel_launch_capture", "set_stream_limit",
           "synchronize", "Int", "QuantDtype", "TensorType", "list_", "number", "string", "tensor_type", "tuple_",
           "type_none", "STRICT", "LAX", "COMPATIBLE", "build_train_network", "set_dump", "shard", "swap_tensors"]
