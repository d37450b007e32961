"""Versions of the host arrays that a device keeps a copy of: how a device mirror knows it is stale.

An accelerator's executor (``runtime/device_graph.py``) keeps a device copy (a mirror) of each Tensor a graph
captures (Parameters, constants) and uploads it again only when the host data may have changed since. Host
data changes in two ways:

* its array is replaced (``set_data``, ``assign_value``, ``t[i] = v``, a dtype cast of a Cell, a checkpoint
  load through ``set_data``): the mirror sees another array object (``set_data`` given the array the
  Parameter already holds, refilled by its caller, advances its version);
* its array is written in place. Every way to reach a Tensor's array for writing goes through
  ``Tensor.asnumpy()`` (``__array__``, ``numpy()``, ``data_ptr()``, PyNative in-place ops such as optimizers
  and Assign, ``load_param_into_net``'s in-place copy, the in-place random fills, the CPU executor's in-place
  kernels): ``asnumpy`` advances the version of an array that some mirror :func:`watch` es, before the caller
  can write it.

The rule (one test each in ``tests/targets/cuda/test_device_graph.py``): a mirror is current while its host
array is the same object at the same version as when it was uploaded. What it cannot see is a write through an
array obtained from ``asnumpy()`` *before* the upload and kept (a handle held across a graph call): take the
array again after the call, or use ``set_data``/``assign_value`` (MindSpore's ``asnumpy`` on a GPU returns a
copy, so writes through it never reach the parameter at all there).

A leaf: imports nothing. Arrays are watched by ``id``: a mirror holds the array it uploaded, so the id is not
reused while it is watched.
"""

from __future__ import annotations

import threading
from typing import Any

#: id(array) -> [watchers, version] for every host array some device mirror holds (never rebound: readers
#: may keep a reference to test it for emptiness).
WATCHED: dict[int, list[int]] = {}
_watched = WATCHED
_lock = threading.Lock()


def watch(array: Any) -> int:
    """Start watching ``array`` (a mirror holds it): its current version."""
    with _lock:
        entry = _watched.setdefault(id(array), [0, 0])
        entry[0] += 1
        return entry[1]


def unwatch(array: Any) -> None:
    """One watcher of ``array`` stops (the mirror dropped it or was freed)."""
    with _lock:
        entry = _watched.get(id(array))
        if entry is not None:
            entry[0] -= 1
            if entry[0] <= 0:
                del _watched[id(array)]


def touched(array: Any) -> None:
    """``array`` may be written in place now (``asnumpy`` handed it out, a device result was copied into it):
    advance its version if it is watched. A dict lookup: cheap on every ``asnumpy``."""
    entry = _watched.get(id(array))
    if entry is not None:
        with _lock:
            entry[1] += 1


def version(array: Any) -> int:
    """The current version of a watched ``array`` (-1 if it is not watched)."""
    entry = _watched.get(id(array))
    return entry[1] if entry is not None else -1


def watching() -> bool:
    """Whether any array is watched (``asnumpy``'s fast path when no device mirror exists)."""
    return bool(_watched)


__all__ = ["WATCHED", "touched", "unwatch", "version", "watch", "watching"]
