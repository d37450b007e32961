"""An emulated CUDA device for tests without a GPU: a stand-in for ``cuda.bindings.driver`` with exactly the
driver calls opbuild makes (``targets/cuda/device.py``, ``memory.py``; scripts/gpu_check.py's direct ones),
where device memory is host memory and a cubin's kernels run as the same CUDA C compiled by g++ for the host
(``host_emulation.py``: one thread, one block, correct for any launch by construction).

How a cubin becomes host code: :func:`install` wraps ``Nvrtc.compile`` so that every program NVRTC compiles
is also compiled for the host, into ``<libdir>/<sha256 of the cubin>.so``; the fake ``cuModuleLoadData``
looks the cubin's bytes up there (a second process over the same cache and ``libdir`` finds them without
compiling anything), and ``cuModuleGetFunction`` looks the symbol up in that library. A cubin or symbol it
cannot find raises :class:`EmulationError` (neither OSError nor RuntimeError, which the loader would take for
a damaged cache entry and rebuild silently).

What it checks beyond the kernels' arithmetic: every copy and every kernel pointer must lie inside a live
allocation (a host pointer handed to a kernel, a buffer overrun or a use after free fails loudly), and
work queued on a stream runs only when the stream is synchronized (an executor that reads a download before
waiting sees stale bytes, as it would on a GPU). Each launch's grid is recorded (``EmulatedDriver.grids``:
kernel symbol and blocks), so tests can assert the per-op launch sizes (``kernels.launch_blocks``). What it
cannot check: many threads, CUDA's math library, real asynchrony between host and device
(scripts/gpu_check.py does, on a GPU).

A test helper (tests/, not the package): the package must not carry a fake driver, and the host compile of
the generated CUDA C already lives here (``host_emulation.py``).
"""

from __future__ import annotations

import ctypes
import enum
import hashlib
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from opbuild.targets.cuda import codegen, device
from opbuild.targets.cuda.nvrtc import Nvrtc

from .host_emulation import HARNESS, gxx


class EmulationError(Exception):
    """The emulated device cannot do what it was asked (an unknown cubin or symbol, a bad pointer)."""


class CUresult(enum.IntEnum):
    """The results the emulated calls return (the real enum's values)."""

    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_INVALID_HANDLE = 400


OK = CUresult.CUDA_SUCCESS


def host_program(source: str) -> str:
    """The NVRTC program ``source`` (``codegen.translation_unit``: the prelude, then the kernels) as host C++."""
    if not source.startswith(codegen.PRELUDE):
        raise EmulationError("not a GPU translation unit of opbuild (it does not start with codegen.PRELUDE)")
    prelude = "\n".join(line for line in codegen.PRELUDE.splitlines()
                        if not line.startswith(("typedef", "#define INT", "#define UINT", "#define OB_BLOCK")))
    return HARNESS + "#define OB_BLOCK 1\n" + prelude + source[len(codegen.PRELUDE):]


