"""Versions of the host arrays that a device keeps a copy of (how a device mirror knows it is stale), and
which device copy holds newer bytes than its host array (how a host read knows it must download first).

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

The rule (one test each in ``tests/targets/cuda/test_device_graph.py`` and ``test_device_resident.py``): a
mirror is current while its host array is the same object at the same version as when it took its bytes. What
it cannot see is a write through an array obtained from ``asnumpy()`` *before* a graph call and kept (a handle
held across the call): take the array again after the call, or use ``set_data``/``assign_value``
(MindSpore's ``asnumpy`` on a GPU returns a copy, so writes through it never reach the parameter at all there).

**Device owners.** A device graph that updates a captured Parameter in place (an optimizer, Assign) leaves the
newest bytes in its mirror and does not copy them back (unless ``OPBUILD_GPU_WRITEBACK=1``): it records itself
as the *owner* of the host array (:func:`own`), whose version advances. Every host read downloads first:
``Tensor.asnumpy`` (through :func:`touched`: the caller may then write, so the version advances and the mirrors
upload it again) and the read-only paths through :func:`fetch` (``Tensor._read``: printing, checkpoints,
copies, pickling, PyNative inputs; the version stays, so no mirror goes stale). A host write that replaces the
bytes without reading them (``Parameter.set_data`` of the same array) drops the owner (:func:`overwritten`).
Another graph whose mirror of the array is stale takes the bytes from the owner's mirror (device to device on
the same device). An owner is kept weakly (its graph's finalizer hands the bytes to the host before the
device memory goes: :func:`disown` after its download).

A leaf: imports nothing of opbuild. Arrays are watched by ``id``: a mirror holds the array it uploaded, so the
id is not reused while it is watched (and an owned array is always watched by its owner's mirror).
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Protocol


class Owner(Protocol):
    """What holds the newest bytes of host arrays on a device (a device graph's mirrors)."""

    def fetch_into(self, slot: int, array: Any) -> None:
        """Copy the bytes of mirror ``slot`` into ``array`` (its host array), wait for the copy and
        :func:`disown` it, if it still owns ``array``."""
        ...


#: id(array) -> [watchers, version] for every host array some device mirror holds (never rebound: readers
#: may keep a reference to test it for emptiness).
WATCHED: dict[int, list[int]] = {}
_watched = WATCHED
#: id(array) -> (weak reference to its Owner, slot, weak reference to the array) for every host array whose
#: newest bytes are on a device (never rebound: ``Tensor._read`` tests it for emptiness). The array's own weak
#: reference tells a record of it from a stale one whose id a new array reuses (a record must never send a
#: device's bytes into another array).
OWNED: dict[int, tuple[weakref.ref, int, weakref.ref]] = {}
_owned = OWNED
# Re-entrant: a graph's finalizer (which unwatches and disowns) may run from a garbage collection that an
# allocation made while this lock is held triggers, on the same thread.
_lock = threading.RLock()


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
    """``array`` may be written in place now (``asnumpy`` handed it out): its newest bytes are brought to it
    first if a device owns them, then its version advances if it is watched. Dict lookups: cheap on every
    ``asnumpy``."""
    if _owned:
        fetch(array)
    entry = _watched.get(id(array))
    if entry is not None:
        with _lock:
            entry[1] += 1


def overwritten(array: Any) -> None:
    """The host has just replaced every byte of ``array`` (``set_data`` given it again): a device copy is no
    longer the newest (dropped without a download) and the version advances."""
    with _lock:
        _owned.pop(id(array), None)
        entry = _watched.get(id(array))
        if entry is not None:
            entry[1] += 1


def advance(array: Any) -> int:
    """Advance the version of watched ``array`` (a device wrote its data): the new version."""
    with _lock:
        entry = _watched[id(array)]
        entry[1] += 1
        return entry[1]


def own(array: Any, owner: Owner, slot: int) -> None:
    """``owner``'s mirror ``slot`` holds newer bytes than host ``array`` (watched by that mirror)."""
    with _lock:
        _owned[id(array)] = (weakref.ref(owner), slot, weakref.ref(array))


def _record(array: Any) -> tuple[weakref.ref, int, weakref.ref] | None:
    """The record of ``array`` itself (a stale record of a dead array with the same id is dropped)."""
    found = _owned.get(id(array))
    if found is not None and found[2]() is not array:
        with _lock:
            if _owned.get(id(array)) is found:
                del _owned[id(array)]
        return None
    return found


def owner(array: Any) -> tuple[Owner, int] | None:
    """``(owner, slot)`` holding newer bytes of ``array`` than the host, or None (the host's are the newest)."""
    found = _record(array)
    if found is None:
        return None
    holder = found[0]()
    return (holder, found[1]) if holder is not None else None


def disown(array: Any, owner: Owner | None = None) -> None:
    """The host array holds the newest bytes again (downloaded, or the array left its mirror); with ``owner``,
    only if that owner still holds the record."""
    with _lock:
        found = _owned.get(id(array))
        if found is not None and (owner is None or found[0]() is owner):
            del _owned[id(array)]


def fetch(array: Any) -> None:
    """Bring the newest bytes of ``array`` from the device that owns them, if any (its version stays: the
    bytes are those every current mirror holds). The owner downloads and drops its record under its own lock
    (never under this module's: a graph call holds its lock and then takes this one)."""
    found = _record(array)
    if found is None:
        return
    holder = found[0]()
    if holder is None:  # its graph was dropped without handing the bytes over: nothing left to fetch
        disown(array)
    else:
        holder.fetch_into(found[1], array)


def version(array: Any) -> int:
    """The current version of a watched ``array`` (-1 if it is not watched)."""
    entry = _watched.get(id(array))
    return entry[1] if entry is not None else -1


def watching() -> bool:
    """Whether any array is watched (``asnumpy``'s fast path when no device mirror exists)."""
    return bool(_watched)


__all__ = ["OWNED", "WATCHED", "Owner", "advance", "disown", "fetch", "overwritten", "own", "owner", "touched",
           "unwatch", "version", "watch", "watching"]
