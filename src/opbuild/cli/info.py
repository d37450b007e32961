"""``opbuild info``, and this machine's toolchain identity as the other commands need it.

:func:`compiler_identity` and :func:`machine_identity` are the one place the CLI learns the toolchain: through
:func:`opbuild.builder.toolchain_info`, which resolves (or recalls from the cache) what a build would name kernels
with, and builds nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path
from typing import Any

from .. import ops as _ops  # noqa: F401 - registers every op family (codegen_hash looks ops up)
from .._version import __version__
from ..builder import toolchain_info
from ..cache import signing
from ..cache.admin import scan as cache_entries
from ..core import config
from ..core.errors import OpbuildError
from ..core.units import format_size
from ..ops.registry import REGISTRY
from ..targets import create as create_target
from .common import EXIT_OK, EXIT_PROBLEMS, UsageError, binary_suffix, cache_directory, cache_root, rank
from .format import entries, fields, plural, print_json

#: What asking for this machine's compiler identity can raise (no compiler, broken BLAS package, ...).
TOOLCHAIN_ERRORS = (OpbuildError, ImportError, OSError)


def compiler_identity() -> dict:
    """The identity (path, version, flags, BLAS, ...) of the compiler kernels are built with here (found, or
    recorded in the cache when there is none here); raises one of :data:`TOOLCHAIN_ERRORS` when there is
    neither. Builds nothing."""
    found = toolchain_info()
    if found["compiler"] is None:
        raise OpbuildError(found["missing"] or "no C compiler found")
    return found["compiler"]


def machine_identity(store_dir: Path | None = None, require_compiler: bool = True) -> dict:
    """This machine's values of the machine-dependent descriptor components (cache/identity.py:
    ``MACHINE_COMPONENTS``; ``cache import`` compares an archive's entries with them). The compiler is the one
    found here, else the one recorded in ``store_dir`` (default: the builds' kernel_meta); with neither, one
    of :data:`TOOLCHAIN_ERRORS`, or None when ``require_compiler`` is False."""
    target = create_target(config.device_target())
    found = toolchain_info(store_dir)
    if found["compiler"] is None and require_compiler:
        raise OpbuildError(found["missing"] or "no C compiler found")
    return {"compiler": found["compiler"], "target": target.identity(),
            "opbuild_version": __version__, "abi": target.abi_version}


def codegen_hash(op: str) -> str | None:
    """This opbuild's code generator hash of ``op`` for the current target, or None for an op it cannot
    build (unknown here, or without a kernel on this target)."""
    if op not in REGISTRY:
        return None
    try:
        return create_target(config.device_target()).codegen_hash(op)
    except KeyError:
        return None


def cmd_info(args: argparse.Namespace) -> int:
    """`opbuild info`: version, compiler, target, cache location and size."""
    code = EXIT_OK
    compiler: dict[str, Any] = {}
    compiler_error = ""
    root = cache_root(args)
    directory = cache_directory(args)
    try:
        toolchain = toolchain_info(directory)
    except TOOLCHAIN_ERRORS as e:  # a broken BLAS package and the like: a finding to show, not a crash
        toolchain = {"compiler": None, "missing": str(e), "matched": "none", "target_identity": {}}
    compiler = toolchain["compiler"] or {}
    if toolchain["missing"]:  # no compiler is a finding to show, not a crash
        compiler_error = toolchain["missing"]
        code = EXIT_PROBLEMS
    target = toolchain["target_identity"] or create_target(config.device_target()).identity()
    listing = cache_entries.scan(directory, binary_suffix(args))
    try:
        max_size = config.cache_max_size()
        explain_on = config.explain_misses()
        jobs = config.build_jobs()
        enabled = config.cache_enabled()
        key = signing.key_id(config.cache_secret())
    except ValueError as e:
        raise UsageError(str(e)) from None
    source = "--path" if args.path else (config.cache_root_source() or "current directory")
    info = {
        "opbuild_version": __version__, "python": platform.python_version(),
        "package": str(Path(__file__).resolve().parent.parent),
        "compiler": compiler or None, "compiler_error": compiler_error or None, "target": target,
        "toolchain_matched": toolchain["matched"],
        "cache_enabled": enabled, "cache_root": str(root), "cache_root_source": source,
        "rank": None if root.name == "kernel_meta" else rank(args), "cache_directory": str(directory),
        "entries": len(listing.committed), "bytes": listing.entry_bytes, "max_size": max_size, "cache_key_id": key,
        "explain_misses": explain_on, "build_jobs": jobs, "loop_threads": _loop_threads(compiler),
    }
    if args.json:
        print_json(info)
        return code
    isa = target.get("isa") or []
    pairs = [
        ("opbuild", f"{__version__} (python {info['python']}, {info['package']})"),
        ("compiler", compiler.get("path") or compiler.get("library") or f"not found: {compiler_error}"),
        ("toolchain", {"compiler": "the compiler found here",
                       "recorded": "recorded in the cache (no compiler here: cached kernels run, new ones fail)",
                       "none": "none (no compiler, none recorded in the cache)"}[toolchain["matched"]]),
    ]
    if compiler:
        blas = compiler.get("blas") or {}
        pairs += [
            ("compiler version", compiler.get("version", "?")),
            ("compiler flags", " ".join(compiler.get("flags", []) + compiler.get("cflags", []))),
            ("BLAS", f"{blas['provider']}: {os.path.join(blas['lib_dir'], blas['lib'])} ({blas['sgemm']}, "
                     f"{blas['int']} sizes)" if "provider" in blas else "?"),
        ]
    pairs += [
        ("target", f"{target.get('arch', '?')}" + (f", {plural(len(isa), 'ISA feature')}" if "isa" in target else "")
                   + (f" ({', '.join(isa[:8])}{', ...' if len(isa) > 8 else ''})" if isa else "")),
        ("cache", "on" if enabled else "off (OPBUILD_CACHE=0)"),
        ("cache root", f"{root} ({source})"),
        ("cache directory", f"{directory}" + ("" if listing.exists else " (does not exist yet)")),
        ("cache size", f"{entries(len(listing.committed))}, {format_size(listing.entry_bytes)}"),
        ("cache max size", f"{format_size(max_size)}" if max_size else "off"),
        ("cache signing", "off (OPBUILD_CACHE_SECRET unset: write access to the cache is code execution)"
                          if key == signing.UNSIGNED else f"entries signed and checked (key id {key})"),
        ("explain misses", "on" if explain_on else "off"),
        ("build jobs", jobs),
        ("loop threads", info["loop_threads"]),
        ("BLAS threads", _blas_threads(compiler)),
    ]
    print(fields(pairs))
    return code


def _blas_threads(compiler: dict) -> str:
    """How many threads a GEMM uses and on which pool (targets/cpu/blas_threads.py)."""
    count = (os.environ.get("OPENBLAS_NUM_THREADS") and "OPENBLAS_NUM_THREADS") or \
        (config.omp_num_threads() and "OMP_NUM_THREADS")
    number = os.environ[count] if count else str(len(os.sched_getaffinity(0)))
    how = f"{number} ({count})" if count else f"{number} (every core)"
    if not compiler or not compiler.get("openmp") or not (compiler.get("blas") or {}).get("threads_callback"):
        return f"{how}, OpenBLAS's own pool (no OpenMP bridge with this toolchain)"
    if config.blas_threads() == "openblas":
        return f"{how}, OpenBLAS's own pool (OPBUILD_BLAS_THREADS=openmp: the loops' OpenMP pool)"
    return f"{how}, on the loops' OpenMP pool (OPBUILD_BLAS_THREADS=openmp)"


def _loop_threads(compiler: dict) -> str:
    """How many threads large elementwise loops use (targets/cpu/codegen.py: parallel_for), and why."""
    if not compiler:
        return "?"
    if not compiler.get("openmp"):
        why = "OPBUILD_OPENMP=0" if not config.openmp_enabled() else "the compiler has no OpenMP runtime"
        return f"1 (no OpenMP: {why})"
    chosen = config.omp_num_threads()
    return f"{chosen} (OMP_NUM_THREADS)" if chosen else f"{len(os.sched_getaffinity(0))} (every core)"
