"""Every OPBUILD_* environment variable parsed in one place, plus set_context/get_context.

Environment variables are read when they are needed (not cached at import), so a process that changes
``os.environ`` (tests, launchers that set RANK_ID late) sees the new values at its next build.
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from . import context_keys as _context_keys
from .envvalues import cache_path as _cache_path
from .envvalues import check_cflags, environment_reader, environment_text_reader, signing_key, split_cc
from .errors import ConfigError, UnsupportedTargetError
from .units import parse_size

GRAPH_MODE = 0
PYNATIVE_MODE = 1
#: The targets: name (as ``set_context(device_target=...)`` spells it, upper case) -> ``"module:Class"``. Kept
#: here, as data, so that set_context validates a name without importing any target (core imports nothing
#: above it); ``targets.create`` imports the class on first use. Adding a target adds one line here.
TARGETS: dict[str, str] = {"CPU": "opbuild.targets.cpu:CpuTarget", "GPU": "opbuild.targets.cuda:CudaTarget"}
SUPPORTED_TARGETS = tuple(TARGETS)

_MODES = {GRAPH_MODE: "GRAPH_MODE", PYNATIVE_MODE: "PYNATIVE_MODE"}
# The context is process state by contract (MindSpore's set_context is global); it is the only one.
# MindSpore 2.x's default mode is PYNATIVE_MODE; GRAPH_MODE is chosen with set_context(mode=GRAPH_MODE).
_context: dict[str, object] = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0, "seed": 0}


def set_context(**kwargs) -> None:
    """Set execution options: ``mode`` (GRAPH_MODE or PYNATIVE_MODE), ``device_target`` (one of
    ``SUPPORTED_TARGETS``, e.g. "CPU": the target every later build compiles for), ``device_id`` (a
    non-negative int, accepted and stored for MindSpore compatibility; no target reads it, as there is one
    device per target) and ``seed`` (parameter initialisation seed).

    Raises ValueError for an unknown key or value. Every option is checked before any is applied, so a call
    that raises leaves the context unchanged.
    """
    updates = {key: _check_option(key, value) for key, value in kwargs.items()}
    _context.update(updates)


def set_device(device_target: str, device_id: int | None = None) -> None:
    """MindSpore 2.x's ``set_device``: select the target every later build compiles for ("CPU", or "GPU" with
    the ``cuda`` extra) and, optionally, the device id; validated as :func:`set_context` validates them."""
    options: dict[str, object] = {"device_target": device_target}
    if device_id is not None:
        options["device_id"] = device_id
    set_context(**options)


def _check_option(key: str, value: object) -> object:
    """The validated (canonical) value of one context option; ValueError naming what is accepted."""
    if key in _context_keys.KEYS:
        return _context_keys.check(key, value)
    if key not in _context:
        raise ValueError(f"set_context: unknown key {key!r}; MindSpore's keys are "
                         f"{', '.join(sorted({*_context, *_context_keys.KEYS}))}")
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
    if key in _context:
        return _context[key]
    if key in _context_keys.KEYS:
        return _context_keys.default(key)
    raise ValueError(f"get_context: unknown key {key!r}; valid keys are "
                     f"{', '.join(sorted({*_context, *_context_keys.KEYS}))}")


def device_target() -> str:
    """The target builds compile for: ``set_context(device_target=...)``, upper case (default "CPU")."""
    return _context["device_target"]  # type: ignore[return-value]


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


# ---- validators: one per kind of variable, each memoised on the raw text ------------------------------------
# A setting is read on every build (a process may change os.environ between builds), so parsing is memoised on
# the raw string: a warm build pays a dictionary lookup per variable, not a float() and a range check.
MAX_SECONDS = 1e9  # threading and socket timeouts overflow past ~9.2e9 s; 1e9 s (31 years) is "forever" enough


@dataclass(frozen=True)
class EnvNumber:
    """A numeric environment variable: whole or real, its bounds, its unit and its default.

    ``parse(raw)`` returns the value (the default when ``raw`` is empty) or raises :class:`ConfigError` naming
    the variable, the value and the accepted form; nan and infinities are never accepted. ``get()`` reads the
    environment. To add a variable, declare one and list it in ``_SETTINGS`` so every build validates it up
    front (as ``COMPILE_TIMEOUT`` below: a timeout in seconds > 0).
    """

    name: str
    default: float | int | None
    integer: bool = False
    minimum: float = 0.0
    allow_minimum: bool = False  # whether ``minimum`` itself is accepted (0 s for a TTL meaning "none")
    maximum: float = MAX_SECONDS
    unit: str = "seconds"

    def expected(self) -> str:
        """The accepted form, as error messages state it."""
        kind = "a whole number" if self.integer else "a finite number"
        unit = f" of {self.unit}" if self.unit else ""
        return f"{kind}{unit} {'>=' if self.allow_minimum else '>'} {self.minimum:g} and <= {self.maximum:g}"

    def parse(self, raw: str) -> float | int | None:
        """The value of ``raw`` (the default when empty); :class:`ConfigError` when it is not acceptable."""
        return _parse_number(self, raw.strip())

    def get(self) -> float | int | None:
        """The variable's current value in the environment."""
        return _parse_number(self, os.environ.get(self.name, "").strip())


