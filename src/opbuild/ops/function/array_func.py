"""``mindspore.ops.function.array_func``: the functional API (see the package's docstring: every family module of
opbuild's ``ops.function`` gives every function)."""

from __future__ import annotations

from typing import Any

from .. import functional as _functional
from ..functional import *  # noqa: F403

__all__ = list(_functional.__all__)


def __getattr__(name: str) -> Any:
    # The function transforms (grad, vjp, ...) and stop_gradient, which functional looks up on first use.
    return getattr(_functional, name)
