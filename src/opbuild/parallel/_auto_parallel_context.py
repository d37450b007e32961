"""``mindspore.parallel._auto_parallel_context``: the ``auto_parallel_context()`` object whose getters model
zoos read (``auto_parallel_context().get_device_num_is_set()``, ``get_parallel_mode()``, ...), over opbuild's
parallel context (communication/auto_parallel.py). The keys that describe operator sharding, pipelines or
optimizer sharding answer what opbuild does: no sharding, one stage, no parallel optimizer."""

from __future__ import annotations

from typing import Any

from ..communication import auto_parallel as _ctx


class _AutoParallelContext:
    """Getters (and setters) of the parallel context with MindSpore's method names."""

    def get_parallel_mode(self) -> str:
        return _ctx.get_auto_parallel_context("parallel_mode")

    def get_gradients_mean(self) -> bool:
        return _ctx.get_auto_parallel_context("gradients_mean")

    def get_device_num(self) -> int:
        return _ctx.get_auto_parallel_context("device_num")

    def get_global_rank(self) -> int:
        return _ctx.get_auto_parallel_context("global_rank")

    def get_parameter_broadcast(self) -> bool:
        return _ctx.get_auto_parallel_context("parameter_broadcast")

    def get_dataset_strategy(self) -> str:
        return _ctx.get_auto_parallel_context("dataset_strategy")

    def get_full_batch(self) -> bool:
        return self.get_dataset_strategy() == "full_batch"

    def get_device_num_is_set(self) -> bool:
        return _ctx.is_set("device_num")

    def get_global_rank_is_set(self) -> bool:
        return _ctx.is_set("global_rank")

    def get_parameter_broadcast_is_set(self) -> bool:
        return _ctx.is_set("parameter_broadcast")

    def get_full_batch_is_set(self) -> bool:
        return _ctx.is_set("dataset_strategy")

    def get_enable_parallel_optimizer(self) -> bool:
        return False  # opbuild keeps whole optimizer states on every rank

    def get_pipeline_stages(self) -> int:
        return 1

    def get_grad_accumulation_step(self) -> int:
        return 1

    def set_parallel_mode(self, parallel_mode: str) -> None:
        _ctx.set_auto_parallel_context(parallel_mode=parallel_mode)

    def set_gradients_mean(self, gradients_mean: bool) -> None:
        _ctx.set_auto_parallel_context(gradients_mean=gradients_mean)

    def set_device_num(self, device_num: int) -> None:
        _ctx.set_auto_parallel_context(device_num=device_num)

    def set_global_rank(self, global_rank: int) -> None:
        _ctx.set_auto_parallel_context(global_rank=global_rank)

    def reset(self) -> None:
        _ctx.reset_auto_parallel_context()

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"auto_parallel_context(): {name!r} is not provided by opbuild (its context has "
                             f"{', '.join(sorted(m for m in dir(type(self)) if not m.startswith('_')))})")


_INSTANCE = _AutoParallelContext()


def auto_parallel_context() -> _AutoParallelContext:
    """The process's parallel context object (one per process, as MindSpore's)."""
    return _INSTANCE