@functools.lru_cache(maxsize=256)
def _parse_number(var: EnvNumber, raw: str) -> float | int | None:
    if not raw:
        return var.default
    default = "" if var.default is None else f"{var.default:g}"

    def bad(problem: str) -> ConfigError:
        return ConfigError(var.name, raw, problem, var.expected(), default)

    try:
        value: float | int = int(raw) if var.integer else float(raw)
    except ValueError:
        raise bad("is not an integer" if var.integer else "is not a number") from None
    if not math.isfinite(value):  # float() takes "nan" and "inf": a timeout of nan never expires or compares
        raise bad("is not a finite number")
    if value < var.minimum or (value == var.minimum and not var.allow_minimum):
        raise bad(f"must be {'>=' if var.allow_minimum else '>'} {var.minimum:g}")
    if value > var.maximum:
        raise bad(f"must be <= {var.maximum:g}")
    return value


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclass(frozen=True)
class EnvFlag:
    """A boolean environment variable: ``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any
    case); empty or unset means the default. Anything else is a :class:`ConfigError`."""

    name: str
    default: bool

    def parse(self, raw: str) -> bool:
        """The value of ``raw``; :class:`ConfigError` for anything but the documented spellings."""
        return _parse_flag(self, raw.strip().lower())

    def get(self) -> bool:
        """The variable's current value in the environment."""
        return _parse_flag(self, os.environ.get(self.name, "").strip().lower())


@functools.lru_cache(maxsize=64)
def _parse_flag(var: EnvFlag, raw: str) -> bool:
    if not raw:
        return var.default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ConfigError(var.name, raw, "is not a boolean", "1 or 0 (also true/false, yes/no, on/off)",
                      "1" if var.default else "0")


def _env_bool(name: str, default: bool) -> bool:
    """A boolean variable read with :class:`EnvFlag` (for variables not declared as one)."""
    return EnvFlag(name, default).get()


def _env_seconds(name: str, default: float, allow_zero: bool = False) -> float:
    """A number of seconds (> 0, or >= 0 with ``allow_zero``), validated by :class:`EnvNumber`."""
    return EnvNumber(name, default, allow_minimum=allow_zero).get()


RANK = EnvNumber("RANK_ID", 0, integer=True, minimum=0, allow_minimum=True, maximum=1e6, unit="")
CACHE = EnvFlag("OPBUILD_CACHE", True)
CACHE_FSYNC = EnvFlag("OPBUILD_CACHE_FSYNC", False)
PRELOAD = EnvFlag("OPBUILD_PRELOAD", True)
OPENMP = EnvFlag("OPBUILD_OPENMP", True)
EXPLAIN_MISSES = EnvFlag("OPBUILD_EXPLAIN_MISSES", False)
PROGRESS = EnvFlag("OPBUILD_PROGRESS", True)
FUSION = EnvFlag("OPBUILD_FUSION", True)
GPU_WRITEBACK = EnvFlag("OPBUILD_GPU_WRITEBACK", False)
BUILD_JOBS = EnvNumber("OPBUILD_BUILD_JOBS", None, integer=True, minimum=1, allow_minimum=True, maximum=4096,
                       unit="jobs")
BATCH_SIZE = EnvNumber("OPBUILD_BATCH_SIZE", 32, integer=True, minimum=1, allow_minimum=True, maximum=1e6,
                       unit="kernels")
BATCH_MIN = EnvNumber("OPBUILD_BATCH_MIN", 8, integer=True, minimum=1, allow_minimum=True, maximum=1e6,
                      unit="kernels")
