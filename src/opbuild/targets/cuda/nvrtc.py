"""NVRTC, the GPU target's compiler: CUDA C++ to a cubin in process (PyPI ``nvidia-cuda-nvrtc``, called
through ``cuda-bindings``' ``nvrtc`` module), for one compute capability.

Identity (part of every GPU kernel's key): NVRTC's version, the library file it was loaded from, the target
architecture and the flags. A compile runs in a worker thread bounded by ``OPBUILD_COMPILE_TIMEOUT``: past it
the build fails naming the kernels (CompileTimeoutError); an in-process call cannot be killed, so the thread is
abandoned to finish on its own (NVRTC holds no lock of ours and writes nothing of the cache).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core import config
from ...core.errors import CompileError, CompileTimeoutError
from .errors import NvrtcNotFoundError

#: Flags of every compile besides the architecture: C++17, device code by default (no ``__device__`` on
#: every helper), full optimisation (NVRTC's default, named so that the key says it).
FLAGS = ("--std=c++17", "-default-device", "--dopt=on")


@dataclass
class CompileResult:
    """What a successful compile produced: the cubin, the command it stands for and the seconds it took."""

    binary: Path
    cmd: list[str]
    seconds: float


def _module() -> Any:
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise NvrtcNotFoundError(f"the cuda-bindings package is not installed ({e.name or e})") from None
    return nvrtc


def _ok(result: Any, what: str) -> Any:
    err, *rest = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise RuntimeError(f"{what}: {getattr(err, 'name', err)}")
    return rest[0] if len(rest) == 1 else rest


class Nvrtc:
    """NVRTC for architecture ``arch`` (``sm_90``): ``identity()`` and ``compile()``, the ``Toolchain``
    protocol of ``targets/base.py``."""

    def __init__(self, arch: str):
        self.arch = arch
        nvrtc = _module()
        try:
            major, minor = _ok(nvrtc.nvrtcVersion(), "nvrtcVersion")
        except Exception as e:  # noqa: BLE001 (the library of the nvidia-cuda-nvrtc wheel is missing or broken)
            raise NvrtcNotFoundError(str(e).splitlines()[0] if str(e) else type(e).__name__) from None
        self.version = f"{major}.{minor}"
        self._nvrtc = nvrtc
        self._identity: dict | None = None

    def flags(self) -> list[str]:
        """Every option of a compile."""
        return [f"--gpu-architecture={self.arch}", *FLAGS]

    def identity(self, memo: Any = None) -> dict:
        """NVRTC version, library, architecture and flags (what the cubin depends on)."""
        if self._identity is None:
            self._identity = {"compiler": "nvrtc", "version": self.version, "library": _library_name(),
                              "arch": self.arch, "flags": self.flags()}
        return self._identity

    def blas_library(self) -> str | None:
        """GPU kernels link no BLAS."""
        return None

    def toolchain_files(self) -> list[str]:
        """No files besides the library (named in the identity)."""
        return []

    def compile(self, source: str, out_path: Path, workdir: Path, label: str) -> CompileResult:
        """Compile ``source`` to a cubin at ``out_path`` (the source is written beside it first, for a failure
        to keep); CompileError with NVRTC's log, CompileTimeoutError past ``OPBUILD_COMPILE_TIMEOUT``."""
        src_path = workdir / (label + ".c")
        src_path.write_text(source)
        cmd = ["nvrtc", *self.flags(), src_path.name]
        timeout = config.compile_timeout()
        outcome: dict = {}
        worker = threading.Thread(target=self._run, args=(source, label, outcome), daemon=True)
        start = time.perf_counter()
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            raise CompileTimeoutError(cmd, str(src_path), [label], timeout)
        seconds = time.perf_counter() - start
        if "error" in outcome:
            raise CompileError(cmd, outcome["error"], str(src_path), label)
        tmp = out_path.with_name(out_path.name + ".part")
        tmp.write_bytes(outcome["cubin"])
        tmp.replace(out_path)
        return CompileResult(out_path, cmd, seconds)

    def _run(self, source: str, label: str, outcome: dict) -> None:
        nvrtc = self._nvrtc
        try:
            prog = _ok(nvrtc.nvrtcCreateProgram(source.encode(), (label + ".cu").encode(), 0, [], []),
                       "nvrtcCreateProgram")
            try:
                opts = [f.encode() for f in self.flags()]
                result = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
                if int(result[0]) != 0:
                    size = _ok(nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
                    log = b" " * size
                    nvrtc.nvrtcGetProgramLog(prog, log)
                    outcome["error"] = log.rstrip(b"\0 ").decode(errors="replace")
                    return
                size = _ok(nvrtc.nvrtcGetCUBINSize(prog), "nvrtcGetCUBINSize")
                cubin = b" " * size
                _ok(nvrtc.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
                outcome["cubin"] = cubin
            finally:
                nvrtc.nvrtcDestroyProgram(prog)
        except Exception as e:  # noqa: BLE001 (reported as the compile's error, with its text)
            outcome["error"] = f"NVRTC failed: {e}"


def _library_name() -> str:
    """The file name of the NVRTC library in use (its soname carries the major version)."""
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        return Path(load_nvidia_dynamic_lib("nvrtc").abs_path or "nvrtc").name
    except Exception:  # noqa: BLE001 (the version in the identity says the same; the name is informative)
        return "nvrtc"


__all__ = ["FLAGS", "CompileResult", "Nvrtc"]
