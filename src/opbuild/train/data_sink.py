"""``mindspore.data_sink`` (also ``mindspore.train.data_sink``): run a step function over a dataset
``sink_size`` rows per call. MindSpore feeds the rows through a device queue and refuses the CPU target;
opbuild feeds them from the host in the calling thread, so a training loop written with ``data_sink`` runs the
same steps on the same rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _DataSink:
    """The callable :func:`data_sink` returns."""

    def __init__(self, fn: Callable, dataset: Any, sink_size: int) -> None:
        self.fn, self.dataset, self.sink_size = fn, dataset, sink_size
        self._rows = iter(())

    def _next_row(self) -> list:
        try:
            return next(self._rows)
        except StopIteration:  # one pass done: start the next epoch, as the device queue repeats the data
            self._rows = iter(self.dataset.create_tuple_iterator(num_epochs=1))
            try:
                return next(self._rows)
            except StopIteration:
                raise ValueError("data_sink: the dataset is empty") from None

    def __call__(self, *args: Any) -> Any:
        if args:
            raise TypeError(f"data_sink: the sunk function takes its inputs from the dataset; it was called with "
                            f"{len(args)} argument(s)")
        out = None
        for _ in range(self.sink_size):
            out = self.fn(*self._next_row())
        return out


def data_sink(fn: Callable, dataset: Any, sink_size: int = 1, jit_config: Any = None,
              input_signature: Any = None) -> Callable[[], Any]:
    """A callable that runs ``fn(*row)`` on the next ``sink_size`` rows of ``dataset`` per call (starting the
    dataset again when it runs out) and returns the last call's result. ``jit_config`` and
    ``input_signature`` are accepted: opbuild compiles ``fn``'s graph on its first call either way."""
    if not callable(fn):
        raise TypeError(f"data_sink: fn must be callable, got {type(fn).__name__}")
    if not hasattr(dataset, "create_tuple_iterator"):
        raise TypeError(f"data_sink: dataset must be a mindspore.dataset dataset, got {type(dataset).__name__}")
    if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size <= 0:
        raise ValueError(f"data_sink: sink_size must be a positive int, got {sink_size!r}")
    return _DataSink(fn, dataset, sink_size)


__all__ = ["data_sink"]