LOADED_KERNELS = EnvNumber("OPBUILD_LOADED_KERNELS", 4096, integer=True, minimum=1, allow_minimum=True,
                           maximum=1e6, unit="kernels")
LOCK_TIMEOUT = EnvNumber("OPBUILD_LOCK_TIMEOUT", 600.0)
COMPILE_TIMEOUT = EnvNumber("OPBUILD_COMPILE_TIMEOUT", 600.0)
REMOTE_TIMEOUT = EnvNumber("OPBUILD_REMOTE_TIMEOUT", 2.0)
REMOTE_TTL = EnvNumber("OPBUILD_REMOTE_TTL", 0.0, allow_minimum=True)
REMOTE_LEASE_TTL = EnvNumber("OPBUILD_REMOTE_LEASE_TTL", 20.0)


def rank_id() -> int:
    """RANK_ID as an int >= 0; unset or empty means 0."""
    return int(RANK.get())


def cache_root() -> Path:
    """Root of the cache: OPBUILD_CACHE_PATH, else MS_COMPILER_CACHE_PATH (MindSpore's name), else the cwd.
    ConfigError naming the variable for a path that cannot be one (see :func:`_cache_path`)."""
    name = cache_root_source()
    return _cache_path(name, _env(name)) if name else Path.cwd()


def cache_root_source() -> str | None:
    """The variable that sets the cache root (OPBUILD_CACHE_PATH, else MS_COMPILER_CACHE_PATH), or None when
    neither is set (the root is the current directory)."""
    return next((name for name in ("OPBUILD_CACHE_PATH", "MS_COMPILER_CACHE_PATH") if _env(name)), None)


def cache_dir(rank: int | None = None, root: Path | None = None) -> Path:
    """The kernel_meta directory of one rank: ``<root>/rank_<RANK_ID>/kernel_meta``."""
    base = root if root is not None else cache_root()
    return base / f"rank_{rank_id() if rank is None else rank}" / "kernel_meta"


def cache_enabled() -> bool:
    """OPBUILD_CACHE=0 turns the persistent cache off (kernels are still built, in a private temp dir)."""
    return CACHE.get()


def cache_fsync() -> bool:
    """OPBUILD_CACHE_FSYNC=1 fsyncs every cache write (durable across power cuts; slower cold builds)."""
    return CACHE_FSYNC.get()


def preload_enabled() -> bool:
    """OPBUILD_PRELOAD=0 stops builds from loading the BLAS, lazily bound, ahead of the kernels that link it
    (targets/cpu/loader.py: preload); the kernels then load it themselves, with immediate binding."""
    return PRELOAD.get()


def blas_choice() -> str:
    """OPBUILD_BLAS: which BLAS GEMM/conv kernels link: ``auto`` (default: NumPy's bundled OpenBLAS, else the
    scipy-openblas32 package), ``numpy`` or ``scipy-openblas32`` (targets/cpu/compilers/blas.py)."""
    raw = _env("OPBUILD_BLAS").lower() or "auto"
    choices = ("auto", "numpy", "scipy-openblas32")
    if raw not in choices:
        raise ConfigError("OPBUILD_BLAS", raw, "is not a BLAS opbuild can link", f"one of {', '.join(choices)}",
                          "auto")
    return raw


def blas_threads() -> str:
    """OPBUILD_BLAS_THREADS: which threads run OpenBLAS's parallel work: ``openblas`` (default: its own pool)
    or ``openmp`` (the kernels' OpenMP pool, one pool for everything). Read by the kernels' C code when they
    are loaded (targets/cpu/blas_threads.py); validated here."""
    raw = _env("OPBUILD_BLAS_THREADS").lower() or "openblas"
    if raw not in ("openmp", "openblas"):
        raise ConfigError("OPBUILD_BLAS_THREADS", raw, "is not a thread pool", "openblas or openmp", "openblas")
    return raw


def openmp_enabled() -> bool:
    """OPBUILD_OPENMP=0 compiles kernels without OpenMP: large elementwise loops then run on one thread.
    (Their thread count is OpenMP's own setting, OMP_NUM_THREADS; default: every core.)"""
    return OPENMP.get()


def omp_num_threads() -> str:
    """OMP_NUM_THREADS as set ("" if unset): OpenMP's own setting, read by the OpenMP runtime, not parsed here;
    ``opbuild info`` shows it."""
    return _env("OMP_NUM_THREADS")


