"""GCC-compatible compilers (gcc, clang, cc): one driver call compiles and links a shared object."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

from .. import config
from ..errors import CompileError, CompilerNotFoundError
from .base import CompileResult, Compiler

# -fno-math-errno and -fno-trapping-math are the two parts of -ffast-math that change no value: kernels never
# read errno or the floating-point exception flags. They let gcc vectorise loops that call math functions
# (with codegen/c.py's libmvec declarations) and if-convert conditional expressions (Softplus, floor, ...).
# The value-changing parts (-ffinite-math-only, -fassociative-math, ...) stay off: NaN and inf semantics
# (IsNan, NaN-propagating Maximum) and reproducible sums depend on it.
BASE_FLAGS = ["-O3", "-march=native", "-fPIC", "-shared", "-std=gnu11", "-fno-math-errno",
              "-fno-trapping-math", "-fvisibility=hidden", "-pipe"]
if platform.machine().lower() in ("x86_64", "amd64"):
    # gcc defaults to 256-bit vectors even where -march=native enables AVX-512; 512-bit halves the calls into
    # libmvec (e.g. tanh: 1.65 -> 0.85 ms per 1M float32). A no-op on CPUs without AVX-512.
    BASE_FLAGS.append("-mprefer-vector-width=512")


def _blas() -> dict:
    """Where the OpenBLAS that MatMul/Conv kernels link lives, and its version (part of the key)."""
    import scipy_openblas32 as sob

    return {"lib_dir": sob.get_lib_dir(), "lib": sob.get_library(), "version": sob.__version__}


class GccLike(Compiler):
    """gcc/clang/cc driver. ``exe`` is resolved to an absolute real path so the key names the real tool."""

    def __init__(self, exe: str, cflags: list[str] | None = None):
        self.exe = os.path.realpath(exe)
        self.cflags = list(cflags or [])
        self._identity: dict | None = None

    def identity(self) -> dict:
        if self._identity is None:
            try:
                out = subprocess.run([self.exe, "--version"], capture_output=True, text=True, timeout=60)
                version = out.stdout.splitlines()[0].strip() if out.stdout else out.stderr.strip()
            except (OSError, subprocess.SubprocessError) as e:
                raise CompilerNotFoundError([f"{self.exe} ({e})"]) from e
            self._identity = {
                "path": self.exe,
                "version": version,
                "flags": BASE_FLAGS,
                "cflags": self.cflags,
                "blas": _blas(),
            }
        return self._identity

    def command(self, src: Path, out: Path, needs_blas: bool) -> list[str]:
        cmd = [self.exe, *BASE_FLAGS, *self.cflags, "-o", str(out), str(src)]
        if needs_blas:
            b = _blas()
            cmd += [f"-L{b['lib_dir']}", f"-Wl,-rpath,{b['lib_dir']}", f"-l{b['lib']}"]
        return cmd + ["-lm"]

    def compile(self, source: str, out_path: Path, workdir: Path, needs_blas: bool, label: str = "") -> CompileResult:
        src = workdir / (out_path.stem + ".c")
        src.write_text(source)
        cmd = self.command(src, out_path, needs_blas)
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as e:
            raise CompileError(cmd, str(e), str(src), label) from e
        if proc.returncode != 0:
            out_path.unlink(missing_ok=True)
            # Keep the source next to the build for the user to inspect; the caller decides where.
            raise CompileError(cmd, proc.stderr + proc.stdout, str(src), label)
        return CompileResult(out_path, cmd, time.perf_counter() - t0)


def find_compiler() -> GccLike:
    """The compiler named by CC, else the first of cc, gcc, clang on PATH; CompilerNotFoundError if none."""
    cflags = config.extra_cflags()
    cc = config.compiler_env()
    if cc:
        import shlex

        parts = shlex.split(cc)
        exe = shutil.which(parts[0])
        if exe is None:
            raise CompilerNotFoundError([f"CC={cc!r} (not found or not executable)"])
        return GccLike(exe, parts[1:] + cflags)
    for name in ("cc", "gcc", "clang"):
        exe = shutil.which(name)
        if exe:
            return GccLike(exe, cflags)
    raise CompilerNotFoundError(["cc", "gcc", "clang"])
