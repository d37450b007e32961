"""Cache keys: the canonical descriptor (.info) built from named components, and the kernel name.

Like JAX's cache_key.py, the key is a set of named components; :func:`flatten` turns a descriptor into
``path -> value`` pairs so that :func:`diff` can explain a miss field by field
(``input[0].shape [3] -> [4]``). The name of an entry is ``<op lower>_<first 32 hex of sha256(.info)>``
(:func:`.identity.kernel_name`, re-exported here; cache/identity.py lists every identity).
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Sequence
from typing import Any

from ..core.ir import TensorType
from .identity import kernel_name, kernel_symbol
from .layout import HASH_CHARS

log = logging.getLogger("opbuild.cache")

FORMAT = "NCHW-dense"  # every buffer is a dense C-contiguous array; recorded so layouts can grow later


def tensor_desc(t: TensorType) -> dict:
    return {"dtype": t.dtype, "shape": list(t.shape), "format": FORMAT}


def descriptor(op: str, attrs: dict, inputs: Sequence[TensorType], outputs: Sequence[TensorType], *,
               codegen_hash: str, abi: int, compiler: dict, target: dict, version: str,
               opt_class: str = "compute") -> dict:
    """The complete operator descriptor. Nothing that does not change the code belongs here (no node names,
    graph ids, rank or device id), so one entry serves every graph and network that needs the kernel.
    ``opt_class`` is the kernel's optimisation class (the target's ``opt_class``: targets/cpu/kernels); the
    flags of each class are in the compiler identity (``class_opt``)."""
    desc = {
        "op": op,
        "attrs": attrs,
        "inputs": [tensor_desc(t) for t in inputs],
        "outputs": [tensor_desc(t) for t in outputs],
        "codegen": codegen_hash,
        "abi": abi,
        "compiler": compiler,
        "target": target,
        "opbuild_version": version,
        "opt_class": opt_class,
    }
    if log.isEnabledFor(logging.DEBUG):
        for k, v in desc.items():
            log.debug("key component %s: %s", k, json.dumps(v, sort_keys=True))
    return desc


# One encoder for every canonical dump: json.dumps with any option set builds a new JSONEncoder per call,
# which is most of the cost of dumping the small values of a descriptor.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)
_dump = _CANONICAL.encode


@functools.lru_cache(maxsize=4096)
def _tensors_json(tensors: tuple[TensorType, ...]) -> str:
    """Canonical JSON of a list of tensor descriptors (kernels of one network share most of their shapes)."""
    return _dump([tensor_desc(t) for t in tensors])


class InfoEncoder:
    """Fast path of ``canonical_bytes(descriptor(...))`` for many kernels of one toolchain.

    The toolchain part of every descriptor (ABI, compiler, target, version) is serialised once; each kernel
    then only serialises its own fields and splices them in sorted-key order. The bytes are identical to the
    slow path (a test checks this), so the key is defined by :func:`descriptor` alone.
    """

    def __init__(self, *, abi: int, compiler: dict, target: dict, version: str):
        self.compiler = compiler
        self._abi = _dump(abi)
        self._compiler = _dump(compiler)
        self._version = _dump(version)
        self._target = _dump(target)

    def encode(self, op: str, attrs: dict, inputs: Sequence[TensorType], outputs: Sequence[TensorType],
               codegen_hash: str, opt_class: str = "compute") -> bytes:
        ins = _tensors_json(tuple(inputs))
        outs = _tensors_json(tuple(outputs))
        return (f'{{"abi":{self._abi},"attrs":{_dump(attrs)},"codegen":{_dump(codegen_hash)},'
                f'"compiler":{self._compiler},"inputs":{ins},"op":{_dump(op)},"opbuild_version":{self._version},'
                f'"opt_class":{_dump(opt_class)},"outputs":{outs},"target":{self._target}}}\n').encode()


def canonical_bytes(desc: dict) -> bytes:
    """Canonical JSON of a descriptor: sorted keys, no spaces, ASCII, trailing newline."""
    return (_dump(desc) + "\n").encode()


def flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    """``{"inputs":[{"shape":[3]}]}`` -> ``{"input[0].shape": [3]}``: lists of dicts are indexed, scalar
    lists stay values (a shape is one field)."""
    out: dict[str, Any] = {}
    if isinstance(obj, dict):
        for k in sorted(obj):
            out.update(flatten(obj[k], f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
        base = prefix[:-1] if prefix.endswith("s") and prefix in ("inputs", "outputs") else prefix
        for i, x in enumerate(obj):
            out.update(flatten(x, f"{base}[{i}]"))
    else:
        out[prefix] = obj
    return out


def diff(old: dict, new: dict) -> list[tuple[str, Any, Any]]:
    """Fields that differ between two descriptors as (field, old value, new value); missing is None."""
    a, b = flatten(old), flatten(new)
    return [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


__all__ = ["FORMAT", "HASH_CHARS", "InfoEncoder", "canonical_bytes", "descriptor", "diff", "flatten", "kernel_name",
           "kernel_symbol", "tensor_desc"]
