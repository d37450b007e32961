"""Domain exceptions. Each carries the data a user needs to act on it, not just a message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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


class KernelInputError(OpbuildError, RuntimeError, IndexError):
    """A kernel met input it cannot compute (an index out of range of the axis it indexes), reported through its
    status words and raised after the call (in PyNative after the op, in a graph after the graph's kernels).
    A RuntimeError as MindSpore's for the same input, and an IndexError as NumPy's and PyTorch's."""

    def __init__(self, op: str, message: str, value: int, position: int):
        self.op, self.value, self.position = op, value, position
        super().__init__(f"For '{op}', {message}")


class KernelMemoryError(OpbuildError, MemoryError):
    """A kernel could not allocate scratch memory that is not a planned workspace (a library's own, sized inside
    it: pocketfft's plans), reported through its status words and raised after the call like
    :class:`KernelInputError`; the kernel stores nothing as if it had computed it."""

    def __init__(self, op: str, message: str, value: int, position: int):
        self.op, self.value, self.position = op, value, position
        super().__init__(f"For '{op}', {message}")


class CompilerNotFoundError(OpbuildError, RuntimeError):
    """No usable C compiler was found."""

    def __init__(self, tried: list[str], kernels: list[str] | None = None):
        self.tried = tried
        self.kernels = list(kernels or [])  # the kernels that had to be built (not in the cache), if any
        super().__init__(
            self._need(self.kernels) + "no C compiler found (tried: " + ", ".join(tried) + "). Install gcc or "
            "clang, or set the CC environment variable to the compiler to use, e.g. `export CC=/usr/bin/gcc`."
        )

    def for_kernels(self, kernels: list[str]) -> CompilerNotFoundError:
        """The same error, naming the kernels that had to be built."""
        return CompilerNotFoundError(self.tried, kernels)

    @staticmethod
    def _need(kernels: list[str]) -> str:
        if not kernels:
            return ""
        more = len(kernels) - 5
        shown = ", ".join(kernels[:5]) + (f" and {more} more" if more > 0 else "")
        return f"cannot build kernel{'s' if len(kernels) > 1 else ''} {shown} (not in the cache): "


class CompilerHangError(CompilerNotFoundError):
    """The compiler did not answer a probe (``--version``, ``-print-file-name``) within OPBUILD_COMPILE_TIMEOUT
    (at most the probes' own bound, ``capped``) and was killed with its children: there is a compiler, but no
    usable one. Attributes: ``exe``, ``argv`` (the probe), ``timeout`` (the bound, in seconds), ``kernels``
    (those that had to be built, if any)."""

    def __init__(self, exe: str, argv: list[str], timeout: float, kernels: list[str] | None = None,
                 capped: bool = False):
        self.exe = exe
        self.argv = list(argv)
        self.timeout = timeout
        self.capped = capped
        self.tried = [exe]
        self.kernels = list(kernels or [])
        bound = (f"within {timeout:g} s (the bound on a compiler's probes, which answer in well under a second)"
                 if capped else f"within OPBUILD_COMPILE_TIMEOUT={timeout:g} s")
        remedy = "" if capped else ", or raise OPBUILD_COMPILE_TIMEOUT if it is only slow"
        OpbuildError.__init__(
            self, self._need(self.kernels) + f"the C compiler {exe} hangs: `{' '.join(self.argv)}` did not finish "
            f"{bound} and was killed with its children. Fix or replace it (set CC to another compiler){remedy}.")

    def for_kernels(self, kernels: list[str]) -> CompilerHangError:
        return CompilerHangError(self.exe, self.argv, self.timeout, kernels, self.capped)


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


class MissingPackageError(OpbuildError, ModuleNotFoundError):
    """An optional feature whose package is not installed. Attributes: ``feature`` (what needs it), ``name``
    (the package, as ModuleNotFoundError has it) and ``extra`` (the opbuild extra that installs it)."""

    def __init__(self, feature: str, package: str, extra: str):
        self.feature = feature
        self.extra = extra
        super().__init__(f"{feature} needs the '{package}' package, which is not installed: "
                         f"pip install 'opbuild[{extra}]'", name=package)


class UnsupportedTargetError(OpbuildError, ValueError):
    """A device target this build does not support was requested."""


class ConfigError(OpbuildError, ValueError):
    """An environment variable holds a value opbuild cannot use.

    Attributes: ``variable`` (its name), ``value`` (the raw text found) and ``expected`` (the accepted form,
    as the message states it), so a launcher can report or fix the setting without parsing the message.
    """

    def __init__(self, variable: str, value: str, problem: str, expected: str, default: str = ""):
        self.variable = variable
        self.value = value
        self.expected = expected
        unset = f"; unset it for the default ({default})" if default else ""
        super().__init__(f"{variable}={value!r} {problem}: expected {expected}{unset}")


@dataclass(frozen=True)
class OnnxDefect:
    """One reason an ONNX model is invalid: what is wrong and, where it applies, the node (name and op_type)
    and the tensor involved."""

    reason: str
    node: str = ""
    op_type: str = ""
    tensor: str = ""

    def __str__(self) -> str:
        where = f"node {self.node!r} ({self.op_type}): " if self.node or self.op_type else ""
        return where + self.reason


class OnnxModelError(OpbuildError, ValueError):
    """An ONNX model that is not a valid model (empty or undecodable file, a cycle, an undefined tensor, a
    tensor written twice, an unknown opset, anything ``onnx.checker`` rejects). Raised when it is loaded,
    before anything is built. ``source`` names the file (or the ModelProto's graph); ``defects`` lists every
    problem found, each naming its node and tensor where it has them.
    """

    def __init__(self, source: str, defects: Sequence[OnnxDefect]):
        self.source = source
        self.defects = list(defects)
        shown = self.defects[:10]
        more = len(self.defects) - len(shown)
        lines = [f"invalid ONNX model {source}: " + (str(shown[0]) if len(shown) == 1 else
                                                      f"{len(self.defects)} problems")]
        if len(shown) > 1:
            lines += [f"  - {d}" for d in shown] + ([f"  ... and {more} more"] if more else [])
        super().__init__("\n".join(lines))
