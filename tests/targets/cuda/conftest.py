"""The emulated GPU (emulated_device.py) as a fixture: ``gpu`` gives its driver with ``device_target`` "GPU"
and a private cache; the CPU target is restored afterwards."""

from __future__ import annotations

import gc

import pytest

import opbuild as ms
from opbuild.runtime.session import session
from opbuild.targets.cuda.errors import NvrtcNotFoundError
from opbuild.targets.cuda.nvrtc import Nvrtc

from .emulated_device import EmulatedDriver, install
from .host_emulation import gxx


def nvrtc_missing() -> str | None:
    """Why NVRTC cannot compile here (the cuda extra is not installed), or None."""
    try:
        Nvrtc("sm_90")
    except NvrtcNotFoundError as e:
        return f"NVRTC is not installed (pip install 'opbuild[cuda]'): {e}"
    return None


@pytest.fixture(scope="session")
def emulated_gpu_libdir(tmp_path_factory):
    """Where the host builds of the cubins of the whole run are kept (by the cubin's digest)."""
    return tmp_path_factory.mktemp("emulated-gpu")


def _forget_gpu_kernels() -> None:
    """Drop the GPU target's loaded kernels and device memory from the process's session: those of another
    test were loaded for another (emulated or absent) device."""
    builder = session().builder
    for key in [k for k in builder.memory.kernels if k[0].startswith("GPU|")]:
        del builder.memory.kernels[key]
    builder._targets.pop("GPU", None)


@pytest.fixture
def gpu(emulated_gpu_libdir, tmp_path, monkeypatch) -> EmulatedDriver:
    """The emulated device, installed; ``set_device("GPU")``; a private cache root (``tmp_path / "cache"``)."""
    if gxx() is None:
        pytest.skip("no host C++ compiler (g++) to emulate GPU kernels with")
    if nvrtc_missing():
        pytest.skip(nvrtc_missing())
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))
    monkeypatch.setenv("OPBUILD_PROGRESS", "0")
    _forget_gpu_kernels()
    driver = install(emulated_gpu_libdir, monkeypatch.setattr)
    mode = ms.get_context("mode")
    ms.set_device("GPU")
    yield driver
    ms.set_device("CPU")
    ms.set_context(mode=mode)
    _forget_gpu_kernels()
    # The test's GPU graphs are garbage now: their finalizers hand what they own to the host and free their
    # memory while this driver is installed, not during a later test's garbage collection.
    gc.collect()
