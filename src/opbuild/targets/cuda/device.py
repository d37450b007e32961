"""The CUDA device, through the driver API of ``cuda-bindings``: is one usable, its compute capability, and
loading and launching kernels from cubins.

Nothing here runs at import: the driver library is looked up on the first :func:`probe`, once per process (a
GPU does not appear under a running process), and a machine without it gets the reason, never an exception.
Loading a module needs a context: the device's primary context, retained once and made current on the calling
thread before each driver call.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Sequence
from typing import Any

from ...core import config
from .codegen import BLOCK
from .errors import CudaUnavailableError

ARCH_ENV = "OPBUILD_CUDA_ARCH"
_NO_GPU_HINT = ("run on a machine with an NVIDIA GPU and driver, or use device_target='CPU' (building GPU kernels "
                "into kernel_meta works without a GPU)")


class Device:
    """The probed device: ``ok``, its ``arch`` (``sm_XY``) or the ``reason`` none is usable."""

    def __init__(self, ok: bool, arch: str | None, reason: str, driver: Any = None, ctx: Any = None,
                 sms: int = 0):
        self.ok, self.arch, self.reason = ok, arch, reason
        self.driver, self.ctx, self.sms = driver, ctx, sms


def check(driver: Any, result: Any, what: str) -> Any:
    """The values of a driver call's result tuple; RuntimeError naming the call and the CUresult otherwise."""
    err, *rest = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise RuntimeError(f"{what} failed: {getattr(err, 'name', err)}")
    return rest[0] if len(rest) == 1 else rest


_check = check


@functools.cache
def probe() -> Device:
    """The process's device 0 (``CUDA_VISIBLE_DEVICES`` decides which), or why there is none."""
    try:
        from cuda.bindings import driver
    except ImportError as e:
        return Device(False, None, f"the cuda-bindings package is not installed ({e.name or e}): "
                      "pip install 'opbuild[cuda]'")
    try:
        _check(driver, driver.cuInit(0), "cuInit")
        dev = _check(driver, driver.cuDeviceGet(0), "cuDeviceGet")
        attr = driver.CUdevice_attribute
        major = _check(driver, driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
                       "cuDeviceGetAttribute")
        minor = _check(driver, driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
                       "cuDeviceGetAttribute")
        sms = _check(driver, driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
                     "cuDeviceGetAttribute")
        ctx = _check(driver, driver.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    except Exception as e:  # noqa: BLE001 (no driver library, no device, a broken driver: all mean "no GPU")
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
        return Device(False, None, f"no usable CUDA device ({text})")
    return Device(True, f"sm_{major}{minor}", "", driver, ctx, int(sms))


def env_arch() -> str | None:
    """``OPBUILD_CUDA_ARCH`` validated (e.g. ``sm_90``), None when unset or empty; ConfigError otherwise
    (``core/config.py`` ``cuda_arch``, which every build validates up front)."""
    return config.cuda_arch()


def arch() -> tuple[str, str]:
    """``(arch, source)``: the device's compute capability when one is usable, else ``OPBUILD_CUDA_ARCH``;
    CudaUnavailableError saying both are missing otherwise."""
    dev = probe()
    if dev.ok and dev.arch:
        return dev.arch, "device"
    found = env_arch()
    if found is not None:
        return found, ARCH_ENV
    raise CudaUnavailableError("choose a compute capability to build for", dev.reason,
                               f"set {ARCH_ENV} (e.g. sm_90) to build GPU kernels without a GPU")


def require(action: str) -> Device:
    """The usable device; CudaUnavailableError (one line: what is missing) when there is none."""
    dev = probe()
    if not dev.ok:
        raise CudaUnavailableError(action, dev.reason, _NO_GPU_HINT)
    _check(dev.driver, dev.driver.cuCtxSetCurrent(dev.ctx), "cuCtxSetCurrent")
    return dev


class LoadedCudaKernel:
    """Kernel ``symbol`` of a cubin: the module is loaded on the first call (so a build without a GPU can hand
    it out), then ``fn(pointers)`` launches it with one device pointer per input and output (the ABI of
    ``codegen.py``) on ``stream`` (the runtime's: ``memory.py``; 0, the legacy default stream, for direct
    use). ``n`` (the threads the kernel wants: ``CudaMemory.launch_size``) sizes the grid; any grid is correct."""

    def __init__(self, path: str, name: str, symbol: str, data: bytes | None = None):
        self.path, self.name, self.symbol = path, name, symbol
        self._data = data
        self._function: Any = None

    def load(self) -> Any:
        """The CUfunction (module loaded on first use); CudaUnavailableError without a GPU, OSError when the
        driver rejects the cubin (a corrupt entry)."""
        if self._function is None:
            dev = require(f"run kernel {self.name}")
            if self._data is None:
                with open(self.path, "rb") as f:
                    self._data = f.read()
            try:
                module = _check(dev.driver, dev.driver.cuModuleLoadData(self._data), "cuModuleLoadData")
                self._function = _check(dev.driver, dev.driver.cuModuleGetFunction(module, self.symbol.encode()),
                                        "cuModuleGetFunction")
            except RuntimeError as e:
                raise OSError(f"{self.path}: {e}") from None
        return self._function

    def fn(self, pointers: Sequence[int], n: int = 0, stream: Any = 0) -> None:
        """Launch on ``pointers`` (device addresses, inputs then outputs)."""
        self.launcher(pointers, n, stream)()

    __call__ = fn

    def launcher(self, pointers: Sequence[int], n: int = 0, stream: Any = 0) -> Callable[[], None]:
        """A call launching this kernel on ``pointers`` with the grid for ``n`` threads on ``stream``, its
        arguments prepared once (a compiled graph's pointers never change: runtime/device_graph.py)."""
        func = self.load()
        dev = probe()
        driver = dev.driver
        blocks = max(1, min((max(n, 1) + BLOCK - 1) // BLOCK, 32 * max(dev.sms, 1)))
        args = (tuple(pointers), tuple(ctypes.c_void_p for _ in pointers))
        launch = driver.cuLaunchKernel

        def go() -> None:
            _check(driver, launch(func, blocks, 1, 1, BLOCK, 1, 1, 0, stream, args, 0), "cuLaunchKernel")

        return go


__all__ = ["ARCH_ENV", "Device", "LoadedCudaKernel", "arch", "check", "env_arch", "probe", "require"]
