"""A graph manifest's row belongs to its kernel: the row at position ``i`` names the entry of the graph's
``i``-th distinct kernel, and nothing else.

A warm start pairs the graph's kernels with the manifest's rows by position. Each row's entry is verified
against the row (sha256 of ``.info``, ``.json`` and binary), but two swapped rows still name sound entries:
without this check a ReLU of one shape would run where another was due (wrong numbers), a Conv2D with
another's weights layout (NaNs) or any kernel with another's arguments (SIGSEGV). So every row records the
*kernel digest* of its kernel (sha256 of the canonical op, attributes, input and output types: the part of
the descriptor that is the kernel's own, as opposed to the toolchain's), and:

* the build checks that the entry's ``.info`` (already read and hashed by ``KernelStore.check``) describes
  the graph's kernel at the row's position: the canonical encoding of that kernel's op, attributes, input and
  output types must sit at their places in the ``.info`` bytes (:func:`info_problem`; comparing bytes costs a
  fraction of parsing the ``.info``, which matters on the warm path). A row that belongs to another kernel
  is a miss, and the ordinary path rewrites the manifest;
* ``opbuild cache verify`` (which has no graph) checks that the rows are numbered ``0..n-1`` in order and that
  every entry's ``.info`` describes the kernel its row records.
"""

from __future__ import annotations

import errno
import hashlib
from collections.abc import Sequence

from ..core.ir import KernelSpec, TensorType
from . import fsio
from .key import _dump, _tensors_json, canonical_bytes

#: The descriptor fields that are the kernel's own (cache/key.py ``descriptor``).
KERNEL_FIELDS = ("op", "attrs", "inputs", "outputs")


def kernel_digest(op: str, attrs: dict, inputs: Sequence[TensorType], outputs: Sequence[TensorType]) -> str:
    """sha256 (hex) of the canonical JSON of a kernel's own descriptor fields (:data:`KERNEL_FIELDS`), spelled
    out in sorted-key order: the same bytes as ``canonical_bytes`` of those fields."""
    text = (f'{{"attrs":{_dump(attrs)},"inputs":{_tensors_json(tuple(inputs))},"op":{_dump(op)},'
            f'"outputs":{_tensors_json(tuple(outputs))}}}\n')
    return hashlib.sha256(text.encode()).hexdigest()


def spec_digest(spec: KernelSpec) -> str:
    """:func:`kernel_digest` of a kernel spec."""
    return kernel_digest(spec.op, spec.attrs, spec.inputs, spec.outputs)


def info_digest(info: bytes) -> str | None:
    """:func:`kernel_digest` of the kernel an entry's ``.info`` bytes describe, or None when they are no
    descriptor (not a JSON object, a field missing)."""
    try:
        desc = fsio.parse_json(info, ".info")
    except fsio.CorruptFile:
        return None
    if not all(k in desc for k in KERNEL_FIELDS):
        return None
    return _digest({k: desc[k] for k in KERNEL_FIELDS})


def _digest(fields: dict) -> str:
    return hashlib.sha256(canonical_bytes(fields)).hexdigest()


def info_problem(info: bytes, spec: KernelSpec) -> str | None:
    """Why the canonical ``.info`` bytes do not describe ``spec``, or None. The descriptor's keys are sorted
    (cache/key.py: ``{"abi":N,"attrs":..,"codegen":..,"compiler":..,"inputs":..,"op":..,"opbuild_version":..,
    "opt_class":..,"outputs":..,"target":..}``), so the kernel's own fields are found in that order: the
    attributes right after the ABI number, the inputs and op after the compiler identity, the outputs after
    the optimisation class."""
    attrs = f',"attrs":{_dump(spec.attrs)},"codegen":'.encode()
    ins = f',"inputs":{_tensors_json(tuple(spec.inputs))},"op":{_dump(spec.op)},"opbuild_version":'.encode()
    outs = f',"outputs":{_tensors_json(tuple(spec.outputs))},"target":'.encode()
    i = info.find(attrs, 7)
    if not info.startswith(b'{"abi":') or i < 8 or not info[7:i].isdigit():
        return f".info does not describe the graph's {spec.op} kernel at this position (attributes differ)"
    j = info.find(ins, i + len(attrs))
    if j < 0 or info.find(outs, j + len(ins)) < 0:
        return f".info does not describe the graph's {spec.op} kernel at this position (types differ)"
    return None


def row_problem(position: object, expected: int, name: str, digest: object) -> str | None:
    """Why a manifest row is malformed as a row of its place (its recorded ``position`` is not ``expected``,
    its kernel ``digest`` not 64 hex characters, its ``name`` not of the op... ), or None. The entry itself is
    checked by ``KernelStore.check``."""
    if type(position) is not int or position != expected:
        return f"row {expected} is numbered {str(position)[:20]}: the rows were reordered"
    if type(digest) is not str or len(digest) != 64:
        return f"row {expected} ({name}) has no 64-character kernel digest"
    return None


def describes(info: bytes, digest: str) -> str | None:
    """Why the ``.info`` bytes do not describe the kernel of ``digest`` (for ``KernelStore.check``), or None."""
    if info_digest(info) != digest:
        return ".info describes another kernel than its manifest row records"
    return None


def corrupt(reason: str) -> fsio.CorruptFile:
    """The error a manifest loader raises for a row that does not belong."""
    return fsio.CorruptFile(errno.EINVAL, reason)


__all__ = ["KERNEL_FIELDS", "corrupt", "describes", "info_digest", "info_problem", "kernel_digest", "row_problem",
           "spec_digest"]