class HostCubins:
    """The host builds of the cubins NVRTC produced, by the cubin's sha256, in ``libdir``."""

    def __init__(self, libdir: Path):
        self.libdir = Path(libdir)
        self.libdir.mkdir(parents=True, exist_ok=True)
        self.compiled = 0  # host compiles made by this process

    def register(self, source: str, cubin: bytes) -> Path:
        """Compile ``source`` for the host as the stand-in of ``cubin`` (once per cubin)."""
        lib = self.libdir / (hashlib.sha256(cubin).hexdigest() + ".so")
        if lib.is_file():
            return lib
        compiler = gxx()
        if compiler is None:
            raise EmulationError("no host C++ compiler (g++) to emulate GPU kernels with")
        src = lib.with_suffix(f".{os.getpid()}.{threading.get_ident()}.cpp")
        src.write_text(host_program(source))
        part = lib.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part")
        out = subprocess.run([compiler, "-std=c++17", "-O1", "-fPIC", "-shared", "-fwrapv", "-w", "-o", str(part),
                              str(src)], capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            raise EmulationError(f"g++ failed on a GPU program:\n{out.stderr[-4000:]}")
        part.replace(lib)
        src.unlink()
        self.compiled += 1
        return lib

    def library(self, cubin: bytes) -> ctypes.CDLL:
        lib = self.libdir / (hashlib.sha256(cubin).hexdigest() + ".so")
        if not lib.is_file():
            raise EmulationError(f"the emulated device has no host build of this cubin ({lib.name}): it was not "
                                 "compiled by NVRTC while the emulation was installed")
        return ctypes.CDLL(str(lib))


class EmulatedFunction:
    """A CUfunction: the host function of a kernel symbol."""

    def __init__(self, fn: Callable, name: str):
        self.fn, self.name = fn, name


class EmulatedDriver:
    """The driver calls opbuild makes, on host memory. Results are tuples ``(CUresult, value...)`` as
    ``cuda-bindings`` returns them."""

    def __init__(self, cubins: HostCubins):
        self.cubins = cubins
        self._lock = threading.RLock()
        self.allocations: dict[int, np.ndarray] = {}  # base address -> its host buffer
        self.queues: dict[int, list[Callable[[], None]]] = {0: []}
        self.launches = 0
        self.uploads = 0
        self.downloads = 0
        self.copies = 0  # device-to-device copies
        # Bytes queued each way: host to device, device to host, device to device (what a GPU's bus would carry).
        self.uploaded_bytes = 0
        self.downloaded_bytes = 0
        self.copied_bytes = 0
        self.allocated = 0  # cuMemAlloc calls
        self.freed = 0
        self.grids: list[tuple[str, int]] = []  # (kernel symbol, blocks) of every launch, in order

    # ---- memory ----------------------------------------------------------------------------------------
    def live_bytes(self) -> int:
        """Bytes of device memory allocated and not freed."""
        with self._lock:
            return sum(b.nbytes for b in self.allocations.values())

    def _inside(self, address: int, nbytes: int, what: str) -> None:
        """Raise unless ``[address, address + nbytes)`` lies in one live allocation."""
        address = int(address)
        # A snapshot: a buffer freed meanwhile (a finalizer run by the garbage collector, here or in another
        # thread) must not change the dict under the loop.
        with self._lock:
            live = list(self.allocations.items())
        for base, buf in live:
            if base <= address and address + nbytes <= base + buf.nbytes:
                return
        raise EmulationError(f"{what}: {nbytes} bytes at {address:#x} are not inside any live device allocation")

    def cuMemAlloc(self, nbytes: int):
        # Filled with a pattern, not zeros: a kernel or an executor that reads memory nobody wrote gets NaN-like
        # garbage, as it may on a GPU. The slice keeps its whole buffer alive (ndarray.base).
        buf = np.full(int(nbytes) + 256, 0xFF, np.uint8)
        base = -buf.ctypes.data % 256
        with self._lock:
            view = buf[base:base + int(nbytes)]
            self.allocations[view.ctypes.data] = view
            self.allocated += 1
        return OK, view.ctypes.data

    def cuMemFree(self, address: int):
        with self._lock:
            if self.allocations.pop(int(address), None) is None:
                raise EmulationError(f"cuMemFree of {int(address):#x}, which is not a live allocation")
            self.freed += 1
        return (OK,)

    def _queue(self, stream, op: Callable[[], None]) -> None:
        with self._lock:
            self.queues.setdefault(int(stream), []).append(op)

    def cuMemcpyHtoDAsync(self, dst: int, src: int, nbytes: int, stream):
        self._inside(dst, nbytes, "cuMemcpyHtoDAsync")
        self.uploads += 1
        self.uploaded_bytes += int(nbytes)
        self._queue(stream, lambda: ctypes.memmove(int(dst), int(src), int(nbytes)))
        return (OK,)

    def cuMemcpyDtoHAsync(self, dst: int, src: int, nbytes: int, stream):
        self._inside(src, nbytes, "cuMemcpyDtoHAsync")
        self.downloads += 1
        self.downloaded_bytes += int(nbytes)
        self._queue(stream, lambda: ctypes.memmove(int(dst), int(src), int(nbytes)))
        return (OK,)

    def cuMemcpyDtoDAsync(self, dst: int, src: int, nbytes: int, stream):
        self._inside(src, nbytes, "cuMemcpyDtoDAsync source")
        self._inside(dst, nbytes, "cuMemcpyDtoDAsync destination")
        self.copies += 1
        self.copied_bytes += int(nbytes)
        self._queue(stream, lambda: ctypes.memmove(int(dst), int(src), int(nbytes)))
        return (OK,)

    def transferred(self) -> dict[str, int]:
        """Bytes queued so far each way: ``{"up": host to device, "down": device to host, "dtod": on the
        device}`` (subtract two readings to count a step's)."""
        return {"up": self.uploaded_bytes, "down": self.downloaded_bytes, "dtod": self.copied_bytes}

    def cuMemsetD8Async(self, dst: int, value: int, nbytes: int, stream):
        self._inside(dst, nbytes, "cuMemsetD8Async")
        self._queue(stream, lambda: ctypes.memset(int(dst), int(value), int(nbytes)))
        return (OK,)

    def cuMemcpyHtoD(self, dst, src: int, nbytes: int):  # the legacy stream: after all queued work
        self._inside(int(dst), nbytes, "cuMemcpyHtoD")
        self.cuCtxSynchronize()
        ctypes.memmove(int(dst), int(src), int(nbytes))
        return (OK,)

    def cuMemcpyDtoH(self, dst: int, src, nbytes: int):
        self._inside(int(src), nbytes, "cuMemcpyDtoH")
        self.cuCtxSynchronize()
        ctypes.memmove(int(dst), int(src), int(nbytes))
        return (OK,)

    # ---- context and streams --------------------------------------------------------------------------------
    def cuCtxSetCurrent(self, ctx):
        return (OK,)

    def cuStreamCreate(self, flags: int):
        with self._lock:
            handle = max(self.queues) + 1
            self.queues[handle] = []
        return OK, handle

    def cuStreamSynchronize(self, stream):
        with self._lock:
            ops = self.queues.get(int(stream))
            if ops is None:
                raise EmulationError(f"cuStreamSynchronize: no stream {stream}")
            todo, ops[:] = list(ops), []
        for op in todo:
            op()
        return (OK,)

    def cuStreamDestroy(self, stream):
        self.cuStreamSynchronize(stream)
        with self._lock:
            self.queues.pop(int(stream))
        return (OK,)

    def cuCtxSynchronize(self):
        for stream in list(self.queues):
            self.cuStreamSynchronize(stream)
        return (OK,)

    # ---- modules and launches ------------------------------------------------------------------------------
    def cuModuleLoadData(self, data: bytes):
        return OK, self.cubins.library(bytes(data))

    def cuModuleGetFunction(self, module: ctypes.CDLL, name: bytes):
        symbol = name.decode()
        try:
            fn = getattr(module, symbol)
        except AttributeError:
            raise EmulationError(f"the host build of the cubin has no kernel {symbol}") from None
        fn.restype = None
        return OK, EmulatedFunction(fn, symbol)

    def cuLaunchKernel(self, func: EmulatedFunction, gx, gy, gz, bx, by, bz, shared, stream, args, extra):
        if not isinstance(func, EmulatedFunction):
            raise EmulationError(f"cuLaunchKernel of {func!r}, not a function of the emulated device")
        if (bx, by, bz) != (codegen.BLOCK, 1, 1) or min(gx, gy, gz) < 1:
            raise EmulationError(f"{func.name}: launch grid {(gx, gy, gz)} block {(bx, by, bz)}")
        pointers = [int(p) for p in args[0]]
        for p in pointers:  # no size is known here: each must point into some live allocation
            self._inside(p, 0, f"{func.name} argument")
        self.launches += 1
        self.grids.append((func.name, int(gx)))
        self._queue(stream, lambda: func.fn(*[ctypes.c_void_p(p) for p in pointers]))
        return (OK,)


def install(libdir: Path, setattr_: Callable[[object, str, object], None] | None = None) -> EmulatedDriver:
    """Make this process's GPU the emulated one: ``device.probe()`` answers an ``sm_90`` device driven by an
    :class:`EmulatedDriver`, and every NVRTC compile is also compiled for the host (into ``libdir``).
    ``setattr_`` patches (a pytest ``monkeypatch.setattr`` undoes it; default: plain setattr, for scripts)."""
    put = setattr_ or setattr
    cubins = HostCubins(libdir)
    driver = EmulatedDriver(cubins)
    emulated = device.Device(True, "sm_90", "", driver, ctx="emulated context", sms=2)
    put(device, "probe", lambda: emulated)
    compile_for_gpu = Nvrtc.compile

    def compile_both(self, source, out_path, workdir, label):
        result = compile_for_gpu(self, source, out_path, workdir, label)
        cubins.register(source, result.binary.read_bytes())
        return result

    put(Nvrtc, "compile", compile_both)
    return driver


__all__ = ["CUresult", "EmulatedDriver", "EmulatedFunction", "EmulationError", "HostCubins", "host_program",
           "install"]
