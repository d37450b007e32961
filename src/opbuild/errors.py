"""Domain exceptions. Each carries the data a user needs to act on it, not just a message."""

from __future__ import annotations


class OpbuildError(Exception):
    """Base class of every error raised by opbuild."""


class ShapeError(OpbuildError, ValueError):
    """An operator received inputs whose shapes, dtypes or attributes it cannot accept.

    Raised while a graph is traced (or an op is called in PyNative mode), never from inside C.
    """

    def __init__(self, op: str, message: str, inputs: list | None = None):
        self.op = op
        self.inputs = list(inputs or [])
        detail = ", ".join(f"input[{i}]: {t}" for i, t in enumerate(self.inputs))
        super().__init__(f"{op}: {message}" + (f" ({detail})" if detail else ""))


class CompilerNotFoundError(OpbuildError, RuntimeError):
    """No usable C compiler was found."""

    def __init__(self, tried: list[str]):
        self.tried = tried
        super().__init__(
            "no C compiler found (tried: " + ", ".join(tried) + "). Install gcc or clang, or set the CC "
            "environment variable to the compiler to use, e.g. `export CC=/usr/bin/gcc`."
        )


class CompileError(OpbuildError, RuntimeError):
    """The C compiler failed on a generated kernel.

    Attributes: ``cmd`` (the argv that failed), ``stderr`` (the compiler's output), ``source_path`` (the
    generated C file, kept on disk for inspection) and ``kernel`` (the kernel's cache name).
    """

    def __init__(self, cmd: list[str], stderr: str, source_path: str, kernel: str = ""):
        self.cmd = list(cmd)
        self.stderr = stderr
        self.source_path = source_path
        self.kernel = kernel
        super().__init__(
            f"compiling kernel {kernel or '?'} failed\n  command: {' '.join(cmd)}\n  source: {source_path}\n"
            f"  compiler output:\n{stderr.rstrip()}"
        )


class CompileTimeoutError(CompileError):
    """A compiler call ran past OPBUILD_COMPILE_TIMEOUT and was killed with its children.

    Attributes as :class:`CompileError`, plus ``kernels`` (every kernel of the killed call) and ``timeout``
    (the setting, in seconds).
    """

    def __init__(self, cmd: list[str], source_path: str, kernels: list[str], timeout: float):
        self.kernels = list(kernels)
        self.timeout = timeout
        shown = ", ".join(self.kernels[:8]) + (f" and {len(self.kernels) - 8} more" if len(self.kernels) > 8 else "")
        super().__init__(cmd, f"the compiler ran longer than OPBUILD_COMPILE_TIMEOUT={timeout:g} s and was killed "
                         f"with its children (kernels of this call: {shown}). Raise OPBUILD_COMPILE_TIMEOUT if the "
                         "compiler is only slow, or find out why it hangs.", source_path,
                         self.kernels[0] if len(self.kernels) == 1 else f"batch of {len(self.kernels)}")


class UnsupportedTargetError(OpbuildError, ValueError):
    """A device target this build does not support was requested."""
