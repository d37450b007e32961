"""Every OPBUILD_* environment variable parsed in one place, plus set_context/get_context.

Environment variables are read when they are needed (not cached at import), so a process that changes
``os.environ`` (tests, launchers that set RANK_ID late) sees the new values at its next build.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from .errors import UnsupportedTargetError

GRAPH_MODE = 0
PYNATIVE_MODE = 1
SUPPORTED_TARGETS = ("CPU",)

_MODES = {GRAPH_MODE: "GRAPH_MODE", PYNATIVE_MODE: "PYNATIVE_MODE"}
# The context is process state by contract (MindSpore's set_context is global); it is the only one.
_context: dict[str, object] = {"mode": GRAPH_MODE, "device_target": "CPU", "device_id": 0, "seed": 0}


def set_context(**kwargs) -> None:
    """Set execution options: ``mode`` (GRAPH_MODE or PYNATIVE_MODE), ``device_target`` ("CPU"),
    ``device_id`` (int, accepted for compatibility) and ``seed`` (parameter initialisation seed).

    Raises ValueError for an unknown key or value. Every option is checked before any is applied, so a call
    that raises leaves the context unchanged.
    """
    updates = {key: _check_option(key, value) for key, value in kwargs.items()}
    _context.update(updates)


def _check_option(key: str, value: object) -> object:
    """The validated (canonical) value of one context option; ValueError naming what is accepted."""
    if key not in _context:
        raise ValueError(f"set_context: unknown key {key!r}; valid keys are {', '.join(sorted(_context))}")
    # bool is an int subclass (True == PYNATIVE_MODE): reject it rather than accept it by accident.
    if key == "mode" and (isinstance(value, bool) or value not in _MODES):
        raise ValueError(
            f"set_context: mode must be opbuild.GRAPH_MODE ({GRAPH_MODE}) or opbuild.PYNATIVE_MODE "
            f"({PYNATIVE_MODE}), got {value!r}"
        )
    if key == "device_target":
        if not isinstance(value, str):
            raise ValueError(f"set_context: device_target must be a string such as 'CPU', got {value!r}")
        if value.upper() not in SUPPORTED_TARGETS:
            raise UnsupportedTargetError(
                f"set_context: device_target {value!r} is not supported by this build of opbuild; "
                f"supported targets: {', '.join(SUPPORTED_TARGETS)}"
            )
        return value.upper()
    if key in ("device_id", "seed") and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
        raise ValueError(f"set_context: {key} must be a non-negative int, got {value!r}")
    return value


def get_context(key: str):
    """Return the value of one context option (see :func:`set_context`). Raises ValueError if unknown."""
    if key not in _context:
        raise ValueError(f"get_context: unknown key {key!r}; valid keys are {', '.join(sorted(_context))}")
    return _context[key]


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


def _env_bool(name: str, default: bool) -> bool:
    raw = _env(name).lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name}={raw!r} is not a boolean; use 1 or 0")


def rank_id() -> int:
    """RANK_ID as an int; unset or empty means 0."""
    raw = _env("RANK_ID")
    if not raw:
        return 0
    try:
        rank = int(raw)
    except ValueError:
        raise ValueError(
            f"RANK_ID={raw!r} is not an integer; set it to the rank number, e.g. RANK_ID=0") from None
    if rank < 0:
        raise ValueError(f"RANK_ID={raw!r} must be >= 0")
    return rank


def cache_root() -> Path:
    """Root of the cache: OPBUILD_CACHE_PATH, else MS_COMPILER_CACHE_PATH (MindSpore's name), else the cwd."""
    raw = _env("OPBUILD_CACHE_PATH") or _env("MS_COMPILER_CACHE_PATH")
    return Path(raw).expanduser() if raw else Path.cwd()


def cache_dir(rank: int | None = None, root: Path | None = None) -> Path:
    """The kernel_meta directory of one rank: ``<root>/rank_<RANK_ID>/kernel_meta``."""
    base = root if root is not None else cache_root()
    return base / f"rank_{rank_id() if rank is None else rank}" / "kernel_meta"


def cache_enabled() -> bool:
    """OPBUILD_CACHE=0 turns the persistent cache off (kernels are still built, in a private temp dir)."""
    return _env_bool("OPBUILD_CACHE", True)


def cache_fsync() -> bool:
    """OPBUILD_CACHE_FSYNC=1 fsyncs every cache write (durable across power cuts; slower cold builds)."""
    return _env_bool("OPBUILD_CACHE_FSYNC", False)


def preload_enabled() -> bool:
    """OPBUILD_PRELOAD=0 stops builds from loading the BLAS, lazily bound, ahead of the kernels that link it
    (runtime/loader.py: preload); the kernels then load it themselves, with immediate binding."""
    return _env_bool("OPBUILD_PRELOAD", True)


def blas_choice() -> str:
    """OPBUILD_BLAS: which BLAS GEMM/conv kernels link: ``auto`` (default: NumPy's bundled OpenBLAS, else the
    scipy-openblas32 package), ``numpy`` or ``scipy-openblas32`` (compilers/blas.py)."""
    raw = _env("OPBUILD_BLAS").lower() or "auto"
    choices = ("auto", "numpy", "scipy-openblas32")
    if raw not in choices:
        raise ValueError(f"OPBUILD_BLAS={raw!r} is not a BLAS opbuild can link; use one of {', '.join(choices)}")
    return raw


def openmp_enabled() -> bool:
    """OPBUILD_OPENMP=0 compiles kernels without OpenMP: large elementwise loops then run on one thread.
    (Their thread count is OpenMP's own setting, OMP_NUM_THREADS; default: every core.)"""
    return _env_bool("OPBUILD_OPENMP", True)


def extra_cflags() -> list[str]:
    """OPBUILD_CFLAGS split like a shell would (no expansion)."""
    raw = _env("OPBUILD_CFLAGS")
    if not raw:
        return []  # the usual case, on every warm start: importing shlex alone costs ~0.3 ms
    import shlex

    try:
        return shlex.split(raw)
    except ValueError as e:  # shlex alone says only "No closing quotation", not which variable
        raise ValueError(f"OPBUILD_CFLAGS={raw!r} cannot be split into compiler flags: {e}") from None


def toolchain_env() -> tuple[str, ...]:
    """The environment variables that choose the toolchain (CC, OPBUILD_CFLAGS, OPBUILD_BLAS, OPBUILD_OPENMP),
    raw: whatever caches kernels in memory or names a graph must tell these apart."""
    get = os.environ.get
    return get("CC", ""), get("OPBUILD_CFLAGS", ""), get("OPBUILD_BLAS", ""), get("OPBUILD_OPENMP", "")


def compiler_env() -> str:
    """The CC environment variable (empty when unset)."""
    return _env("CC")


def _env_positive_int(name: str) -> int | None:
    """A positive integer environment variable; None when unset or empty, ValueError naming it otherwise."""
    raw = _env(name)
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not an integer") from None
    if value < 1:
        raise ValueError(f"{name}={raw!r} must be >= 1")
    return value


def batch_size() -> int:
    """OPBUILD_BATCH_SIZE: the most kernels one compiler call builds (default 32). Bigger batches spend less on
    compiler start-up and make fewer shared objects to open on a warm start; smaller ones spread a cold build
    over more rounds."""
    return _env_positive_int("OPBUILD_BATCH_SIZE") or 32


def build_jobs() -> int:
    """Parallel compile jobs: OPBUILD_BUILD_JOBS, default the number of usable cores."""
    jobs = _env_positive_int("OPBUILD_BUILD_JOBS")
    if jobs:
        return jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def lock_timeout() -> float:
    """Seconds to wait for another process's build of the same kernel before building it ourselves."""
    raw = _env("OPBUILD_LOCK_TIMEOUT")
    return float(raw) if raw else 600.0


def compile_timeout() -> float:
    """OPBUILD_COMPILE_TIMEOUT: seconds one compiler call may take (default 600) before it is killed with its
    children and the build fails naming the kernels of the call. Must be a finite number > 0."""
    raw = _env("OPBUILD_COMPILE_TIMEOUT")
    if not raw:
        return 600.0
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"OPBUILD_COMPILE_TIMEOUT={raw!r} is not a number of seconds; set it to e.g. 600 "
                         "or unset it for the default (600)") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"OPBUILD_COMPILE_TIMEOUT={raw!r} must be a finite number of seconds > 0; set it to "
                         "e.g. 600 or unset it for the default (600)")
    return value


