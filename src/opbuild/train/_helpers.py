"""``mindspore.train``'s dataset and checkpoint helpers: ``DatasetHelper`` (iterate a dataset as the training
loop does: one list of Tensors per step) and ``async_ckpt_thread_status`` (whether an asynchronous checkpoint
write is running: never on opbuild, which writes checkpoints synchronously)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..checkpoint import async_save as async_writes


class DatasetHelper:
    """``DatasetHelper(dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1)``: the dataset's rows as
    lists of Tensors, ``epoch_num`` times. Sink mode feeds a device queue on MindSpore's accelerators; on
    opbuild's CPU both modes read the same rows."""

    def __init__(self, dataset: Any, dataset_sink_mode: bool = True, sink_size: int = -1, epoch_num: int = 1):
        if not hasattr(dataset, "create_tuple_iterator"):
            raise TypeError(f"DatasetHelper: dataset must be a dataset, got {type(dataset).__name__}")
        if not isinstance(epoch_num, int) or epoch_num < 1:
            raise ValueError(f"DatasetHelper: epoch_num must be a positive int, got {epoch_num!r}")
        self.dataset, self._sink_size, self.epoch_num = dataset, int(sink_size), epoch_num
        self._iter = dataset.create_tuple_iterator(num_epochs=epoch_num)

    def __iter__(self) -> Iterator[list]:
        return iter(self._iter)

    def __len__(self) -> int:
        return self._sink_size if self._sink_size > 0 else self.dataset.get_dataset_size()

    def sink_size(self) -> int:
        """Steps per epoch fed at once (the dataset size when ``sink_size`` is -1)."""
        return len(self)

    def get_data_info(self) -> tuple[list, list]:
        """(dtypes, shapes) of the columns of the first row."""
        return self.dataset.output_types(), self.dataset.output_shapes()


def async_ckpt_thread_status() -> bool:
    """Whether a ``save_checkpoint(..., async_save=True)`` write is still in progress."""
    return async_writes.running()
