"""The emulated device itself and the CUDA target's device memory on it: CudaMemory's copies, memset and
launches go through the driver calls in issue order and run at synchronize; the emulation refuses what a GPU
would not do (a host pointer given to a kernel, a copy past an allocation, an unknown cubin or symbol)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.runtime.session import session
from opbuild.targets.cuda import CudaTarget, device
from opbuild.targets.cuda.memory import CudaMemory

from .emulated_device import EmulationError


def test_cuda_memory_queues_copies_and_runs_them_at_synchronize(gpu):
    mem = CudaTarget().device()
    assert isinstance(mem, CudaMemory) and mem.driver is gpu
    a = np.arange(10, dtype=np.float32)
    address = mem.alloc(a.nbytes)
    mem.upload(address, a)
    back = np.zeros_like(a)
    mem.download(back, address)
    assert not back.any()  # queued, not done: the host must wait first
    mem.synchronize()
    assert np.array_equal(back, a)
    mem.memset(address + 8, 8, 0)
    mem.download(back, address)
    mem.synchronize()
    assert np.array_equal(back, np.where((np.arange(10) == 2) | (np.arange(10) == 3), 0, a))
    mem.free(address)
    with pytest.raises(EmulationError, match="not inside any live device allocation"):
        mem.upload(address, a)  # a use after free


def test_a_kernel_runs_on_device_pointers_only(gpu):
    spec = get_op("Exp").spec({}, [TensorType((7,), "float32")])
    (kernel,), _ = session().builder.build([spec])
    mem = CudaTarget().device()
    x = np.linspace(0, 1, 7, dtype=np.float32)
    ins, out = mem.alloc(x.nbytes), mem.alloc(x.nbytes)
    mem.upload(ins, x)
    mem.launch(kernel, [ins, out], 7)
    got = np.empty_like(x)
    mem.download(got, out)
    mem.synchronize()
    assert np.allclose(got, np.exp(x), rtol=1e-6)
    with pytest.raises(EmulationError, match="argument"):
        mem.launch(kernel, [ins, got.ctypes.data], 7)  # a host address
    with pytest.raises(EmulationError, match="not inside"):
        mem.download(np.empty(8, np.float32), out)  # 32 bytes from a 28-byte allocation
    mem.free(ins)
    mem.free(out)


def test_an_unknown_cubin_or_symbol_fails_loudly(gpu, tmp_path):
    with pytest.raises(EmulationError, match="no host build of this cubin"):
        gpu.cuModuleLoadData(b"\x7fELF not compiled while emulated")
    spec = get_op("Neg").spec({}, [TensorType((3,), "float32")])
    (kernel,), _ = session().builder.build([spec])
    data = Path(kernel.path).read_bytes()
    _, module = gpu.cuModuleLoadData(data)
    with pytest.raises(EmulationError, match="no kernel ob_missing"):
        gpu.cuModuleGetFunction(module, b"ob_missing")


def test_the_probe_is_an_sm_90_device(gpu):
    dev = device.probe()
    assert (dev.ok, dev.arch, dev.driver) == (True, "sm_90", gpu)
    assert CudaTarget().identity() == {"arch": "sm_90", "kind": "cuda"}
