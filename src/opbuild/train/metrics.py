"""Metrics with MindSpore's API: ``clear()``, ``update(*inputs)``, ``eval()``. They run on host arrays
(a metric is bookkeeping over a network's outputs, not a kernel), accepting Tensors or NumPy arrays."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np


def _numpy(x: Any) -> np.ndarray:
    return np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)


def rearrange_inputs(func: Callable[..., Any]) -> Callable[..., Any]:
    """MindSpore's decorator for ``Metric.update``: the inputs are picked and reordered by the metric's
    ``indexes`` (set with :meth:`Metric.set_indexes`) before ``func`` sees them."""
    @functools.wraps(func)
    def update(self: Metric, *inputs: Any) -> Any:
        indexes = getattr(self, "_indexes", None)
        if indexes is not None:
            inputs = tuple(inputs[i] for i in indexes)
        return func(self, *inputs)

    return update


class Metric:
    """Base class: subclasses implement ``clear``, ``update`` and ``eval``."""

    def __init__(self) -> None:
        self._indexes: list[int] | None = None
        self.clear()

    @property
    def indexes(self) -> list[int] | None:
        """The positions of the ``update`` inputs this metric takes (None: all, in order)."""
        return self._indexes

    def set_indexes(self, indexes: list[int]) -> Metric:
        """Take the inputs at ``indexes`` of ``update`` (in that order); returns the metric. As MindSpore, it
        acts on metrics whose ``update`` is decorated with :func:`rearrange_inputs` (all of opbuild's)."""
        if not isinstance(indexes, list) or not all(isinstance(i, int) and not isinstance(i, bool)
                                                    for i in indexes):
            raise ValueError(f"set_indexes: indexes must be a list of ints, got {indexes!r}")
        self._indexes = indexes
        return self

    @staticmethod
    def _convert_data(data: Any) -> np.ndarray:
        """A Tensor, list or array as a NumPy array (MindSpore's ``Metric._convert_data``)."""
        if hasattr(data, "asnumpy"):
            return data.asnumpy()
        if isinstance(data, (list, np.ndarray)):
            return np.asarray(data)
        raise TypeError(f"a metric takes Tensors, lists or NumPy arrays, got {type(data).__name__}")

    def clear(self) -> None:
        """Reset the accumulated state."""
        raise NotImplementedError

    def update(self, *inputs: Any) -> None:
        """Accumulate one batch."""
        raise NotImplementedError

    def eval(self) -> float:
        """The metric over every batch since the last ``clear``."""
        raise NotImplementedError


class Accuracy(Metric):
    """``Accuracy(eval_type='classification')``: the fraction of samples whose prediction is right.
    ``update(y_pred, y)``: ``y_pred`` scores of shape (N, C) (argmax is the prediction; for
    'multilabel', 0/1 of y's shape, a sample right when all its labels are) and ``y`` either class indices
    (N,) or one-hot (N, C)."""

    def __init__(self, eval_type: str = "classification") -> None:
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"Accuracy: eval_type must be 'classification' or 'multilabel', got {eval_type!r}")
        self._type = eval_type
        super().__init__()

    def clear(self) -> None:
        self._correct_num = 0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"Accuracy.update needs 2 inputs (y_pred, y), got {len(inputs)}")
        y_pred, y = _numpy(inputs[0]), _numpy(inputs[1])
        if self._type == "multilabel":
            if y_pred.shape != y.shape:
                raise ValueError(f"Accuracy: multilabel y_pred {y_pred.shape} and y {y.shape} differ in shape")
            right = np.all(y_pred == y, axis=tuple(range(1, y.ndim)))
        else:
            if y_pred.ndim != 2:
                raise ValueError(f"Accuracy: y_pred must have shape (N, C), got {y_pred.shape}")
            if y.ndim == 2 and y.shape == y_pred.shape:  # one-hot labels
                y = y.argmax(axis=1)
            if y.shape != (y_pred.shape[0],):
                raise ValueError(f"Accuracy: y must be (N,) indices or (N, C) one-hot, got {y.shape}")
            right = y_pred.argmax(axis=1) == y
        self._correct_num += int(np.sum(right))
        self._total_num += int(right.shape[0])

    def eval(self) -> float:
        if self._total_num == 0:
            raise RuntimeError("Accuracy can not be calculated, because the number of samples is 0")
        return self._correct_num / self._total_num


class Loss(Metric):
    """``Loss()``: the mean of the loss values given to ``update(loss)`` (a scalar, or a 1-element array)."""

    def clear(self) -> None:
        self._sum_loss = 0.0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 1:
            raise ValueError(f"Loss.update needs 1 input (the loss), got {len(inputs)}")
        loss = _numpy(inputs[0])
        if loss.size != 1:
            raise ValueError(f"Loss.update: the loss must be a scalar, got shape {loss.shape}")
        self._sum_loss += float(loss.reshape(()))
        self._total_num += 1

    def eval(self) -> float:
        if self._total_num == 0:
            raise RuntimeError("Loss can not be calculated, because the number of samples is 0")
        return self._sum_loss / self._total_num


__all__ = ["Metric", "Accuracy", "Loss", "rearrange_inputs"]
