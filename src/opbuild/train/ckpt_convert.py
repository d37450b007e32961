"""Checkpoint conversions and loaders of ``mindspore.train.serialization``: ``ckpt_to_safetensors``,
``safetensors_to_ckpt`` (a file, or a directory of ``rank*`` subdirectories as MindSpore lays out a
distributed run), ``load_checkpoint_async`` (a future of ``load_checkpoint``'s dict) and
``load_segmented_checkpoints`` (every ``.ckpt`` of a directory into one dict).

The safetensors files carry MindSpore's ``{"format": "ms"}`` metadata (checkpoint/safetensors.py); the
conversions run in this process one file after another (``processes_num`` is checked and accepted).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from ..checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from ..checkpoint.safetensors import load_file, save_file
from ..core.parameter import Parameter
from ..core.tensor import Tensor

_SUFFIX = {"safetensors": (".ckpt", ".safetensors", "ckpt_to_safetensors"),
           "ckpt": (".safetensors", ".ckpt", "safetensors_to_ckpt")}


def _renamed(fn: str, src: str, params: dict[str, Any], name_map: dict | None) -> dict[str, Any]:
    if name_map is None:
        return params
    out: dict[str, Any] = {}
    for k, v in params.items():
        new = name_map.get(k, k)
        if new in out:  # two entries under one name: one would be dropped without a word
            old = next(o for o in params if name_map.get(o, o) == new)
            raise ValueError(f"{fn}: name_map gives {old!r} and {k!r} of {src} the same name {new!r}; the "
                             "converted file would lose one of them (map them to different names)")
        out[new] = v
    return out


def _convert_one(src: str, dst: str, name_map: dict | None, dst_format: str) -> None:
    fn = _SUFFIX[dst_format][2]
    if dst_format == "safetensors":
        arrays = {}
        for name, value in _renamed(fn, src, load_checkpoint(src), name_map).items():
            if not isinstance(value, Tensor):
                raise ValueError(f"{fn}: {src} holds {name!r} as a {type(value).__name__}; safetensors holds "
                                 f"tensors only")
            arrays[name] = np.asarray(value.asnumpy())
        save_file(arrays, dst, metadata={"format": "ms"})
    else:
        arrays, _ = load_file(src)
        arrays = _renamed(fn, src, arrays, name_map)  # in name order, as MindSpore writes the converted file
        save_checkpoint([{"name": k, "data": arrays[k]} for k in sorted(arrays)], dst)


def _convert(file_path: str, save_path: str | None, name_map: dict | None, file_name_regex: str | None,
             processes_num: int, dst_format: str) -> None:
    src_suffix, dst_suffix, fn = _SUFFIX[dst_format]
    file_path = os.fspath(file_path)
    if not os.path.isdir(file_path) and not os.path.isfile(file_path):
        raise ValueError(f"{fn}: file_path must be an existing file or directory, got {file_path!r}")
    if save_path and os.path.splitext(save_path)[1]:
        raise ValueError(f"{fn}: save_path must be a directory, got {save_path!r}")
    if name_map is not None and not isinstance(name_map, dict):
        raise ValueError(f"{fn}: name_map must be a dict of old to new names, got {type(name_map).__name__}")
    if name_map is not None and not all(isinstance(v, str) and v for v in name_map.values()):
        raise ValueError(f"{fn}: name_map must map names to non-empty str names, got {name_map!r}")
    if isinstance(processes_num, bool) or not isinstance(processes_num, int) or processes_num < 1:
        raise ValueError(f"{fn}: processes_num must be a positive int, got {processes_num!r}")
    if os.path.isfile(file_path):
        if not file_path.endswith(src_suffix):
            raise ValueError(f"{fn}: the input file must be a {src_suffix} file, got {file_path!r}")
        if file_name_regex is not None and not re.findall(file_name_regex, file_path):
            raise ValueError(f"{fn}: the input file does not match file_name_regex {file_name_regex!r}")
        out_dir = save_path or os.path.dirname(file_path)
        os.makedirs(out_dir, exist_ok=True)
        dst = os.path.join(out_dir, os.path.basename(file_path).replace(src_suffix, dst_suffix))
        _convert_one(file_path, dst, name_map, dst_format)
        return
    ranks = sorted(d for d in os.listdir(file_path) if d.startswith("rank")
                   and os.path.isdir(os.path.join(file_path, d)))
    if not ranks:
        raise ValueError(f"{fn}: no directories starting with 'rank' found in {file_path} (a directory is "
                         f"converted rank directory by rank directory; pass a file to convert one file)")
    for rank in ranks:
        src_dir = os.path.join(file_path, rank)
        dst_dir = os.path.join(save_path, rank) if save_path else src_dir
        os.makedirs(dst_dir, exist_ok=True)
        for name in sorted(os.listdir(src_dir)):
            if name.endswith(src_suffix) and (file_name_regex is None or re.search(file_name_regex, name)):
                _convert_one(os.path.join(src_dir, name), os.path.join(dst_dir, name.replace(src_suffix, dst_suffix)),
                             name_map, dst_format)


def ckpt_to_safetensors(file_path: str, save_path: str | None = None, name_map: dict | None = None,
                        file_name_regex: str | None = None, processes_num: int = 1) -> None:
    """Convert a ``.ckpt`` file (or the ``.ckpt`` files of a directory's ``rank*`` subdirectories) to
    ``.safetensors`` files of the same names in ``save_path`` (the source's directory when None);
    ``name_map`` renames entries, ``file_name_regex`` selects files."""
    _convert(file_path, save_path, name_map, file_name_regex, processes_num, "safetensors")


def safetensors_to_ckpt(file_path: str, save_path: str | None = None, name_map: dict | None = None,
                        file_name_regex: str | None = None, processes_num: int = 1) -> None:
    """The reverse of :func:`ckpt_to_safetensors`: ``.safetensors`` files to MindSpore ``.ckpt`` files."""
    _convert(file_path, save_path, name_map, file_name_regex, processes_num, "ckpt")


class ParamDictFuture:
    """What :func:`load_checkpoint_async` returns: ``result()`` waits for and returns the parameter dict."""

    def __init__(self, executor: ThreadPoolExecutor, param_dict_future: Future) -> None:
        self.executor = executor
        self.param_dict_future = param_dict_future

    def result(self) -> dict[str, Any]:
        """The ``{name: Parameter}`` dict (raises what the load raised)."""
        try:
            return self.param_dict_future.result()
        finally:
            self.executor.shutdown()


def _load_any(ckpt_file_name: str, net: Any, strict_load: bool, *rest: Any) -> dict[str, Any]:
    if not str(ckpt_file_name).endswith(".safetensors"):
        return load_checkpoint(ckpt_file_name, net, strict_load, *rest)
    arrays, _ = load_file(ckpt_file_name)
    params = {k: Parameter(Tensor(arrays[k]), name=k) for k in sorted(arrays)}
    if net is not None:
        load_param_into_net(net, params, strict_load=strict_load)
    return params


def load_checkpoint_async(ckpt_file_name: str, net: Any = None, strict_load: bool = False,
                          filter_prefix: str | Sequence[str] | None = None, dec_key: bytes | None = None,
                          dec_mode: str = "AES-GCM", specify_prefix: str | Sequence[str] | None = None,
                          choice_func: Callable[[str], bool] | None = None) -> ParamDictFuture:
    """Start :func:`~opbuild.load_checkpoint` (loading into ``net`` when given) in a background thread; the
    returned future's ``result()`` is its dict. A ``.safetensors`` file is read as such (its parameters in
    name order; the prefix and choice arguments apply to ``.ckpt`` files)."""
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="load_checkpoint_async")
    future = executor.submit(_load_any, ckpt_file_name, net, strict_load, filter_prefix, dec_key, dec_mode,
                             specify_prefix, choice_func)
    return ParamDictFuture(executor, future)


def load_segmented_checkpoints(ckpt_file_dir: str, net: Any = None, strict_load: bool = False,
                               filter_prefix: str | Sequence[str] | None = None, dec_key: bytes | None = None,
                               dec_mode: str = "AES-GCM", specify_prefix: str | Sequence[str] | None = None,
                               choice_func: Callable[[str], bool] | None = None) -> dict[str, Parameter]:
    """Every ``.ckpt`` file of ``ckpt_file_dir`` (in name order) loaded into one dict, and into ``net`` when
    given; the other arguments as :func:`~opbuild.load_checkpoint`'s."""
    if not isinstance(ckpt_file_dir, (str, os.PathLike)) or not os.path.isdir(ckpt_file_dir):
        raise ValueError(f"load_segmented_checkpoints: ckpt_file_dir must be an existing directory, "
                         f"got {ckpt_file_dir!r}")
    files = sorted(f for f in os.listdir(ckpt_file_dir) if f.endswith(".ckpt"))
    if not files:
        raise ValueError(f"load_segmented_checkpoints: no .ckpt file in {ckpt_file_dir}")
    params: dict[str, Any] = {}
    source: dict[str, str] = {}
    for f in files:
        loaded = load_checkpoint(os.path.join(ckpt_file_dir, f), None, strict_load, filter_prefix, dec_key,
                                 dec_mode, specify_prefix, choice_func)
        # Segments split one model: a name in two files means checkpoints of different saves (epochs, runs)
        # share the folder, and the file that sorts last would silently win (MindSpore's update does that).
        clash = next((k for k in loaded if k in source and k != "random_op"), None)
        if clash is not None:
            raise ValueError(f"load_segmented_checkpoints: {clash!r} is in both {source[clash]} and {f} of "
                             f"{ckpt_file_dir}; segments of one checkpoint hold each parameter once (move the "
                             "other saves' files out of the folder)")
        source.update(dict.fromkeys(loaded, f))
        params.update(loaded)
    if net is not None:
        load_param_into_net(net, params, strict_load=strict_load)
    return params


__all__ = ["ckpt_to_safetensors", "safetensors_to_ckpt", "load_checkpoint_async", "ParamDictFuture",
           "load_segmented_checkpoints"]
