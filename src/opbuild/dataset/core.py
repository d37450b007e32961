"""The dataset pipeline: a ``Dataset`` is a node that yields rows (tuples of NumPy arrays, one per column);
``batch``, ``shuffle`` and ``map`` wrap a node in another; iterators walk the chain one epoch at a time.

Everything is pull-based and single-threaded: data preparation for the small training jobs opbuild runs is
cheap next to the compiled train step, and one thread keeps every order exactly repeatable. Random choices
come from generators seeded by (dataset seed, the node's depth in the chain, epoch), so two ranks with the same
seed see the same permutation (what sharding relies on) and every epoch reshuffles, as in MindSpore.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from . import config
from .arguments import INT32_MAX, Row, _check_int  # noqa: F401 - also this module's names, as before
from .batch_map import PerBatchMap
from .callbacks import CallbackRunner, check_callbacks
from .extras import PipelineExtras
from .py_objects import column_value, map_leaves


def _column_list(name: str, value: str | Sequence[str] | None) -> list[str] | None:
    """A column-name argument (one name or a list) as a list, checking that every name is a string."""
    if value is None:
        return None
    names = [value] if isinstance(value, str) else list(value)
    for n in names:
        if not isinstance(n, str) or not n:
            raise TypeError(f"{name} must be a column name or a list of column names, got {value!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"{name} has duplicate column names: {names}")
    return names



def _combine():
    """dataset/combine.py, whose datasets subclass :class:`Dataset`: imported when a combining method is first
    called (a module-level import either way would be a cycle)."""
    from . import combine

    return combine

class Dataset(PipelineExtras):
    """Base class of every dataset node (sources and operations), with MindSpore's pipeline methods.

    Subclasses implement ``_column_names``, ``_rows(epoch, seed)`` and ``_size`` (None when the number of
    rows is unknown without iterating, as for a Python generator).
    """

    def __init__(self, child: Dataset | None = None) -> None:
        self._child = child
        # The depth salts each node's random stream, so two shuffles in one chain never draw the same numbers.
        self._depth: int = 0 if child is None else child._depth + 1

    # ---- node interface -------------------------------------------------------------------------
    def _column_names(self) -> list[str]:
        raise NotImplementedError

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        raise NotImplementedError

    def _size(self) -> int | None:
        raise NotImplementedError

    def _rng(self, epoch: int, seed: int) -> np.random.Generator:
        """The random generator of this node for one epoch (see the module docstring)."""
        return np.random.default_rng([seed, self._depth, epoch])

    # ---- pipeline operations --------------------------------------------------------------------
    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_workers: int | None = None,
              per_batch_map: Callable[..., Any] | None = None, input_columns: str | Sequence[str] | None = None,
              output_columns: str | Sequence[str] | None = None, python_multiprocessing: bool = False,
              max_rowsize: Any = None) -> BatchDataset:
        """Stack ``batch_size`` consecutive rows into one, column by column (a new leading axis).

        The last, smaller batch is kept unless ``drop_remainder``. ``per_batch_map(*columns, batch_info)``
        sees each batch first: each of its ``input_columns`` (default: all) as a list of rows, and a
        :class:`~opbuild.dataset.batch_map.BatchInfo`; it returns one list of rows per ``output_columns``
        (default: the input columns), which are then stacked (dataset/batch_map.py). ``num_parallel_workers``,
        ``python_multiprocessing`` and ``max_rowsize`` are accepted for MindSpore compatibility; batching runs
        in the iterating thread.
        """
        inputs = _column_list("input_columns", input_columns)
        outputs = _column_list("output_columns", output_columns)
        if per_batch_map is None:
            if inputs is not None or outputs is not None:
                raise ValueError("batch: input_columns and output_columns need a per_batch_map")
            return BatchDataset(self, batch_size, drop_remainder)
        mapper = PerBatchMap(per_batch_map, self._column_names(), inputs, outputs)
        return BatchDataset(self, batch_size, drop_remainder, mapper)

    def shuffle(self, buffer_size: int) -> ShuffleDataset:
        """Shuffle rows through a buffer of ``buffer_size`` rows (>= 2); a buffer as large as the dataset is a
        global shuffle. The order changes every epoch and follows the dataset seed."""
        return ShuffleDataset(self, buffer_size)

    def map(self, operations: Callable | Sequence[Callable], input_columns: str | Sequence[str] | None = None,
            output_columns: str | Sequence[str] | None = None, num_parallel_workers: int | None = None,
            python_multiprocessing: bool = False, **kwargs: Any) -> MapDataset:
        """Apply ``operations`` (one callable or a list applied in order) to ``input_columns`` of every row.

        ``input_columns`` defaults to the first column; each operation receives the columns as NumPy arrays,
        positionally, and returns one array or a tuple (the next operation's inputs). The results are named
        ``output_columns`` (default: the input columns). As in MindSpore, when there are as many outputs as
        inputs they take the input columns' places; otherwise they come first, followed by the untouched
        columns. Workers and multiprocessing are accepted and ignored (operations run in the iterating
        thread); ``callbacks`` takes ``DSCallback`` objects (dataset/callbacks.py); other keyword arguments
        (MindSpore's ``max_rowsize``, ...) are refused.
        """
        callbacks = kwargs.pop("callbacks", None)
        if kwargs:
            raise TypeError(f"map: unsupported arguments {sorted(kwargs)}")
        node = MapDataset(self, operations, input_columns, output_columns)
        if callbacks is not None:
            node._set_callbacks(callbacks)
        return node

    def repeat(self, count: int | None = None) -> Dataset:
        """The rows ``count`` times (None or -1: without end), each repetition reshuffled."""
        return _combine().RepeatDataset(self, count)

    def take(self, count: int = -1) -> Dataset:
        """The first ``count`` rows (-1: all)."""
        return _combine().take(self, count)

    def skip(self, count: int) -> Dataset:
        """The rows after the first ``count``."""
        return _combine().skip(self, count)

    def zip(self, datasets: Dataset | Sequence[Dataset]) -> Dataset:
        """This dataset's columns and those of ``datasets`` side by side (as many rows as the shortest)."""
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return _combine().ZipDataset([self, *others])

    def concat(self, datasets: Dataset | Sequence[Dataset]) -> Dataset:
        """This dataset's rows, then those of ``datasets`` (same columns); also ``ds1 + ds2``."""
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return _combine().ConcatDataset([self, *others])

    def __add__(self, other: Dataset) -> Dataset:
        return self.concat(other)

    def filter(self, predicate: Callable[..., Any], input_columns: str | Sequence[str] | None = None,
               num_parallel_workers: int | None = None) -> Dataset:
        """The rows for which ``predicate(*input_columns)`` (default: every column) is true."""
        return _combine().FilterDataset(self, predicate, input_columns)

    def split(self, sizes: Sequence[Any], randomize: bool = True) -> list[Dataset]:
        """Split into datasets of ``sizes`` rows (ints summing to the size, or fractions summing to 1)."""
        return _combine().split(self, sizes, randomize)

    def rename(self, input_columns: str | Sequence[str], output_columns: str | Sequence[str]) -> Dataset:
        """Rename columns ``input_columns`` to ``output_columns``."""
        return _combine().RenameDataset(self, input_columns, output_columns)

    def project(self, columns: str | Sequence[str]) -> Dataset:
        """Keep only ``columns``, in that order."""
        return _combine().ProjectDataset(self, columns)

    # ---- information ----------------------------------------------------------------------------
    def get_col_names(self) -> list[str]:
        """The names of the columns of every row this dataset yields, in order."""
        return list(self._column_names())

    def get_dataset_size(self) -> int:
        """The number of rows (batches after ``batch``) in one epoch. For a source that cannot tell its length
        (a Python generator) the data is iterated once to count, as MindSpore does."""
        size = self._size()
        if size is None:
            size = sum(1 for _ in self._rows(0, config.get_seed()))
        return size

    # ---- iteration ------------------------------------------------------------------------------
    def create_tuple_iterator(self, columns: Sequence[str] | None = None, num_epochs: int = -1,
                              output_numpy: bool = False, do_copy: bool = True) -> TupleIterator:
        """An iterator whose items are lists of column values (opbuild Tensors, or NumPy arrays when
        ``output_numpy``). Each ``for`` loop over it runs one epoch; ``num_epochs=-1`` allows any number.
        ``columns`` selects and orders columns. ``do_copy`` is accepted for MindSpore compatibility."""
        return TupleIterator(self, num_epochs, output_numpy, _column_list("columns", columns))

    def create_dict_iterator(self, num_epochs: int = -1, output_numpy: bool = False,
                             do_copy: bool = True) -> DictIterator:
        """Like :meth:`create_tuple_iterator` but each item is a dict ``{column name: value}``."""
        return DictIterator(self, num_epochs, output_numpy, None)

    def __iter__(self) -> Iterator[list]:
        """One epoch of rows as lists of Tensors (``iter(dataset.create_tuple_iterator())``)."""
        return iter(self.create_tuple_iterator())

    # No __len__, as in MindSpore: list() would call it as a length hint, and for a Python generator source
    # that means running the generator once more just to count.


class BatchDataset(Dataset):
    """Rows stacked ``batch_size`` at a time (see :meth:`Dataset.batch`)."""

    def __init__(self, child: Dataset, batch_size: int, drop_remainder: bool,
                 mapper: PerBatchMap | None = None) -> None:
        super().__init__(child)
        self._mapper = mapper
        if callable(batch_size):
            raise TypeError("batch: a callable batch_size is not supported; pass an int")
        self.batch_size = _check_int("batch_size", batch_size, 1)
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"drop_remainder must be a bool, got {drop_remainder!r}")
        self.drop_remainder = drop_remainder

    def _column_names(self) -> list[str]:
        return self._child._column_names() if self._mapper is None else list(self._mapper.names)

    def _size(self) -> int | None:
        n = self._child._size()
        if n is None:
            return None
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _stack(self, rows: list[Row], batch_num: int, epoch: int) -> Row:
        names = self._column_names()
        if self._mapper is None:
            columns: list = [[r[i] for r in rows] for i in range(len(names))]
        else:
            columns = self._mapper.columns(rows, batch_num, epoch)
        out = []
        for name, col in zip(names, columns):
            if isinstance(col, np.ndarray):  # stacked by per_batch_map already
                out.append(col)
                continue
            if not col:
                raise RuntimeError(f"batch: per_batch_map returned no rows for column {name!r}")
            first = col[0]
            for a in col[1:]:
                if a.shape != first.shape or a.dtype != first.dtype:
                    raise RuntimeError(
                        f"batch: rows of column {name!r} differ in shape or type ({first.shape} {first.dtype} vs "
                        f"{a.shape} {a.dtype}); rows in one batch must match (pad them in a map first)")
            out.append(np.stack(col))
        return tuple(out)

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        pending: list[Row] = []
        batch_num = 0
        for row in self._child._rows(epoch, seed):
            pending.append(row)
            if len(pending) == self.batch_size:
                yield self._stack(pending, batch_num, epoch)
                pending = []
                batch_num += 1
        if pending and not self.drop_remainder:
            yield self._stack(pending, batch_num, epoch)


class ShuffleDataset(Dataset):
    """Rows shuffled through a bounded buffer (see :meth:`Dataset.shuffle`)."""

    def __init__(self, child: Dataset, buffer_size: int) -> None:
        super().__init__(child)
        # MindSpore refuses 1 too: a one-row buffer would silently not shuffle at all.
        self.buffer_size = _check_int("buffer_size", buffer_size, 2)

    def _column_names(self) -> list[str]:
        return self._child._column_names()

    def _size(self) -> int | None:
        return self._child._size()

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        rng = self._rng(epoch, seed)
        buffer: list[Row] = []
        for row in self._child._rows(epoch, seed):
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            # Emit a random row of the full buffer and put the new one in its place.
            k = int(rng.integers(len(buffer)))
            yield buffer[k]
            buffer[k] = row
        for k in rng.permutation(len(buffer)):
            yield buffer[int(k)]


class MapDataset(Dataset):
    """Columns transformed by Python callables (see :meth:`Dataset.map`)."""

    def __init__(self, child: Dataset, operations: Callable | Sequence[Callable],
                 input_columns: str | Sequence[str] | None, output_columns: str | Sequence[str] | None) -> None:
        super().__init__(child)
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops:
            raise ValueError("map: operations is empty")
        for op in ops:
            if not callable(op):
                raise TypeError(f"map: every operation must be callable, got {type(op).__name__}")
        self.operations = ops
        names = child._column_names()
        self.input_columns = _column_list("input_columns", input_columns) or [names[0]]
        missing = [c for c in self.input_columns if c not in names]
        if missing:
            raise ValueError(f"map: input_columns {missing} are not columns of the dataset {names}")
        self.output_columns = _column_list("output_columns", output_columns) or list(self.input_columns)
        self._in_idx = [names.index(c) for c in self.input_columns]
        if len(self.output_columns) == len(self.input_columns):
            out_names = list(names)
            for i, c in zip(self._in_idx, self.output_columns):
                out_names[i] = c
        else:
            out_names = self.output_columns + [c for c in names if c not in self.input_columns]
        if len(set(out_names)) != len(out_names):
            raise ValueError(f"map: the output columns {self.output_columns} collide with kept columns "
                             f"(result would be {out_names})")
        self._out_names = out_names

    def _column_names(self) -> list[str]:
        return list(self._out_names)

    def _size(self) -> int | None:
        return self._child._size()

    def _apply(self, values: tuple) -> tuple[np.ndarray, ...]:
        for op in self.operations:
            res = op(*values)
            values = res if isinstance(res, tuple) else (res,)
        if len(values) != len(self.output_columns):
            raise RuntimeError(f"map: the operations returned {len(values)} values for output columns "
                               f"{self.output_columns}; pass output_columns naming each result")
        return tuple(column_value(v) for v in values)

    def _set_callbacks(self, callbacks: Any) -> None:

        self._runner = CallbackRunner(check_callbacks(callbacks))

    def _rows(self, epoch: int, seed: int) -> Iterator[Row]:
        same_arity = len(self.output_columns) == len(self.input_columns)
        kept = [i for i in range(len(self._child._column_names())) if i not in self._in_idx]

        def one(row: Row) -> Row:
            results = self._apply(tuple(row[i] for i in self._in_idx))
            if not same_arity:
                return results + tuple(row[i] for i in kept)
            new = list(row)
            for i, v in zip(self._in_idx, results):
                new[i] = v
            return tuple(new)

        runner = getattr(self, "_runner", None)
        rows = self._child._rows(epoch, seed)
        yield from (runner.run(rows, epoch, one) if runner is not None else map(one, rows))


def _to_output(arr: np.ndarray, output_numpy: bool, column: str) -> Any:
    """A column value as the iterator returns it: the array itself, or an opbuild Tensor (a dict column: a
    dict of those)."""
    if isinstance(arr, (dict, list)):
        return map_leaves(arr, lambda a: _to_output(a, output_numpy, column))
    if output_numpy:
        return arr
    try:
        return Tensor(arr)
    except TypeError as e:
        raise TypeError(f"column {column!r} has dtype {arr.dtype}, which an opbuild Tensor cannot hold ({e}); "
                        "cast it in a map, or iterate with output_numpy=True") from None


class _EpochIterator:
    """Iterates a dataset epoch by epoch: a ``for`` loop ends at the end of an epoch, and the next loop over
    the same iterator starts the next epoch (reshuffled), as MindSpore's iterators do."""

    def __init__(self, dataset: Dataset, num_epochs: int, output_numpy: bool, columns: list[str] | None) -> None:
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or (num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"num_epochs must be a positive int or -1 (no limit), got {num_epochs!r}")
        if not isinstance(output_numpy, bool):
            raise TypeError(f"output_numpy must be a bool, got {output_numpy!r}")
        self._dataset = dataset
        self._num_epochs = num_epochs
        self._output_numpy = output_numpy
        names = dataset._column_names()
        columns = columns or names
        missing = [c for c in columns if c not in names]
        if missing:
            raise ValueError(f"columns {missing} are not columns of the dataset {names}")
        self._columns = columns
        self._idx = [names.index(c) for c in columns]
        # The seed is read once, when the pipeline is "built" (as MindSpore reads it when its tree launches).
        self._seed = config.get_seed()
        self._epoch = 0
        self._rows: Iterator[Row] | None = None

    def __iter__(self) -> _EpochIterator:
        return self

    def _next_row(self) -> Row:
        if self._rows is None:
            if self._num_epochs != -1 and self._epoch >= self._num_epochs:
                raise RuntimeError(f"this iterator was created for num_epochs={self._num_epochs} and all of them "
                                   "have been read; create a new iterator or pass a larger num_epochs")
            self._rows = self._dataset._rows(self._epoch, self._seed)
        try:
            return next(self._rows)
        except StopIteration:
            self._rows = None
            self._epoch += 1
            raise

    def get_next(self) -> Any:
        """The next item (MindSpore's iterator method); raises StopIteration at the end of an epoch."""
        return self.__next__()

    def __next__(self) -> Any:
        raise NotImplementedError


class TupleIterator(_EpochIterator):
    """Items are lists of column values (see :meth:`Dataset.create_tuple_iterator`)."""

    def __next__(self) -> list:
        row = self._next_row()
        return [_to_output(row[i], self._output_numpy, c) for i, c in zip(self._idx, self._columns)]


class DictIterator(_EpochIterator):
    """Items are ``{column: value}`` dicts (see :meth:`Dataset.create_dict_iterator`)."""

    def __next__(self) -> dict[str, Any]:
        row = self._next_row()
        return {c: _to_output(row[i], self._output_numpy, c) for i, c in zip(self._idx, self._columns)}


