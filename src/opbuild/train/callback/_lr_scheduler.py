"""``LearningRateScheduler(learning_rate_function)``: after each training step, set the optimizer's learning
rate to ``learning_rate_function(lr, cur_step_num)`` (MindSpore's callback of that name)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ._callback import Callback, RunContext


class LearningRateScheduler(Callback):
    """Change a static learning rate step by step through a Python function."""

    def __init__(self, learning_rate_function: Callable[[float, int], float]) -> None:
        if not callable(learning_rate_function):
            raise TypeError("LearningRateScheduler: learning_rate_function must be callable (lr, cur_step_num)")
        self.learning_rate_function = learning_rate_function

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Apply the function to the current learning rate and step number."""
        cb_params = run_context.original_args()
        optimizer = cb_params.get("optimizer")
        lr = getattr(optimizer, "learning_rate", None)
        if lr is None or getattr(optimizer, "dynamic_lr", False) or not hasattr(lr, "set_data"):
            raise ValueError("LearningRateScheduler: the optimizer needs one static float learning_rate "
                             "(dynamic and group learning rates are not supported)")
        cur = float(lr.asnumpy())
        new = float(self.learning_rate_function(cur, cb_params.cur_step_num))
        if not math.isclose(cur, new, rel_tol=1e-10):
            lr.set_data(np.asarray(new, dtype=lr.asnumpy().dtype))
