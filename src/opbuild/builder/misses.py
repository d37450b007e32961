"""The miss pipeline of one build: claim the missing kernels (per-kernel locks), fetch what the shared tier
has, compile the rest in parallel batches (each batch first takes its kernels' shared build leases), then wait
for the ones other processes or machines are building and reuse their results (single flight).

Correctness rests on atomic publication alone: a lock or lease that cannot be had in time is skipped (the
kernel is built here), never waited on forever.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import filelock

from ..cache import locks
from ..cache.local import KernelStore, Lookup
from ..cache.shared.tier import SharedTier
from ..core import config
from ..core.errors import CompileError, CompilerNotFoundError, CompileTimeoutError
from ..targets.base import Kernel, Target
from .compile import BatchCompiler
from .memory import KernelMemory
from .progress import Progress
from .requests import KernelRequest
from .stores import Stores


@dataclass
class Miss:
    """A kernel the read store did not serve: its memo key, request and the lookup's verdict."""

    key: bytes
    req: KernelRequest
    found: Lookup


@dataclass
class Owned:
    """A miss this process builds (or fetches): ``lock`` is its held kernel lock (None: none was had);
    ``repaired`` says a broken entry of it was quarantined first."""

    key: bytes
    req: KernelRequest
    repaired: bool
    lock: filelock.BaseFileLock | None


@dataclass
class Done:
    """A miss resolved: its kernel, report status (built, reused, repaired), seconds and source."""

    key: bytes
    req: KernelRequest
    kernel: Kernel
    status: str
    seconds: float
    source: str  # "local", "remote" or "compiled"


