"""``batch(per_batch_map=...)``: a Python function that sees each batch's rows, column by column, before they are
stacked (MindSpore's per-batch map: multi-scale resizing, padding to the batch's longest row, ...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class BatchInfo:
    """What ``per_batch_map``'s last argument tells: the batch's index in its epoch and the epoch's index."""

    def __init__(self, batch_num: int, epoch_num: int) -> None:
        self._batch_num = batch_num
        self._epoch_num = epoch_num

    def get_batch_num(self) -> int:
        """The index of this batch in its epoch (0 for the first)."""
        return self._batch_num

    def get_epoch_num(self) -> int:
        """The index of this batch's epoch (0 for the first)."""
        return self._epoch_num


class PerBatchMap:
    """``fn(*columns, BatchInfo)``: each column a list of the batch's rows; it returns one list (or stacked
    array) per output column. ``input_columns`` defaults to every column and ``output_columns`` to
    ``input_columns``. The dataset's columns are then the output columns, in place of the input columns when
    the names are the same, else first, followed by the columns the function was not given."""

    def __init__(self, fn: Callable[..., Any], names: Sequence[str], input_columns: list[str] | None,
                 output_columns: list[str] | None) -> None:
        if not callable(fn):
            raise TypeError(f"batch: per_batch_map must be callable, got {type(fn).__name__}")
        self.fn = fn
        self.inputs = list(names) if input_columns is None else input_columns
        missing = [c for c in self.inputs if c not in names]
        if missing:
            raise ValueError(f"batch: input_columns {missing} are not columns of the dataset {list(names)}")
        self.outputs = self.inputs if output_columns is None else output_columns
        self._positions = [list(names).index(c) for c in self.inputs]
        kept = [n for n in names if n not in self.inputs]
        self.names = list(names) if self.outputs == self.inputs else self.outputs + kept
        self._kept = [(c, list(names).index(c)) for c in kept]  # the columns the function is not given

    def columns(self, rows: list[tuple], batch_num: int, epoch: int) -> list[list[np.ndarray] | np.ndarray]:
        """The batch's columns, in :attr:`names` order, each a list of rows (or an array the function stacked)."""
        given = [[r[i] for r in rows] for i in self._positions]
        result = self.fn(*given, BatchInfo(batch_num, epoch))
        if not isinstance(result, tuple) and len(self.outputs) == 1:
            result = (result,)  # one output column may come back bare, as MindSpore takes it
        if not isinstance(result, (tuple, list)) or len(result) != len(self.outputs):
            got = len(result) if isinstance(result, (tuple, list)) else type(result).__name__
            raise RuntimeError(f"batch: per_batch_map returned {got} column(s) for output columns {self.outputs}; "
                               "return a tuple of one list of rows per output column")
        out = {name: col if isinstance(col, np.ndarray) else [np.asarray(a) for a in col]
               for name, col in zip(self.outputs, result)}
        for name, i in self._kept:
            out[name] = [r[i] for r in rows]
        return [out[n] for n in self.names]