def extra_cflags() -> list[str]:
    """OPBUILD_CFLAGS split like a shell would (no expansion)."""
    raw = _env("OPBUILD_CFLAGS")
    # The usual case, on every warm start: no flags, and shlex (not imported by Python itself) stays unloaded.
    return list(_split_cflags(raw)) if raw else []


@functools.lru_cache(maxsize=16)
def _split_cflags(raw: str) -> tuple[str, ...]:
    import shlex

    try:
        flags = tuple(shlex.split(raw))
    except ValueError as e:  # shlex alone says only "No closing quotation", not which variable
        raise ConfigError("OPBUILD_CFLAGS", raw, f"cannot be split into compiler flags ({e})",
                          "flags separated by spaces, quoted as in a shell") from None
    check_cflags("OPBUILD_CFLAGS", raw, flags)
    return flags


_toolchain_text = environment_text_reader(("CC", "OPBUILD_CFLAGS", "OPBUILD_BLAS", "OPBUILD_OPENMP",
                                          "OPBUILD_BLAS_THREADS"))


def toolchain_env() -> tuple[str, ...]:
    """The environment variables that choose the toolchain (CC, OPBUILD_CFLAGS, OPBUILD_BLAS, OPBUILD_OPENMP,
    OPBUILD_BLAS_THREADS), raw ("" where unset): whatever caches kernels in memory or names a graph must tell
    these apart. Read on every PyNative op, hence the fast reader."""
    return _toolchain_text()


def compiler_env() -> str:
    """The CC environment variable (empty when unset)."""
    return _env("CC")


def compiler_argv() -> list[str]:
    """CC split like a shell would (empty when unset); ConfigError naming CC when it cannot be split, names no
    program, or asks for a sanitizer that cannot be loaded (see :func:`check_cflags`)."""
    raw = _env("CC")
    return list(split_cc(raw)) if raw else []


def batch_size() -> int:
    """OPBUILD_BATCH_SIZE: the most kernels one compiler call builds (default 32). Bigger batches spend less on
    compiler start-up and make fewer shared objects to open on a warm start; smaller ones spread a cold build
    over more rounds."""
    return int(BATCH_SIZE.get())


def batch_min() -> int:
    """OPBUILD_BATCH_MIN: the fewest kernels worth a compiler call of their own (default 8). A cold build of
    fewer than twice this many kernels is one batch on one job: a compiler call has a fixed cost before its
    first kernel (start-up, headers, link) worth several kernels, so a second parallel call for a handful of
    kernels spends more CPU than it saves in wall time (docs/benchmarks.md, "Cold builds", has the figures
    behind the default). 1 spreads every build over all jobs."""
    return int(BATCH_MIN.get())


def loaded_kernels() -> int:
    """OPBUILD_LOADED_KERNELS: the most kernels the process keeps loaded for reuse (default 4096), the least
    recently used dropped first (builder/memory.py; docs/cache.md, "Loaded kernels", says why a bound)."""
    return int(LOADED_KERNELS.get())


def build_jobs() -> int:
    """Parallel compile jobs: OPBUILD_BUILD_JOBS, default the number of usable cores."""
    jobs = BUILD_JOBS.get()
    if jobs:
        return int(jobs)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return max(1, os.cpu_count() or 1)


def lock_timeout() -> float:
    """Seconds to wait for another process's build of the same kernel before building it ourselves."""
    return float(LOCK_TIMEOUT.get())


def compile_timeout() -> float:
    """OPBUILD_COMPILE_TIMEOUT: seconds one compiler call may take (default 600) before it is killed with its
    children and the build fails naming the kernels of the call. A finite number > 0."""
    return float(COMPILE_TIMEOUT.get())


def cache_max_size() -> int | None:
    """OPBUILD_CACHE_MAX_SIZE (e.g. ``500M``, ``2G``): after a build that compiled something, least-recently
    used kernels are evicted until the rank's kernel_meta fits. Unset, empty or 0 means no bound (default)."""
    raw = _env("OPBUILD_CACHE_MAX_SIZE")
    if not raw:
        return None
    return _parse_max_size(raw)


@functools.lru_cache(maxsize=16)
def _parse_max_size(raw: str) -> int | None:
    try:
        size = parse_size(raw)
    except ValueError:
        raise ConfigError("OPBUILD_CACHE_MAX_SIZE", raw, "is not a size",
                          "a number of bytes with an optional K, M, G or T suffix (e.g. 500M, 2G), 0 for no bound",
                          "no bound") from None
    return size or None


