"""Regression metrics with MindSpore 2.10's signatures and results: MAE and MSE (error summed over every
element, divided by the number of samples, i.e. rows)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .metrics import Metric, rearrange_inputs


class _Error(Metric):
    _name = ""

    def clear(self) -> None:
        """Reset the sums."""
        self._error_sum = 0.0
        self._samples_num = 0

    @staticmethod
    def _error(diff: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        """``update(y_pred, y)``: ``y`` is reshaped to ``y_pred``'s shape; its first axis counts samples."""
        if len(inputs) != 2:
            raise ValueError(f"{self._name}.update needs 2 inputs (y_pred, y), got {len(inputs)}")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y.size != y_pred.size:
            raise ValueError(f"{self._name}.update: y {y.shape} cannot take y_pred's shape {y_pred.shape}")
        self._error_sum += self._error(y.reshape(y_pred.shape) - y_pred).sum()
        self._samples_num += y.shape[0]

    def eval(self) -> Any:
        """The error sum over the number of samples since ``clear``."""
        if self._samples_num == 0:
            raise RuntimeError(f"{self._name} can not be calculated, because the number of samples is 0")
        return self._error_sum / self._samples_num


class MAE(_Error):
    """``MAE()``: mean absolute error, sum of |y - y_pred| over the number of samples."""

    _name = "MAE"

    @staticmethod
    def _error(diff: np.ndarray) -> np.ndarray:
        return np.abs(diff)


class MSE(_Error):
    """``MSE()``: mean squared error, sum of (y - y_pred)² over the number of samples."""

    _name = "MSE"

    @staticmethod
    def _error(diff: np.ndarray) -> np.ndarray:
        return np.power(diff, 2)


__all__ = ["MAE", "MSE"]
