"""dlopen kernels and resolve their ABI entry points (one ctypes prototype for all of them)."""

from __future__ import annotations

import _ctypes
import ctypes
import functools
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from ...core import config

# What ctypes.CDLL calls: dlopen(path, mode | RTLD_NOW) -> handle, OSError with dlerror()'s message.
_dlopen = _ctypes.dlopen

_env_lock = threading.Lock()


def _dlopen_passive(path: str | None, mode: int) -> int:
    """dlopen ``path``; should it bring in GNU OpenMP (the runtime of large elementwise loops), its idle
    threads sleep instead of spinning, unless the user chose with OMP_WAIT_POLICY.

    libgomp reads its wait policy from the environment once, when it is loaded. Its default spins idle
    threads for a while after each parallel loop, and with NumPy's OpenBLAS threads spinning after each GEMM
    the two pools fight over the cores (docs/benchmarks.md has the figures). Passive threads cost a little
    more per parallel loop. The variable is set only around the dlopen, not left in the process's environment
    (other libraries keep their own defaults).
    """
    if "OMP_WAIT_POLICY" in os.environ:
        return _dlopen(path, mode)
    with _env_lock:
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
        try:
            return _dlopen(path, mode)
        finally:
            os.environ.pop("OMP_WAIT_POLICY", None)


