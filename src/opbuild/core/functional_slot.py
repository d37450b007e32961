"""The one slot through which Tensor methods reach the functional API (MindSpore's
``tensor_operator_registry``): ``opbuild.ops`` fills it when it is imported; ops imports the tensor modules, so
importing ops from them would be a cycle."""

from __future__ import annotations

from typing import Any

_functional: Any = None


def bind_functional(namespace: Any) -> None:
    """Install the functional API the Tensor methods call (``opbuild.ops`` does this when it is imported)."""
    global _functional
    _functional = namespace


def _ops() -> Any:
    if _functional is None:  # only if opbuild.ops was never imported, which ``import opbuild`` always does
        raise RuntimeError("Tensor operators need opbuild.ops: import opbuild (or opbuild.ops) first")
    return _functional