def cache_max_size() -> int | None:
    """OPBUILD_CACHE_MAX_SIZE (e.g. ``500M``, ``2G``): after a build that compiled something, least-recently
    used kernels are evicted until the rank's kernel_meta fits. Unset, empty or 0 means no bound (default)."""
    from .units import parse_size

    raw = _env("OPBUILD_CACHE_MAX_SIZE")
    if not raw:
        return None
    try:
        size = parse_size(raw)
    except ValueError as e:
        raise ValueError(f"OPBUILD_CACHE_MAX_SIZE: {e}") from None
    return size or None


def explain_misses() -> bool:
    """OPBUILD_EXPLAIN_MISSES=1 logs, at WARNING level, why every cache miss of a run missed."""
    return _env_bool("OPBUILD_EXPLAIN_MISSES", False)


# ---- shared (remote) cache tier: see cache/shared.py and docs/cache.md -------------------------------------
def _env_seconds(name: str, default: float, allow_zero: bool = False) -> float:
    raw = _env(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number of seconds") from None
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name}={raw!r} must be {'>= 0' if allow_zero else '> 0'} seconds")
    return value


def remote_cache_url() -> str:
    """OPBUILD_REMOTE_CACHE: the shared tier (``redis://host:port/db`` or ``file:///path``); empty means none."""
    return _env("OPBUILD_REMOTE_CACHE")


