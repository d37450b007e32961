"""Checkpoints in MindSpore's ``.ckpt`` format: ``save_checkpoint``, ``load_checkpoint`` and
``load_param_into_net`` with MindSpore's signatures and semantics, so a checkpoint moves between opbuild and
MindSpore in both directions.

The file is a sequence of serialized ``Checkpoint`` messages, one per parameter (protobuf concatenation merges
repeated fields, so the whole file parses as one ``Checkpoint``), as MindSpore writes it; a parameter larger
than 512 MiB is split into consecutive values with the same tag, which readers concatenate. A 0-d tensor has
no dims (MindSpore 2.x); the 1.x spelling ``dims = [0]`` with one element is read as 0-d too.

Saves are atomic: the data goes to a temporary file in the same directory, is flushed and fsynced, and is
renamed over the final name, so a save killed at any point leaves either the previous checkpoint or none.
Temporaries of saves whose process died are removed by the next save of the same name.
"""

from __future__ import annotations

import logging
import math
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import ml_dtypes
import numpy as np
from google.protobuf.message import DecodeError

from ..core.errors import OpbuildError
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn.cell import Cell
from . import async_save as async_writes
from .atomic_file import write_atomically
from .proto import Checkpoint

log = logging.getLogger("opbuild.checkpoint")

# tensor_type spellings, as MindSpore writes str(dtype), for every dtype a MindSpore checkpoint holds
# (tests/fixtures/mindspore/ckpt_dtypes/ holds one MindSpore-written file of each). The elements are stored
# little-endian, bfloat16 as its 16 bits (ml_dtypes' layout is the same).
TENSOR_TYPES: dict[str, np.dtype] = {
    "Float16": np.dtype("<f2"), "BFloat16": np.dtype(ml_dtypes.bfloat16), "Float32": np.dtype("<f4"),
    "Float64": np.dtype("<f8"), "Int8": np.dtype("i1"), "UInt8": np.dtype("u1"), "Int16": np.dtype("<i2"),
    "UInt16": np.dtype("<u2"), "Int32": np.dtype("<i4"), "UInt32": np.dtype("<u4"), "Int64": np.dtype("<i8"),
    "UInt64": np.dtype("<u8"), "Bool": np.dtype("?"),
    # real part then imaginary part, each little-endian (tests/fixtures/mindspore/ckpt_complex/)
    "Complex64": np.dtype("<c8"), "Complex128": np.dtype("<c16"),
}
_TYPE_OF: dict[str, str] = {dt.name: name for name, dt in TENSOR_TYPES.items()}
# MindSpore types a checkpoint may hold that opbuild has no Tensor dtype for: named in the error.
MINDSPORE_ONLY_TYPES = ("Int4", "Float8E4M3FN", "Float8E5M2", "HiFloat8")
# MindSpore's split size for one value's tensor_content (its SLICE_SIZE, 512 MiB): protobuf messages cannot
# exceed 2 GiB, and a MindSpore reader joins consecutive values of the same tag.
CHUNK_BYTES = 512 * 1024 * 1024
RANDOM_OP = "random_op"  # MindSpore's tag for an RNG state blob: kept as bytes, never a Parameter