# The kernel ABI, ``void k(void *const *args)``, as one ctypes prototype for every kernel: calling it releases
# the GIL (a foreign call, not a Python-API one) as CDLL functions do.
KernelFunction = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class Library:
    """An open shared object that kernel function pointers keep alive (ctypes binds a function pointer to any
    object with a ``_handle`` and keeps a reference to it; ``ctypes.CDLL`` would also build a function-pointer
    class per library). Closed (``dlclose``) when the last reference goes: no kernel of it can be running
    then, since a call holds its function pointer. The thread-pool runtimes kernels link are never unloaded
    with it (:func:`_pin_runtimes`)."""

    __slots__ = ("_handle", "path", "__weakref__")

    def __init__(self, path: str | None, mode: int = os.RTLD_NOW | os.RTLD_LOCAL):
        self.path = path
        self._handle = 0
        try:
            self._handle = _dlopen_passive(path, mode)  # OSError with dlerror()'s message when it cannot be loaded
        except OSError as e:
            exhausted = mappings_exhausted() if path is not None else None
            if exhausted is not None:  # the process's limit, not the binary: no reason to call the entry corrupt
                raise MappingsExhaustedError(path, *exhausted) from e
            raise

    def function(self, symbol: str, prototype=KernelFunction):
        """dlsym ``symbol`` into a new function pointer of ``prototype`` (AttributeError if undefined)."""
        return prototype((symbol, self))

    def close(self) -> None:
        """dlclose now (the caller knows no function pointer of it is left); idempotent."""
        handle, self._handle = self._handle, 0
        if handle and self.path is not None:  # the process's own handle (path None) is never closed
            _ctypes.dlclose(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except (OSError, TypeError, AttributeError):  # dlclose's error, or module globals gone at shutdown
            pass

    def __repr__(self) -> str:
        return f"<Library {self.path}>"


# ---- runtimes that must outlive the kernels ------------------------------------------------------------
# Libraries a kernel pulls in that start threads (libgomp's pool; an OpenBLAS linked without NumPy's, when it
# is not preloaded) would be unloaded with the last kernel that uses them while their idle threads still sit in
# their code. Each is marked RTLD_NODELETE the first time a kernel load finds it loaded. Process state by
# nature (docs/architecture.md, "Process state"). Names are dlopen names: a soname or a path.
_unpinned: set[str] = {"libgomp.so.1"}
_pin_lock = threading.Lock()
# A symbol only the runtime defines: looked up in the new kernel's own scope (itself and the libraries it
# needs: 1 us), it says whether that kernel brought the runtime in. An RTLD_NOLOAD dlopen of a soname that is
# not loaded searches the library path (16 us on this machine), too much to pay on every kernel load of a
# process without OpenMP kernels.
_PROBES = {"libgomp.so.1": "omp_get_num_threads"}


def pin_when_loaded(name: str) -> None:
    """Never unload library ``name`` once a kernel has brought it in (see above)."""
    with _pin_lock:
        _unpinned.add(name)
    _pin_runtimes(None)


def _pin_runtimes(handle: int | None) -> None:
    """Mark every watched runtime that is loaded now RTLD_NODELETE, ``handle`` being the kernel just opened
    (None: look for each by name). libc's dlopen with RTLD_NOLOAD: ctypes' own would bind its symbols at once."""
    if not _unpinned:
        return
    with _pin_lock:
        dlopen = _libc_dlopen()
        for name in list(_unpinned):
            probe = _PROBES.get(name)
            if handle is not None and probe is not None:
                try:
                    _ctypes.dlsym(handle, probe)
                except OSError:
                    continue  # not in this kernel's scope
            if dlopen is None or dlopen(os.fsencode(name), os.RTLD_LAZY | os.RTLD_NOLOAD | os.RTLD_NODELETE):
                _unpinned.discard(name)  # pinned (the handle is not closed: nothing to release)


class MappingsExhaustedError(MemoryError):
    """A shared object could not be mapped because the process has used up its memory mappings
    (``vm.max_map_count``). Not an ``OSError``: callers that take a load failure for a damaged cache entry
    (quarantine, rebuild) let it through, and the entry stays as it is."""

    def __init__(self, path: str, used: int, limit: int):
        super().__init__(
            f"cannot load {path}: the process has {used} memory mappings open and Linux allows {limit} "
            f"(vm.max_map_count), so no further shared object can be mapped (the cache entry is intact). Drop "
            f"compiled graphs (Cells, jit functions) you no longer use, lower OPBUILD_LOADED_KERNELS (now "
            f"{config.loaded_kernels()}: the kernels kept loaded for reuse), or raise the limit "
            f"(sysctl -w vm.max_map_count=262144)")
        self.path, self.used, self.limit = path, used, limit


# A failed dlopen has unmapped what it mapped: a kernel needs ~5 mappings, one that brings in libgomp a few more.
_MAPPING_HEADROOM = 32


def mappings_exhausted() -> tuple[int, int] | None:
    """(mappings in use, vm.max_map_count) when the process is within a shared object's worth of its limit;
    None when it is not, or where /proc does not say (read only after a failed dlopen)."""
    try:
        with open("/proc/sys/vm/max_map_count", "rb") as f:
            limit = int(f.read().strip())
        with open("/proc/self/maps", "rb") as f:
            used = sum(1 for _ in f)
    except (OSError, ValueError):
        return None
    return (used, limit) if used >= limit - _MAPPING_HEADROOM else None


class KernelLoadError(OSError):
    """A shared object was opened but does not define the kernel's symbol."""


@dataclass
class LoadedKernel:
    """A callable kernel: ``fn(ptr_array)``; ``lib`` keeps the shared object mapped while it is used."""

    name: str
    symbol: str
    fn: ctypes._CFuncPtr
    lib: Library


def load_kernel(path: Path | str, name: str, symbol: str, libs: dict | None = None,
                ident: tuple | None = None) -> LoadedKernel:
    """Load the verified binary at ``path`` and return its kernel entry point. Raises OSError when it cannot
    be loaded (dlopen's error, or :class:`KernelLoadError` for an undefined symbol): callers treat that as
    a corrupt cache entry.

    ``libs`` maps a binary's identity (device, inode, ...) to its already-open library: the entries of one
    batched compile are hard links of one object, so they share one handle instead of a ``dlopen`` each.
    """
    lib = libs.get(ident) if libs is not None and ident is not None else None
    opened = lib is None
    if opened:
        lib = Library(str(path))
        _pin_runtimes(lib._handle)
    try:
        fn = KernelFunction((symbol, lib))
    except AttributeError as e:  # dlsym found nothing: for the caller one more way a binary cannot be loaded
        if opened:
            # glibc's dlopen matches an already-loaded object by its path name: left open, this object would
            # be handed back for the rebuilt binary the caller then writes at the same path.
            lib.close()
        raise KernelLoadError(f"{path}: {e}") from None
    if opened and libs is not None and ident is not None:
        libs[ident] = lib
    return LoadedKernel(name, symbol, fn, lib)


# ---- OpenMP across fork ---------------------------------------------------------------------------------
def _openmp_single_threaded_in_child() -> None:
    """In a forked child, make GNU OpenMP run parallel loops on the calling thread alone.

    Large elementwise kernels run their loops on libgomp's threads (targets/cpu/codegen.py: parallel_for). fork()
    copies only the calling thread, and libgomp, which does not support fork, would wait forever in the
    child's next parallel loop for the parent's worker threads. A team of one thread uses no pool. Only
    done when the process has libgomp loaded (RTLD_NOLOAD); costs a dlopen call per fork.
    """
    try:
        gomp = Library("libgomp.so.1", os.RTLD_NOW | os.RTLD_NOLOAD)
    except OSError:
        return  # not loaded: no kernel of this process uses OpenMP
    gomp.function("omp_set_num_threads", ctypes.CFUNCTYPE(None, ctypes.c_int))(1)


# Process state by nature, and one of the documented exceptions to "the session holds it"
# (docs/architecture.md, "Process state"): fork() and libgomp's thread pool belong to the process, not to a
# session, and a child forked before any session existed needs the hook as much as one forked after.
os.register_at_fork(after_in_child=_openmp_single_threaded_in_child)


# ---- preloading the libraries kernels link --------------------------------------------------------------
# path -> dlopen handle (0: failed). Process state by nature (docs/architecture.md, "Process state"): a library
# dlopen-ed stays loaded in the process whatever session asked for it.
_preloaded: dict[str, int] = {}
_preload_lock = threading.Lock()


@functools.cache
def _libc_dlopen():
    """libc's ``dlopen`` as a ctypes function (ctypes' own always adds RTLD_NOW), or None where the process
    has none to offer; found once."""
    try:
        return Library(None, 0).function("dlopen", ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int))
    except (OSError, AttributeError):
        return None


def preload(path: str) -> bool:
    """Load the shared library at ``path`` (the BLAS that GEMM and conv kernels link) with lazy binding, once
    per process; returns whether it is loaded. Errors are not raised: the kernel's own ``dlopen`` reports them.

    A kernel's ``dlopen`` binds every symbol of the libraries it pulls in at once (ctypes opens with
    RTLD_NOW), and OpenBLAS exports thousands. Loaded first with lazy binding it costs less, each BLAS
    function being resolved at its first call (docs/benchmarks.md has the figures), and the kernels then find
    it loaded (the dynamic loader matches it by soname). The library is the one the kernels were linked
    against, so lazy binding leaves nothing unresolved. (A background thread would overlap the load with
    the build, but it contends with the building thread for the GIL and the cores.)
    """
    with _preload_lock:
        if path not in _preloaded:
            if not config.preload_enabled():
                pin_when_loaded(path)  # the kernels load it themselves; it must outlive them
                return False
            dlopen = _libc_dlopen()
            _preloaded[path] = (dlopen(os.fsencode(path), os.RTLD_LAZY | os.RTLD_LOCAL) or 0) if dlopen else 0
        return bool(_preloaded[path])
