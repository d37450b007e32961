"""The build driver: kernel specs in, loaded kernels and a build report out.

Tiers, in order: this process's memory (builder/memory.py) -> the graph manifest (builder/manifests.py) -> the
local kernel_meta store -> the shared tier named by OPBUILD_REMOTE_CACHE (a hit is verified and copied into the
local store) -> compile (builder/misses.py, builder/compile.py). Misses are compiled in parallel threads (the
compiler is a subprocess: the GIL is not held while it works) and published to both stores.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..cache import locks, manifest
from ..cache.local import KernelStore, Lookup
from ..cache.usage import UsageRecorder
from ..core import config
from ..core.ir import KernelSpec
from ..report import BuildReport, KernelRecord
from ..targets import create as create_target
from ..targets.base import Kernel, Target, Toolchain
from . import manifests
from .compile import BatchCompiler
from .memory import KernelMemory, scope
from .misses import Miss, MissPipeline
from .requests import KernelRequest, Namer
from .stores import Stores, warn_repairs
from .toolchain import Toolchains

log = logging.getLogger("opbuild")


class Builder:
    """Builds and loads kernels for one process: its memory tier, stores, toolchain and statistics."""

    def __init__(self) -> None:
        self.memory = KernelMemory()
        self.stores = Stores()
        self.toolchains = Toolchains()
        self.namer = Namer()
        self.observer = UsageRecorder()  # statistics, miss explanations, size bound (cache/usage.py)
        self._digest = self.stores.memo(None).file_digest  # source digests: the store's memo once a build names it
        self._targets: dict[str, Target] = {}  # one instance per target name, made on first use

    @property
    def target(self) -> Target:
        """The target builds compile for: ``set_context(device_target=...)``."""
        name = config.device_target()
        target = self._targets.get(name)
        if target is None:
            target = self._targets.setdefault(name, create_target(name))
        return target

    @property
    def compiler_of_batches(self) -> BatchCompiler:
        """Compiles and publishes batches for the current target."""
        return BatchCompiler(self.target, self.toolchains, self.stores)

    def compiler(self, memo_dir: Path | None = None) -> Toolchain:
        """The compiler for the current toolchain settings (config.toolchain_env: CC, OPBUILD_CFLAGS, ...;
        re-resolved if they changed), its identity computed: CompilerNotFoundError when there is none."""
        return self.toolchains.compiler(self.target, self.stores.memo(memo_dir))

    def request(self, spec: KernelSpec, compiler: dict | None = None) -> KernelRequest:
        """The cache identity of one kernel: canonical descriptor bytes and the derived name. ``compiler`` is
        the toolchain identity when the caller has resolved it already (once per build, not per kernel)."""
        target = self.target
        if compiler is None:
            compiler = self.compiler().identity()
        return self.namer.request(spec, compiler, target, self._digest)

    def identity(self, store: KernelStore) -> dict:
        """The toolchain identity kernels of ``store`` are named with (a recorded one when no compiler is
        found: builder/toolchain.py); CompilerNotFoundError when there is neither."""
        memo = self.stores.memo(store.path)
        return self.toolchains.identity(self.target, memo, memo)

    # ---- build ----------------------------------------------------------------------------------
    def build(self, specs: Sequence[KernelSpec], pipeline: str = "",
              announce: Callable[[list[str]], None] | None = None) -> tuple[list[Kernel], BuildReport]:
        """Return one loaded kernel per spec (same order) and the report of the distinct kernels.
        ``pipeline`` is the identity of the graph passes that produced ``specs`` (part of the manifest key).
        ``announce``, when given, is called exactly once per build (whatever path it takes, so that a
        collective inside it pairs up across ranks) with the names of the kernels this build will compile or
        fetch, before it does: ``[]`` when everything came from memory, a manifest or the local cache.

        Raises :class:`~opbuild.core.errors.ConfigError` for any invalid OPBUILD_* variable before anything else,
        whether or not this build would have read it."""
        t0 = time.perf_counter()
        config.validate_environment()
        report = BuildReport()
        config.remote_cache_url()  # a bad OPBUILD_REMOTE_CACHE fails every build, warm ones too (memoised check)
        target = self.target
        read_store, write_store = self.stores.select(target.binary_suffix)
        where = scope(target.name, read_store.path if read_store else write_store.path)
        by_memo: dict[bytes, Kernel] = {}
        todo: dict[bytes, KernelSpec] = {}  # distinct kernels not in memory, in the order of their first node
        kernels = self.memory.kernels
        keys = [spec.memo_key() for spec in specs]
        for spec, mk in zip(specs, keys):
            if mk in by_memo or mk in todo:
                continue
            hit = kernels.get((where, mk)) if kernels else None
            if hit is not None:
                by_memo[mk] = hit
                report.kernels.append(KernelRecord(hit.name, spec.op, "reused", 0.0, "memory"))
            else:
                todo[mk] = spec
        shared = read_store is not None and read_store is write_store
        swept = set(read_store.sweep_temporaries()) if shared else set()
        graph = None
        if todo and shared and len(todo) >= manifests.MANIFEST_MIN_KERNELS:
            graph = manifests.graph_key(target, pipeline, list(todo))
            t1 = time.perf_counter()
            loaded = manifests.from_manifest(read_store, graph, todo, target, self.memory)
            if loaded is not None:
                manifests.record_manifest_hits(report, loaded, swept, time.perf_counter() - t1)
                for mk, _, kernel in loaded:
                    kernels[(where, mk)] = by_memo[mk] = kernel
                if swept:
                    warn_repairs(read_store, swept, [])
                if announce is not None:
                    announce([])
                return self._done(t0, report, read_store, write_store,
                                  [k.name for k in report.kernels if k.source == "local"], [], keys, by_memo)
        pending, misses = self._lookup(read_store, write_store, todo, swept, where, by_memo, report)
        if announce is not None:
            announce([m.req.name for m in misses])
        repairs: list[tuple[str, str]] = []  # (kernel, reason) of entries quarantined by this build
        try:
            if misses:
                for done in MissPipeline(self.stores, self.memory, target, self.compiler_of_batches, read_store,
                                             write_store, swept, misses, repairs).run():
                    kernels[(where, done.key)] = by_memo[done.key] = done.kernel
                    report.kernels.append(KernelRecord(done.req.name, done.req.spec.op, done.status, done.seconds,
                                                       done.source))
        finally:
            if swept or repairs:
                warn_repairs(read_store, swept, repairs)
            if repairs:  # manifests of other graphs (or this one's under an older fingerprint) name the old entries
                manifest.drop_naming(read_store.path, {name for name, _ in repairs})
        if graph is not None:
            self._write_manifest(read_store, graph, list(pending.values()))
        return self._done(t0, report, read_store, write_store, [r.name for r in pending.values()],
                          [m.req.name for m in misses], keys, by_memo)

    def _lookup(self, read_store: KernelStore | None, write_store: KernelStore, todo: dict[bytes, KernelSpec],
                swept: set[str], where: str, by_memo: dict[bytes, Kernel],
                report: BuildReport) -> tuple[dict[bytes, KernelRequest], list[Miss]]:
        """Name every kernel of ``todo`` and look it up in the read store: the requests, and the misses."""
        target = self.target
        identity = self.identity(read_store or write_store) if todo else None
        self._digest = self.stores.memo(write_store.path).file_digest
        pending: dict[bytes, KernelRequest] = {}
        needs_blas = False
        for mk, spec in todo.items():
            req = pending[mk] = self.request(spec, identity)
            needs_blas = needs_blas or req.needs_blas
        if needs_blas:  # lazily bound before any kernel pulls it in with immediate binding (loader.preload)
            blas = target.linked_library(identity)
            if blas:
                target.preload(blas)
        misses: list[Miss] = []
        if pending and read_store is not None:
            memory, lookup = self.memory, read_store.lookup
            with locks.loading(read_store):  # eviction deletes no entry while this build verifies and loads it
                for mk, req in pending.items():
                    t1 = time.perf_counter()
                    found = lookup(req.name, req.info)
                    if found.status == "hit":
                        kernel, found = memory.load_found(target, found, req)
                    if found.status == "hit":
                        status = "repaired" if req.name in swept else "reused"
                        memory.kernels[(where, mk)] = by_memo[mk] = kernel
                        report.kernels.append(
                            KernelRecord(req.name, req.spec.op, status, time.perf_counter() - t1, "local"))
                    else:
                        misses.append(Miss(mk, req, found))
        else:
            misses = [Miss(mk, req, Lookup("absent")) for mk, req in pending.items()]
        for miss in misses:
            self.observer.on_miss(read_store, miss.req.name, miss.req.info, miss.found)
        return pending, misses

    def _write_manifest(self, store: KernelStore, graph: str, reqs: list[KernelRequest]) -> None:
        """Index the graph's entries for the next warm start; none when no compiler was found (a build served
        from a recorded identity has no toolchain files to stat)."""
        compiler = self.toolchains.compiler_if_found(self.target) if self.toolchains.missing is None else None
        if compiler is None:
            return
        manifests.write_manifest(store, graph, reqs, self.target, compiler.toolchain_files(),
                                 compiler.blas_library())

    def _done(self, t0: float, report: BuildReport, read_store: KernelStore | None, write_store: KernelStore,
              looked_up: list[str], missed: list[str], keys: list[bytes],
              by_memo: dict) -> tuple[list[Kernel], BuildReport]:
        """Finish a build: the kernel of every node, statistics; the report's time covers all of it."""
        kernels = [by_memo[mk] for mk in keys]
        self.observer.after_build(read_store, write_store, report, looked_up, missed)
        report.seconds = time.perf_counter() - t0
        self.observer.record(report)
        log.info("opbuild: %s", report.summary())
        return kernels, report


__all__ = ["Builder"]