class CheckpointError(OpbuildError, ValueError):
    """A checkpoint file cannot be read (truncated, not a checkpoint, unsupported type). ``path`` names the
    file. A ValueError, as MindSpore's load_checkpoint raises."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"checkpoint file {path}: {message}")


# ---- saving ---------------------------------------------------------------------------------------
def _as_array(name: str, data: Any) -> np.ndarray | str:
    """The value to store for one entry: a C-contiguous array of an opbuild dtype, or a string."""
    if isinstance(data, str):
        return data
    if isinstance(data, (bool, int, float)):  # append_dict values, typed as MindSpore's Tensor() types them
        data = Tensor(data)
    if not isinstance(data, (Tensor, np.ndarray)):
        raise TypeError(f"save_checkpoint: the data of {name!r} must be a Parameter, Tensor, array or str, got "
                        f"{type(data).__name__}")
    # A Tensor is read without asnumpy (which would make device copies of it stale: the save does not write it),
    # its newest bytes downloaded first when a device holds them.
    arr = np.require(data._read() if isinstance(data, Tensor) else np.asarray(data), requirements="C")
    if arr.dtype.name not in _TYPE_OF:
        raise TypeError(f"save_checkpoint: {name!r} has dtype {arr.dtype}; a checkpoint holds "
                        f"{', '.join(TENSOR_TYPES)}")
    return arr


def _entries(save_obj: Any, choice_func: Callable[[str], bool] | None) -> list[tuple[str, Any]]:
    """(name, data) pairs of a Cell, a list of Parameters, a list of {"name", "data"} dicts or a dict."""
    if isinstance(save_obj, Cell):
        pairs = [(p.name or qualified, p) for qualified, p in save_obj.parameters_and_names()]
    elif isinstance(save_obj, dict):
        pairs = list(save_obj.items())
    elif isinstance(save_obj, (list, tuple)):
        pairs = []
        for item in save_obj:
            if isinstance(item, Parameter):
                pairs.append((item.name, item))
            elif isinstance(item, dict) and set(item) >= {"name", "data"}:
                pairs.append((item["name"], item["data"]))
            else:
                raise TypeError("save_checkpoint: a list must hold Parameters or {'name': ..., 'data': ...} dicts, "
                                f"got {type(item).__name__}")
    else:
        raise TypeError(f"save_checkpoint: save_obj must be a Cell, list or dict, got {type(save_obj).__name__}")
    out = []
    for name, data in pairs:
        if not isinstance(name, str) or not name:
            raise TypeError(f"save_checkpoint: every name must be a non-empty str, got {name!r}")
        if choice_func is None or choice_func(name):
            out.append((name, data))
    return out


def _encode_value(name: str, data: np.ndarray | str) -> Iterator[bytes]:
    """The serialized ``Checkpoint`` message(s) of one entry (several when it exceeds CHUNK_BYTES)."""
    if isinstance(data, str):
        # MindSpore stores a string as a NumPy unicode scalar (UCS-4) with dims [0] and type "str".
        dims, ttype, content = [0], "str", np.array(data, dtype=f"<U{max(len(data), 1)}").tobytes()
    else:
        dims, ttype = list(data.shape), _TYPE_OF[data.dtype.name]
        content = data.astype(_little(data.dtype), copy=False).tobytes()
    for start in range(0, max(len(content), 1), CHUNK_BYTES):
        msg = Checkpoint()
        value = msg.value.add()
        value.tag = name
        value.tensor.dims.extend(dims)
        value.tensor.tensor_type = ttype
        value.tensor.tensor_content = content[start:start + CHUNK_BYTES]
        yield msg.SerializeToString()


def _little(dtype: np.dtype) -> np.dtype:
    """``dtype`` stored little-endian (bfloat16, a NumPy extension type, has only its native order, which is
    little-endian on every platform opbuild builds kernels for)."""
    return dtype if dtype.itemsize == 1 or dtype == TENSOR_TYPES["BFloat16"] else dtype.newbyteorder("<")


def _native(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.itemsize == 1 or dtype == TENSOR_TYPES["BFloat16"] else dtype.newbyteorder("=")


def _atomic_write(final: str, chunks: Iterable[bytes]) -> None:
    """Write a checkpoint atomically (0600, as save_checkpoint always has); tests hold or fail it here."""
    write_atomically(final, chunks, "save_checkpoint", private=True)


def _checked_save_name(ckpt_file_name: Any) -> str:
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"save_checkpoint: ckpt_file_name must be a str, got {type(ckpt_file_name).__name__}")
    name = os.path.abspath(os.fspath(ckpt_file_name))
    if os.path.isdir(name):
        raise IsADirectoryError(f"save_checkpoint: {name} is a directory; ckpt_file_name must name a file")
    # MindSpore 2.10 appends '.ckpt' unless the name already ends in 'ckpt' ('model_ckpt' is kept as is).
    return name if name.endswith("ckpt") else name + ".ckpt"


def save_checkpoint(save_obj: Cell | list | dict, ckpt_file_name: str, integrated_save: bool = True,
                    async_save: bool = False, append_dict: dict[str, Any] | None = None, enc_key: bytes | None = None,
                    enc_mode: str = "AES-GCM", choice_func: Callable[[str], bool] | None = None) -> None:
    """Save parameters to a MindSpore ``.ckpt`` file (``mindspore.save_checkpoint``).

    ``save_obj``: a Cell (its parameters, by name), a list of Parameters, a list of ``{"name": str, "data":
    Parameter | Tensor | array | str}`` dicts, or a dict ``{name: Parameter | str}`` (what load_checkpoint
    returns). ``.ckpt`` is appended to the name when missing; an existing file is replaced atomically.
    ``append_dict`` adds entries (int, float, bool, str, Parameter or Tensor values); ``choice_func(name)``
    selects the entries to save; ``async_save`` writes in a background thread (the data is copied first;
    the next save waits for it and raises RuntimeError if it failed). ``integrated_save`` only matters for
    model parallelism and is ignored; encryption is not supported.
    Raises ValueError for duplicate names, TypeError for values a checkpoint cannot hold.
    """
    if enc_key is not None:
        raise NotImplementedError("save_checkpoint: encrypted checkpoints (enc_key) are not supported")
    async_writes.wait()  # an earlier background write first: in order, and its failure reported here
    name = _checked_save_name(ckpt_file_name)
    entries = _entries(save_obj, choice_func)
    if append_dict is not None:
        if not isinstance(append_dict, dict):
            raise TypeError(f"save_checkpoint: append_dict must be a dict, got {type(append_dict).__name__}")
        entries += _entries(append_dict, None)
    seen: set[str] = set()
    values: list[tuple[str, np.ndarray | str]] = []
    for key, data in entries:
        if key in seen:
            raise ValueError(f"save_checkpoint: the name {key!r} appears twice; a checkpoint maps each name to "
                             "one tensor")
        seen.add(key)
        arr = _as_array(key, data)
        # async: copy now, so training that goes on updating the parameters cannot tear the saved values.
        values.append((key, arr.copy() if async_save and isinstance(arr, np.ndarray) else arr))

    def write() -> None:
        _atomic_write(name, (chunk for key, arr in values for chunk in _encode_value(key, arr)))

    if async_save:
        async_writes.start(name, write)
    else:
        write()


# ---- loading --------------------------------------------------------------------------------------
def _decode_tensor(path: str, tag: str, dims: Sequence[int], ttype: str, content: bytes) -> Any:
    """The value of one (joined) checkpoint entry: an array, or a str for MindSpore's "str" entries."""
    if ttype == "str":
        if len(content) % 4:
            raise CheckpointError(path, f"entry {tag!r} of type str has {len(content)} bytes, not UCS-4 text")
        points = np.frombuffer(content, "<u4")
        bad = (points > 0x10FFFF) | ((points >= 0xD800) & (points <= 0xDFFF))
        if bad.any():
            raise CheckpointError(path, f"entry {tag!r} of type str holds {hex(int(points[bad][0]))}, which is not a "
                                        "Unicode character (corrupt or foreign file)")
        return str(np.frombuffer(content, f"<U{max(len(content) // 4, 1)}")[0]) if content else ""
    dtype = TENSOR_TYPES.get(ttype)
    if dtype is None:
        if ttype in MINDSPORE_ONLY_TYPES:
            raise CheckpointError(path, f"entry {tag!r} has tensor_type {ttype!r}, a MindSpore type opbuild has no "
                                        f"Tensor dtype for (supported: {', '.join(TENSOR_TYPES)})")
        raise CheckpointError(path, f"entry {tag!r} has unknown tensor_type {ttype!r} "
                                    f"(supported: {', '.join(TENSOR_TYPES)}, str)")
    shape = tuple(int(d) for d in dims)
    if any(d < 0 for d in shape):
        raise CheckpointError(path, f"entry {tag!r} has negative dims {list(shape)}")
    # MindSpore 1.x wrote a 0-d tensor as dims [0] holding one element; a real empty (0,) tensor has no bytes.
    if shape == (0,) and len(content) == dtype.itemsize:
        shape = ()
    expected = math.prod(shape) * dtype.itemsize  # Python ints: dims whose product overflows int64 stay wrong
    if len(content) != expected:
        raise CheckpointError(path, f"entry {tag!r} ({ttype}, dims {list(shape)}) should hold {expected} bytes but "
                                    f"holds {len(content)} (truncated or corrupt file)")
    return np.frombuffer(content, dtype).reshape(shape).astype(_native(dtype))