def batches_of(todo: list[Owned], jobs: int, sharing: bool,
               cost: Callable[[Owned], float] | None = None) -> list[list[Owned]]:
    """Deal ``todo`` into batches: whole rounds of one batch per job, as few rounds as OPBUILD_BATCH_SIZE
    allows (24 kernels on 2 jobs are 2 batches of 12, not 3 of 8 with an idle job in the second round), and no
    batch smaller than OPBUILD_BATCH_MIN in a build of one round (15 kernels on 2 jobs are one batch: a
    compiler call's fixed cost is worth several kernels). Ranks ``sharing`` a tier split the work: at least
    one batch per job of every rank (RANK_SIZE), so the first rank cannot lease the whole network in its first
    wave.

    Without ``cost``, kernels are dealt round-robin, BLAS kernels (GEMM, conv: costlier) first. With it (the
    estimated compile cost of a kernel), the costliest kernel goes first to the cheapest batch so far (longest
    processing time first), no batch above OPBUILD_BATCH_SIZE: parallel batches then end together instead of
    one job waiting for a batch that drew both of a network's LayerNorm and Softmax."""
    todo.sort(key=lambda c: not c.req.needs_blas)
    n_batches = min(len(todo), jobs * -(-len(todo) // (jobs * config.batch_size())))
    if n_batches <= jobs:
        # A build of one round: no batch below OPBUILD_BATCH_MIN kernels (one batch if the build has fewer),
        # never above OPBUILD_BATCH_SIZE. Each compiler call has a fixed cost worth several kernels, so a
        # small build is cheaper as one call than spread over idle jobs.
        n_batches = max(1, -(-len(todo) // config.batch_size()), min(n_batches, len(todo) // config.batch_min()))
    if sharing:
        n_batches = max(n_batches, min(len(todo), jobs * config.rank_size()))
    if cost is None or n_batches == 1:
        return [todo[i::n_batches] for i in range(n_batches) if todo[i::n_batches]]
    cap = max(config.batch_size(), -(-len(todo) // n_batches))
    batches: list[list[Owned]] = [[] for _ in range(n_batches)]
    totals = [0.0] * n_batches
    for claim in sorted(todo, key=lambda c: -cost(c)):  # stable: equal costs keep the BLAS-first order
        i = min((i for i in range(n_batches) if len(batches[i]) < cap), key=lambda i: (totals[i], len(batches[i])))
        batches[i].append(claim)
        totals[i] += cost(claim)
    return [b for b in batches if b]


class MissPipeline:
    """Resolves one build's misses into :class:`Done` records (see the module docstring).

    Its collaborators are passed in, each for what it does here: ``stores`` (one-time warnings, the shared
    tier), ``memory`` (loads a kernel into the process's memory tier), ``target`` (what kernels are loaded
    for) and ``compiler`` (generates, compiles and publishes batches)."""

    def __init__(self, stores: Stores, memory: KernelMemory, target: Target, compiler: BatchCompiler,
                 read_store: KernelStore | None, write_store: KernelStore, swept: set[str], misses: list[Miss],
                 repairs: list[tuple[str, str]]):
        self.stores = stores
        self.memory = memory
        self.target = target
        self.compiler = compiler
        self.read = read_store
        self.write = write_store
        self.shared = read_store is not None and read_store is write_store
        self.swept = swept
        self.repairs = repairs  # appended under the entry's lock; reported by Builder.build in one warning
        self.misses = misses
        self.done: list[Done] = []
        self.errors: list[CompileError | CompilerNotFoundError] = []
        self.progress = Progress(len(misses))
        self.tier = stores.shared()
        self.deferred: list[Owned] = []  # leased by others in the shared tier: waited for
        self.bodies: dict[str, str] = {}  # C body by entry name, generated once (_compile_batches)

    def _lock(self, req: KernelRequest) -> filelock.BaseFileLock | None:
        if not self.shared:
            return None
        path = locks.usable_lock_path(self.write, req.name)  # a directory or symlink planted there: quarantined
        try:
            path.parent.mkdir(exist_ok=True)
        except OSError as e:  # locks only avoid duplicate work: without them the build is still correct
            self.stores.warn_once(f"lockdir:{path.parent}", f"opbuild: building without kernel locks ({e})")
            return None
        # Not thread-local: a lock claimed here (main thread) is released by the pool thread that compiled its
        # batch. filelock's default per-thread state makes that release a silent no-op: the lock stays held
        # until the process exits, and every other process waits for it (OPBUILD_LOCK_TIMEOUT).
        return filelock.FileLock(str(path), thread_local=False)

    def run(self) -> list[Done]:
        """Resolve every miss; raises the first compile error (after the others are resolved)."""
        mine: list[tuple[Miss, filelock.BaseFileLock | None]] = []
        theirs: list[Miss] = []
        for miss in self.misses:
            lock = self._lock(miss.req)
            try:
                if lock is not None:
                    lock.acquire(timeout=0)
                mine.append((miss, lock))
            except filelock.Timeout:
                theirs.append(miss)  # another process is building it: wait for it later
            except OSError as e:
                self.stores.warn_once(f"lock:{miss.req.name}",
                                        f"opbuild: building {miss.req.name} without its lock ({e})")
                mine.append((miss, None))
        try:
            self._build_claimed(mine)
            for miss in theirs:
                self._wait_or_build(miss)
        finally:
            self.progress.close()
            if self.tier is not None and self.shared:
                self.tier.flush_stats(self.write.path)
        if self.errors:
            raise self.errors[0]
        return self.done

    def _recheck(self, miss: Miss, locked: bool) -> tuple[Done | None, bool]:
        """Under the kernel's lock: (its Done if it is available now, loaded; whether it was repaired)."""
        req, found = miss.req, miss.found
        repaired = req.name in self.swept
        if self.read is None:
            return None, repaired
        if locked:
            found = self.read.lookup(req.name, req.info)
        if found.status == "hit":
            kernel, found = self.memory.load_found(self.target, found, req)
        if found.status == "hit":
            self.progress.step(req.name)
            return Done(miss.key, req, kernel, "repaired" if repaired else "reused", 0.0, "local"), repaired
        if found.status == "corrupt" and locked:
            self.read.quarantine(req.name, found.reason)
            self.repairs.append((req.name, found.reason))
            repaired = True
        return None, repaired

    def _build_claimed(self, mine: list[tuple[Miss, filelock.BaseFileLock | None]]) -> None:
        todo: list[Owned] = []
        for miss, lock in mine:
            done, repaired = self._recheck(miss, lock is not None)
            if done is not None:
                self.done.append(done)
                if lock is not None:
                    lock.release()
            else:
                todo.append(Owned(miss.key, miss.req, repaired, lock))
        self._build_missing(todo)

    def _build_missing(self, todo: list[Owned]) -> None:
        """Kernels missing locally: take what the shared tier has, compile the rest, and keep waiting for those
        another process or machine holds the build lease of until they are published, or their lease frees
        up (the holder died) and they are built here. After OPBUILD_LOCK_TIMEOUT they are built here anyway."""
        tier, deadline, pause = self.tier, time.monotonic() + config.lock_timeout(), 0.01
        while todo:
            todo = self._fetch_shared(tier, todo)
            self._compile_batches(tier, todo)
            todo, self.deferred = self.deferred, []
            if todo and time.monotonic() > deadline:
                self.stores.warn_once("lease-timeout", (
                    f"opbuild: waited {config.lock_timeout():g} s (OPBUILD_LOCK_TIMEOUT) for {len(todo)} kernel(s) "
                    f"that other processes hold the build leases of in {tier.url}; building them here"))
                tier = None
            elif todo:
                time.sleep(pause)
                pause = min(0.1, pause * 2)  # a published kernel is noticed within 0.1 s

    def _compile_batches(self, tier: SharedTier | None, todo: list[Owned]) -> None:
        if not todo:
            return
        jobs = min(config.build_jobs(), len(todo))
        # Each kernel's C body, generated once here: its length estimates its compile time (what balances the
        # parallel batches), and compile_batch reuses it. A body that cannot be generated gets no estimate;
        # compile_batch generates it again and reports the error where it always has.
        self.bodies.update(self.compiler.bodies([claim.req for claim in todo]))
        batches = batches_of(todo, jobs, tier is not None, lambda c: len(self.bodies.get(c.req.name, "")))
        if tier is not None:
            batches = tier.order(batches)  # ranks start at different batches: a cold build is shared out

        def work(batch: list[Owned]) -> None:
            claimed: list[Owned] = []
            try:
                claimed = self._lease_shared(tier, batch) if tier is not None else batch
                if claimed:
                    self._compile(claimed)
            finally:
                for claim in batch:
                    if claim.lock is not None:
                        claim.lock.release()
                if tier is not None:
                    tier.release([claim.req.name for claim in claimed])

        if jobs == 1:
            for batch in batches:
                work(batch)
        else:
            with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="opbuild-build") as pool:
                list(pool.map(work, batches))

    def _compile(self, batch: list[Owned]) -> None:
        """Compile a batch; if it fails, compile its kernels one by one so only the broken one fails and
        the others are still cached."""
        self.progress.compiling(batch[0].req.name, len(batch))
        try:
            built = self.compiler.compile_batch(self.write, [claim.req for claim in batch], self.bodies)
        except (CompileError, CompilerNotFoundError) as e:
            # One by one, only the broken kernel fails; but a compiler that hangs would hang once per kernel,
            # and a missing compiler is missing for every kernel.
            if len(batch) == 1 or isinstance(e, (CompileTimeoutError, CompilerNotFoundError)):
                self.errors.append(e)
                self.progress.step(batch[0].req.name)
                return
            for claim in batch:
                self._compile([claim])
            return
        for claim, (_, path, seconds) in zip(batch, built):
            req = claim.req
            try:
                kernel = self.memory.load(self.target, path, req)
            except OSError as e:  # structurally sound, yet dlopen refuses it (a library it links is missing...)
                self.write.quarantine(req.name, f"freshly built binary cannot be loaded ({e})")
                self.errors.append(CompileError([], f"the built kernel cannot be loaded: {e}", "", req.name))
                self.progress.step(req.name)
                continue
            self.done.append(Done(claim.key, req, kernel, "repaired" if claim.repaired else "built", seconds,
                                  "compiled"))
            self.progress.step(req.name)

    # ---- shared tier ----------------------------------------------------------------------------
    def _fetch_shared(self, tier: SharedTier | None, todo: list[Owned]) -> list[Owned]:
        """Adopt the kernels of ``todo`` the shared tier has (releasing their local locks); return the rest."""
        if tier is None or not todo:
            return todo
        found = tier.fetch([(claim.req.name, claim.req.info) for claim in todo])
        self._adopt([claim for claim in todo if claim.req.name in found], found)
        for claim in todo:
            if claim.req.name in found and claim.lock is not None:
                claim.lock.release()
        return [claim for claim in todo if claim.req.name not in found]

    def _lease_shared(self, tier: SharedTier, batch: list[Owned]) -> list[Owned]:
        """Take the shared build leases of a batch; return the kernels now ours to compile. Kernels published
        meanwhile are adopted; kernels another process or machine holds are deferred (waited for)."""
        claim = tier.claim([(c.req.name, c.req.info) for c in batch])
        self._adopt([c for c in batch if c.req.name in claim.found], claim.found)
        busy, leased = set(claim.busy), set(claim.leased)
        # Deferred kernels are waited for without their local lock (released by the caller with the batch).
        self.deferred.extend(Owned(c.key, c.req, c.repaired, None) for c in batch if c.req.name in busy)
        return [c for c in batch if c.req.name in leased]

    def _adopt(self, claims: list[Owned], entries: dict) -> None:
        """Copy verified shared-tier entries into the local store and load them. Entries of one batched
        compile hold the same binary: they are published as links of one copy, as compile_batch does."""
        groups: dict[str, list[Owned]] = {}
        for claim in claims:
            groups.setdefault(entries[claim.req.name].sha256, []).append(claim)
        for group in groups.values():
            t1 = time.perf_counter()
            binary = entries[group[0].req.name].binary
            pairs = [(c.req, entries[c.req.name].meta) for c in group]
            paths = self.compiler.publish_entries(self.write, binary, pairs,
                                                               "fetched_" + group[0].req.name)
            seconds = (time.perf_counter() - t1) / len(group)
            for c, path in zip(group, paths):
                kernel = self.memory.load(self.target, path, c.req)
                self.done.append(Done(c.key, c.req, kernel, "repaired" if c.repaired else "reused", seconds,
                                      "remote"))
                self.progress.step(c.req.name)

    def _wait_or_build(self, miss: Miss) -> None:
        lock = self._lock(miss.req)
        t1 = time.perf_counter()
        try:
            if lock is not None:
                lock.acquire(timeout=config.lock_timeout())
        except (filelock.Timeout, OSError) as e:
            # Correctness rests on atomic publication, not on the lock: build it ourselves.
            self.stores.warn_once(f"lock:{miss.req.name}",
                                    f"opbuild: building {miss.req.name} without its lock ({e})")
            lock = None
        try:
            done, repaired = self._recheck(miss, lock is not None)
            if done is not None:
                done.seconds = time.perf_counter() - t1  # the wait for the other builder is this kernel's time
                self.done.append(done)
                return
            self._build_missing([Owned(miss.key, miss.req, repaired, None)])
        finally:
            if lock is not None:
                lock.release()


__all__ = ["Owned", "Done", "Miss", "MissPipeline", "batches_of"]
