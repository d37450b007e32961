"""``opbuild.onnx``: run ONNX models through opbuild (optional extra: ``pip install 'opbuild[onnx]'``).

    import opbuild.onnx
    model = opbuild.onnx.load("model.onnx")   # a Cell; initializers are its Parameters
    y = model(x)                             # NumPy arrays or Tensors in, Tensors out

The ``onnx`` package is imported on first use, so ``import opbuild`` works without it.
"""

from __future__ import annotations

import os
from typing import Any

from .core.errors import MissingPackageError


def _frontend():
    try:
        import onnx  # noqa: F401  (checked here so the error names the missing package, not our module)
    except ModuleNotFoundError as e:
        if e.name != "onnx":
            raise
        raise MissingPackageError("opbuild.onnx", "onnx", "onnx") from None
    from .frontends import onnx as frontend

    return frontend


def load(model: str | os.PathLike | Any):
    """Load an ONNX model (a path or an ``onnx.ModelProto``) as a callable Cell that runs in graph mode
    through the incremental build. See :func:`opbuild.frontends.onnx.load`."""
    return _frontend().load(model)


def __getattr__(name: str) -> Any:
    """``OnnxModel``, ``UnsupportedOnnxError`` and the other frontend names, imported on first use."""
    frontend = _frontend()
    if name in frontend.__all__:
        return getattr(frontend, name)
    raise AttributeError(f"module 'opbuild.onnx' has no attribute {name!r}")


__all__ = ["load"]
