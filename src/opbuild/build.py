"""The build driver: kernel specs in, loaded kernels and a build report out.

Tiers, in order: this process's memory -> the local kernel_meta store -> the shared tier named by
OPBUILD_REMOTE_CACHE (cache/shared.py; a hit is verified and copied into the local store) -> compile. Misses
are compiled in parallel (threads: the compiler runs as a subprocess, so the GIL is not held while it works)
and published to both stores. A per-kernel file lock, and with a shared tier a build lease there, make builds
single-flight across processes and machines; correctness rests on atomic publication alone, so a lock that
cannot be had in time is skipped rather than waited on forever.

The cache never degrades a run: when the kernel_meta directory cannot be created, is read-only or fills up,
kernels are built into a private temporary directory instead and one warning says why.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import filelock

from . import __version__, config
from .cache import elf, fsio, manifest, pin
from .cache import key as cache_key
from .cache.layout import CPU_BINARY_SUFFIX as BINARY_SUFFIX
from .cache.local import KernelStore, Lookup
from .cache.observe import Observer
from .cache.shared.tier import SharedTier
from .cache.statmemo import StatMemo
from .codegen import c as c_codegen
from .compilers import Compiler, find_compiler
from .compilers import blas as blas_provider
from .errors import CompileError, CompilerNotFoundError, CompileTimeoutError
from .ops.registry import KernelSpec
from .ops.registry import get as get_op
from .report import BuildReport, KernelRecord
from .runtime.loader import LoadedKernel, load_kernel, preload

log = logging.getLogger("opbuild")
PRIVATE_PREFIX = "opbuild-private-"


MANIFEST_MIN_KERNELS = 4  # smaller builds (PyNative ops one by one) gain nothing from a graph manifest


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
        self._compiler_env: tuple[str, ...] | None = None
        self._target: dict | None = None
        self._memory: dict[tuple[str, bytes], LoadedKernel] = {}
        self._stores: dict[Path, KernelStore] = {}
        self._readonly: set[Path] = set()
        self._private: KernelStore | None = None
        self._workdir: Path | None = None
        self._warned: set[str] = set()
        self._lock = threading.Lock()
        self._libs: dict[tuple, object] = {}
        self._encoder: cache_key.InfoEncoder | None = None
        self.observer = Observer()  # statistics, miss explanations, size bound (cache/observe.py)
        self._shared: dict[str, SharedTier] = {}
        self._memos: dict[Path | None, StatMemo] = {}
        self._digest = StatMemo(None).file_digest  # source digests: the store's memo once a build names it

    # ---- toolchain ------------------------------------------------------------------------------
    def compiler(self, memo_dir: Path | None = None) -> Compiler:
        """The compiler for the current toolchain settings (config.toolchain_env: CC, OPBUILD_CFLAGS, ...;
        re-resolved if they changed). Its identity is computed here, so a missing compiler fails early with
        CompilerNotFoundError."""
        env = config.toolchain_env()
        if self._compiler is None or env != self._compiler_env:
            compiler = find_compiler()
            compiler.identity(self.memo(memo_dir))
            self._compiler, self._compiler_env = compiler, env
        return self._compiler

    def memo(self, directory: Path | None) -> StatMemo:
        """The file-derived values memoised in ``directory`` (compiler version, generator source digests)."""
        with self._lock:
            memo = self._memos.get(directory)
            if memo is None:
                memo = self._memos[directory] = StatMemo(directory)
            return memo

    def target(self) -> dict:
        if self._target is None:
            self._target = cache_key.target_identity()
        return self._target

    def request(self, spec: KernelSpec, compiler: dict | None = None) -> _Request:
        """The cache identity of one kernel: canonical descriptor bytes and the derived name. ``compiler`` is
        the toolchain identity when the caller has resolved it already (once per build, not per kernel)."""
        opdef = get_op(spec.op)
        if compiler is None:
            compiler = self.compiler().identity()
        if self._encoder is None or self._encoder.compiler is not compiler:
            self._encoder = cache_key.InfoEncoder(abi=c_codegen.ABI_VERSION, compiler=compiler,
                                                  target=self.target(), version=__version__)
        info = self._encoder.encode(spec.op, spec.attrs, spec.inputs, spec.outputs,
                                    opdef.codegen_hash(self._digest))
        name = cache_key.kernel_name(spec.op, info)
        return _Request(spec, name, info, cache_key.kernel_symbol(name), opdef.needs_blas)

    def load(self, path: Path | str, req: _Request, ident: tuple | None = None) -> LoadedKernel:
        """dlopen a verified binary (one handle per binary inode, shared by the entries of a batch)."""
        if ident is None:
            st = os.stat(path)
            ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        return load_kernel(path, req.name, req.symbol, self._libs, ident)

    def load_found(self, found: Lookup, req: _Request) -> tuple[LoadedKernel | None, Lookup]:
        """Load the binary of a verified hit: (kernel, the hit), or (None, a corrupt Lookup) when it cannot be
        loaded after all (dlopen's OSError, an undefined symbol): one more kind of damage, quarantined and
        rebuilt by the caller like any other."""
        try:
            return self.load(found.binary, req, found.ident), found
        except OSError as e:
            return None, Lookup("corrupt", f"binary cannot be loaded ({e})")

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
            # Same key as the disk-full warning: a store marked read-only after a failed write was already
            # explained to the user, and one warning per cache directory is the contract.
            self._warn_once(f"nocache:{path}", (
                f"opbuild: kernel cache {path} is read-only: cached kernels are still used, new kernels are built "
                f"in a private temporary directory and not cached. Make it writable or set OPBUILD_CACHE_PATH."))
            return store, self.private_store()
        return store, store

    def shared(self) -> SharedTier | None:
        """The shared tier named by OPBUILD_REMOTE_CACHE (opened at first use), or None (unset, or the cache
        is off). A tier that failed stays in the table, turned off, so the run warns once and goes local-only."""
        url = config.remote_cache_url()
        if not url or not config.cache_enabled():
            return None
        with self._lock:
            if url not in self._shared:
                self._shared[url] = SharedTier.open(url)
            return self._shared[url]

    # ---- build ----------------------------------------------------------------------------------
    def build(self, specs: Sequence[KernelSpec]) -> tuple[list[LoadedKernel], BuildReport]:
        """Return one loaded kernel per spec (same order) and the report of the distinct kernels.

        Raises :class:`~opbuild.errors.ConfigError` for any invalid OPBUILD_* variable before anything else,
        whether or not this build would have read it."""
        t0 = time.perf_counter()
        config.validate_environment()
        report = BuildReport()
        config.remote_cache_url()  # a bad OPBUILD_REMOTE_CACHE fails every build, warm ones too (memoised check)
        read_store, write_store = self.stores()
        # The memory tier is keyed by the store and the toolchain settings as well as the kernel: a process
        # that changes its flags (or BLAS, OpenMP) between builds must not be served kernels built otherwise.
        env = config.toolchain_env()
        scope = f"{read_store.path if read_store else write_store.path}|{env}"
        by_memo: dict[bytes, LoadedKernel] = {}
        todo: dict[bytes, KernelSpec] = {}  # distinct kernels not in memory, in the order of their first node
        memory = self._memory
        keys = [spec.memo_key() for spec in specs]
        for spec, mk in zip(specs, keys):
            if mk in by_memo or mk in todo:
                continue
            hit = memory.get((scope, mk)) if memory else None
            if hit is not None:
                by_memo[mk] = hit
                report.kernels.append(KernelRecord(hit.name, spec.op, "reused", 0.0, "memory"))
            else:
                todo[mk] = spec

        shared = read_store is not None and read_store is write_store
        swept = set(read_store.sweep_temporaries()) if shared else set()
        graph = None
        if todo and shared and len(todo) >= MANIFEST_MIN_KERNELS:
            graph = manifest.graph_key(manifest.fingerprint(__version__, c_codegen.ABI_VERSION,
                                                             {s.op for s in todo.values()}), list(todo))
            if self._from_manifest(read_store, graph, todo, scope, by_memo, swept, report):
                if swept:
                    _warn_repairs(read_store, swept, [])
                return self._done(t0, report, read_store, write_store,
                                  [k.name for k in report.kernels if k.source == "local"], [], keys, by_memo)

        identity = self.compiler(write_store.path).identity()
        self._digest = self.memo(write_store.path).file_digest
        pending: dict[bytes, _Request] = {}
        needs_blas = False
        for mk, spec in todo.items():
            req = pending[mk] = self.request(spec, identity)
            needs_blas = needs_blas or req.needs_blas
        if needs_blas:  # lazily bound before any kernel pulls it in with immediate binding (loader.preload)
            blas = self.compiler().blas_library()
            if blas:
                preload(blas)
        repairs: list[tuple[str, str]] = []  # (kernel, reason) of entries quarantined by this build

        misses: list[tuple[str, _Request, Lookup]] = []
        if pending and read_store is not None:
            with pin.loading(read_store):  # eviction deletes no entry while this build verifies and loads it
                for mk, req in pending.items():
                    t1 = time.perf_counter()
                    found = read_store.lookup(req.name, req.info)
                    if found.status == "hit":
                        kernel, found = self.load_found(found, req)
                    if found.status == "hit":
                        status = "repaired" if req.name in swept else "reused"
                        self._finish(scope, mk, kernel, by_memo)
                        report.kernels.append(
                            KernelRecord(req.name, req.spec.op, status, time.perf_counter() - t1, "local"))
                    else:
                        misses.append((mk, req, found))
        else:
            misses = [(mk, req, Lookup("absent")) for mk, req in pending.items()]
        for _, req, found in misses:
            self.observer.on_miss(read_store, req.name, req.info, found)

        try:
            if misses:
                done = _BatchBuild(self, read_store, write_store, swept, misses, repairs).run()
                for mk, req, kernel, status, seconds, source in done:
                    self._finish(scope, mk, kernel, by_memo)
                    report.kernels.append(KernelRecord(req.name, req.spec.op, status, seconds, source))
        finally:
            if swept or repairs:
                _warn_repairs(read_store, swept, repairs)
            if repairs:  # manifests of other graphs (or this one's under an older fingerprint) name the old entries
                manifest.drop_naming(read_store.path, {name for name, _ in repairs})
        if graph is not None:
            self._write_manifest(read_store, graph, list(pending.values()))
        return self._done(t0, report, read_store, write_store, [r.name for r in pending.values()],
                          [r.name for _, r, _ in misses], keys, by_memo)

    def _done(self, t0: float, report: BuildReport, read_store: KernelStore | None, write_store: KernelStore,
              looked_up: list[str], missed: list[str], keys: list[bytes],
              by_memo: dict) -> tuple[list[LoadedKernel], BuildReport]:
        """Finish a build: the kernel of every node, statistics; the report's time covers all of it."""
        kernels = [by_memo[mk] for mk in keys]
        self.observer.after_build(read_store, write_store, report, looked_up, missed)
        report.seconds = time.perf_counter() - t0
        self.observer.record(report)
        log.info("opbuild: %s", report.summary())
        return kernels, report

    # ---- graph manifests (cache/manifest.py) ------------------------------------------------------
    def _from_manifest(self, store: KernelStore, graph: str, todo: dict[bytes, KernelSpec], scope: str,
                       by_memo: dict, swept: set[str], report: BuildReport) -> bool:
        """Load every kernel of ``todo`` as the graph manifest ``graph`` lists them, verifying each entry
        against it; False (nothing loaded) when there is no valid manifest or any entry does not match."""
        found = manifest.read(store.path, graph)
        if found is None or len(found.items) != len(todo) or not manifest.toolchain_unchanged(found):
            return False
        if found.blas and any(get_op(spec.op).needs_blas for spec in todo.values()):
            # The manifest is hostile input: its ``blas`` is only compared with the BLAS the toolchain resolves
            # itself (what the compiler identity records), never loaded from the manifest's say-so.
            blas = _toolchain_blas()
            if blas != found.blas:
                log.debug("opbuild: graph manifest %s not used: its BLAS %r is not the toolchain's %r", graph,
                          found.blas, blas)
                return False
            preload(blas)
        check, hits = store.check, []
        with pin.loading(store):
            t1 = time.perf_counter()
            for item in found.items:
                hit = check(item.name, item.info_sha256, item.json_sha256, item.binary_sha256, item.size)
                if hit.status != "hit":
                    log.debug("opbuild: graph manifest %s not used: %s: %s", graph, item.name, hit.reason)
                    return False
                hits.append(hit)
            each = (time.perf_counter() - t1) / len(hits)
            libs, loaded, symbol = self._libs, [], cache_key.kernel_symbol
            for item, hit in zip(found.items, hits):
                try:
                    loaded.append(load_kernel(hit.binary, item.name, symbol(item.name), libs, hit.ident))
                except OSError as e:  # the ordinary path finds it again, quarantines and rebuilds it
                    log.debug("opbuild: graph manifest %s not used: %s cannot be loaded: %s", graph, item.name, e)
                    return False
        memory, records = self._memory, report.kernels
        for (mk, spec), kernel in zip(todo.items(), loaded):
            memory[(scope, mk)] = by_memo[mk] = kernel
            records.append(KernelRecord(kernel.name, spec.op, "repaired" if kernel.name in swept else "reused", each,
                                        "local"))
        return True

    def _write_manifest(self, store: KernelStore, graph: str, reqs: list[_Request]) -> None:
        """Record the graph's verified entries (after an ordinary build) for the next process's warm start."""
        items = []
        for req in reqs:
            base = os.path.join(str(store.path), req.name)
            try:
                raw = fsio.read_small(base + ".json")
                result = fsio.parse_json(raw, ".json")
                binary = base + BINARY_SUFFIX
                st = os.lstat(binary)
                digest = store.digest_of(binary, (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
            except (OSError, ValueError):
                return  # not all in this store (a private fallback, a concurrent eviction): no manifest
            if digest != result.get("sha256") or st.st_size != result.get("size"):
                return
            items.append(manifest.Item(req.name, hashlib.sha256(req.info).hexdigest(), hashlib.sha256(raw).hexdigest(),
                                       digest, st.st_size))
        compiler = self.compiler()
        manifest.write(store.path, graph, items, compiler.toolchain_files(), compiler.blas_library())

    def _finish(self, scope: str, mk: bytes, kernel: LoadedKernel, by_memo: dict) -> None:
        self._memory[(scope, mk)] = kernel
        by_memo[mk] = kernel

    def compile_batch(self, store: KernelStore, reqs: Sequence[_Request]) -> list[tuple[_Request, Path, float]]:
        """Compile several kernels in ONE compiler call and publish each as its own entry.

        The entries' binaries are hard links of one shared object (one copy on disk, one dlopen when warm),
        yet every kernel keeps its own .info/.json, so eviction, verification and incremental rebuilds stay
        per kernel. Returns (request, binary path, seconds attributed) per kernel.
        """
        functions = []
        for req in reqs:
            body = get_op(req.spec.op).emit(req.spec)
            functions.append(c_codegen.kernel_function(req.symbol, req.spec.inputs, req.spec.outputs, body))
        needs_blas = any(r.needs_blas for r in reqs)
        source = c_codegen.translation_unit(functions, needs_blas)
        label = reqs[0].name if len(reqs) == 1 else f"batch{len(reqs)}_{reqs[0].name}"
        build_dir = Path(tempfile.mkdtemp(prefix=label + ".", dir=self.workdir()))
        delay = config.testing_compile_delay()  # test hook (tests/remote): a build that can be killed mid-compile
        if delay:
            time.sleep(delay)
        try:
            result = self.compiler().compile(source, build_dir / (label + ".so"), build_dir, needs_blas, label=label)
            binary = result.binary.read_bytes()
            try:  # committed only once proven loadable: a compiler exiting 0 may still have written junk
                elf.check(binary, [req.symbol for req in reqs])
            except elf.ElfError as e:
                raise CompileError(result.cmd, f"the compiler exited 0, but its output {result.binary.name} is not "
                                   f"a loadable shared object: {e}", str(build_dir / (label + ".c")), label) from None
        except CompileTimeoutError as e:
            shutil.rmtree(build_dir, ignore_errors=True)  # a timeout is not the source's fault: nothing to keep
            raise CompileTimeoutError(e.cmd, e.source_path, [req.name for req in reqs], e.timeout) from None
        except CompileError as e:
            # Keep the generated source where the user can read it after this process is gone: a per-user
            # folder, a unique file per failure (concurrent failures never overwrite each other).
            kept = Path(tempfile.gettempdir()) / f"opbuild-failed-{os.getuid()}"
            kept.mkdir(mode=0o700, exist_ok=True)
            fd, dest_name = tempfile.mkstemp(prefix=Path(e.source_path).stem + ".", suffix=".c", dir=kept)
            os.close(fd)
            dest = Path(dest_name)
            shutil.copyfile(e.source_path, dest)
            shutil.rmtree(build_dir, ignore_errors=True)
            raise CompileError(e.cmd, e.stderr, str(dest), reqs[0].name if len(reqs) == 1 else label) from None
        shutil.rmtree(build_dir, ignore_errors=True)
        each = result.seconds / len(reqs)
        base = {"build_seconds": round(each, 6), "batch_seconds": round(result.seconds, 6), "batch_size": len(reqs),
                "compile_command": result.cmd, "opbuild_version": __version__, "built_at": time.time()}
        metas = [dict(base, kernel=req.name, op=req.spec.op, symbol=req.symbol) for req in reqs]
        paths = self.publish_entries(store, binary, list(zip(reqs, metas)), label)
        tier = self.shared()
        if tier is not None:
            tier.publish(binary, [(req.name, req.info, meta) for req, meta in zip(reqs, metas)])
        return [(req, path, each) for req, path in zip(reqs, paths)]

    def publish_entries(self, store: KernelStore, binary: bytes, items: Sequence[tuple[_Request, dict]],
                        label: str) -> list[Path]:
        """Publish one entry per ``(request, result meta)``, all holding ``binary``: hard links of one staged
        copy, so they share one inode on disk and one dlopen. Returns each entry's binary path."""
        try:
            staged = store.stage_binary(binary, label) if len(items) > 1 else None
        except OSError:
            staged = None
        try:
            return [self._publish(store, req, binary, meta, staged) for req, meta in items]
        finally:
            if staged is not None:
                staged.unlink(missing_ok=True)

    def _publish(self, store: KernelStore, req: _Request, binary: bytes, meta: dict, staged: Path | None) -> Path:
        try:
            return store.publish(req.name, req.info, binary, meta, link_from=staged)
        except OSError as e:
            if store is self._private:
                raise
            self._readonly.add(store.path)
            self._warn_once(f"nocache:{store.path}", (
                f"opbuild: cannot write to kernel cache {store.path} ({e.strerror or e}); caching is off for the "
                f"rest of this run and new kernels are built in a private temporary directory"))
            return self.private_store().publish(req.name, req.info, binary, meta)


def _toolchain_blas() -> str | None:
    """The BLAS library a build must preload, as the toolchain resolves it (``GccLike.blas_library`` without
    finding the compiler: the same :func:`~.compilers.blas.find_blas` its identity records); None when NumPy's
    (loaded already) or none is found."""
    try:
        found = blas_provider.find_blas()
    except (CompilerNotFoundError, OSError):
        return None
    return None if blas_provider.loaded_by_numpy(found) else blas_provider.library_path(found)


def _warn_repairs(store: KernelStore, swept: set[str], repairs: list[tuple[str, str]]) -> None:
    """ONE warning per build for everything it found broken and repaired, however many entries that was (a
    stray temporary and the incomplete entry of one interrupted build, or every entry sharing one damaged
    batch binary, are one incident for the user)."""
    parts = []
    if repairs:
        shown = "; ".join(f"{name} ({reason})" for name, reason in repairs[:5])
        more = f"; and {len(repairs) - 5} more" if len(repairs) > 5 else ""
        parts.append(f"{len(repairs)} broken entr{'y' if len(repairs) == 1 else 'ies'} moved to quarantine and "
                     f"rebuilt: {shown}{more}")
    if swept:
        shown = ", ".join(sorted(swept)[:5]) + (", ..." if len(swept) > 5 else "")
        parts.append(f"stray temporary files of interrupted builds ({shown}) moved to quarantine")
    log.warning("opbuild: repaired kernel cache %s: %s", store.path, "; ".join(parts))


class _BatchBuild:
    """One build's misses: claim them (per-kernel locks), fetch what the shared tier has, compile the rest in
    parallel batches (each batch first takes its kernels' shared build leases), then wait for the ones other
    processes or machines are building and reuse their results (single flight)."""


    def __init__(self, builder: Builder, read_store: KernelStore | None, write_store: KernelStore,
                 swept: set[str], misses: list[tuple[str, _Request, Lookup]], repairs: list[tuple[str, str]]):
        self.b = builder
        self.read = read_store
        self.write = write_store
        self.shared = read_store is not None and read_store is write_store
        self.swept = swept
        self.repairs = repairs  # appended under the entry's lock; reported by Builder.build in one warning
        self.misses = misses
        self.done: list[tuple[str, _Request, LoadedKernel, str, float, str]] = []  # ..., status, seconds, source
        self.errors: list[CompileError] = []
        self.progress = _Progress(len(misses))
        self.tier = builder.shared()
        self.deferred: list[tuple[str, _Request, bool, None]] = []  # leased by others in the shared tier

    def _lock(self, req: _Request) -> filelock.BaseFileLock | None:
        if not self.shared:
            return None
        path = pin.usable_lock_path(self.write, req.name)  # a directory or symlink planted there: quarantined
        try:
            path.parent.mkdir(exist_ok=True)
        except OSError as e:  # locks only avoid duplicate work: without them the build is still correct
            self.b._warn_once(f"lockdir:{path.parent}", f"opbuild: building without kernel locks ({e})")
            return None
        # Not thread-local: a lock claimed here (main thread) is released by the pool thread that compiled its
        # batch. filelock's default per-thread state makes that release a silent no-op: the lock stays held
        # until the process exits, and every other process waits for it (OPBUILD_LOCK_TIMEOUT, 600 s).
        return filelock.FileLock(str(path), thread_local=False)

    def run(self) -> list[tuple[str, _Request, LoadedKernel, str, float, str]]:
        mine: list[tuple[str, _Request, Lookup, filelock.BaseFileLock | None]] = []
        theirs: list[tuple[str, _Request, Lookup]] = []
        for mk, req, found in self.misses:
            lock = self._lock(req)
            try:
                if lock is not None:
                    lock.acquire(timeout=0)
                mine.append((mk, req, found, lock))
            except filelock.Timeout:
                theirs.append((mk, req, found))  # another process is building it: wait for it later
            except OSError as e:
                self.b._warn_once(f"lock:{req.name}", f"opbuild: building {req.name} without its lock ({e})")
                mine.append((mk, req, found, None))
        try:
            self._build_claimed(mine)
            for mk, req, found in theirs:
                self._wait_or_build(mk, req, found)
        finally:
            self.progress.close()
            if self.tier is not None and self.shared:
                self.tier.flush_stats(self.write.path)
        if self.errors:
            raise self.errors[0]
        return self.done

    def _recheck(self, mk: bytes, req: _Request, found: Lookup, locked: bool) -> tuple[bool, bool]:
        """Under the kernel's lock: (already available -> loaded and recorded, repaired flag)."""
        repaired = req.name in self.swept
        if self.read is None:
            return False, repaired
        if locked:
            found = self.read.lookup(req.name, req.info)
        if found.status == "hit":
            kernel, found = self.b.load_found(found, req)
        if found.status == "hit":
            self.done.append((mk, req, kernel, "repaired" if repaired else "reused", 0.0, "local"))
            self.progress.step(req.name)
            return True, repaired
        if found.status == "corrupt" and locked:
            self.read.quarantine(req.name, found.reason)
            self.repairs.append((req.name, found.reason))
            repaired = True
        return False, repaired

    def _build_claimed(self, mine: list[tuple[str, _Request, Lookup, filelock.BaseFileLock | None]]) -> None:
        todo: list[tuple[str, _Request, bool, filelock.BaseFileLock | None]] = []
        for mk, req, found, lock in mine:
            ready, repaired = self._recheck(mk, req, found, lock is not None)
            if ready:
                if lock is not None:
                    lock.release()
            else:
                todo.append((mk, req, repaired, lock))
        self._build_missing(todo)

    def _build_missing(self, todo: list[tuple[str, _Request, bool, filelock.BaseFileLock | None]]) -> None:
        """Kernels missing locally: take what the shared tier has, compile the rest, and keep waiting for those
        another process or machine holds the build lease of until they are published, or their lease frees
        up (the holder died) and they are built here. After OPBUILD_LOCK_TIMEOUT they are built here anyway."""
        tier, deadline, pause = self.tier, time.monotonic() + config.lock_timeout(), 0.01
        while todo:
            todo = self._fetch_shared(tier, todo)
            self._compile_batches(tier, todo)
            todo, self.deferred = self.deferred, []
            if todo and time.monotonic() > deadline:
                self.b._warn_once("lease-timeout", (
                    f"opbuild: waited {config.lock_timeout():g} s (OPBUILD_LOCK_TIMEOUT) for {len(todo)} kernel(s) "
                    f"that other processes hold the build leases of in {tier.url}; building them here"))
                tier = None
            elif todo:
                time.sleep(pause)
                pause = min(0.1, pause * 2)  # a published kernel is noticed within 0.1 s

    def _compile_batches(self, tier: SharedTier | None,
                         todo: list[tuple[str, _Request, bool, filelock.BaseFileLock | None]]) -> None:
        if not todo:
            return
        jobs = min(config.build_jobs(), len(todo))
        # Whole rounds of one batch per job, as few rounds as OPBUILD_BATCH_SIZE (32) allows: 24 kernels on 2
        # jobs are 2 batches of 12 (one round), not 3 of 8 (two rounds, the second with an idle job). A compiler
        # call costs ~40 ms before its first kernel (process, headers, link), each kernel then 5-60 ms, and
        # every batch is one more shared object to open on a warm start. BLAS kernels (GEMM, conv) are
        # costlier, so they are dealt out first, round-robin.
        todo.sort(key=lambda t: not t[1].needs_blas)
        n_batches = min(len(todo), jobs * -(-len(todo) // (jobs * config.batch_size())))
        if tier is not None:
            # Ranks sharing a tier split the work: at least one batch per job of every rank (RANK_SIZE), so a
            # rank that starts first cannot lease the whole network in its first wave of batches.
            n_batches = max(n_batches, min(len(todo), jobs * config.rank_size()))
        batches = [todo[i::n_batches] for i in range(n_batches) if todo[i::n_batches]]
        if tier is not None:
            batches = tier.order(batches)  # ranks start at different batches: a cold build is shared out

        def work(batch):
            claimed = []
            try:
                claimed = self._lease_shared(tier, batch) if tier is not None else batch
                if claimed:
                    self._compile(claimed)
            finally:
                for *_, lock in batch:
                    if lock is not None:
                        lock.release()
                if tier is not None:
                    tier.release([req.name for _, req, _, _ in claimed])

        if jobs == 1:
            for batch in batches:
                work(batch)
        else:
            with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="opbuild-build") as pool:
                list(pool.map(work, batches))

    def _compile(self, batch: list[tuple[str, _Request, bool, filelock.BaseFileLock | None]]) -> None:
        """Compile a batch; if it fails, compile its kernels one by one so only the broken one fails and
        the others are still cached."""
        self.progress.compiling(batch[0][1].name, len(batch))
        try:
            built = self.b.compile_batch(self.write, [req for _, req, _, _ in batch])
        except CompileError as e:
            # One by one, only the broken kernel fails; but a compiler that hangs would hang once per kernel.
            if len(batch) == 1 or isinstance(e, CompileTimeoutError):
                self.errors.append(e)
                self.progress.step(batch[0][1].name)
                return
            for item in batch:
                self._compile([item])
            return
        for (mk, req, repaired, _), (_, path, seconds) in zip(batch, built):
            try:
                kernel = self.b.load(path, req)
            except OSError as e:  # structurally sound, yet dlopen refuses it (a library it links is missing...)
                self.write.quarantine(req.name, f"freshly built binary cannot be loaded ({e})")
                self.errors.append(CompileError([], f"the built kernel cannot be loaded: {e}", "", req.name))
                self.progress.step(req.name)
                continue
            self.done.append((mk, req, kernel, "repaired" if repaired else "built", seconds, "compiled"))
            self.progress.step(req.name)

    # ---- shared tier ----------------------------------------------------------------------------
    def _fetch_shared(self, tier: SharedTier | None, todo: list) -> list:
        """Adopt the kernels of ``todo`` the shared tier has (releasing their local locks); return the rest."""
        if tier is None or not todo:
            return todo
        found = tier.fetch([(req.name, req.info) for _, req, _, _ in todo])
        self._adopt([item for item in todo if item[1].name in found], found)
        for _, req, _, lock in todo:
            if req.name in found and lock is not None:
                lock.release()
        return [item for item in todo if item[1].name not in found]

    def _lease_shared(self, tier: SharedTier, batch: list) -> list:
        """Take the shared build leases of a batch; return the kernels now ours to compile. Kernels published
        meanwhile are adopted; kernels another process or machine holds are deferred (waited for)."""
        claim = tier.claim([(req.name, req.info) for _, req, _, _ in batch])
        self._adopt([item for item in batch if item[1].name in claim.found], claim.found)
        busy = set(claim.busy)
        self.deferred.extend((mk, req, repaired, None) for mk, req, repaired, _ in batch if req.name in busy)
        leased = set(claim.leased)
        return [item for item in batch if item[1].name in leased]

    def _adopt(self, items: list, entries: dict) -> None:
        """Copy verified shared-tier entries into the local store and load them. Entries of one batched
        compile hold the same binary: they are published as links of one copy, as compile_batch does."""
        groups: dict[str, list] = {}
        for item in items:
            groups.setdefault(entries[item[1].name].sha256, []).append(item)
        for group in groups.values():
            t1 = time.perf_counter()
            binary = entries[group[0][1].name].binary
            pairs = [(req, entries[req.name].meta) for _, req, _, _ in group]
            paths = self.b.publish_entries(self.write, binary, pairs, "fetched_" + group[0][1].name)
            seconds = (time.perf_counter() - t1) / len(group)
            for (mk, req, repaired, _), path in zip(group, paths):
                kernel = self.b.load(path, req)
                self.done.append((mk, req, kernel, "repaired" if repaired else "reused", seconds, "remote"))
                self.progress.step(req.name)

    def _wait_or_build(self, mk: bytes, req: _Request, found: Lookup) -> None:
        lock = self._lock(req)
        t1 = time.perf_counter()
        try:
            if lock is not None:
                lock.acquire(timeout=config.lock_timeout())
        except (filelock.Timeout, OSError) as e:
            # Correctness rests on atomic publication, not on the lock: build it ourselves.
            self.b._warn_once(f"lock:{req.name}", f"opbuild: building {req.name} without its lock ({e})")
            lock = None
        try:
            ready, repaired = self._recheck(mk, req, found, lock is not None)
            if ready:
                self.done[-1] = (*self.done[-1][:4], time.perf_counter() - t1, "local")
                return
            self._build_missing([(mk, req, repaired, None)])
        finally:
            if lock is not None:
                lock.release()


class _Progress:
    """A tqdm bar on a terminal for builds that take longer than about a second; silent otherwise.

    Batches of several kernels report nothing until they finish, so a ticker thread shows the bar once the
    build has run for DELAY seconds and refreshes it (elapsed time, the kernel compiling) every REFRESH
    seconds, whether or not a kernel finished meanwhile.
    """

    DELAY = 1.0
    REFRESH = 0.5

    def __init__(self, total: int):
        self._bar = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        if total and sys.stderr.isatty() and config.progress_enabled():
            from tqdm import tqdm

            # A terminal that reports no size (a fresh pty, some CI runners) would get no bar at all from tqdm.
            size = shutil.get_terminal_size((100, 24))
            self._bar = tqdm(total=total, desc="opbuild: building kernels", unit="kernel", delay=self.DELAY,
                             leave=False, file=sys.stderr, ncols=size.columns or 100, nrows=size.lines or 24)
            threading.Thread(target=self._tick, name="opbuild-progress", daemon=True).start()

    def _tick(self) -> None:
        wait = self.DELAY
        while not self._closed.wait(wait):
            with self._lock:
                if self._closed.is_set():
                    return
                self._bar.refresh()
            wait = self.REFRESH

    def compiling(self, name: str, n: int) -> None:
        if self._bar is not None:
            with self._lock:
                short = name[:name.rfind("_") + 9]  # <op>_<8 hex>: the bar keeps its room on narrow terminals
                self._bar.set_postfix_str(short + (f" (+{n - 1})" if n > 1 else ""), refresh=False)

    def step(self, name: str) -> None:
        if self._bar is not None:
            with self._lock:
                self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            with self._lock:
                self._closed.set()
                self._bar.close()
