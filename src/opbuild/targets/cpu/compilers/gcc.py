"""GCC-compatible compilers (gcc, clang, cc): one driver call compiles and links a shared object."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from ....cache.statmemo import StatMemo
from ....core import config
from ....core.errors import CompileError, CompilerHangError, CompilerNotFoundError, CompileTimeoutError
from ..abi import CLASS_OPT
from . import blas as blas_provider
from .base import Compiler, CompileResult
from .process import Finished, ProcessTimeout, Stream, run_capped

# The most of a ``--version`` line kept in the identity (hence in every ``.info``): a longer one (a wrapper
# printing megabytes) is kept as its start and the sha256 of the whole output, which still tells any two
# versions apart while every ``.info`` stays far below the reader's bound.
VERSION_LINE_MAX = 512
_PROBE_KEEP = 64 << 10  # of a probe's output, enough for any real compiler's version text
# A probe (``--version``, ``-print-file-name``) answers in well under a second; bounding it by the compile
# timeout alone (600 s by default) made a warm start with a hanging compiler wait ten minutes before serving the
# cache with its recorded identity.
PROBE_TIMEOUT = 30.0

# -fno-math-errno and -fno-trapping-math are the two parts of -ffast-math that change no value: kernels never
# read errno or the floating-point exception flags. They let gcc vectorise loops that call math functions
# (with targets/cpu/codegen.py's libmvec declarations) and if-convert conditional expressions (Softplus, floor, ...).
# The value-changing parts (-ffinite-math-only, -fassociative-math, ...) stay off: NaN and inf semantics
# (IsNan, NaN-propagating Maximum) and reproducible sums depend on it.
# -Werror=implicit-function-declaration: a translation unit includes only the prelude sections its kernels
# use (codegen.prelude_for); a function it then fails to declare must stop the build, not become a call
# returning int.
# -fwrapv: signed integer overflow wraps (as NumPy's int arithmetic does) instead of being undefined.
BASE_FLAGS = ["-O3", "-march=native", "-fPIC", "-shared", "-std=gnu11", "-fno-math-errno",
              "-fno-trapping-math", "-fwrapv", "-fvisibility=hidden", "-pipe",
              "-Werror=implicit-function-declaration"]
if os.uname().machine.lower() in ("x86_64", "amd64"):
    # gcc defaults to 256-bit vectors even where -march=native enables AVX-512; 512-bit halves the calls into
    # libmvec (docs/benchmarks.md has the tanh figures). A no-op on CPUs without AVX-512.
    BASE_FLAGS.append("-mprefer-vector-width=512")


# Large elementwise loops run on several threads (targets/cpu/codegen.py: parallel_for). --as-needed links libgomp only
# into shared objects that have such a loop: the others (every kernel of a small network) load no OpenMP
# runtime, whose dlopen is a visible part of a warm start.
OPENMP_FLAGS = ["-fopenmp", "-Wl,--as-needed"]


class GccLike(Compiler):
    """gcc/clang/cc driver. ``exe`` is resolved to an absolute real path so the key names the real tool."""

    def __init__(self, exe: str, cflags: list[str] | None = None):
        self.found_as = exe  # as found on PATH (may be a symlink, e.g. /usr/bin/cc -> alternatives)
        self.exe = os.path.realpath(exe)
        self.cflags = list(cflags or [])
        self._identity: dict | None = None

    def identity(self, memo: StatMemo | None = None) -> dict:
        """Resolved path, ``--version`` output, flags and linked BLAS of this compiler.

        Running ``cc --version`` costs milliseconds, too much for a warm start, so its output is memoised in
        ``memo`` (kernel_meta/.memo.json) keyed by the executable's path, size and mtime (ccache's default
        compiler check): a reinstalled or upgraded compiler changes the key and is probed again.
        """
        if self._identity is None:
            memo = memo or StatMemo(None)
            version = self._version(memo)
            openmp = config.openmp_enabled() and self._openmp(memo, version)
            self._identity = {
                "path": self.exe,
                "version": version,
                "flags": BASE_FLAGS + (OPENMP_FLAGS if openmp else []),
                "class_opt": dict(CLASS_OPT),
                "cflags": self.cflags,
                "blas": blas_provider.find_blas(),
                "openmp": openmp,
                # OPBUILD_BLAS_THREADS=openmp compiles the BLAS thread bridge in (targets/cpu/blas_threads.py)
                "blas_threads": config.blas_threads() if openmp else "openblas",
            }
            if self._identity["blas_threads"] == "openmp":
                # A bridged object hands OpenBLAS a callback into its own code, which any later BLAS call
                # (another kernel's) may run: it is never unloaded, though the loader closes unused kernels.
                self._identity["bridge_link"] = ["-Wl,-z,nodelete"]
        return self._identity

    def _openmp(self, memo: StatMemo, version: str) -> bool:
        """Whether ``-fopenmp`` links here: the compiler finds its OpenMP runtime's link library (gcc ships
        libgomp; clang needs libomp, which may be missing). Asking the driver (``-print-file-name``) costs a
        fraction of a probe compile; memoised like the version. (Kernels include no OpenMP
        header: their loops use the pragma alone.)"""
        runtime = "libomp.so" if "clang" in version.lower() else "libgomp.so"

        def probe() -> str:
            try:
                done = self._probe([self.exe, f"-print-file-name={runtime}"])
            except OSError:
                return "0"
            out = done.stdout.head.decode("utf-8", errors="replace").strip()
            return "1" if os.path.isabs(out) and os.path.exists(out) else "0"

        return self._memoised(memo, "openmp", probe) == "1"

    def _memoised(self, memo: StatMemo, kind: str, probe) -> str:
        """``probe()``'s answer about this executable, memoised by its path, size and mtime."""
        try:
            return memo.get(kind, self.exe, probe)
        except OSError as e:  # the executable vanished since it was found
            raise CompilerNotFoundError([f"{self.exe} ({e})"]) from e

    def _version(self, memo: StatMemo) -> str:
        def probe() -> str:
            try:
                done = self._probe([self.exe, "--version"])
            except OSError as e:
                raise CompilerNotFoundError([f"{self.exe} ({e})"]) from e
            return version_line(done.stdout if done.stdout.size else done.stderr, first_line=bool(done.stdout.size))

        return self._memoised(memo, "version", probe)

    def _probe(self, argv: list[str]) -> Finished:
        """Run a probe of the compiler, bounded by OPBUILD_COMPILE_TIMEOUT and at most PROBE_TIMEOUT seconds:
        CompilerHangError past it (the compiler is there but unusable: not "no compiler found"), OSError if it
        cannot be started."""
        setting = config.compile_timeout()
        timeout = min(setting, PROBE_TIMEOUT)
        try:
            return run_capped(argv, timeout, keep=_PROBE_KEEP)
        except ProcessTimeout:
            raise CompilerHangError(self.exe, argv, timeout, capped=timeout < setting) from None

    def toolchain_files(self) -> list[str]:
        """The files whose replacement changes this toolchain: the compiler as found on PATH (stat follows its
        symlinks to the real executable) and the BLAS library."""
        return [self.found_as, blas_provider.library_path(self.identity()["blas"])]

    def blas_library(self) -> str | None:
        """The OpenBLAS shared object that GEMM and conv kernels link, when a build must load it ahead of
        them; None for NumPy's, which NumPy has loaded already (targets/cpu/compilers/blas.py)."""
        blas = self.identity()["blas"]
        return None if blas_provider.loaded_by_numpy(blas) else blas_provider.library_path(blas)

    def command(self, src: Path, out: Path, needs_blas: bool) -> list[str]:
        ident = self.identity()
        blas = ident["blas"] if needs_blas else None
        bridge = (["-DOB_BLAS_THREADS_BRIDGE", *ident.get("bridge_link", [])]
                  if blas and ident.get("blas_threads") == "openmp" else [])
        cmd = [self.exe, *ident["flags"], *self.cflags, *(blas_provider.defines(blas) if blas else []), *bridge,
               "-o", str(out), str(src)]
        return cmd + (blas_provider.link_flags(blas) if blas else []) + ["-lm"]

    def compile(self, source: str, out_path: Path, workdir: Path, needs_blas: bool, label: str = "") -> CompileResult:
        src = workdir / (out_path.stem + ".c")
        src.write_text(source)
        cmd = self.command(src, out_path, needs_blas)
        t0 = time.perf_counter()
        returncode, output = run_bounded(cmd, config.compile_timeout(), src, label)
        if returncode != 0:
            out_path.unlink(missing_ok=True)
            # Keep the source next to the build for the user to inspect; the caller decides where.
            raise CompileError(cmd, output, str(src), label)
        if not out_path.is_file():  # CC=true: exit 0 and nothing written
            why = (f"the compiler exited 0 but wrote no {out_path.name}: {self.found_as} is not a C compiler "
                   "opbuild can use (set CC to gcc or clang)")
            raise CompileError(cmd, why + (f"\n{output}" if output else ""), str(src), label)
        return CompileResult(out_path, cmd, time.perf_counter() - t0)


