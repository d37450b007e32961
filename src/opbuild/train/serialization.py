"""``opbuild.export`` (MindSpore's ``mindspore.export`` / ``mindspore.train.serialization.export``), and the
checkpoint functions MindSpore's ``train.serialization`` also holds (``load_checkpoint``, ``save_checkpoint``,
``load_param_into_net``, ``merge_sliced_parameter``: checkpoint/serialization.py, api_extras.py).

``export`` writes ONNX (``frontends/onnx_export.py``) and MINDIR, MindSpore's own graph format
(``frontends/mindir_export.py``: files MindSpore 2.10 loads and runs); ``load`` reads MINDIR files written by
MindSpore 2.10 (or opbuild) for ``nn.GraphCell`` (``frontends/mindir.py``). AIR (Ascend's format) and
encrypted or obfuscated MINDIR files are not supported, with errors that say so. The ONNX writer needs the
optional ``onnx`` package and is imported on first use.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..api_extras import merge_sliced_parameter
from ..cache.fsio import atomic_write
from ..checkpoint.serialization import load_checkpoint, load_param_into_net, save_checkpoint
from ..core.errors import MissingPackageError
from ..frontends import mindir, mindir_export
from .ckpt_convert import (
    ParamDictFuture,
    ckpt_to_safetensors,
    load_checkpoint_async,
    safetensors_to_ckpt,
)

__all__ = ["export", "load", "load_mindir", "save_mindir", "load_checkpoint", "load_param_into_net",
           "save_checkpoint", "merge_sliced_parameter", "ckpt_to_safetensors", "safetensors_to_ckpt",
           "load_checkpoint_async", "ParamDictFuture"]

_FORMATS = ("ONNX", "MINDIR", "AIR")


def export(net: Any, *inputs: Any, file_name: str | os.PathLike, file_format: str = "ONNX",
           **kwargs: Any) -> Path | None:
    """Export ``net`` traced on ``inputs`` (Tensors or NumPy arrays giving the input signature) to
    ``file_name``, as MindSpore's ``export(net, *inputs, file_name, file_format)`` does.

    ``file_format`` "ONNX" writes an ONNX model (opset 17) of the graph traced in inference mode, with the
    network's parameters as initializers under their names; ``file_name`` gets the ".onnx" suffix when it does
    not already end with it (MindSpore's rule). "MINDIR" writes a MINDIR file (".mindir" suffix likewise) that
    MindSpore 2.10's ``load`` and ``nn.GraphCell`` run, as does :func:`load` here (frontends/mindir_export.py:
    the primitives it translates; control flow over tensor values is not written). "AIR" (Ascend's format)
    raises ValueError. Returns the path written for ONNX, and None for MINDIR as MindSpore's export (so that
    its documented examples print the same at a prompt). MindSpore-only keyword arguments (``dataset``, ...) are
    rejected rather than ignored, so a caller relying on them learns it at once; ``enc_key`` (encrypting a
    MINDIR file) raises ValueError: opbuild does not encrypt.
    """
    if not isinstance(file_format, str) or file_format.upper() not in _FORMATS:
        raise ValueError(f"export: file_format must be one of {', '.join(_FORMATS)}, got {file_format!r}")
    fmt = file_format.upper()
    if fmt == "MINDIR" and kwargs.get("enc_key") is not None:
        raise ValueError("export: enc_key encrypts a MINDIR file, which opbuild does not do; export without it")
    if fmt == "MINDIR":
        kwargs = {k: v for k, v in kwargs.items() if k not in ("enc_key", "enc_mode")}
    if kwargs:
        raise TypeError(f"export: unsupported keyword argument(s) {sorted(kwargs)} (opbuild's export takes "
                        "net, *inputs, file_name and file_format)")
    if fmt == "AIR":
        raise ValueError(f"export: file_format={file_format!r} (Ascend's graph format) is not supported by "
                         "opbuild; use file_format='MINDIR' or 'ONNX'")
    if not inputs:
        raise ValueError("export: give at least one input (a Tensor or array) to trace the network with")
    if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
        raise TypeError(f"export: file_name must be a non-empty path, got {file_name!r}")
    path = os.fspath(file_name)
    suffix = ".mindir" if fmt == "MINDIR" else ".onnx"
    if not path.endswith(suffix):
        path += suffix
    if fmt == "MINDIR":
        mindir_export.export_mindir(net, inputs, Path(path))
        return None
    try:
        from ..frontends import onnx_export
    except ModuleNotFoundError as e:
        if e.name != "onnx":
            raise
        raise MissingPackageError("export(file_format='ONNX')", "onnx", "onnx") from None
    return onnx_export.export_onnx(net, inputs, Path(path))


_LOAD_KWARGS = ("dec_key", "dec_mode", "obf_func")


def load(file_name: str | os.PathLike, **kwargs: Any) -> Any:
    """Load the MINDIR file ``file_name`` (written by ``mindspore.export(..., file_format="MINDIR")``) as a graph
    that :class:`opbuild.nn.GraphCell` runs, as MindSpore's ``load`` does.

    ``dec_key``/``dec_mode`` are for encrypted files, which opbuild does not decrypt: giving a key raises
    :class:`~opbuild.frontends.mindir.MindirError`, as does a file that is not MINDIR, is truncated or is
    encrypted; a graph using MindSpore primitives opbuild does not map raises
    :class:`~opbuild.frontends.mindir.UnsupportedMindirError` naming all of them.
    """
    unknown = sorted(set(kwargs) - set(_LOAD_KWARGS))
    if unknown:
        raise TypeError(f"load: unsupported keyword argument(s) {unknown} (it takes {', '.join(_LOAD_KWARGS)})")
    if kwargs.get("obf_func") is not None:
        raise ValueError("load: obf_func is for obfuscated MINDIR models, which opbuild does not load")
    if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
        raise ValueError(f"load: file_name must be the path of a MINDIR file, got {file_name!r}")
    if not os.fspath(file_name).endswith(".mindir"):
        raise ValueError(f"load: only MINDIR files ('.mindir') are loaded, got {os.fspath(file_name)!r}")
    return mindir.read(file_name, dec_key=kwargs.get("dec_key"), dec_mode=kwargs.get("dec_mode", "AES-GCM"))


def load_mindir(file_name: str | os.PathLike) -> Any:
    """The MINDIR file ``file_name`` as its protobuf ``ModelProto`` message (graphs, nodes, primitives,
    parameters), as MindSpore's ``load_mindir``; the message class is opbuild's (frontends/mindir_proto.py).
    The errors are :func:`load`'s."""
    if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
        raise ValueError(f"load_mindir: file_name must be the path of a MINDIR file, got {file_name!r}")
    return mindir.parse(file_name)


def save_mindir(model: Any, file_name: str | os.PathLike) -> None:
    """Write the MINDIR ``ModelProto`` ``model`` (from :func:`load_mindir`, possibly edited) to ``file_name``,
    which gets the ".mindir" suffix when it does not end with it, as MindSpore's ``save_mindir``."""
    descriptor = getattr(model, "DESCRIPTOR", None)
    if getattr(descriptor, "full_name", None) != "mind_ir.ModelProto":
        raise TypeError(f"save_mindir: model must be a MINDIR ModelProto (what load_mindir returns), got "
                        f"{type(model).__name__}")
    if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
        raise ValueError(f"save_mindir: file_name must be a non-empty path, got {file_name!r}")
    path = os.fspath(file_name)
    if not path.endswith(".mindir"):
        path += ".mindir"
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write(Path(path), model.SerializeToString())
