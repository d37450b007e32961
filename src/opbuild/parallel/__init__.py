"""``mindspore.parallel`` on opbuild: the descriptions of a parallel layout (:class:`Layout`) and the helpers
that mean something for a data-parallel runtime.

opbuild runs data parallelism (docs/distributed.md): every rank holds the whole model. A :class:`Layout`
describes how MindSpore's semi-auto parallel mode would shard a tensor over a device matrix; opbuild builds and
validates it exactly as MindSpore does (the same tensor maps, dictionaries and errors), so code that prepares
sharding strategies runs, but no opbuild operator is sharded by one. ``shard`` returns its function unchanged
in the modes where MindSpore applies no layout either (framework_names.py); ``merge_sliced_parameter``, the
strategy-search keys and ``load_segmented_checkpoints`` are the top-level functions of the same names.
"""

from __future__ import annotations

from ..api_extras import get_algo_parameters, merge_sliced_parameter, reset_algo_parameters, set_algo_parameters
from ..framework_names import shard
from ..train.ckpt_convert import load_segmented_checkpoints
from .layout import Layout

__all__ = ["Layout", "shard", "merge_sliced_parameter", "get_algo_parameters", "set_algo_parameters",
           "reset_algo_parameters", "load_segmented_checkpoints"]