def run_bounded(cmd: list[str], timeout: float, src: Path, label: str) -> tuple[int, str]:
    """Run a compiler command; (exit status, stderr + stdout, bounded: process.KEEP_BYTES of each). Past
    ``timeout`` seconds the compiler's whole process group is killed and CompileTimeoutError raised (the
    caller names the kernels); CompileError if it cannot be started."""
    try:
        done = run_capped(cmd, timeout)
    except ProcessTimeout:
        raise CompileTimeoutError(cmd, str(src), [label], timeout) from None
    except OSError as e:
        raise CompileError(cmd, str(e), str(src), label) from e
    return done.returncode, done.stderr.text() + done.stdout.text()


def version_line(stream: Stream, first_line: bool = True) -> str:
    """What the identity keeps of a ``--version`` output: its first line (``first_line``; else the whole text,
    stripped) when it is at most VERSION_LINE_MAX characters, else its start and the sha256 and size of all of
    it (so a 27 MB version text still gives a distinct, small identity)."""
    text = stream.head.decode("utf-8", errors="replace")
    line = (text.splitlines() or [""])[0].strip() if first_line else text.strip()
    if len(line) <= VERSION_LINE_MAX and (first_line or not stream.truncated):
        return line
    return f"{line[:VERSION_LINE_MAX // 2]} [... {stream.size} bytes, sha256 {stream.sha256}]"


def find_compiler() -> GccLike:
    """The compiler named by CC, else the first of cc, gcc, clang on PATH; CompilerNotFoundError if none."""
    cflags = config.extra_cflags()
    cc = config.compiler_env()
    if cc:
        parts = config.compiler_argv()
        exe = shutil.which(parts[0])
        if exe is None:
            raise CompilerNotFoundError([f"CC={cc!r} (not found or not executable)"])
        return GccLike(exe, parts[1:] + cflags)
    for name in ("cc", "gcc", "clang"):
        exe = shutil.which(name)
        if exe:
            return GccLike(exe, cflags)
    raise CompilerNotFoundError(["cc", "gcc", "clang"])
