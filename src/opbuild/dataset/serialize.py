"""``serialize``, ``deserialize``, ``show`` and ``compare`` of a dataset pipeline, as JSON in MindSpore's
layout: one object per node with ``op_type`` and ``children`` (the node it reads from first), sources with
their constructor arguments, ``Batch``/``Repeat``/``Shuffle``/``Take``/``Skip``/``Project``/``Rename``/
``Zip``/``Concat``/``Map`` with theirs. Map operations are written as ``tensor_op_name`` and
``tensor_op_params`` (the constructor arguments, found on the operation and checked by rebuilding it).

What cannot be written as data (Python functions, in-memory arrays of ``NumpySlicesDataset`` /
``GeneratorDataset``, ``filter`` predicates) is written as ``{"unserializable": <type>}``: ``serialize`` and
``show`` still describe the pipeline, ``deserialize`` (dataset/deserializer.py) refuses it with the node's
name (as MindSpore refuses Python sources and functions)."""

from __future__ import annotations

import inspect
import json
import os
from enum import Enum
from typing import Any

import numpy as np

from . import combine, core, samplers, schema
from .core import Dataset

_UNSERIALIZABLE = "unserializable"
# Constructor arguments an operation keeps under another attribute name (TypeCast's data_type).
_ATTR_ALIASES = {"data_type": ("np_dtype",)}


def _ctor_params(obj: Any) -> dict[str, Any]:
    """The constructor arguments of a source or sampler, defaults included (recorded by their ``__new__``)."""
    args, kwargs = getattr(obj, "_ctor_args", ((), {}))
    bound = inspect.signature(type(obj).__init__).bind(obj, *args, **kwargs)
    bound.apply_defaults()
    params = dict(bound.arguments)
    params.pop("self", None)
    for name, p in inspect.signature(type(obj).__init__).parameters.items():
        if p.kind is p.VAR_KEYWORD and name in params:
            params.update(params.pop(name))
    return params


def _value(v: Any) -> Any:
    """``v`` as JSON data (samplers, schemas and enums included)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if isinstance(v, samplers.Sampler):
        out = {"sampler_name": type(v).__name__, **{k: _value(x) for k, x in _ctor_params(v).items()}}
        child = v.get_child()
        if child is not None:
            out["child_sampler"] = _value(child)
        return out
    if isinstance(v, schema.Schema):
        return {"schema": json.loads(v.to_json())}
    if isinstance(v, (list, tuple)) and not any(isinstance(x, np.ndarray) for x in v):
        return [_value(x) for x in v]
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return {k: _value(x) for k, x in v.items()}
    return {_UNSERIALIZABLE: type(v).__name__}


def _op_params(op: Any) -> dict[str, Any] | None:
    """A map operation's constructor arguments, read from its attributes (``name`` or ``_name``), or None
    when rebuilding the operation from them does not give the same operation."""
    cls = type(op)
    if inspect.isfunction(op) or inspect.isbuiltin(op) or cls.__init__ is object.__init__:
        return None
    params = {}
    for name, p in inspect.signature(cls.__init__).parameters.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        for attr in (name, f"_{name}", *_ATTR_ALIASES.get(name, ())):
            if attr in vars(op):
                value = vars(op)[attr]
                params[name] = value.tolist() if isinstance(value, np.ndarray) and value.size <= 4096 else value
                break
        else:
            if p.default is p.empty:
                return None
    try:
        rebuilt = cls(**params)
    except Exception:  # noqa: BLE001 - any failure means "not rebuildable from its attributes"
        return None
    same = repr(sorted(vars(rebuilt).items(), key=lambda kv: kv[0])) == repr(sorted(vars(op).items(),
                                                                                  key=lambda kv: kv[0]))
    data = {k: _value(v) for k, v in params.items()}
    return data if same and _UNSERIALIZABLE not in json.dumps(data) else None


def _operation(op: Any) -> dict[str, Any]:
    params = _op_params(op)
    entry: dict[str, Any] = {"tensor_op_name": type(op).__name__, "python_module": type(op).__module__}
    if params is None:
        entry[_UNSERIALIZABLE] = getattr(op, "__name__", type(op).__name__)
    else:
        entry["tensor_op_params"] = params
    return entry


def _node(d: Dataset) -> dict[str, Any]:
    child = [_node(d._child)] if d._child is not None else []
    if isinstance(d, combine.ZipDataset):
        return {"op_type": "Zip", "children": [_node(c) for c in d.children]}
    if isinstance(d, combine.ConcatDataset):
        return {"op_type": "Concat", "children": [_node(c) for c in d.children]}
    if isinstance(d, core.BatchDataset):
        entry = {"op_type": "Batch", "batch_size": d.batch_size, "drop_remainder": d.drop_remainder,
                 "children": child}
        if d._mapper is not None:  # a Python function: marked, so that loading it refuses (as Filter's)
            entry.update(per_batch_map={_UNSERIALIZABLE: "function"}, input_columns=d._mapper.inputs,
                         output_columns=d._mapper.outputs)
        return entry
    if isinstance(d, core.ShuffleDataset):
        return {"op_type": "Shuffle", "buffer_size": d.buffer_size, "children": child}
    if isinstance(d, combine.RepeatDataset):
        return {"op_type": "Repeat", "count": d.count, "children": child}
    if isinstance(d, combine._SliceDataset):
        if d.start:
            return {"op_type": "Skip", "count": d.start, "children": child}
        return {"op_type": "Take", "count": -1 if d.stop is None else d.stop, "children": child}
    if isinstance(d, combine.ProjectDataset):
        return {"op_type": "Project", "columns": d.get_col_names(), "children": child}
    if isinstance(d, combine.RenameDataset):
        before, after = d._child.get_col_names(), d.get_col_names()
        changed = [(a, b) for a, b in zip(before, after) if a != b]
        return {"op_type": "Rename", "input_columns": [a for a, _ in changed],
                "output_columns": [b for _, b in changed], "children": child}
    if isinstance(d, core.MapDataset):
        return {"op_type": "Map", "input_columns": list(d.input_columns), "output_columns": list(d.output_columns),
                "operations": [_operation(op) for op in d.operations], "children": child}
    if isinstance(d, combine.FilterDataset):
        return {"op_type": "Filter", "predicate": {_UNSERIALIZABLE: "function"}, "children": child}
    if hasattr(d, "_ctor_args"):
        return {"op_type": type(d).__name__, "children": [],
                **{k: _value(v) for k, v in _ctor_params(d).items()}}
    return {"op_type": type(d).__name__, _UNSERIALIZABLE: type(d).__name__, "children": child}


def serialize(dataset: Dataset, json_filepath: str = "") -> dict[str, Any]:
    """The pipeline ending at ``dataset`` as a dict (also written to ``json_filepath`` when given)."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"serialize: expected a dataset, got {type(dataset).__name__}")
    if not isinstance(json_filepath, str):
        raise TypeError(f"serialize: json_filepath must be a str, got {json_filepath!r}")
    out = _node(dataset)
    if json_filepath:
        path = json_filepath if json_filepath.endswith(".json") else json_filepath + ".json"
        with open(path, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return out


def show(dataset: Dataset, indentation: int | None = 2) -> None:
    """Print the pipeline ending at ``dataset`` as indented JSON."""
    print(json.dumps(serialize(dataset), indent=indentation))


def compare(pipeline1: Dataset, pipeline2: Dataset) -> bool:
    """Whether two pipelines serialize to the same JSON."""
    return serialize(pipeline1) == serialize(pipeline2)


__all__ = ["serialize", "show", "compare"]
