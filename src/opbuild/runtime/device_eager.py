"""PyNative on an accelerator: one kernel run now on device memory, its inputs uploaded and its outputs
downloaded (an in-place output into the updated input's own host array, as the CPU's kernels write it).

The device buffers of a run come from one scratch allocation per device that grows to the largest run and is
reused (allocating per op would cost a driver allocation and free per op); runs on one device are serialised.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

import numpy as np

from ..core.ir import KernelSpec
from ..ops.registry import STATUS_WORDS, get
from ..targets.base import DeviceMemory, Kernel
from .device_graph import device_aligned, launch_size


class Scratch:
    """A device allocation of at least the bytes asked for, grown on demand (freed with this object)."""

    def __init__(self, dev: DeviceMemory):
        self.dev, self.nbytes, self.base = dev, 0, 0
        self.lock = threading.Lock()
        self._finalizer: weakref.finalize | None = None

    def reserve(self, nbytes: int) -> int:
        """The base address of at least ``nbytes`` bytes (the old contents are not kept)."""
        if nbytes > self.nbytes:
            if self._finalizer is not None:
                self._finalizer()
            size = max(nbytes, 2 * self.nbytes)
            self.base, self.nbytes = self.dev.alloc(size), size
            self._finalizer = weakref.finalize(self, self.dev.free, self.base)
            self._finalizer.atexit = False
        return self.base


_scratch: dict[int, Scratch] = {}
_scratch_lock = threading.Lock()


def scratch(dev: DeviceMemory) -> Scratch:
    """The scratch buffer of ``dev`` (one per device memory object of the process)."""
    with _scratch_lock:
        found = _scratch.get(id(dev))
        if found is None or found.dev is not dev:
            found = _scratch[id(dev)] = Scratch(dev)
        return found


def run_on_device(dev: DeviceMemory, kernel: Kernel, spec: KernelSpec, args: Sequence[np.ndarray],
                  inplace: Sequence[tuple[int, int]]) -> list[np.ndarray]:
    """Run ``kernel`` of ``spec`` on host arrays ``args`` (C-contiguous) through ``dev``: the outputs as host
    arrays; output ``o`` of each ``(o, i)`` of ``inplace`` is ``args[i]`` itself, updated."""
    offsets, end = [], 0
    for a in args:
        offsets.append(end)
        end += device_aligned(max(a.nbytes, 1))
    aliased = dict(inplace)
    outs: list[np.ndarray] = []
    for o, t in enumerate(spec.outputs):
        if o in aliased:  # the kernel updates its input's buffer: same device address, same host array
            outs.append(args[aliased[o]])
            offsets.append(offsets[aliased[o]])
        else:
            outs.append(np.empty(t.shape, t.dtype))
            offsets.append(end)
            end += device_aligned(max(outs[-1].nbytes, 1))
    op = get(spec.op)
    status = np.zeros(STATUS_WORDS if op.status is not None else 0, np.int64)  # the kernel's bad-input report
    buf = scratch(dev)
    with buf.lock:
        base = buf.reserve(end + status.nbytes)
        for off, a in zip(offsets, args):
            dev.upload(base + off, a)
        pointers = [base + off for off in offsets]
        if status.size:  # its status words: after the outputs (kernel ABI 2 of targets/cuda/codegen.py)
            dev.upload(base + end, status)
            pointers.append(base + end)
        dev.launch(kernel, pointers, launch_size(dev, spec))
        for off, out in zip(offsets[len(args):], outs):
            dev.download(out, base + off)
        if status.size:
            dev.download(status, base + end)
        dev.synchronize()
    if status.size and status[0]:
        raise op.status_error(spec.attrs, spec.inputs, status.tolist())
    return outs


__all__ = ["Scratch", "run_on_device", "scratch"]