def _read_checkpoint(path: str) -> Any:
    """Parse the file into a Checkpoint message, checking everything proto2's required fields promise."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise CheckpointError(path, f"cannot be read: {e}") from e
    ckpt = Checkpoint()
    try:
        # MergeFromString does not insist on required fields: they are checked below with clearer messages.
        ckpt.MergeFromString(raw)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise CheckpointError(path, f"is not a valid MindSpore checkpoint (truncated or another kind of file): "
                                    f"{e}") from e
    for i, value in enumerate(ckpt.value):
        if not value.tag:
            raise CheckpointError(path, f"value #{i} has no tag (truncated or not a checkpoint)")
        if not isinstance(value.tag, str):  # proto2 hands a tag that is not UTF-8 over as bytes
            raise CheckpointError(path, f"value #{i} has the tag {value.tag!r}, which is not UTF-8 text (a corrupt "
                                        "or foreign file)")
        if not value.HasField("tensor") or not value.tensor.HasField("tensor_type"):
            raise CheckpointError(path, f"entry {value.tag!r} has no tensor (a MindSpore map tensor, or a "
                                        "truncated or foreign file)")
    return ckpt


def _checked_load_name(ckpt_file_name: Any) -> str:
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"load_checkpoint: ckpt_file_name must be a str, got {type(ckpt_file_name).__name__}")
    name = os.path.abspath(os.fspath(ckpt_file_name))
    if not name.endswith("ckpt"):  # as MindSpore 2.10: any name ending in 'ckpt' ('model_ckpt' too)
        raise ValueError(f"load_checkpoint: the checkpoint file should end with '.ckpt' (or another 'ckpt' "
                         f"ending, as save_checkpoint keeps it), got {name}")
    if not os.path.isfile(name):
        raise ValueError(f"load_checkpoint: the checkpoint file {name} does not exist or is not a regular file")
    return name


def _prefixes(arg: str, value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    prefixes = (value,) if isinstance(value, str) else tuple(value)
    if not prefixes or not all(isinstance(p, str) and p for p in prefixes):
        raise ValueError(f"load_checkpoint: {arg} must be a non-empty str or a list of them, got {value!r}")
    return prefixes


def load_checkpoint(ckpt_file_name: str, net: Cell | None = None, strict_load: bool = False,
                    filter_prefix: str | Sequence[str] | None = None, dec_key: bytes | None = None,
                    dec_mode: str = "AES-GCM", specify_prefix: str | Sequence[str] | None = None,
                    choice_func: Callable[[str], bool] | None = None) -> dict[str, Any]:
    """Load a MindSpore ``.ckpt`` file (``mindspore.load_checkpoint``): ``{name: Parameter}`` in file order
    (``str`` values for string entries, raw bytes for MindSpore's ``random_op`` state), loaded into ``net``
    too when given (see :func:`load_param_into_net`).

    ``specify_prefix`` keeps only names starting with one of its prefixes, ``filter_prefix`` drops them,
    ``choice_func(name)`` keeps names it accepts (ignored when a prefix argument is given, as in MindSpore).
    Raises ValueError if the name does not end with ``.ckpt`` or the file does not exist, CheckpointError
    (a ValueError naming the file) if it cannot be parsed, holds a type opbuild does not support or nothing
    is left to load.
    """
    if dec_key is not None:
        raise NotImplementedError("load_checkpoint: encrypted checkpoints (dec_key) are not supported")
    path = _checked_load_name(ckpt_file_name)
    async_writes.wait_for(path)  # a save of this file still in flight: read what it writes, not the old file
    keep_only, drop = _prefixes("specify_prefix", specify_prefix), _prefixes("filter_prefix", filter_prefix)

    def wanted(tag: str) -> bool:
        if keep_only is not None or drop is not None:
            return ((keep_only is None or tag.startswith(keep_only))
                    and (drop is None or not tag.startswith(drop)))
        return choice_func is None or bool(choice_func(tag))

    values = list(_read_checkpoint(path).value)
    result: dict[str, Any] = {}
    i = 0
    while i < len(values):
        first = values[i]
        # Consecutive values with one tag are the chunks of one large tensor.
        j = i + 1
        while j < len(values) and values[j].tag == first.tag:
            j += 1
        tag, tensor = first.tag, first.tensor
        if tag in result:
            raise CheckpointError(path, f"entry {tag!r} appears twice, apart")
        if tag == RANDOM_OP:
            result[tag] = bytes(tensor.tensor_content)
        elif wanted(tag):
            content = b"".join(v.tensor.tensor_content for v in values[i:j])
            data = _decode_tensor(path, tag, tensor.dims, tensor.tensor_type, content)
            result[tag] = data if isinstance(data, str) else Parameter(data, name=tag)
        i = j
    if not any(k != RANDOM_OP for k in result):
        raise CheckpointError(path, "no parameters to load (the file is empty, or the prefixes / choice_func "
                                    "filtered out every entry)")
    if net is not None:
        load_param_into_net(net, result, strict_load)
    return result


# ---- loading into a network -----------------------------------------------------------------------
_FLOATS = ("float16", "bfloat16", "float32", "float64")
_INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def _conv1d_weights(net: Cell) -> set[int]:
    """ids of the weights of ``net``'s nn.Conv1d cells."""
    return {id(c.weight) for _, c in net.cells_and_names() if getattr(type(c), "loads_3d_weight", False)}


def _old_conv1d_layout(param: Parameter, data: np.ndarray) -> bool:
    """Whether ``data`` is a Conv1d weight as opbuild saved it before its weight became MindSpore's 4-D one:
    ``(out, in // group, k)`` for the net's ``(out, in // group, 1, k)``."""
    shape = param.shape
    return data.ndim == 3 and len(shape) == 4 and shape[2] == 1 and data.shape == (shape[0], shape[1], shape[3])


def _update_param(param: Parameter, new: Tensor, strict_load: bool, conv1d_weight: bool = False) -> None:
    """Copy ``new`` into ``param`` under MindSpore's rules: equal shapes (or extra trailing 1s in the
    checkpoint); equal dtypes, or (not strict) both float or both int, converted with a warning.
    ``conv1d_weight``: ``param`` is an nn.Conv1d's weight, which also takes opbuild's old 3-D layout."""
    data = new.asnumpy()
    if conv1d_weight and _old_conv1d_layout(param, data):
        log.warning("load_param_into_net: %s is a Conv1d weight of shape %s saved in opbuild's earlier 3-D "
                    "layout %s; loading it as %s (save the checkpoint again to store the 4-D layout)",
                    param.name, param.shape, data.shape, param.shape)
        data = data.reshape(param.shape)
    if data.shape != param.shape:
        extra = data.shape[len(param.shape):]
        if data.shape[:len(param.shape)] == param.shape and extra and all(d == 1 for d in extra):
            data = data.reshape(param.shape)
        else:
            raise RuntimeError(f"load_param_into_net: {param.name} has shape {param.shape} in the net but "
                               f"{data.shape} in parameter_dict; is this the checkpoint of this network?")
    have, got = param.dtype.name, data.dtype.name
    if have != got:
        if strict_load or not ({have, got} <= set(_FLOATS) or {have, got} <= set(_INTS)):
            raise RuntimeError(f"load_param_into_net: {param.name} has dtype {have} in the net but {got} in "
                               f"parameter_dict" + ("" if strict_load else "; only float<->float and int<->int "
                                                                            "convert"))
        log.warning("load_param_into_net: %s is %s in parameter_dict and %s in the net; converting to %s",
                    param.name, got, have, have)
    # A copy: the net must not share memory with the dict (MindSpore deep-copies too).
    param.set_data(np.array(data, dtype=param.dtype.np_dtype, copy=True))


def load_param_into_net(net: Cell, parameter_dict: dict[str, Any],
                        strict_load: bool = False) -> tuple[list[str], list[str]]:
    """Copy the values of ``parameter_dict`` into the parameters of ``net`` with the same name
    (``mindspore.load_param_into_net``). Returns ``(param_not_load, ckpt_not_load)``: the names of the
    net's parameters that got no value, and the names of the dict's entries that went nowhere.

    Unless ``strict_load``: parameters still missing are looked up once more under a common name prefix
    (a checkpoint saved from a wrapper such as ``network.conv1.weight`` loads into the bare network), and
    float<->float or int<->int dtype differences are converted. Raises TypeError for a non-Cell ``net`` or
    a dict with other values than Parameters/Tensors/str, RuntimeError for a shape or dtype mismatch.
    """
    if not isinstance(net, Cell):
        raise TypeError(f"load_param_into_net: net must be a Cell, got {type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, got {type(parameter_dict).__name__}")
    if not isinstance(strict_load, bool):
        raise TypeError(f"load_param_into_net: strict_load must be a bool, got {strict_load!r}")
    entries = {k: v for k, v in parameter_dict.items() if k != RANDOM_OP}
    for key, value in entries.items():
        if not isinstance(key, str) or not isinstance(value, (Tensor, str)):
            raise TypeError(f"load_param_into_net: parameter_dict must map str to Parameter, got {type(key).__name__}"
                            f" -> {type(value).__name__}")
    params = [p for _, p in net.parameters_and_names()]
    conv1d = _conv1d_weights(net)
    param_not_load: list[str] = []
    ckpt_not_load = list(entries)
    for param in params:
        value = entries.get(param.name)
        if value is None:
            param_not_load.append(param.name)
        elif isinstance(value, Tensor):
            _update_param(param, value, strict_load, id(param) in conv1d)
            ckpt_not_load.remove(param.name)
        else:  # a string entry under a parameter's name: never a silent skip that leaves a random weight
            if strict_load:
                raise TypeError(f"load_param_into_net: parameter_dict holds a {type(value).__name__} under the name "
                                f"of the net's parameter {param.name!r}, not a Parameter")
            log.warning("load_param_into_net: parameter_dict holds a %s under the name of the net's parameter %r, "
                        "not a Parameter; it keeps its value", type(value).__name__, param.name)
            param_not_load.append(param.name)
    if param_not_load and not strict_load:
        _load_under_prefix(params, entries, param_not_load, ckpt_not_load, conv1d)
    if param_not_load:
        # A partial load changes results without an error: say so where users look, not only in the log.
        message = (f"load_param_into_net: {len(param_not_load)} parameters of the net are not in parameter_dict "
                   f"and keep their values: {param_not_load}"
                   + (f"; entries of parameter_dict that matched no parameter: {ckpt_not_load}"
                      if ckpt_not_load else ""))
        log.warning("%s", message)
        warnings.warn(message, stacklevel=2)
    return param_not_load, ckpt_not_load


def _load_under_prefix(params: list[Parameter], entries: dict[str, Any], param_not_load: list[str],
                       ckpt_not_load: list[str], conv1d: set[int]) -> None:
    """MindSpore's second chance for names that did not match: find a prefix P with ``P + name`` in the dict
    for some missing name, then load every missing parameter whose ``P + name`` exists; repeat while a new
    prefix turns up. Unlike MindSpore, names loaded this way also leave ``ckpt_not_load`` (its docstring
    promises the names that were not loaded)."""
    tried: set[str] = set()
    while param_not_load:
        prefix = next((k[:-len(n)] for n in param_not_load for k in entries
                       if k.endswith(n) and k != n and k[:-len(n)] not in tried), None)
        if prefix is None:
            return
        tried.add(prefix)
        log.warning("load_param_into_net: loading the remaining parameters under the prefix %r", prefix)
        for param in params:
            key = prefix + param.name
            if param.name in param_not_load and isinstance(entries.get(key), Tensor):
                _update_param(param, entries[key], False, id(param) in conv1d)
                param_not_load.remove(param.name)
                if key in ckpt_not_load:
                    ckpt_not_load.remove(key)
