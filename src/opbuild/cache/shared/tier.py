"""The shared tier as the build driver sees it: verified fetches, build leases, publication, and faults that
never fail a run.

``OPBUILD_REMOTE_CACHE`` names a second cache tier shared by every rank and machine (see
:func:`opbuild.cache.shared.open_backend`); the local ``rank_N/kernel_meta`` stays the first. This layer adds,
on top of a :class:`.backend.RemoteBackend`:

* verification: every fetched entry is checked by :func:`.entry.unpack` (the requested descriptor,
  sha256 of the binary, and the HMAC signature when ``OPBUILD_CACHE_SECRET`` is set); a rejected entry is
  logged, counted and never loaded. Without a secret, one warning says the shared tier is trusted as code.
* single flight across machines: :meth:`SharedTier.claim` takes build leases, renewed by a background thread
  every third of ``OPBUILD_REMOTE_LEASE_TTL`` while the kernels compile. A lease of a dead process expires
  (or, when its holder is a dead process on this host, is taken over at once).
* cooperative cold builds: :meth:`SharedTier.order` starts every rank at a different point of the same
  work list, so N ranks building one cold network split the work instead of queueing behind one another.
* namespaces: entries are signed and stored under the key id of ``OPBUILD_CACHE_SECRET``
  (:func:`.entry.key_id`), so ranks with different secrets never overwrite each other's entries. A
  rank that finds the kernels it misses under another key id, or entries it cannot verify, warns once that
  the ranks' secrets differ and how to fix it.
* faults: every backend call is bounded by ``OPBUILD_REMOTE_TIMEOUT`` (default 2 s); a failure or timeout
  starts an outage (one warning) during which the tier is skipped and every method answers as if it were
  empty (fetch nothing, every lease granted, publish nothing), so the build goes on local-only. The tier is
  tried again after 1 s, then after pauses doubling up to 60 s (:mod:`.backoff`); a success ends the
  outage.
"""

from __future__ import annotations

import logging
import os
import random
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ...core import config, owners
from ...core.config import redact_url as redact
from . import entry as remote_entry
from . import open_backend
from .backend import UNSIGNED, RemoteBackend, RemoteError
from .backoff import Backoff
from .entry import EntryRejected, RemoteEntry
from .stats import RemoteCounters, read_stats

log = logging.getLogger("opbuild")


def _host_identity() -> str:
    """This host as lease owners name it: the host name plus the PID namespace, so that containers sharing a
    host name never judge each other's processes dead (their pids are not visible to one another)."""
    try:
        ns = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        ns = 0
    return f"{os.uname().nodename}/{ns}"


_HOST = _host_identity()


class _Off(Exception):
    """Internal: the tier is in an outage (skipped until its next retry); the caller answers local-only."""


@dataclass
class Leases:
    """Outcome of :meth:`SharedTier.claim` for a group of kernel names."""

    leased: list[str] = field(default_factory=list)  # ours to build (lease held; or the tier is skipped)
    found: dict[str, RemoteEntry] = field(default_factory=dict)  # published meanwhile: fetch, do not build
    busy: list[str] = field(default_factory=list)  # another process or machine is building them: wait