def progress_enabled() -> bool:
    """OPBUILD_PROGRESS=0 hides the progress bar that long builds show on a terminal."""
    return PROGRESS.get()


def fusion_enabled() -> bool:
    """OPBUILD_FUSION=0 turns operator fusion off (passes/fusion.py, passes/epilogue.py): every elementwise op
    is its own kernel, and no MatMul/Conv2D kernel carries an epilogue.
    The setting is part of the graph-pass pipeline's identity, hence of the graph manifest key."""
    return FUSION.get()


def explain_misses() -> bool:
    """OPBUILD_EXPLAIN_MISSES=1 logs, at WARNING level, why every cache miss of a run missed."""
    return EXPLAIN_MISSES.get()


# ---- shared (remote) cache tier: see cache/shared/ and docs/cache.md -------------------------------------
def remote_cache_url() -> str:
    """OPBUILD_REMOTE_CACHE: the shared tier (``redis://host:port/db`` or ``file:///path``); empty means none.
    Raises ValueError naming the variable and the accepted forms for a URL no backend understands."""
    url = _env("OPBUILD_REMOTE_CACHE")
    if url:
        check_remote_url(url)
    return url


REMOTE_URL_FORMS = "redis://host:port/db (port 1-65535, db a number; rediss:// for TLS) or file:///absolute/path"


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (URLs are logged and shown in errors). Works on URLs that
    do not parse too (a bad port), since it is used to report those."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    netloc, slash, tail = rest.partition("/")
    user, at, host = netloc.rpartition("@")
    if at and ":" in user:
        user = user.split(":", 1)[0] + ":***"
    return f"{scheme}{sep}{user}{at}{host}{slash}{tail}"


@functools.lru_cache(maxsize=16)  # checked on every build (warm ones too): the same string is parsed once
def check_remote_url(url: str) -> None:
    """Raise ConfigError (a ValueError), naming OPBUILD_REMOTE_CACHE and the accepted forms, unless ``url`` is a
    shared-tier URL a backend understands (see :func:`opbuild.cache.shared.open_backend`). Nothing is contacted."""
    try:
        problem = _remote_url_problem(url)
    except ValueError as e:  # urllib's complaints, reworded: a bad port, or a bad IPv6 literal
        problem = "the port is not a number from 1 to 65535" if "port" in str(e).lower() else "not a valid URL"
    if problem:
        raise ConfigError("OPBUILD_REMOTE_CACHE", redact_url(url), f"is unusable ({problem})", REMOTE_URL_FORMS)


def _remote_url_problem(url: str) -> str:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            return f"a file URL names no host (got {parts.netloc!r}); use three slashes"
        if not parts.path.startswith("/"):
            return "a file URL needs an absolute path"
        return ""
    if scheme in ("redis", "rediss"):
        port = parts.port  # ValueError for a non-number or one out of range
        if port == 0:
            return "port 0 is not a port"
        if not parts.hostname:
            return "no host"
        db = parts.path.lstrip("/")
        if db and not db.isdigit():
            return f"the database {db!r} is not a number"
        return ""
    return f"unsupported scheme {parts.scheme!r}" if parts.scheme else "not a URL"


def remote_timeout() -> float:
    """OPBUILD_REMOTE_TIMEOUT: seconds any one shared-tier operation may take before the run goes local-only."""
    return float(REMOTE_TIMEOUT.get())


def remote_ttl() -> float:
    """OPBUILD_REMOTE_TTL: seconds a published shared-tier entry lives (0 or unset: until evicted)."""
    return float(REMOTE_TTL.get())


def remote_lease_ttl() -> float:
    """OPBUILD_REMOTE_LEASE_TTL: seconds a build lease lives unless renewed (its holder renews it every third
    of that while compiling), i.e. how long others wait for a holder that died before taking over."""
    return float(REMOTE_LEASE_TTL.get())


def cache_secret() -> bytes | None:
    """OPBUILD_CACHE_SECRET: the key signing local entries, shared-tier entries and archives (HMAC-SHA256);
    None when unset; a value set but empty or too short is a ConfigError (:func:`.envvalues.signing_key`)."""
    raw = os.environ.get("OPBUILD_CACHE_SECRET")
    return None if raw is None else signing_key("OPBUILD_CACHE_SECRET", raw)


RANK_SIZE = EnvNumber("RANK_SIZE", 0, integer=True, minimum=0, allow_minimum=True, maximum=1e6, unit="ranks")