def remote_timeout() -> float:
    """OPBUILD_REMOTE_TIMEOUT: seconds any one shared-tier operation may take before the run goes local-only."""
    return _env_seconds("OPBUILD_REMOTE_TIMEOUT", 2.0)


def remote_ttl() -> float:
    """OPBUILD_REMOTE_TTL: seconds a published shared-tier entry lives (0 or unset: until evicted)."""
    return _env_seconds("OPBUILD_REMOTE_TTL", 0.0, allow_zero=True)


def remote_lease_ttl() -> float:
    """OPBUILD_REMOTE_LEASE_TTL: seconds a build lease lives unless renewed (its holder renews it every third
    of that while compiling), i.e. how long others wait for a holder that died before taking over."""
    return _env_seconds("OPBUILD_REMOTE_LEASE_TTL", 20.0)


def cache_secret() -> bytes | None:
    """OPBUILD_CACHE_SECRET: key signing shared-tier entries (HMAC-SHA256); None when unset."""
    raw = os.environ.get("OPBUILD_CACHE_SECRET", "")
    return raw.encode() if raw else None


def testing_compile_delay() -> float:
    """OPBUILD_TEST_COMPILE_DELAY: TEST HOOK ONLY, seconds of sleep added to every batch compile so that tests
    can kill a process deterministically while it holds build leases. Never set it in production."""
    return _env_seconds("OPBUILD_TEST_COMPILE_DELAY", 0.0, allow_zero=True)


def testing_commit_hook() -> tuple[float, str] | None:
    """OPBUILD_TEST_COMMIT_HOOK=<seconds>:<file>: TEST HOOK ONLY (scripts/soak_kill.py, tests/cache). Inside
    the commit window of every entry it publishes (after the binary, and again after the ``.info``, before
    the ``.json``), the process appends ``<pid> <stage> <entry>`` to ``<file>`` and sleeps ``<seconds>``, so
    that a test can SIGKILL it exactly there. None when unset; never set it in production."""
    raw = _env("OPBUILD_TEST_COMMIT_HOOK")
    if not raw:
        return None
    seconds, sep, path = raw.partition(":")
    try:
        pause = float(seconds)
    except ValueError:
        pause = -1.0
    if not sep or not path or not math.isfinite(pause) or pause < 0:
        raise ValueError(f"OPBUILD_TEST_COMMIT_HOOK={raw!r} must be <seconds>:<file> (a test hook; unset it)")
    return pause, path


def rank_size() -> int:
    """RANK_SIZE (the number of ranks of the job, as MindSpore's launchers set it); unset, empty or invalid
    means unknown (0). Only used to spread ranks over a cold build, so a bad value is ignored, not an error."""
    raw = _env("RANK_SIZE")
    return int(raw) if raw.isdigit() else 0
