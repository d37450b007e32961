"""The kernel specs of PyNative calls, remembered per call signature: operator, attributes and the input
arrays' shapes and dtypes.

An op's spec (``OpDef.spec``: arity and dtype checks, ``normalize``, ``infer``) is a function of its
attributes and input types alone, yet a PyNative op ran it on every call: about a fifth of the Python time of
``x + y`` on small tensors. A call whose attributes are plain data (bool, int, float, str, None, tuples, lists,
str-keyed dicts: their ``marshal`` bytes keep ``1``, ``True`` and ``1.0`` apart) and whose inputs all hold
data takes the spec made for the first call of that signature; any other call makes its own, as before. A
call that fails its checks is never remembered, so bad input raises the same error every time.

The remembered specs are shared by the calls of one signature, so the eager path (``runtime/session.py``
``run_eager``) only reads them. Traced calls never come here: a graph's nodes own their specs (passes
rewrite them).
"""

from __future__ import annotations

import marshal
from collections.abc import Sequence
from typing import Any

from ..core.ir import KernelSpec
from ..core.tensor import Tensor
from .registry import OpDef

# Signatures seen by this process; cleared when full (a program cycling through shapes makes them again).
_SPECS: dict[tuple, KernelSpec] = {}
_LIMIT = 4096


_SCALARS = frozenset({bool, int, float, str, type(None)})


def _plain(value: Any) -> bool:
    """``value`` is built of exactly bool, int, float, str, None, tuples, lists and str-keyed dicts: data whose
    marshal bytes tell every two different values apart. (marshal writes any buffer, a NumPy array or scalar
    included, as its raw bytes: ``np.array([1, 2])`` and ``np.array([[1, 2]])`` would share one key.)"""
    kind = type(value)
    if kind in _SCALARS:
        return True
    # Loops rather than all(...) of a generator (twice the cost here): this runs on every PyNative call with
    # attributes.
    if kind is tuple or kind is list:
        for v in value:  # noqa: SIM110
            if type(v) not in _SCALARS and not _plain(v):
                return False
        return True
    if kind is dict:
        for k, v in value.items():  # noqa: SIM110
            if type(k) is not str or (type(v) not in _SCALARS and not _plain(v)):
                return False
        return True
    return False


def eager_spec(opdef: OpDef, attrs: dict[str, Any], tensors: Sequence[Tensor]) -> KernelSpec:
    """``opdef.spec(attrs, input types)`` of a PyNative call, made once per call signature."""
    if attrs and not _plain(attrs):  # a callback, a NumPy value, an object: made per call, not remembered
        return opdef.spec(attrs, [t._type for t in tensors])
    key = [opdef.name, marshal.dumps(attrs, 0) if attrs else b""]
    for t in tensors:
        data = t._data
        if data is None:  # an input declaration or a traced tensor: its error is the spec's or the read's
            return opdef.spec(attrs, [t._type for t in tensors])
        key.append(data.shape)
        key.append(data.dtype)
    signature = tuple(key)
    spec = _SPECS.get(signature)
    if spec is None:
        spec = opdef.spec(attrs, [t._type for t in tensors])
        if len(_SPECS) >= _LIMIT:
            _SPECS.clear()
        _SPECS[signature] = spec
    return spec


__all__ = ["eager_spec"]
