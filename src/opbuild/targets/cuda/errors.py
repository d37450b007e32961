"""The GPU target's errors: what is missing, said in one line (no traceback needed to act on them)."""

from __future__ import annotations

from ...core.errors import CompilerNotFoundError, OpbuildError


class CudaUnavailableError(OpbuildError, RuntimeError):
    """A GPU kernel was asked to run (or the compute capability to build for was needed) where no CUDA device
    is usable. ``reason`` says what is missing (no driver library, no device, ...)."""

    #: About the machine, not the script: ``opbuild run`` prints the one line without a traceback.
    environment = True

    def __init__(self, action: str, reason: str, hint: str):
        self.action = action
        self.reason = reason
        super().__init__(f"device_target 'GPU': cannot {action}: {reason}; {hint}")


class NvrtcNotFoundError(CompilerNotFoundError):
    """The GPU target's compiler, NVRTC (PyPI ``nvidia-cuda-nvrtc`` with ``cuda-bindings``), is not installed or
    cannot be loaded. A build still serves every kernel already in the cache (the recorded toolchain)."""

    def __init__(self, why: str, kernels: list[str] | None = None):
        self.why = why
        self.tried = ["nvrtc"]
        self.kernels = list(kernels or [])
        OpbuildError.__init__(self, self._need(self.kernels) + f"NVRTC is not usable ({why}): "
                              "pip install 'opbuild[cuda]' (nvidia-cuda-nvrtc and cuda-bindings)")

    def for_kernels(self, kernels: list[str]) -> NvrtcNotFoundError:
        return NvrtcNotFoundError(self.why, kernels)


__all__ = ["CudaUnavailableError", "NvrtcNotFoundError"]