class SharedTier:
    """One process's view of one shared tier. Thread-safe; create it with :meth:`open`."""

    def __init__(self, url: str, backend: RemoteBackend | None, *, timeout: float, lease_ttl: float,
                 secret: bytes | None, error: Exception | None = None, backoff: Backoff | None = None):
        self.url = backend.url if backend is not None else url
        self.backend = backend
        self.timeout = timeout
        self.lease_ttl = lease_ttl
        self.secret = secret
        self.key_id = remote_entry.key_id(secret)
        if backend is not None and backend.namespace != self.key_id:
            raise ValueError(f"backend opened for key id {backend.namespace}, not {self.key_id} of this secret")
        self.counters = RemoteCounters()
        self.owner = f"{_HOST}:{os.getpid()}:{secrets.token_hex(6)}"
        # A backend that cannot exist (client package missing) is one outage that never ends.
        self.backoff = backoff or (Backoff(float("inf"), float("inf")) if backend is None else Backoff())
        self._lock = threading.Lock()
        self._held: set[str] = set()
        self._renewer: threading.Thread | None = None
        self._secret_checks = 2  # looks for entries under other key ids (the first builds with misses)
        self._secret_warned = False
        if error is not None:
            self._fail(error)

    @property
    def ok(self) -> bool:
        """Whether the tier is used now: no outage, or the pause of the current one is over (a retry)."""
        return self.backoff.ready()

    @classmethod
    def open(cls, url: str) -> SharedTier:
        """The tier at ``url`` with the OPBUILD_REMOTE_* settings of the environment. A URL no backend
        understands raises ValueError (a configuration error); a backend that cannot be set up (e.g. its
        client package is missing) gives a tier that is off, with one warning."""
        secret = config.cache_secret()
        kwargs = {"timeout": config.remote_timeout(), "lease_ttl": config.remote_lease_ttl(), "secret": secret}
        try:
            backend = open_backend(url, ttl=config.remote_ttl(), timeout=kwargs["timeout"],
                                   namespace=remote_entry.key_id(secret))
        except RemoteError as e:
            return cls(url, None, error=e, **kwargs)
        if secret is None:
            log.warning("opbuild: shared kernel cache %s is not signed (OPBUILD_CACHE_SECRET is unset): every "
                        "process that can write to it can run code in this one; its entries are trusted as code",
                        backend.url)
        return cls(url, backend, **kwargs)

    # ---- faults -----------------------------------------------------------------------------------
    def _fail(self, error: Exception) -> None:
        started, pause = self.backoff.failed()
        if not started:
            log.debug("opbuild: shared kernel cache %s still unavailable (%s); next try in %g s", self.url,
                      error, pause)
            return
        self.counters.count("remote_fallbacks")
        if self.backend is None:
            log.warning("opbuild: shared kernel cache %s is unavailable (%s); continuing with the local cache "
                        "only", self.url, error)
            return
        log.warning("opbuild: shared kernel cache %s is unavailable (%s); continuing with the local cache only "
                    "and trying it again in %g s (then ever less often, at least every %g s)", self.url, error,
                    pause, self.backoff.most)

    def _call(self, fn: Callable, *args):
        """Run one backend call bounded by the timeout; on failure start (or prolong) an outage and raise _Off.

        The call runs in a daemon thread so that a hung server or filesystem costs this process ``timeout``
        seconds once, never a hang (the abandoned thread cannot keep the process alive at exit).
        """
        if not self.ok:
            raise _Off
        box: dict = {}

        def run():
            try:
                box["value"] = fn(*args)
            except BaseException as e:  # handed to the calling thread below
                box["error"] = e

        worker = threading.Thread(target=run, name="opbuild-remote", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            error: Exception = RemoteError(f"no answer within {self.timeout:g} s (OPBUILD_REMOTE_TIMEOUT)")
            self.backend.cancel()  # the abandoned call must not download on in the background
        elif "error" in box:
            error = box["error"]
            if not isinstance(error, RemoteError):
                raise error  # a bug, not a fault of the tier: let it surface
        else:
            if self.backoff.succeeded():
                log.info("opbuild: shared kernel cache %s is available again", self.url)
            return box["value"]
        self._fail(error)
        raise _Off

    # ---- lookups ----------------------------------------------------------------------------------
    def fetch(self, wanted: Sequence[tuple[str, bytes]]) -> dict[str, RemoteEntry]:
        """The verified entries of those ``(name, info)`` the tier has (one round trip). Entries that fail
        verification are logged, counted as rejected and left out (the caller builds those kernels, and its
        publication replaces them)."""
        if not wanted or not self.ok:
            return {}
        try:
            blobs = self._call(self.backend.get_many, [n for n, _ in wanted])
        except _Off:
            return {}
        found, missed, mismatch = {}, [], ""
        for name, info in wanted:
            blob = blobs.get(name)
            if blob is None:
                self.counters.count("remote_misses", name)
                missed.append(name)
                continue
            try:
                entry = remote_entry.unpack(blob, name, info, self.secret)
            except EntryRejected as e:
                if self.counters.count("remote_rejected", name):
                    log.warning("opbuild: rejected shared-cache entry %s from %s: %s; it was not loaded and is "
                                "rebuilt here", name, self.url, e.reason)
                self.counters.count("remote_misses", name)
                mismatch = mismatch or (e.reason if e.mismatch else "")
                continue
            entry.meta = dict(entry.meta, fetched_from=self.url)
            self.counters.count("remote_hits", name)
            found[name] = entry
        if mismatch:
            self._warn_secret(f"entries it cannot verify ({mismatch})")
        elif missed:
            self._look_for_other_secrets(missed)
        return found

    def _look_for_other_secrets(self, missed: list[str]) -> None:
        """Warn if kernels this rank misses are in the tier under another key id: ranks whose secrets differ
        publish side by side and never share a kernel. Done by the first builds with misses only (two round
        trips each), and never again once it warned."""
        with self._lock:
            if self._secret_warned or self._secret_checks <= 0:
                return
            self._secret_checks -= 1
        try:
            others = [k for k in self._call(self.backend.namespaces) if k != self.key_id]
            for key in others[:4]:  # a few suffice to tell; a tier shared by many jobs is not scanned
                n = self._call(self.backend.count_in, key, missed)
                if n:
                    self._warn_secret(f"{n} of the {len(missed)} kernels this rank misses under key id {key}")
                    return
        except _Off:
            return

    def _warn_secret(self, what: str) -> None:
        with self._lock:
            if self._secret_warned:
                return
            self._secret_warned = True
        mine = "no OPBUILD_CACHE_SECRET" if self.key_id == UNSIGNED else f"key id {self.key_id}"
        log.warning("opbuild: shared kernel cache %s holds %s: the ranks of this job do not all use the same "
                    "OPBUILD_CACHE_SECRET (this rank has %s), so they cannot share kernels and each secret builds "
                    "its own. Set the same OPBUILD_CACHE_SECRET on every rank", self.url, what, mine)

    # ---- leases -----------------------------------------------------------------------------------
    def claim(self, wanted: Sequence[tuple[str, bytes]]) -> Leases:
        """Take the build leases of ``(name, info)`` pairs before compiling them.

        Kernels whose entry was published since they were looked up come back in ``found`` (their lease is
        given back at once); kernels another live process holds come back in ``busy``. Leases held by a dead
        process on this host are taken over at once; elsewhere they expire after the lease TTL.
        """
        names = [n for n, _ in wanted]
        if not self.ok:
            return Leases(leased=names)
        try:
            holders = self._call(self.backend.acquire_many, names, self.owner, self.lease_ttl)
            dead = {n: h for n, h in holders.items() if h != self.owner and _dead_here(h)}
            if dead:
                self._call(_release_all, self.backend, dead)
                holders.update(self._call(self.backend.acquire_many, list(dead), self.owner, self.lease_ttl))
        except _Off:
            return Leases(leased=names)
        mine = [n for n in names if holders.get(n) == self.owner]
        self._hold(mine)
        leases = Leases(busy=[n for n in names if holders.get(n) != self.owner])
        for name in leases.busy:
            self.counters.count("lease_waits", name)
        # Whoever built it may have published and released it between our lookup and our lease.
        ours = set(mine)
        leases.found = self.fetch([(n, i) for n, i in wanted if n in ours])
        if leases.found:
            self.release(list(leases.found))
        leases.leased = [n for n in mine if n not in leases.found]
        if not self.ok:  # the re-check itself failed: build everything here, wait for nobody
            leases.leased, leases.busy = names, []
        return leases

    def release(self, names: Sequence[str]) -> None:
        """Give back our leases of ``names`` (a no-op for names we do not hold)."""
        with self._lock:
            held = [n for n in names if n in self._held]
            self._held.difference_update(held)
        if held and self.ok:
            try:
                self._call(_release_all, self.backend, dict.fromkeys(held, self.owner))
            except _Off:
                pass  # the tier is in an outage: the leases expire by themselves

    def _hold(self, names: Sequence[str]) -> None:
        if not names:
            return
        with self._lock:
            self._held.update(names)
            if self._renewer is None:
                self._renewer = threading.Thread(target=self._renew_loop, name="opbuild-lease-renew", daemon=True)
                self._renewer.start()

    def _renew_loop(self) -> None:
        """Renew the held leases every third of their TTL; exits when none are held (restarted by _hold).
        During an outage it keeps the names: if the tier comes back before they expire, they are still ours."""
        while True:
            time.sleep(self.lease_ttl / 3)
            with self._lock:
                names = list(self._held)
                if not names:
                    self._renewer = None
                    return
            try:
                kept = self._call(_renew_all, self.backend, names, self.owner, self.lease_ttl)
            except _Off:
                continue
            lost = set(names) - set(kept)
            if lost:
                log.debug("opbuild: build leases lost (expired and taken over): %s", sorted(lost))
                with self._lock:
                    self._held.difference_update(lost)

    # ---- publication ------------------------------------------------------------------------------
    def publish(self, binary: bytes, items: Sequence[tuple[str, bytes, dict]]) -> None:
        """Publish kernels built here: ``(name, info, meta)`` per kernel, all sharing ``binary``."""
        if not items or not self.ok:
            return
        blobs = [(name, remote_entry.pack(name, info, binary, meta, self.secret)) for name, info, meta in items]
        try:
            self._call(self.backend.put_many, blobs)
        except _Off:
            return
        self.counters.count("remote_published", n=len(items))

    def order(self, work: list) -> list:
        """The same work list every rank computes, rotated so that ranks start at different points:
        by RANK_ID/RANK_SIZE when the job says its size, else at a random point."""
        if len(work) < 2 or not self.ok:
            return work
        size = config.rank_size()
        if size > 1:
            start = (config.rank_id() % size) * len(work) // size
        else:
            start = random.Random(self.owner).randrange(len(work))
        return work[start:] + work[:start]

    def flush_stats(self, kernel_meta: Path) -> None:
        """Add this process's counters into ``kernel_meta`` (see :mod:`.stats`)."""
        self.counters.flush(kernel_meta)


def _dead_here(owner: str) -> bool:
    """Whether a lease owner (``host:pid:token``) is a process of this host (and PID namespace) that no
    longer exists."""
    parsed = owners.parse_lease_owner(owner)  # lease values are not signed: parsed as data, never trusted
    return parsed is not None and parsed[0] == _HOST and owners.dead_here(parsed[1])


def _release_all(backend: RemoteBackend, holders: dict[str, str]) -> None:
    for name, owner in holders.items():
        backend.release(name, owner)


def _renew_all(backend: RemoteBackend, names: Sequence[str], owner: str, ttl: float) -> list[str]:
    return [n for n in names if backend.renew(n, owner, ttl)]


def backend_stats(url: str) -> dict:
    """What the shared tier at ``url`` holds under this process's key id (:meth:`.backend.RemoteBackend.stats`:
    ``url``, ``key_id``, ``entries``, ``bytes``, ``leases``, ...) plus ``key_ids``, every key id holding
    entries, or ``{"url", "error"}`` when it cannot be reached. Bounded by the backend's
    timeouts (OPBUILD_REMOTE_TIMEOUT for Redis). Raises ValueError for a URL no backend understands."""
    try:
        backend = open_backend(url, ttl=config.remote_ttl(), timeout=config.remote_timeout(),
                               namespace=remote_entry.key_id(config.cache_secret()))
        try:
            return {**backend.stats(), "key_ids": backend.namespaces()}
        finally:
            backend.close()
    except RemoteError as e:
        return {"url": redact(url), "error": str(e)}


def describe(kernel_meta: Path, url: str | None = None) -> dict:
    """The shared tier as ``opbuild cache stats`` sees it: the shared-tier counters of ``kernel_meta``
    (:func:`.stats.read_stats`) and, when a URL is given (default: OPBUILD_REMOTE_CACHE), the
    backend's own statistics (:func:`backend_stats`) under ``"backend"``."""
    url = url if url is not None else config.remote_cache_url()
    return {"counters": read_stats(kernel_meta), "url": redact(url) if url else None,
            "backend": backend_stats(url) if url else None}
