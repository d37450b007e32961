"""The device copies (*mirrors*) of the Tensors a device graph captures, and their coherence with the host.

A :class:`~opbuild.runtime.device_graph.DeviceGraph` keeps one mirror per captured Tensor (Parameters,
constants) in its allocation. Where the newest bytes of a captured Tensor are, and when they move
(``core/host_writes.py`` keeps the versions and the owners):

* **Before a call** (:meth:`Mirrors.refresh`): a mirror is current while its Tensor's host array is the same
  object at the same version as when the mirror last took its bytes. A stale mirror takes them from where the
  newest are: another graph's mirror that owns them (device to device on the same device, through the host
  otherwise), else the host array (an upload).
* **During and after a call** (:meth:`Mirrors.settle`): a mirror a kernel updated in place (``alias_of``: optimizer
  updates, Assign) holds the newest bytes. By default they stay there: the graph records itself as their
  owner (from the start of the call, so that a host node of the call reading it downloads it) and the
  version advances (other graphs' mirrors go stale); nothing is downloaded. A host read
  downloads them first (``Tensor.asnumpy``/``Tensor._read`` -> ``host_writes.fetch`` -> :meth:`fetch_into`).
  With ``OPBUILD_GPU_WRITEBACK=1`` (the behaviour before owners) every updated mirror is downloaded into its
  host array at every call instead.
* **A failed call** (a host node raised, a launch failed): the mirrors were all current before the kernels
  ran, so an updated mirror holds the newest bytes whatever ran, as a CPU graph's in-place kernels leave
  theirs; with write-back the host keeps its old bytes and the mirror is uploaded again (the previous rule).
* **The graph dropped** (:meth:`release`, from its finalizer): bytes it owns are downloaded into their host
  arrays before the device memory is freed, so nothing is lost.

Thread safety: a graph's calls and the downloads of its owned bytes take :attr:`Mirrors.lock` (re-entrant: a
host node of the graph may read a Parameter the graph owns). A device-to-device copy from another graph's
mirror does not take that graph's lock (two graphs refreshing from each other would deadlock); it is queued
on the device's one queue, so it reads the bytes in issue order.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from ..core import config, host_writes
from ..core.ir import Value
from ..passes.memplan import nbytes
from ..targets.base import DeviceMemory


class Mirrors:
    """The mirrors of one graph: ``captures`` are the graph's ``(value, tensor)`` pairs, ``addresses`` their
    mirrors' device addresses; :attr:`written` (set by the graph) the indices its kernels update in place."""

    def __init__(self, dev: DeviceMemory, captures: Sequence[tuple[Value, object]], addresses: Sequence[int]):
        self.dev, self.writeback = dev, config.gpu_writeback()  # OPBUILD_GPU_WRITEBACK, read once per graph
        self.captures = [(value, tensor, address) for (value, tensor), address in zip(captures, addresses)]
        self.written: list[int] = []
        self.lock = threading.RLock()
        # The host arrays the mirrors took their bytes for (watched, so their versions advance on host writes)
        # and the version each mirror holds (-1: unknown, take the bytes again).
        self.arrays: list[np.ndarray | None] = [None] * len(self.captures)
        self.versions = [-1] * len(self.captures)
        self.alive = True

    def address(self, slot: int) -> int:
        """The device address of mirror ``slot``."""
        return self.captures[slot][2]

    def refresh(self) -> None:
        """Bring every stale mirror up to date (before the graph's kernels are queued)."""
        dev, arrays, versions = self.dev, self.arrays, self.versions
        for j, (value, t, address) in enumerate(self.captures):
            data = t._data if t._data is not None else t.asnumpy()
            last = arrays[j]
            if data is last and host_writes.version(data) == versions[j]:
                continue
            if data is not last:
                if data.nbytes != nbytes(value) or data.dtype.name != value.type.dtype:
                    raise ValueError(f"captured tensor {j} is now {data.dtype.name}{list(data.shape)}, the graph "
                                     f"was built for {value.type}; call the Cell again so that it is rebuilt")
                version = host_writes.watch(data)
                if last is not None:
                    # The Tensor's array was replaced (set_data, assign_value): its new bytes supersede those
                    # this mirror may have owned for the old array.
                    host_writes.disown(last, self)
                    host_writes.unwatch(last)
                arrays[j] = data
            else:
                version = host_writes.version(data)
            versions[j] = -1  # not current until its copy is queued
            found = host_writes.owner(data)
            if found is None:
                dev.upload(address, np.ascontiguousarray(data))
            elif found[0] is not self:
                holder, slot = found
                if isinstance(holder, Mirrors) and holder.dev is dev:
                    dev.copy(address, holder.address(slot), data.nbytes)
                else:  # another device's bytes: through the host
                    holder.fetch_into(slot, data)
                    dev.upload(address, np.ascontiguousarray(data))
            versions[j] = version  # (owned by this mirror: it holds the newest bytes already)
        if not self.writeback:
            # The mirrors the kernels update are the newest bytes from their first kernel on: a host node of
            # this call reading such a Parameter downloads it after the kernels queued before it, as it would
            # see a CPU graph's in-place update.
            for j in self.written:
                host_writes.own(arrays[j], self, j)

    def queue_writeback(self) -> None:
        """With write-back: queue the download of every updated mirror into its host array."""
        if self.writeback:
            for j in self.written:
                self.dev.download(self.arrays[j], self.address(j))

    def settle(self) -> None:
        """After a call whose queued work is done: the updated mirrors hold the newest bytes (owned by this
        graph, or downloaded with write-back); every other graph's mirror of them is stale now."""
        for j in self.written:
            data = self.arrays[j]
            self.versions[j] = host_writes.advance(data)
            if not self.writeback:
                host_writes.own(data, self, j)

    def failed(self) -> None:
        """After a call that raised part-way (its mirrors were all current before its kernels ran)."""
        if self.writeback:  # the host keeps its bytes: upload them again at the next call
            for j in self.written:
                self.versions[j] = -1
        else:
            self.settle()

    def fetch_into(self, slot: int, array: np.ndarray) -> None:
        """Download mirror ``slot`` into ``array`` if this graph still owns its newest bytes (``host_writes``'s
        :class:`~opbuild.core.host_writes.Owner`)."""
        with self.lock:
            found = host_writes.owner(array)
            if found is None or found[0] is not self:
                return  # fetched meanwhile, or replaced by another owner
            if self.alive:
                self.dev.download(array, self.address(found[1]))
                self.dev.synchronize()
            host_writes.disown(array, self)

    def release(self) -> None:
        """The graph is dropped: the bytes it owns go to their host arrays, then every array is unwatched."""
        with self.lock:
            try:
                owned = [(j, data) for j, data in enumerate(self.arrays)
                         if data is not None and (found := host_writes.owner(data)) is not None and found[0] is self]
                for j, data in owned:
                    self.dev.download(data, self.address(j))
                if owned:
                    self.dev.synchronize()
            finally:  # a failed download (the device gone) must not leave host arrays owned by a dead graph
                for data in self.arrays:
                    if data is not None:
                        host_writes.disown(data, self)
                        host_writes.unwatch(data)
                self.arrays[:] = [None] * len(self.arrays)
                self.alive = False


__all__ = ["Mirrors"]