def rank_size() -> int:
    """RANK_SIZE (the number of ranks of the job, as MindSpore's launchers set it); unset or empty means
    unknown (0). Used to spread ranks over a cold build; a value that is not a whole number is a ConfigError
    (a launcher's bug is reported, not guessed around)."""
    return int(RANK_SIZE.get())


_CUDA_ARCH_RE = re.compile(r"sm_[1-9][0-9]{1,2}[af]?")


def cuda_arch() -> str | None:
    """OPBUILD_CUDA_ARCH: the compute capability GPU kernels are built for where no GPU is usable (``sm_90``,
    ``sm_80``, ``sm_90a``), None when unset or empty; ConfigError naming the variable otherwise."""
    raw = _env("OPBUILD_CUDA_ARCH")
    if not raw:
        return None
    if _CUDA_ARCH_RE.fullmatch(raw) is None:
        raise ConfigError("OPBUILD_CUDA_ARCH", raw, "is not a CUDA compute capability",
                          "sm_<major><minor> such as sm_80 or sm_90 (sm_90a for arch-specific features)")
    return raw


def gpu_writeback() -> bool:
    """OPBUILD_GPU_WRITEBACK=1: a GPU graph copies every Parameter it updates back to the host after each call
    (default: the device copy stays authoritative, downloaded when the host reads it; docs/cuda.md)."""
    return GPU_WRITEBACK.get()


# ---- up-front validation ------------------------------------------------------------------------------------
# Every variable a build may read, with the accessor that validates it. A build checks them all before it does
# anything, so a bad value fails the same way on a warm build (which might never read it) as on a cold one.
# A new variable adds its row here.
_CHECKS: tuple[tuple[str, Callable[[], object]], ...] = (
    ("RANK_ID", rank_id),
    ("RANK_SIZE", rank_size),
    ("OPBUILD_CACHE_PATH", cache_root),
    ("MS_COMPILER_CACHE_PATH", cache_root),
    ("CC", compiler_argv),
    ("OPBUILD_CACHE", cache_enabled),
    ("OPBUILD_CACHE_FSYNC", cache_fsync),
    ("OPBUILD_PRELOAD", preload_enabled),
    ("OPBUILD_OPENMP", openmp_enabled),
    ("OPBUILD_EXPLAIN_MISSES", explain_misses),
    ("OPBUILD_PROGRESS", progress_enabled),
    ("OPBUILD_FUSION", fusion_enabled),
    ("OPBUILD_BLAS", blas_choice),
    ("OPBUILD_BLAS_THREADS", blas_threads),
    ("OPBUILD_CFLAGS", extra_cflags),
    ("OPBUILD_BUILD_JOBS", build_jobs),
    ("OPBUILD_BATCH_SIZE", batch_size),
    ("OPBUILD_BATCH_MIN", batch_min),
    ("OPBUILD_LOADED_KERNELS", loaded_kernels),
    ("OPBUILD_LOCK_TIMEOUT", lock_timeout),
    ("OPBUILD_COMPILE_TIMEOUT", compile_timeout),
    ("OPBUILD_CACHE_MAX_SIZE", cache_max_size),
    ("OPBUILD_REMOTE_TIMEOUT", remote_timeout),
    ("OPBUILD_REMOTE_TTL", remote_ttl),
    ("OPBUILD_REMOTE_LEASE_TTL", remote_lease_ttl),
    ("OPBUILD_CUDA_ARCH", cuda_arch),
    ("OPBUILD_GPU_WRITEBACK", gpu_writeback),
    ("OPBUILD_CACHE_SECRET", cache_secret),
)
_CHECKED_NAMES = tuple(name for name, _ in _CHECKS)
_raw_values = environment_reader(_CHECKED_NAMES)


def validate_environment() -> None:
    """Check every opbuild environment variable; :class:`ConfigError` names the first bad one, its value and
    the accepted form. Called at the start of every build; memoised on the variables' raw values, so an
    unchanged environment is one dictionary lookup per variable and no parsing."""
    _validate(_raw_values())


@functools.lru_cache(maxsize=8)
def _validate(raw: tuple[str | None, ...]) -> None:
    # ``raw`` is the memo key and says which variables are set: the accessors read the same values from the
    # environment. An unset variable means the accessor's default, which is valid by construction, so only set
    # ones are checked (on a warm start with none set this is no work at all).
    for (_, check), value in zip(_CHECKS, raw):
        if value is not None:
            check()
