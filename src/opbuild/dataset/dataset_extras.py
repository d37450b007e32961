"""Inspection and composition methods of ``mindspore.dataset.Dataset`` (a mixin of core.Dataset):
``apply``, ``output_shapes``, ``output_types``, ``get_batch_size``, ``get_repeat_count``, and the module-level
``zip``. Shapes and types are those of the first row, as MindSpore reads them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class DatasetExtras:
    """Mixin of :class:`~opbuild.dataset.core.Dataset`."""

    def apply(self, apply_func: Callable[[Any], Any]):
        """``apply_func(self)``, which must return a dataset."""
        out = apply_func(self)
        if not hasattr(out, "create_dict_iterator"):
            raise TypeError(f"apply: apply_func must return a dataset, got {type(out).__name__}")
        return out

    def _first_row(self) -> list[np.ndarray]:
        it = self.create_tuple_iterator(num_epochs=1, output_numpy=True)
        try:
            return [np.asarray(v) for v in next(iter(it))]
        except StopIteration:
            raise RuntimeError("the dataset is empty: it has no row to take shapes or types from") from None

    def output_shapes(self, estimate: bool = False) -> list[list[int]]:
        """The shape of each column of the first row."""
        return [list(v.shape) for v in self._first_row()]

    def output_types(self) -> list[np.dtype]:
        """The NumPy dtype of each column of the first row."""
        return [v.dtype for v in self._first_row()]

    def _find(self, attr: str):
        node = self
        while node is not None:
            if attr in vars(node):
                return vars(node)[attr]
            node = getattr(node, "_child", None)
        return None

    def get_batch_size(self) -> int:
        """The batch size of the nearest ``batch`` in the pipeline (1 without one)."""
        size = self._find("batch_size")
        return 1 if size is None else int(size)

    def get_repeat_count(self) -> int:
        """The count of the nearest ``repeat`` in the pipeline (1 without one; -1: forever)."""
        count = self._find("count")
        return 1 if count is None else int(count)


    def _sampled_source(self, who: str):
        node = self
        while node is not None and "_sampler" not in vars(node):
            node = getattr(node, "_child", None)
        if node is None:
            raise RuntimeError(f"{who}: the pipeline has no source that reads through a sampler (a Python "
                               "generator function is read in order)")
        return node

    def use_sampler(self, new_sampler: Any) -> None:
        """Read the pipeline's source through ``new_sampler`` (replacing its shuffle/shard choice)."""
        from .samplers import Sampler  # function level: samplers imports the dataset core

        if not isinstance(new_sampler, Sampler):
            raise TypeError(f"use_sampler: expected a dataset sampler, got {type(new_sampler).__name__}")
        self._sampled_source("use_sampler")._sampler = new_sampler

    def add_sampler(self, new_sampler: Any) -> None:
        """Read the source through ``new_sampler`` when it has no sampler yet (chains are not supported)."""
        source = self._sampled_source("add_sampler")
        if source._sampler is not None:
            raise NotImplementedError("add_sampler: the source already has a sampler and opbuild does not "
                                      "chain samplers; use use_sampler to replace it")
        self.use_sampler(new_sampler)

    def flat_map(self, func: Callable[..., Any]):
        """A dataset of the rows of ``func(*row)`` for each row (``func`` returns a dataset)."""
        from .derived import FlatMapDataset  # function level: derived.py imports the dataset core

        if not callable(func):
            raise TypeError("flat_map: func must be callable and return a dataset")
        return FlatMapDataset(self, func)


def zip(datasets: Sequence[Any]):  # noqa: A001 - MindSpore's name
    """The datasets' columns side by side (``ds.zip((a, b))``), as ``a.zip(b)``."""
    if not isinstance(datasets, (tuple, list)) or len(datasets) < 1:
        raise TypeError("zip: datasets must be a tuple of datasets")
    first, rest = datasets[0], list(datasets[1:])
    return first.zip(rest) if rest else first
