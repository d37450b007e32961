"""Device memory and the one stream of the GPU target: the :class:`~opbuild.targets.base.DeviceMemory` of
CUDA, through the driver API of ``cuda-bindings`` (``device.py`` probes the device and retains its context).

Every copy and launch is queued on one stream (``cuStreamCreate``), created with the object: work runs in the
order it was issued, and the host waits only in :meth:`CudaMemory.synchronize` (the runtime calls it before it
reads a downloaded array, and before a free). Host arrays are pageable NumPy memory: ``cuMemcpyHtoDAsync``
from pageable memory stages the bytes before it returns, ``cuMemcpyDtoHAsync`` into it completes with the
stream; the arrays handed to a copy are still kept alive until the next synchronize, as the protocol asks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from ...core.ir import KernelSpec
from ..base import Kernel
from .codegen import BLOCK
from .device import Device, check
from .kernels import launch_blocks


class CudaMemory:
    """Allocations, copies and launches of one device on one stream (one per process: ``CudaTarget.device``)."""

    def __init__(self, dev: Device):
        self.dev, self.driver = dev, dev.driver
        self._lock = threading.Lock()
        self._local = threading.local()  # whether the context is current on this thread
        self._current()
        self.stream = check(self.driver, self.driver.cuStreamCreate(0), "cuStreamCreate")
        self._pending: list[np.ndarray] = []  # host arrays of queued copies: alive until synchronize
        self.live: dict[int, int] = {}  # address -> bytes, of every allocation not yet freed

    def _current(self) -> None:
        """Make the device's context current on the calling thread (a thread starts with none), once."""
        if not getattr(self._local, "set", False):
            check(self.driver, self.driver.cuCtxSetCurrent(self.dev.ctx), "cuCtxSetCurrent")
            self._local.set = True

    def alloc(self, nbytes: int) -> int:
        """``nbytes`` (at least 1) of device memory: its address (cuMemAlloc aligns to 256 bytes)."""
        size = max(int(nbytes), 1)
        self._current()
        address = int(check(self.driver, self.driver.cuMemAlloc(size), f"cuMemAlloc({size} bytes)"))
        with self._lock:
            self.live[address] = size
        return address

    def free(self, address: int) -> None:
        """Release an allocation once the work queued on it is done."""
        self.synchronize()
        with self._lock:
            self.live.pop(address, None)
        check(self.driver, self.driver.cuMemFree(address), "cuMemFree")

    def upload(self, address: int, array: np.ndarray) -> None:
        """Queue host ``array`` (C-contiguous) -> device ``address``."""
        if array.nbytes:
            self._current()
            self._pending.append(array)
            check(self.driver, self.driver.cuMemcpyHtoDAsync(address, array.ctypes.data, array.nbytes, self.stream),
                  "cuMemcpyHtoDAsync")

    def download(self, array: np.ndarray, address: int) -> None:
        """Queue device ``address`` -> host ``array`` (C-contiguous, writeable)."""
        if array.nbytes:
            self._current()
            self._pending.append(array)
            check(self.driver, self.driver.cuMemcpyDtoHAsync(array.ctypes.data, address, array.nbytes, self.stream),
                  "cuMemcpyDtoHAsync")

    def copy(self, dst: int, src: int, nbytes: int) -> None:
        """Queue device ``src`` -> device ``dst`` (``nbytes`` bytes, on the device)."""
        if nbytes:
            self._current()
            check(self.driver, self.driver.cuMemcpyDtoDAsync(dst, src, nbytes, self.stream), "cuMemcpyDtoDAsync")

    def memset(self, address: int, nbytes: int, value: int = 0) -> None:
        """Queue ``nbytes`` bytes at ``address`` set to ``value``."""
        if nbytes:
            self._current()
            check(self.driver, self.driver.cuMemsetD8Async(address, value, nbytes, self.stream), "cuMemsetD8Async")

    def launch_size(self, spec: KernelSpec) -> int:
        """The threads ``spec``'s kernel wants: its emitter's blocks (``kernels.launch_blocks``: a block per row,
        per tile, or one thread per output element) times ``BLOCK``."""
        return launch_blocks(spec) * BLOCK

    def launch(self, kernel: Kernel, pointers: Sequence[int], n: int) -> None:
        """Queue ``kernel`` (a ``LoadedCudaKernel``) on ``pointers``, its grid sized for ``n`` threads
        (:meth:`launch_size`)."""
        self._current()
        kernel.fn(pointers, n=n, stream=self.stream)

    def launcher(self, kernel: Kernel, pointers: Sequence[int], n: int) -> Callable[[], None]:
        """:meth:`launch` prepared once: the kernel's function, grid and argument tuple are computed here."""
        prepared = getattr(kernel, "launcher", None)
        if prepared is None:
            return lambda: self.launch(kernel, pointers, n)
        self._current()
        go = prepared(pointers, n, self.stream)

        def launch() -> None:
            self._current()
            go()

        return launch

    def synchronize(self) -> None:
        """Wait for the stream; the arrays of the copies queued so far are released."""
        self._current()
        queued = len(self._pending)  # another thread may queue more meanwhile: those are not done yet
        check(self.driver, self.driver.cuStreamSynchronize(self.stream), "cuStreamSynchronize")
        del self._pending[:queued]

    def close(self) -> None:
        """Wait for the stream and destroy it (allocations are the runtime's to free first)."""
        self.synchronize()
        check(self.driver, self.driver.cuStreamDestroy(self.stream), "cuStreamDestroy")


__all__ = ["CudaMemory"]
