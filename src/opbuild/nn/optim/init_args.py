"""``opt_init_args_register``: the decorator MindSpore's optimizers put on ``__init__`` to remember how they were
built (``init_params``, ``init_learning_rate``, ``init_args``), which optimizers written for MindSpore (model zoos'
AdamW, Lion, ...) apply to their own ``__init__``."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ...core.tensor import Tensor
from ..cell import Cell


def opt_init_args_register(fn: Callable[..., None]) -> Callable[..., None]:
    """Wrap an optimizer's ``__init__`` so that, before it runs, the instance records its arguments:
    ``init_params = {"params": params}`` (or the wrapped ``optimizer``'s ``init_params``),
    ``init_learning_rate`` (a Tensor rate as a list, None for a schedule Cell) and ``init_args``, the
    remaining bound arguments by name (defaults not filled in, as MindSpore)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        arguments = dict(signature.bind(self, *args, **kwargs).arguments)
        arguments.pop("self", None)
        if "params" in arguments:
            self.init_params = {"params": arguments.pop("params")}
        if "optimizer" in arguments:
            inner = arguments.pop("optimizer")
            self.init_params = {"params": getattr(inner, "init_params", {}).get("params")}
        if "learning_rate" in arguments:
            rate = arguments.pop("learning_rate")
            if isinstance(rate, Tensor):
                rate = rate.asnumpy().tolist()
            self.init_learning_rate = None if isinstance(rate, Cell) else rate
        self.init_args = arguments
        fn(self, *args, **kwargs)

    return init
