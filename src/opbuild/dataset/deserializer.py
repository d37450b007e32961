"""``deserialize``: a dataset pipeline rebuilt from the JSON of ``serialize`` (dataset/serialize.py). Also
reads MindSpore's own JSON for the structure, the file sources and their samplers (MindSpore's ``0`` for
"no num_samples" and ``num_shards=1`` for "no shards" are read as such)."""

from __future__ import annotations

import importlib
import inspect
import json
from enum import Enum
from typing import Any

from . import samplers as _samplers
from .core import Dataset
from .schema import Schema

_UNSERIALIZABLE = "unserializable"
_STRUCTURE = {"Batch", "Shuffle", "Repeat", "Take", "Skip", "Project", "Rename", "Zip", "Concat", "Map"}


def _namespace() -> Any:
    return importlib.import_module("opbuild.dataset")


def _sampler(spec: dict[str, Any]) -> _samplers.Sampler:
    ns = _namespace()
    name = spec.get("sampler_name")
    cls = getattr(ns, str(name), None)
    if not (isinstance(cls, type) and issubclass(cls, _samplers.Sampler)):
        raise ValueError(f"deserialize: unknown sampler {name!r}")
    params = {k: _arg(v) for k, v in spec.items() if k in inspect.signature(cls.__init__).parameters}
    if params.get("num_samples") == 0:
        params["num_samples"] = None
    sampler = cls(**params)
    if spec.get("child_sampler"):
        sampler.add_child(_sampler(spec["child_sampler"]))
    return sampler


def _arg(v: Any) -> Any:
    if isinstance(v, dict):
        if _UNSERIALIZABLE in v:
            raise ValueError(f"deserialize: an argument holds a Python {v[_UNSERIALIZABLE]}, which JSON cannot "
                             "carry; build that part of the pipeline in code")
        if "sampler_name" in v:
            return _sampler(v)
        if set(v) == {"schema"}:
            s = Schema()
            s.from_json(v["schema"])
            return s
        return {k: _arg(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_arg(x) for x in v]
    return v


def _source(node: dict[str, Any]) -> Dataset:
    op = node["op_type"]
    cls = getattr(_namespace(), op, None)
    if not (isinstance(cls, type) and issubclass(cls, Dataset)):
        raise ValueError(f"deserialize: unknown dataset {op!r}")
    if _UNSERIALIZABLE in json.dumps(node):
        raise ValueError(f"deserialize: {op} holds Python data or functions, which JSON cannot carry; build it in "
                         "code")
    sig = inspect.signature(cls.__init__).parameters
    params = {k: _arg(v) for k, v in node.items() if k in sig}
    if params.get("num_shards") == 1 and params.get("shard_id") == 0:  # MindSpore's "no shards"
        params["num_shards"] = params["shard_id"] = None
    if params.get("num_samples") == 0:
        params["num_samples"] = None
    if isinstance(params.get("shuffle"), int) and not isinstance(params["shuffle"], bool):
        params["shuffle"] = bool(params["shuffle"])
    if params.get("sampler") is not None:  # a sampler carries the sampling: MindSpore writes nothing else
        for k in ("shuffle", "num_shards", "shard_id", "num_samples"):
            params.pop(k, None)
    return cls(**params)


_TRANSFORM_PACKAGES = ("opbuild.dataset.vision", "opbuild.dataset.transforms", "opbuild.dataset.text",
                       "opbuild.dataset.audio")


def _operation(spec: dict[str, Any]) -> Any:
    name = spec.get("tensor_op_name")
    if _UNSERIALIZABLE in spec:
        raise ValueError(f"deserialize: the map operation {spec.get(_UNSERIALIZABLE) or name!r} is Python code, "
                         "which JSON cannot carry; add that map in code after deserializing")
    module = spec.get("python_module")
    candidates = [module] if module else ["opbuild.dataset.vision", "opbuild.dataset.transforms",
                                          "opbuild.dataset.text", "opbuild.dataset.audio"]
    for mod in candidates:
        # Only the transform packages: any other opbuild class (a FileWriter, a KernelStore) would be built
        # with whatever arguments the JSON holds, and a JSON file is data, not code.
        if not str(mod).startswith(_TRANSFORM_PACKAGES):
            raise ValueError(f"deserialize: operation {name!r} is from {mod}, not from opbuild's dataset transforms "
                             f"({', '.join(_TRANSFORM_PACKAGES)}); refusing to import it")
        cls = getattr(importlib.import_module(mod), str(name), None)
        if isinstance(cls, type) and cls.__module__.startswith(_TRANSFORM_PACKAGES):
            sig = inspect.signature(cls.__init__).parameters
            params = {k: _arg(v) for k, v in (spec.get("tensor_op_params") or {}).items()}
            for k, v in params.items():  # enums are written as their values (MindSpore's ints)
                default = sig[k].default if k in sig else None
                if isinstance(default, Enum) and not isinstance(v, Enum):
                    params[k] = type(default)(v)
            return cls(**params)
    raise ValueError(f"deserialize: unknown map operation {name!r}")


def _build(node: dict[str, Any]) -> Dataset:
    if not isinstance(node, dict) or "op_type" not in node:
        raise ValueError(f"deserialize: every node needs an 'op_type', got {str(node)[:80]}")
    op = node["op_type"]
    if node.get("children") and op not in _STRUCTURE:
        raise ValueError(f"deserialize: {op} nodes cannot be rebuilt from JSON (Python predicates, or an operation "
                         "opbuild does not serialize); build that part in code")
    children = [_build(c) for c in node.get("children", [])]
    if not children:
        return _source(node)
    first = children[0]
    if op == "Batch":
        return first.batch(node["batch_size"], node.get("drop_remainder", False))
    if op == "Shuffle":
        return first.shuffle(node["buffer_size"])
    if op == "Repeat":
        return first.repeat(node.get("count", -1))
    if op == "Take":
        return first.take(node.get("count", -1))
    if op == "Skip":
        return first.skip(node["count"])
    if op == "Project":
        return first.project(node["columns"])
    if op == "Rename":
        return first.rename(node["input_columns"], node["output_columns"])
    if op == "Zip":
        return first.zip(children[1:])
    if op == "Concat":
        return first.concat(children[1:])
    if op == "Map":
        ops = [_operation(s) for s in node.get("operations", [])]
        return first.map(ops, node.get("input_columns") or None, node.get("output_columns") or None)
    raise AssertionError(op)


def deserialize(input_dict: dict[str, Any] | None = None, json_filepath: str | None = None) -> Dataset:
    """The pipeline described by ``input_dict`` or by the JSON file ``json_filepath`` (one of the two)."""
    if (input_dict is None) == (json_filepath is None):
        raise ValueError("deserialize: give exactly one of input_dict and json_filepath")
    if json_filepath is not None:
        try:
            with open(json_filepath, encoding="utf-8") as f:
                input_dict = json.load(f)
        except FileNotFoundError:
            raise ValueError(f"deserialize: {json_filepath} does not exist") from None
        except json.JSONDecodeError as err:
            raise ValueError(f"deserialize: {json_filepath} is not JSON ({err})") from None
    return _build(input_dict)


__all__ = ["deserialize"]
