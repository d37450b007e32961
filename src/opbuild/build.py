"""The build driver: kernel specs in, loaded kernels and a build report out.

Tiers, in order: this process's memory -> the local kernel_meta store -> compile. Misses are compiled in
parallel (threads: the compiler runs as a subprocess, so the GIL is not held while it works). A per-kernel
file lock makes builds single-flight across processes; correctness rests on atomic publication alone, so a
lock that cannot be had in time is skipped rather than waited on forever.

The cache never degrades a run: when the kernel_meta directory cannot be created, is read-only or fills up,
kernels are built into a private temporary directory instead and one warning says why.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import filelock

from . import __version__, config
from .cache import key as cache_key
from .cache.local import KernelStore, Lookup
from .codegen import c as c_codegen
from .compilers import Compiler, find_compiler
from .errors import CompileError
from .ops.registry import KernelSpec
from .ops.registry import get as get_op
from .report import BuildReport, KernelRecord
from .runtime.loader import LoadedKernel, load_kernel

log = logging.getLogger("opbuild")
PRIVATE_PREFIX = "opbuild-private-"


@dataclass
class _Request:
    spec: KernelSpec
    name: str
    info: bytes
    symbol: str
    needs_blas: bool


def _sweep_private_dirs() -> None:
    """Remove private build directories of processes that died without cleaning up (SIGKILL)."""
    tmp = Path(tempfile.gettempdir())
    for d in tmp.glob(PRIVATE_PREFIX + "*"):
        try:
            pid = int(d.name[len(PRIVATE_PREFIX):].split("-", 1)[0])
        except ValueError:
            continue
        from .cache.fsio import pid_alive

        if pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(d, ignore_errors=True)


class Builder:
    """Builds and loads kernels for one process. Holds the process's memory tier and toolchain identity."""

    def __init__(self) -> None:
        self._compiler: Compiler | None = None
        self._compiler_env: tuple[str, str] | None = None
        self._target: dict | None = None
        self._memory: dict[tuple[str, str], LoadedKernel] = {}
        self._stores: dict[Path, KernelStore] = {}
        self._readonly: set[Path] = set()
        self._private: KernelStore | None = None
        self._workdir: Path | None = None
        self._warned: set[str] = set()
        self._lock = threading.Lock()

    # ---- toolchain ------------------------------------------------------------------------------
    def compiler(self) -> Compiler:
        """The compiler for the current CC / OPBUILD_CFLAGS (re-resolved if they changed)."""
        env = (config.compiler_env(), os.environ.get("OPBUILD_CFLAGS", ""))
        if self._compiler is None or env != self._compiler_env:
            self._compiler = find_compiler()
            self._compiler.identity()  # fail early (CompilerNotFoundError) and memoise
            self._compiler_env = env
        return self._compiler

    def target(self) -> dict:
        if self._target is None:
            self._target = cache_key.target_identity()
        return self._target

    def request(self, spec: KernelSpec) -> _Request:
        """The cache identity of one kernel: canonical descriptor bytes and the derived name."""
        opdef = get_op(spec.op)
        desc = cache_key.descriptor(
            spec.op, spec.attrs, spec.inputs, spec.outputs, codegen_hash=opdef.codegen_hash(),
            abi=c_codegen.ABI_VERSION, compiler=self.compiler().identity(), target=self.target(),
            version=__version__)
        info = cache_key.canonical_bytes(desc)
        name = cache_key.kernel_name(spec.op, info)
        return _Request(spec, name, info, "ob_" + name.rsplit("_", 1)[1], opdef.needs_blas)

    # ---- stores ---------------------------------------------------------------------------------
    def _warn_once(self, key: str, message: str) -> None:
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        log.warning(message)

    def workdir(self) -> Path:
        """This process's private scratch directory (removed at exit; swept if the process is killed)."""
        if self._workdir is None:
            _sweep_private_dirs()
            self._workdir = Path(tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{os.getpid()}-"))
            atexit.register(shutil.rmtree, self._workdir, True)
        return self._workdir

    def private_store(self) -> KernelStore:
        if self._private is None:
            self._private = KernelStore(self.workdir() / "kernel_meta")
        return self._private

    def stores(self) -> tuple[KernelStore | None, KernelStore]:
        """(store to read from, store to write to). The read store is None when the cache is off."""
        if not config.cache_enabled():
            return None, self.private_store()
        path = config.cache_dir()
        store = self._stores.get(path)
        if store is None:
            try:
                store = KernelStore(path)
            except OSError as e:
                if path.is_dir():
                    store = KernelStore(path, create=False)
                else:
                    self._warn_once(f"create:{path}", (
                        f"opbuild: kernel cache is off: cannot create {path} ({e.strerror or e}). Kernels are built "
                        f"in a private temporary directory and rebuilt next run; set OPBUILD_CACHE_PATH to a "
                        f"writable directory to cache them."))
                    return None, self.private_store()
            self._stores[path] = store
        if path in self._readonly or not store.writable():
            self._readonly.add(path)
            self._warn_once(f"ro:{path}", (
                f"opbuild: kernel cache {path} is read-only: cached kernels are still used, new kernels are built "
                f"in a private temporary directory and not cached. Make it writable or set OPBUILD_CACHE_PATH."))
            return store, self.private_store()
        return store, store

    # ---- build ----------------------------------------------------------------------------------
    def build(self, specs: Sequence[KernelSpec]) -> tuple[list[LoadedKernel], BuildReport]:
        """Return one loaded kernel per spec (same order) and the report of the distinct kernels."""
        t0 = time.perf_counter()
        report = BuildReport()
        read_store, write_store = self.stores()
        scope = str(read_store.path if read_store else write_store.path)
        by_memo: dict[str, LoadedKernel] = {}
        pending: dict[str, _Request] = {}
        for spec in specs:
            mk = spec.memo_key()
            if mk in by_memo or mk in pending:
                continue
            hit = self._memory.get((scope, mk))
            if hit is not None:
                by_memo[mk] = hit
                report.kernels.append(KernelRecord(hit.name, spec.op, "reused", 0.0))
            else:
                pending[mk] = self.request(spec)

        swept = set(read_store.sweep_temporaries()) if read_store is not None and read_store is write_store else set()
        if swept:
            self._warn_once(f"swept:{read_store.path}", (
                f"opbuild: moved {len(swept)} stray temporary file(s) of interrupted builds in {read_store.path} "
                f"to its quarantine folder"))

        misses: list[tuple[str, _Request, Lookup]] = []
        for mk, req in pending.items():
            t1 = time.perf_counter()
            found = read_store.lookup(req.name, req.info) if read_store is not None else Lookup("absent")
            if found.status == "hit":
                kernel = load_kernel(found.binary, req.name, req.symbol)
                status = "repaired" if req.name in swept else "reused"
                self._finish(scope, mk, kernel, by_memo)
                report.kernels.append(KernelRecord(req.name, req.spec.op, status, time.perf_counter() - t1))
            else:
                misses.append((mk, req, found))

        if misses:
            errors: list[CompileError] = []
            jobs = min(config.build_jobs(), len(misses))

            def work(item: tuple[str, _Request, Lookup]) -> None:
                mk, req, found = item
                t1 = time.perf_counter()
                try:
                    kernel, status = self._build_missing(read_store, write_store, req, found, swept)
                except CompileError as e:
                    errors.append(e)
                    return
                with self._lock:
                    self._finish(scope, mk, kernel, by_memo)
                    report.kernels.append(KernelRecord(req.name, req.spec.op, status, time.perf_counter() - t1))

            if jobs == 1:
                for item in misses:
                    work(item)
            else:
                with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="opbuild-build") as pool:
                    list(pool.map(work, misses))
            if errors:
                raise errors[0]

        report.seconds = time.perf_counter() - t0
        log.info("opbuild: %s", report.summary())
        return [by_memo[s.memo_key()] for s in specs], report

    def _finish(self, scope: str, mk: str, kernel: LoadedKernel, by_memo: dict) -> None:
        self._memory[(scope, mk)] = kernel
        by_memo[mk] = kernel

    def _build_missing(self, read_store: KernelStore | None, write_store: KernelStore, req: _Request,
                       found: Lookup, swept: set[str]) -> tuple[LoadedKernel, str]:
        """Single-flight build of one missing kernel: lock, re-check, repair if broken, compile, publish."""
        repaired = req.name in swept
        lock = None
        if read_store is not None and read_store is write_store:
            lock = filelock.FileLock(str(write_store.lock_path(req.name)))
            try:
                write_store.lock_path(req.name).parent.mkdir(exist_ok=True)
                lock.acquire(timeout=config.lock_timeout())
            except (filelock.Timeout, OSError) as e:
                self._warn_once(f"lock:{req.name}", f"opbuild: building {req.name} without its lock ({e})")
                lock = None
        try:
            if read_store is not None:
                if lock is not None:  # someone may have built or broken it while we waited
                    found = read_store.lookup(req.name, req.info)
                if found.status == "hit":
                    return load_kernel(found.binary, req.name, req.symbol), ("repaired" if repaired else "reused")
                if found.status == "corrupt" and lock is not None:
                    read_store.quarantine(req.name, found.reason)
                    self._warn_once(f"corrupt:{req.name}", (
                        f"opbuild: cache entry {req.name} in {read_store.path} was broken ({found.reason}); "
                        f"moved it to quarantine and rebuilt it"))
                    repaired = True
            kernel = self._compile_and_publish(write_store, req)
            return kernel, ("repaired" if repaired else "built")
        finally:
            if lock is not None:
                lock.release()

    def _compile_and_publish(self, store: KernelStore, req: _Request) -> LoadedKernel:
        opdef = get_op(req.spec.op)
        body = opdef.emit(req.spec)
        source = c_codegen.translation_unit(
            [c_codegen.kernel_function(req.symbol, req.spec.inputs, req.spec.outputs, body)], req.needs_blas)
        build_dir = Path(tempfile.mkdtemp(prefix=req.name + ".", dir=self.workdir()))
        try:
            result = self.compiler().compile(source, build_dir / (req.name + ".so"), build_dir, req.needs_blas,
                                             label=req.name)
        except CompileError as e:
            # Keep the generated source where the user can read it after this process is gone.
            kept = Path(tempfile.gettempdir()) / "opbuild-failed"
            kept.mkdir(exist_ok=True)
            dest = kept / Path(e.source_path).name
            shutil.copyfile(e.source_path, dest)
            shutil.rmtree(build_dir, ignore_errors=True)
            raise CompileError(e.cmd, e.stderr, str(dest), req.name) from None
        binary = result.binary.read_bytes()
        meta = {"kernel": req.name, "op": req.spec.op, "symbol": req.symbol, "build_seconds": round(result.seconds, 6),
                "compile_command": result.cmd, "opbuild_version": __version__, "built_at": time.time()}
        try:
            path = store.publish(req.name, req.info, binary, meta)
        except OSError as e:
            if store is self._private:
                raise
            self._readonly.add(store.path)
            self._warn_once(f"full:{store.path}", (
                f"opbuild: cannot write to kernel cache {store.path} ({e.strerror or e}); caching is off for the "
                f"rest of this run and new kernels are built in a private temporary directory"))
            path = self.private_store().publish(req.name, req.info, binary, meta)
        shutil.rmtree(build_dir, ignore_errors=True)
        return load_kernel(path, req.name, req.symbol)
