"""Dataset methods beyond the core pipeline: ``apply``, ``flat_map``, ``get_batch_size``,
``get_repeat_count``, ``output_shapes``/``output_types``, ``use_sampler``/``add_sampler``,
``bucket_batch_by_length`` and ``sync_wait``/``sync_update``. ``Dataset`` inherits them from
:class:`PipelineExtras`; the nodes they build live in dataset/extra_nodes.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .config import get_seed
from .save import save_dataset

Row = tuple


def _nodes():
    """dataset/extra_nodes.py, whose datasets subclass Dataset (which inherits this mixin): imported when a
    method first needs it, as core does with combine.py."""
    from . import extra_nodes
    return extra_nodes


def _chain(ds: Any) -> Iterator[Any]:
    node = ds
    while node is not None:
        yield node
        node = getattr(node, "_child", None)


class PipelineExtras:
    """Mixed into :class:`~opbuild.dataset.core.Dataset`."""

    def apply(self, apply_func: Callable[[Any], Any]) -> Any:
        """``apply_func(self)``, which must return a dataset."""
        out = apply_func(self)
        if not hasattr(out, "create_dict_iterator"):
            raise TypeError(f"apply: apply_func must return a dataset, got {type(out).__name__}")
        return out

    def flat_map(self, func: Callable[..., Any]) -> Any:
        """The rows of the dataset ``func(*row)`` returns for each row, one after another."""
        return _nodes().FlatMapDataset(self, func)

    def get_batch_size(self) -> int:
        """The batch size of the nearest ``batch`` in the pipeline (1 when there is none)."""
        for node in _chain(self):
            if hasattr(node, "batch_size") and hasattr(node, "drop_remainder"):
                return int(node.batch_size)
        return 1

    def get_repeat_count(self) -> int:
        """The count of the nearest ``repeat`` in the pipeline (1 when there is none)."""
        for node in _chain(self):
            if type(node).__name__ == "RepeatDataset":
                return int(node.count)
        return 1

    def _first_row(self) -> Row:
        it = self._rows(0, self._seed())  # type: ignore[attr-defined]
        try:
            return next(iter(it))
        except StopIteration:
            raise RuntimeError("the dataset is empty, so its output shapes and types are unknown") from None

    def _seed(self) -> int:
        return get_seed()

    def output_shapes(self, estimate: bool = False) -> list[list[int]]:
        """The shape of each column (from the first row)."""
        return [list(np.asarray(v).shape) for v in self._first_row()]

    def output_types(self) -> list[np.dtype]:
        """The NumPy dtype of each column (from the first row)."""
        return [np.asarray(v).dtype for v in self._first_row()]

    def use_sampler(self, new_sampler: Any) -> None:
        """Read the pipeline's source through ``new_sampler`` (replacing shuffle/sharding options)."""
        _RandomAccessSource = _nodes()._RandomAccessSource  # noqa: N806
        if not isinstance(new_sampler, _nodes().Sampler):
            raise TypeError(f"use_sampler: expected a dataset sampler, got {type(new_sampler).__name__}")
        sources = [n for n in _chain(self) if isinstance(n, _RandomAccessSource)]
        if not sources or getattr(sources[-1], "_child", None) is not None:
            raise RuntimeError("use_sampler: the pipeline has no source that can be read through a sampler "
                               "(concatenated and generator-only pipelines cannot)")
        src = sources[-1]
        src._sampler, src._shuffle, src._num_shards, src._shard_id, src._num_samples = (new_sampler, False, None,
                                                                                        None, None)

    def add_sampler(self, new_sampler: Any) -> None:
        """Chain ``new_sampler`` above the source's sampler (or use it when the source has none)."""
        src = next((n for n in _chain(self) if isinstance(n, _nodes()._RandomAccessSource)), None)
        if src is not None and src._sampler is not None:
            new_sampler.add_child(src._sampler)
        self.use_sampler(new_sampler)

    def bucket_batch_by_length(self, column_names: Any, bucket_boundaries: Any, bucket_batch_sizes: Any,
                               element_length_function: Callable[..., int] | None = None, pad_info: Any = None,
                               pad_to_bucket_boundary: bool = False, drop_remainder: bool = False) -> Any:
        """Batch rows by length: bucket i holds lengths in [boundary[i-1], boundary[i]) and is batched at
        ``bucket_batch_sizes[i]``; ``pad_info`` {column: (shape or None, value)} pads those columns (to the
        bucket's boundary - 1 along the first axis with ``pad_to_bucket_boundary``)."""
        names = [column_names] if isinstance(column_names, str) else list(column_names)
        return _nodes().BucketBatchDataset(self, names, bucket_boundaries, bucket_batch_sizes,
                                           element_length_function, pad_info, pad_to_bucket_boundary,
                                           drop_remainder)

    def save(self, file_name: str, num_files: int = 1, file_type: str = "mindrecord") -> None:
        """Write one epoch of the rows to ``num_files`` MindRecord file(s) (``MindDataset`` reads them), with
        MindSpore's implicit type casting (dataset/save.py)."""
        save_dataset(self, file_name, num_files, file_type)

    def sync_wait(self, condition_name: str, num_batch: int = 1, callback: Callable[[Any], Any] | None = None) -> Any:
        """A barrier named ``condition_name``: ``sync_update`` on the pipeline calls ``callback`` with its data.
        The pipeline is pulled one row at a time (no prefetch), so nothing runs ahead of a pending update."""
        if isinstance(num_batch, bool) or not isinstance(num_batch, int) or num_batch <= 0:
            raise ValueError(f"sync_wait: num_batch must be a positive int, got {num_batch!r}")
        return _nodes().SyncWaitDataset(self, condition_name, num_batch, callback)

    def sync_update(self, condition_name: str, num_batch: int | None = None, data: Any = None) -> None:
        """Release the barrier ``condition_name`` (calling its callback with ``data``)."""
        for node in _chain(self):
            if isinstance(node, _nodes().SyncWaitDataset) and node.condition_name == condition_name:
                if num_batch is not None:
                    node.num_batch = num_batch
                if node.callback is not None:
                    node.callback(data)
                return
        raise RuntimeError(f"sync_update: the pipeline has no sync_wait named {condition_name!r}")
