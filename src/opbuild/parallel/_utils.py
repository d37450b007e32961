"""``mindspore.parallel._utils``: the parallel-context readers MindSpore's model zoos import from this private
module (``_get_device_num``, ``_get_gradients_mean``, ``_get_parallel_mode``, ...) in their training wrappers,
over opbuild's parallel context (communication/auto_parallel.py). opbuild shards no operator, so the answers
about auto-parallel, pipeline stages and the parallel optimizer are those of a data-parallel job."""

from __future__ import annotations

from ..communication.auto_parallel import get_auto_parallel_context


def _get_device_num() -> int:
    """The number of devices (ranks) of the job: ``device_num`` of the parallel context."""
    return int(get_auto_parallel_context("device_num"))


def _get_global_rank() -> int:
    """This process's rank: ``global_rank`` of the parallel context."""
    return int(get_auto_parallel_context("global_rank"))


def _get_gradients_mean() -> bool:
    """Whether reduced gradients are averaged (``gradients_mean``)."""
    return bool(get_auto_parallel_context("gradients_mean"))


def _get_parallel_mode() -> str:
    """The parallel mode's name (``"stand_alone"`` or ``"data_parallel"`` here)."""
    return str(get_auto_parallel_context("parallel_mode"))


def _is_in_auto_parallel_mode() -> bool:
    """Whether a sharding mode (semi-auto or auto parallel) is on: never, on opbuild."""
    return _get_parallel_mode() in ("semi_auto_parallel", "auto_parallel")


def _get_enable_parallel_optimizer() -> bool:
    """Whether the optimizer's state is sharded across ranks: never, on opbuild."""
    return False


def _get_pipeline_stages() -> int:
    """The number of pipeline stages: one (opbuild runs the whole model on every rank)."""
    return 1
