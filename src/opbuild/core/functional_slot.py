"""How Tensor methods reach the functional API (MindSpore's ``tensor_operator_registry``): through
core/providers.py, which names ``opbuild.ops:TENSOR_METHODS`` and looks it up on first use. ops imports the tensor
modules, so importing ops from them would be a cycle; nothing is installed into core at import time."""

from __future__ import annotations

from typing import Any

from .providers import tensor_methods


def _ops() -> Any:
    """The namespace Tensor's methods call: the functional API plus ``getitem``/``setitem``."""
    return tensor_methods()
