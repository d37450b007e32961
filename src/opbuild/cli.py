"""The ``opbuild`` command: ``opbuild cache ls|stats|verify|prune|clear|explain|export|import``,
``opbuild run`` (a script or an ONNX model) and ``opbuild info``.

Argument parsing and output formatting only; the work is done by ``opbuild.cache.*``. Every command takes
``--path`` (the cache root, default as the runtime: OPBUILD_CACHE_PATH, MS_COMPILER_CACHE_PATH, else the
current directory), ``--rank`` (default RANK_ID, else 0) and ``--json`` (machine-readable output on stdout).
Exit codes: 0 ok, 1 problems found (or the command could not do all it was asked), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import filelock

from . import __version__, config
from .cache import fsio, layout, stats
from .cache.admin import evict, explain, transfer, verify
from .cache.admin import scan as cache_entries
from .cache.key import kernel_name, target_identity
from .errors import ConfigError, OpbuildError
from .units import format_ago, format_size, format_time, parse_age, parse_size

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
# What asking for this machine's compiler identity can raise (no compiler, broken BLAS package, ...).
_TOOLCHAIN_ERRORS = (OpbuildError, ImportError, OSError)


class UsageError(Exception):
    """A bad argument that argparse could not catch (exit code 2)."""


# ---- output helpers -------------------------------------------------------------------------------------

def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[int] = ()) -> str:
    """Rows as an aligned plain-text table (columns in ``right`` right-aligned); no trailing spaces."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for r in cells:
        parts = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def fields(pairs: Sequence[tuple[str, Any]]) -> str:
    """``label  value`` lines with the values aligned."""
    width = max(len(k) for k, _ in pairs)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in pairs)


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, sort_keys=False, default=str))


def _err(message: str) -> None:
    print(f"opbuild: {message}", file=sys.stderr)


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def _entries(n: int, adjective: str = "") -> str:
    word = f"{adjective} entr" if adjective else "entr"
    return _plural(n, word + "y", word + "ies")


# ---- cache location -------------------------------------------------------------------------------------

def _root(args: argparse.Namespace) -> Path:
    return Path(args.path).expanduser() if args.path else config.cache_root()


def _rank(args: argparse.Namespace) -> int:
    if args.rank is not None:
        return args.rank
    try:
        return config.rank_id()
    except ValueError as e:
        raise UsageError(str(e)) from None


def cache_directory(args: argparse.Namespace) -> Path:
    """The kernel_meta directory the command works on: ``<root>/rank_<rank>/kernel_meta``, or ``--path``
    itself when it already names a kernel_meta directory."""
    root = _root(args)
    if root.name == "kernel_meta":
        return root
    return config.cache_dir(_rank(args), root=root)


def _all_rank_dirs(root: Path) -> list[Path]:
    if root.name == "kernel_meta":
        return [root]
    return sorted((p for p in root.glob("rank_*/kernel_meta") if re.fullmatch(r"rank_\d+", p.parent.name)),
                  key=lambda p: int(p.parent.name[5:]))


# ---- cache ls -------------------------------------------------------------------------------------------

_SORTS: dict[str, tuple[Callable[[cache_entries.Entry], Any], bool]] = {
    "name": (lambda e: e.name, False),
    "size": (lambda e: (e.size, e.name), True),  # largest first
    "age": (lambda e: (e.built_at, e.name), True),  # newest first
    "used": (lambda e: (e.last_used, e.name), True),  # most recently used first
}


def cmd_ls(args: argparse.Namespace) -> int:
    """`opbuild cache ls`: one row per committed kernel."""
    directory = cache_directory(args)
    listing = cache_entries.scan(directory)
    rows = listing.committed
    if args.op:
        rows = [e for e in rows if e.op.lower() == args.op.lower()]
    key, reverse = _SORTS[args.sort]
    rows = sorted(rows, key=key, reverse=reverse)
    uncommitted = len(listing.entries) - len(listing.committed)
    logical = sum(e.size for e in rows)
    on_disk = listing.disk_bytes(listing.entry_files(rows))  # hard-linked binaries of batches count once
    if args.json:
        _print_json({"directory": str(directory), "exists": listing.exists, "entries": [
            {"name": e.name, "op": e.op, "signature": cache_entries.signature(e.info()),
             "inputs": e.info().get("inputs"), "outputs": e.info().get("outputs"),
             "attrs": e.info().get("attrs"), "size": e.size, "built_at": e.built_at, "last_used": e.last_used,
             "build_seconds": e.build_seconds, "binary_links": listing.files[e.path(".so")].links
             if e.path(".so") in listing.files else 0}
            for e in rows], "bytes": logical, "disk_bytes": on_disk, "uncommitted": uncommitted})
        return EXIT_OK
    if not listing.exists:
        print(f"no kernel cache at {directory}")
        return EXIT_OK
    if rows:
        print(table(["NAME", "OP", "SHAPES", "SIZE", "BUILT", "LAST USED"],
                    [(e.name, e.op, cache_entries.signature(e.info()), format_size(e.size),
                      format_time(e.built_at), format_ago(e.last_used)) for e in rows], right=(3,)))
    what = f" of op {args.op}" if args.op else ""
    shared = f" ({format_size(on_disk)} on disk: batched builds share binaries)" if on_disk < logical else ""
    print(f"{_entries(len(rows))}{what}, {format_size(logical)}{shared} in {directory}")
    if uncommitted:
        print(f"({_entries(uncommitted, 'uncommitted')} not shown: being built, or "
              f"left by an interrupted build; `opbuild cache verify` tells which)")
    return EXIT_OK


# ---- cache stats ----------------------------------------------------------------------------------------

def cmd_stats(args: argparse.Namespace) -> int:
    """`opbuild cache stats [--zero]`: counters, entries and size."""
    directory = cache_directory(args)
    if args.zero:
        try:
            stats.zero(directory)
        except (OSError, filelock.Timeout) as e:
            _err(f"cannot reset statistics in {directory}: {e}")
            return EXIT_PROBLEMS
        if args.json:
            _print_json({"directory": str(directory), "zeroed": True})
        else:
            print(f"statistics zeroed for {directory}")
        return EXIT_OK
    listing = cache_entries.scan(directory)
    code = EXIT_OK
    try:
        data = stats.read(directory)
    except ValueError as e:
        _err(f"{e}; showing zeros (`opbuild cache stats --zero` resets it)")
        data, code = stats.empty(), EXIT_PROBLEMS
    c = data["counters"]
    # A fetch from the shared tier is neither a local hit nor a miss: it is a hit of the cache as a whole.
    lookups = c["hits"] + c["misses"] + c["remote_hits"]
    hit_rate = (c["hits"] + c["remote_hits"]) / lookups if lookups else None
    try:
        max_size = config.cache_max_size()
    except ValueError as e:
        raise UsageError(str(e)) from None
    shared = _shared_tier()
    if args.json:
        _print_json({"directory": str(directory), "entries": len(listing.committed),
                     "bytes": listing.entry_bytes, "quarantine_bytes": listing.quarantine_bytes,
                     "max_size": max_size, "since": data["since"], "updated": data["updated"],
                     "hit_rate": hit_rate, "counters": c, "shared": shared})
        return code
    size = format_size(listing.entry_bytes)
    if listing.quarantine_bytes:
        size += f" (+ {format_size(listing.quarantine_bytes)} in quarantine)"
    pairs = [
        ("cache directory", str(directory) + ("" if listing.exists else " (does not exist yet)")),
        ("entries", len(listing.committed)),
        ("size", size),
        ("max size", f"{format_size(max_size)} (OPBUILD_CACHE_MAX_SIZE)" if max_size else "off"),
        ("hits", c["hits"]),
        ("misses", c["misses"]),
        ("hit rate", f"{100 * hit_rate:.1f} %" if hit_rate is not None else "-"),
        ("builds", c["builds"]),
        ("repairs", c["repairs"]),
        ("compile seconds spent", f"{c['compile_seconds']:.2f} s"),
        ("compile seconds saved", f"{c['saved_seconds']:.2f} s"),
        ("evictions", f"{c['evictions']} ({format_size(c['evicted_bytes'])})"),
        *_shared_tier_rows(shared, c),
        ("counting since", f"{format_time(data['since'])} ({format_ago(data['since'])})" if data["since"]
         else "-"),
    ]
    print(fields(pairs))
    return code


def _shared_tier() -> dict | None:
    """The shared tier named by OPBUILD_REMOTE_CACHE and what it holds (None when unset)."""
    url = config.remote_cache_url()
    if not url:
        return None
    from .cache.shared.tier import backend_stats

    try:
        return backend_stats(url)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _shared_tier_rows(shared: dict | None, c: dict) -> list[tuple[str, Any]]:
    """`cache stats` lines of the shared tier: when OPBUILD_REMOTE_CACHE is set or this cache has used one."""
    from .cache.shared.stats import COUNTERS

    if shared is None and not any(c[k] for k in COUNTERS):
        return []
    if shared is None:
        where = "none now (OPBUILD_REMOTE_CACHE is unset)"
    elif "error" in shared:
        where = f"{shared['url']} (unreachable: {shared['error']})"
    else:
        where = f"{shared['url']}: {shared['entries']} entries, {format_size(shared['bytes'])}"
        key, others = shared.get("key_id"), [k for k in shared.get("key_ids", []) if k != shared.get("key_id")]
        if key:  # entries are kept apart per OPBUILD_CACHE_SECRET: say whose these are, and whether others exist
            where += f" (key id {key}" + (f"; entries under other key ids too: {', '.join(others)})" if others
                                          else ")")
    return [("shared tier", where), ("shared hits", c["remote_hits"]), ("shared misses", c["remote_misses"]),
            ("lease waits", c["lease_waits"]), ("shared rejected", c["remote_rejected"]),
            ("shared published", c["remote_published"]),
            ("shared fallbacks", f"{c['remote_fallbacks']} (outages: went local-only until it was back)")]


# ---- cache verify ---------------------------------------------------------------------------------------

def cmd_verify(args: argparse.Namespace) -> int:
    """`opbuild cache verify [--repair]`: every problem, one row each."""
    directory = cache_directory(args)
    report = verify.verify(directory, repair=args.repair)
    bad = report.unrepaired if args.repair else report.problems
    code = EXIT_PROBLEMS if bad else EXIT_OK
    if args.json:
        _print_json({**report.as_dict(), "ok": not bad})
        return code
    if not report.exists:
        print(f"no kernel cache at {directory}: nothing to verify")
        return EXIT_OK
    print(f"checked {_entries(report.checked)} in {directory}")
    if report.problems:
        headers = ["PROBLEM", "WHERE", "DETAIL"] + (["ACTION"] if args.repair else [])
        print(table(headers, [[p.kind, p.path, p.detail] + ([p.action] if args.repair else [])
                              for p in report.problems]))
    if report.in_progress:
        print(f"{_entries(len(report.in_progress))} being built by another process "
              f"right now (not checked)")
    if not report.problems:
        print("no problems found")
    elif args.repair:
        fixed = len(report.problems) - len(report.unrepaired)
        print(f"{_plural(len(report.problems), 'problem')} found, {fixed} repaired"
              + (f", {len(report.unrepaired)} left" if report.unrepaired else ""))
    else:
        print(f"{_plural(len(report.problems), 'problem')} found; `opbuild cache verify --repair` "
              f"quarantines broken entries and removes debris")
    return code


# ---- cache prune / clear --------------------------------------------------------------------------------

def _removal_rows(result: evict.Removal) -> list[tuple[str, str]]:
    return [(name, format_size(size)) for name, size in result.removed]


def cmd_prune(args: argparse.Namespace) -> int:
    """`opbuild cache prune`: LRU eviction to a size bound and/or an age."""
    directory = cache_directory(args)
    max_size = args.max_size
    if max_size is None and args.older_than is None:
        try:
            max_size = config.cache_max_size()
        except ValueError as e:
            raise UsageError(str(e)) from None
        if max_size is None:
            raise UsageError("cache prune needs --max-size or --older-than (or OPBUILD_CACHE_MAX_SIZE set)")
    result = evict.prune(directory, max_size, args.older_than, dry_run=args.dry_run)
    code = EXIT_PROBLEMS if result.errors else EXIT_OK
    if args.json:
        _print_json({**result.as_dict(), "max_size": max_size, "older_than": args.older_than})
        return code
    verb = "would remove" if args.dry_run else "removed"
    if (args.verbose or args.dry_run) and result.removed:
        heading = "WOULD REMOVE" if args.dry_run else "REMOVED"
        print(table([heading, "SIZE"], _removal_rows(result), right=(1,)))
    loose = len(result.removed) - result.entries_removed
    print(f"{verb} {_entries(result.entries_removed)}"
          + (f" and {_plural(loose, 'stale file')}" if loose else "")
          + f", {format_size(result.freed)}; {directory} {'would hold' if args.dry_run else 'holds'} "
          + format_size(result.bytes_after) + (f" (bound {format_size(max_size)})" if max_size else ""))
    if result.in_use:
        print(f"kept {_entries(len(result.in_use))} in use by another process: "
              + ", ".join(result.in_use))
    for e in result.errors:
        _err(e)
    return code


def cmd_clear(args: argparse.Namespace) -> int:
    """`opbuild cache clear [--all-ranks] [--yes]`: remove every entry, after asking."""
    root = _root(args)
    dirs = _all_rank_dirs(root) if args.all_ranks else [cache_directory(args)]
    plans = [(d, cache_entries.scan(d)) for d in dirs]
    n_entries = sum(len(s.entries) for _, s in plans)
    n_bytes = sum(s.total_bytes for _, s in plans)
    if not n_entries and not n_bytes:
        if args.json:
            _print_json({"directories": [str(d) for d in dirs], "removed": 0, "freed": 0, "in_use": []})
        else:
            print("nothing to clear in "
                  + (", ".join(map(str, dirs)) if dirs else f"{root} (no rank directories)"))
        return EXIT_OK
    where = str(dirs[0]) if len(dirs) == 1 else f"{len(dirs)} kernel_meta directories under {root}"
    if not args.yes:
        prompt = (f"Remove {_entries(n_entries, 'cache')} ({format_size(n_bytes)}) "
                  f"from {where}? [y/N] ")
        print(prompt, end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline()
        if not sys.stdin.isatty():
            print(answer.strip(), file=sys.stderr)  # echo a piped answer so the transcript reads well
        answer = answer.strip().lower()
        if answer not in ("y", "yes"):
            _err("clear aborted; nothing was removed (use --yes to skip this question)")
            return EXIT_PROBLEMS
    results = [evict.clear(d) for d, _ in plans]
    removed = sum(r.entries_removed for r in results)
    freed = sum(r.freed for r in results)
    in_use = [n for r in results for n in r.in_use]
    errors = [e for r in results for e in r.errors]
    if args.json:
        _print_json({"directories": [str(d) for d in dirs], "removed": removed, "freed": freed,
                     "in_use": in_use, "errors": errors})
    else:
        print(f"removed {_entries(removed)} ({format_size(freed)}) from {where}")
        if in_use:
            print(f"kept {_entries(len(in_use))} in use by another process: {', '.join(in_use)}")
        for e in errors:
            _err(e)
    return EXIT_PROBLEMS if in_use or errors else EXIT_OK


# ---- cache explain --------------------------------------------------------------------------------------

def _resolve_kernel(arg: str, directory: Path) -> tuple[bytes, str]:
    """(.info bytes, kernel name) of KERNEL_OR_INFO_FILE: a path to an entry file, or a (prefix of a) name."""
    path = Path(arg).expanduser()
    if path.is_file():
        parts = layout.split_entry_file(path.name)
        info_path = path if path.suffix == ".info" or parts is None else path.with_name(parts[0] + ".info")
        try:
            info = fsio.read_small(str(info_path))  # a FIFO or directory is refused, not waited on
        except OSError as e:
            raise UsageError(f"cannot read {info_path}: {e.strerror or e}") from None
        try:
            op = fsio.parse_json(info, str(info_path))["op"]
        except (fsio.CorruptFile, KeyError):
            raise UsageError(f"{info_path} is not a kernel descriptor (.info): not a JSON object with an "
                             "\"op\"") from None
        if not isinstance(op, str):
            raise UsageError(f"{info_path} is not a kernel descriptor (.info): its \"op\" is not a string")
        return info, parts[0] if parts else kernel_name(op, info)
    name = Path(arg).name
    for suffix in layout.entry_suffixes():
        name = name.removesuffix(suffix)
    names = [e.name for e in cache_entries.scan(directory).entries
             if e.name.startswith(name) and ".info" in e.sizes]
    if name in names:
        names = [name]
    if not names:
        raise UsageError(f"no cache entry or .info file named {arg!r} in {directory}")
    if len(names) > 1:
        raise UsageError(f"{arg!r} is ambiguous in {directory}: {', '.join(names[:5])}"
                         + (" ..." if len(names) > 5 else ""))
    try:
        return fsio.read_small(str(directory / (names[0] + ".info"))), names[0]
    except OSError as e:
        raise UsageError(f"cannot read the .info of {names[0]}: {e.strerror or e}; `opbuild cache verify "
                         "--repair` quarantines a broken entry") from None


def cmd_explain(args: argparse.Namespace) -> int:
    """`opbuild cache explain`: closest entry of the same op and the differing fields."""
    directory = cache_directory(args)
    info, name = _resolve_kernel(args.kernel, directory)
    try:
        desc = fsio.parse_json(info, f"the .info of {name}")
    except fsio.CorruptFile as e:
        raise UsageError(f"{e.strerror}: not a kernel descriptor; `opbuild cache verify --repair` quarantines "
                         "a broken entry") from None
    result = explain.explain(directory, desc, name)
    if args.json:
        _print_json({**result.as_dict(), "directory": str(directory),
                     "signature": cache_entries.signature(desc)})
        return EXIT_OK
    print(f"kernel   {name} ({result.op})  {cache_entries.signature(desc)}")
    if result.closest is None:
        print(f"no other entry of op {result.op} in {directory} to compare with: this is the first kernel of "
              f"its op (or the cache was cleared)")
        return EXIT_OK
    closest = next(e for e in cache_entries.scan(directory).committed if e.name == result.closest)
    print(f"closest  {closest.name} ({closest.op})  {cache_entries.signature(closest.info())}, "
          f"last used {format_ago(closest.last_used)}  [{_plural(result.candidates, 'candidate')}]")
    if result.identical:
        print("identical descriptors: this kernel is a cache hit")
        return EXIT_OK
    print(f"differs in {_plural(len(result.changes), 'field')} (closest -> this):")
    for line in result.lines():
        print(f"  {line}")
    return EXIT_OK


# ---- cache export / import ------------------------------------------------------------------------------

def _here() -> dict:
    """This machine's values of the machine-dependent descriptor components."""
    from .build import Builder
    from .codegen.c import ABI_VERSION

    return {"compiler": Builder().compiler().identity(), "target": target_identity(),
            "opbuild_version": __version__, "abi": ABI_VERSION}


def _codegen_hash(op: str) -> str | None:
    import opbuild.ops  # noqa: F401 - registers every op family

    from .ops.registry import REGISTRY

    opdef = REGISTRY.get(op)
    return opdef.codegen_hash() if opdef is not None else None


def cmd_export(args: argparse.Namespace) -> int:
    """`opbuild cache export FILE.tar.gz`: the rank's sound entries into an archive."""
    directory = cache_directory(args)
    if not directory.is_dir():
        raise UsageError(f"no kernel cache at {directory}")
    origin: dict[str, Any] = {"rank": None if _root(args).name == "kernel_meta" else _rank(args),
                              "host": platform.node(), "target": {"arch": platform.machine()}}
    try:
        from .build import Builder

        origin["compiler"] = Builder().compiler().identity().get("version")
    except _TOOLCHAIN_ERRORS as e:  # informational only: exporting needs no compiler
        origin["compiler"] = f"unknown ({e})"
    archive = Path(args.archive).expanduser()
    try:
        result = transfer.export(directory, archive, origin)
    except OSError as e:
        _err(f"cannot write {archive}: {e.strerror or e}")
        return EXIT_PROBLEMS
    code = EXIT_PROBLEMS if result.skipped else EXIT_OK
    if args.json:
        _print_json({**result.as_dict(), "archive_bytes": archive.stat().st_size})
        return code
    print(f"exported {_entries(len(result.entries))} ({format_size(result.bytes)}) from "
          f"{directory} to {archive} ({format_size(archive.stat().st_size)} compressed)")
    for name, reason in result.skipped:
        print(f"left out broken entry {name}: {reason}")
    if result.uncommitted:
        print(f"left out {_entries(result.uncommitted, 'uncommitted')}")
    return code


_CATEGORY_TEXT = {
    "compiler": "built by a different compiler",
    "target": "built for a different CPU target",
    "opbuild_version": "built by a different opbuild version",
    "abi": "built for a different kernel ABI",
    "codegen": "built by a different code generator",
    "damaged": "damaged",
    "incomplete": "incomplete in the archive",
    "in use": "in use by another process here",
    "write error": "not written",
}


def cmd_import(args: argparse.Namespace) -> int:
    """`opbuild cache import FILE.tar.gz`: the archive's entries that fit this machine."""
    directory = cache_directory(args)
    archive = Path(args.archive).expanduser()
    if not archive.is_file():
        raise UsageError(f"no such archive: {archive}")
    try:
        here = _here()
    except _TOOLCHAIN_ERRORS as e:
        _err(f"cannot import: this machine's compiler identity is unknown ({e})")
        return EXIT_PROBLEMS
    try:
        result = transfer.import_archive(archive, directory, here, _codegen_hash)
    except OSError as e:
        _err(f"cannot import {archive} into {directory}: {e.strerror or e}")
        return EXIT_PROBLEMS
    code = EXIT_OK if result.ok else EXIT_PROBLEMS
    if args.json:
        _print_json({**result.as_dict(), "ok": result.ok})
        return code
    if result.manifest:
        m = result.manifest
        print(f"archive {archive}: from {m.get('host', '?')} (rank {m.get('rank', '?')}, opbuild "
              f"{m.get('opbuild_version', '?')}, {format_time(m.get('created'))})")
    print(f"imported {_entries(len(result.imported) + len(result.replaced))} into {directory}"
          + (f" ({len(result.replaced)} replacing broken local entries)" if result.replaced else "")
          + (f"; {len(result.present)} already present" if result.present else ""))
    by_cat: dict[str, list[tuple[str, str]]] = {}
    for name, cat, detail in result.skipped:
        by_cat.setdefault(cat, []).append((name, detail))
    for cat, items in by_cat.items():
        details = sorted({d for _, d in items})
        print(f"skipped {_entries(len(items))} {_CATEGORY_TEXT.get(cat, cat)}: "
              + ("; ".join(details[:3]) + (" ..." if len(details) > 3 else "")))
        if cat in ("damaged", "incomplete", "in use", "write error"):
            for name, detail in items[:10]:
                print(f"  {name}: {detail}")
    for member, reason in result.rejected:
        print(f"refused archive member {member!r}: {reason}")
    if result.error:
        _err(result.error)
    return code


# ---- run / info -----------------------------------------------------------------------------------------

def _run_summary(totals) -> dict:
    """Distinct kernels of the whole run, each with the status of its first build."""
    first: dict[str, Any] = {}
    for k in totals.kernels:
        first.setdefault(k.name, k)
    by_status = {s: sum(1 for k in first.values() if k.status == s) for s in ("built", "reused", "repaired")}
    by_op: dict[str, dict[str, int]] = {}
    for k in first.values():
        row = by_op.setdefault(k.op, {"built": 0, "reused": 0, "repaired": 0})
        row[k.status] = row.get(k.status, 0) + 1
    return {"kernels": len(first), **by_status, "seconds": totals.seconds, "ops": by_op}


def cmd_run(args: argparse.Namespace) -> int:
    """`opbuild run SCRIPT.py [ARGS]` runs a script as __main__; `opbuild run MODEL.onnx [OPTIONS]` runs an ONNX
    model once (random inputs unless given) and times it. Either way the build report is printed at the end."""
    import traceback

    try:  # a bad OPBUILD_* value is a usage error, named before any work (and before the report needs it)
        config.validate_environment()
    except ConfigError as e:
        raise UsageError(str(e)) from None
    script = Path(args.script)
    if not script.is_file():
        raise UsageError(f"no such {'model' if script.suffix == '.onnx' else 'script'}: {script}")
    model_info: dict[str, Any] = {}
    if script.suffix == ".onnx":  # usage errors are raised here, before any work
        onnx_args = _onnx_run_parser().parse_args(args.args)
        given = _onnx_inputs(onnx_args.input)
    code = EXIT_OK
    try:
        if script.suffix == ".onnx":
            code = _run_onnx(script, onnx_args, given, model_info)
        else:
            _run_script(script, args.args)
    except UsageError:
        raise
    except OpbuildError as e:
        if script.suffix != ".onnx":
            traceback.print_exc()
        else:  # an unsupported model or bad input: the message says it all
            _err(str(e))
        code = 1
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # the script's own error: show it as Python would, then the report
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        from .runtime.session import session

        summary = _run_summary(session().builder.observer.totals)
        summary["cache"] = str(config.cache_dir()) if config.cache_enabled() else "off (OPBUILD_CACHE=0)"
        if model_info:
            summary["model"] = model_info
        if args.report:
            Path(args.report).write_text(json.dumps(summary, indent=2) + "\n")
        if args.json:
            print(json.dumps(summary), file=sys.stderr)
        else:
            parts = [f"{summary['reused']} reused", f"{summary['built']} built"]
            if summary["repaired"]:
                parts.append(f"{summary['repaired']} repaired")
            print(f"opbuild: {_plural(summary['kernels'], 'kernel')}: {', '.join(parts)} "
                  f"({summary['seconds']:.2f} s in builds); cache {summary['cache']}", file=sys.stderr)
            if args.verbose and summary["ops"]:
                rows = [(op, r["built"], r["reused"], r["repaired"])
                        for op, r in sorted(summary["ops"].items())]
                print(table(["OP", "BUILT", "REUSED", "REPAIRED"], rows, right=(1, 2, 3)), file=sys.stderr)
    return code


def _run_script(script: Path, argv: list[str]) -> None:
    import runpy

    sys.argv = [str(script), *argv]
    sys.path.insert(0, str(script.resolve().parent))
    runpy.run_path(str(script), run_name="__main__")


def _seconds(s: float) -> str:
    """A short duration: ``412 us``, ``3.41 ms``, ``1.25 s``."""
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.2f} s"


def _onnx_run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="opbuild run MODEL.onnx", description=(
        "Run an ONNX model once through opbuild (load, trace, build, run) and time it. Inputs not given are "
        "random: standard normal floats, integers in [0, 2), booleans; symbolic dims are 1."))
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                   help="an input's value (repeatable); the others are random")
    p.add_argument("--output-dir", metavar="DIR", help="save each output as DIR/<output name>.npy")
    p.add_argument("--repeat", type=int, default=10, metavar="N",
                   help="calls after the first to time the steady state (default 10, 0 to skip)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    return p


def _onnx_inputs(items: list[str]) -> dict[str, Any]:
    """``--input NAME=FILE.npy`` options as arrays by name."""
    import numpy as np

    given: dict[str, Any] = {}
    for item in items:
        name, sep, file = item.partition("=")
        if not sep or not name or not file:
            raise UsageError(f"--input takes NAME=FILE.npy, got {item!r}")
        try:
            given[name] = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise UsageError(f"--input {name}: cannot read {file}: {e}") from None
    return given


def _run_onnx(path: Path, opts: argparse.Namespace, given: dict[str, Any], info: dict[str, Any]) -> int:
    """Load and run an ONNX model; fills ``info`` (inputs, outputs, timings) for the report."""
    import time

    import numpy as np

    from . import onnx as opbuild_onnx

    t0 = time.perf_counter()
    model = opbuild_onnx.load(path)
    load_s = time.perf_counter() - t0
    unknown = sorted(set(given) - set(model.input_names))
    if unknown:
        raise UsageError(f"--input {', '.join(unknown)}: the model's inputs are {', '.join(model.input_names)}")
    rng = np.random.default_rng(opts.seed)
    feeds, rows = [], []
    for spec in model.inputs:
        if spec.name in given:
            arr, source = given[spec.name], "given"
        else:
            dims = [d if isinstance(d, int) else 1 for d in (spec.shape or ())]
            if spec.dtype.startswith("float"):
                arr = rng.standard_normal(dims).astype(spec.dtype)
            else:
                arr = rng.integers(0, 2, dims).astype(spec.dtype)
            source = "random"
        feeds.append(arr)
        rows.append(("input", spec.name, f"{arr.dtype}{list(arr.shape)}", source))
    t0 = time.perf_counter()
    outs = model.run(feeds)
    first_s = time.perf_counter() - t0
    steady = []
    for _ in range(max(opts.repeat, 0)):
        t0 = time.perf_counter()
        model.run(feeds)
        steady.append(time.perf_counter() - t0)
    for name, arr in zip(model.output_names, outs, strict=True):
        dest = ""
        if opts.output_dir:
            out_dir = Path(opts.output_dir)
            out_dir.mkdir(parents=True, exist_ok=True)
            dest = str(out_dir / f"{name}.npy")
            np.save(dest, arr)
        rows.append(("output", name, f"{arr.dtype}{list(arr.shape)}", dest))
    print(f"{path}: opset {model.opset}, {len(model._nodes)} nodes, "
          f"{_plural(sum(1 for _ in model.get_parameters()), 'parameter')}")
    print(table(["", "NAME", "TYPE", ""], rows))
    timing = [("load", _seconds(load_s)), ("first call", f"{_seconds(first_s)} (trace, build, run)")]
    if steady:
        timing.append(("steady state", f"{_seconds(float(np.median(steady)))} per call (median of {len(steady)})"))
    print(fields(timing))
    info.update({"path": str(path), "inputs": {r[1]: r[2] for r in rows if r[0] == "input"},
                 "outputs": {r[1]: r[2] for r in rows if r[0] == "output"}, "load_seconds": load_s,
                 "first_call_seconds": first_s, "steady_seconds": float(np.median(steady)) if steady else None})
    return EXIT_OK


def cmd_info(args: argparse.Namespace) -> int:
    """`opbuild info`: version, compiler, target, cache location and size."""
    code = EXIT_OK
    compiler: dict[str, Any] = {}
    compiler_error = ""
    try:
        from .build import Builder

        compiler = Builder().compiler().identity()
    except _TOOLCHAIN_ERRORS as e:  # no compiler is a finding to show, not a crash
        compiler_error = str(e)
        code = EXIT_PROBLEMS
    target = target_identity()
    root = _root(args)
    directory = cache_directory(args)
    listing = cache_entries.scan(directory)
    try:
        max_size = config.cache_max_size()
        explain_on = config.explain_misses()
        jobs = config.build_jobs()
        enabled = config.cache_enabled()
    except ValueError as e:
        raise UsageError(str(e)) from None
    source = next((name for name, given in (
        ("--path", args.path), ("OPBUILD_CACHE_PATH", os.environ.get("OPBUILD_CACHE_PATH", "").strip()),
        ("MS_COMPILER_CACHE_PATH", os.environ.get("MS_COMPILER_CACHE_PATH", "").strip())) if given),
        "current directory")
    info = {
        "opbuild_version": __version__, "python": platform.python_version(),
        "package": str(Path(__file__).resolve().parent),
        "compiler": compiler or None, "compiler_error": compiler_error or None, "target": target,
        "cache_enabled": enabled, "cache_root": str(root), "cache_root_source": source,
        "rank": None if root.name == "kernel_meta" else _rank(args), "cache_directory": str(directory),
        "entries": len(listing.committed), "bytes": listing.entry_bytes, "max_size": max_size,
        "explain_misses": explain_on, "build_jobs": jobs, "loop_threads": _loop_threads(compiler),
    }
    if args.json:
        _print_json(info)
        return code
    isa = target.get("isa") or []
    pairs = [
        ("opbuild", f"{__version__} (python {info['python']}, {info['package']})"),
        ("compiler", compiler.get("path", f"not found: {compiler_error}")),
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
        ("target", f"{target.get('arch', '?')}, {_plural(len(isa), 'ISA feature')}"
                   + (f" ({', '.join(isa[:8])}{', ...' if len(isa) > 8 else ''})" if isa else "")),
        ("cache", "on" if enabled else "off (OPBUILD_CACHE=0)"),
        ("cache root", f"{root} ({source})"),
        ("cache directory", f"{directory}" + ("" if listing.exists else " (does not exist yet)")),
        ("cache size", f"{_entries(len(listing.committed))}, {format_size(listing.entry_bytes)}"),
        ("cache max size", f"{format_size(max_size)}" if max_size else "off"),
        ("explain misses", "on" if explain_on else "off"),
        ("build jobs", jobs),
        ("loop threads", info["loop_threads"]),
    ]
    print(fields(pairs))
    return code


def _loop_threads(compiler: dict) -> str:
    """How many threads large elementwise loops use (codegen/c.py: parallel_for), and why."""
    if not compiler:
        return "?"
    if not compiler.get("openmp"):
        why = "OPBUILD_OPENMP=0" if not config.openmp_enabled() else "the compiler has no OpenMP runtime"
        return f"1 (no OpenMP: {why})"
    chosen = os.environ.get("OMP_NUM_THREADS", "").strip()
    return f"{chosen} (OMP_NUM_THREADS)" if chosen else f"{len(os.sched_getaffinity(0))} (every core)"


# ---- argument parsing -----------------------------------------------------------------------------------

def _arg_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        """argparse type: ValueError becomes a usage error (exit 2)."""
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    convert.__name__ = parse.__name__.replace("parse_", "")
    return convert


def _rank_arg(text: str) -> int:
    try:
        rank = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"rank must be a non-negative integer, got {text!r}") from None
    if rank < 0:
        raise argparse.ArgumentTypeError(f"rank must be a non-negative integer, got {text!r}")
    return rank


def _common(top: bool) -> argparse.ArgumentParser:
    """--path/--rank/--json/--verbose, accepted before or after the command (``SUPPRESS`` on subcommands
    keeps a value given before the command)."""
    p = argparse.ArgumentParser(add_help=False)
    d = (lambda v: v) if top else (lambda v: argparse.SUPPRESS)
    p.add_argument("--path", default=d(None), metavar="DIR",
                   help="cache root holding rank_N/ (default: $OPBUILD_CACHE_PATH, $MS_COMPILER_CACHE_PATH, "
                        "else the current directory); a kernel_meta directory is accepted too")
    p.add_argument("--rank", type=_rank_arg, default=d(None), metavar="N",
                   help="rank (default: $RANK_ID, else 0)")
    p.add_argument("--json", action="store_true", default=d(False), help="machine-readable output on stdout")
    p.add_argument("-v", "--verbose", action="store_true", default=d(False), help="more detail and INFO logs")
    return p


def build_parser() -> argparse.ArgumentParser:
    """The ``opbuild`` argument parser."""
    common = _common(top=False)
    parser = argparse.ArgumentParser(
        prog="opbuild", parents=[_common(top=True)],
        description="opbuild: inspect and manage the kernel build cache, run scripts with a build report.",
        epilog="exit codes: 0 ok, 1 problems found, 2 usage error")
    parser.add_argument("--version", action="version", version=f"opbuild {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("run", parents=[common], help="run a Python script or an ONNX model, then print the build "
                                                     "report",
                       description="Run SCRIPT.py as __main__ with ARGS, or run MODEL.onnx once (ARGS: "
                                   "[--input NAME=FILE.npy ...] [--output-dir DIR] [--repeat N] [--seed S]; "
                                   "random inputs by default) and print its outputs and timings; then print "
                                   "the build report of all the kernels built or reused on stderr. Options "
                                   "of run go before SCRIPT.")
    p.add_argument("--report", metavar="FILE", help="also write the report as JSON to FILE")
    p.add_argument("script", metavar="SCRIPT.py|MODEL.onnx")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("info", parents=[common], help="version, compiler, target, cache location and size")
    p.set_defaults(func=cmd_info)

    cache = sub.add_parser(
        "cache", help="inspect and manage the kernel cache (kernel_meta)",
        description="Inspect and manage one rank's kernel cache: <root>/rank_N/kernel_meta.")
    csub = cache.add_subparsers(dest="cache_command", metavar="CACHE_COMMAND", required=True)

    p = csub.add_parser("ls", parents=[common], help="one row per cached kernel")
    p.add_argument("--op", metavar="NAME", help="only kernels of this op (case-insensitive)")
    p.add_argument("--sort", choices=sorted(_SORTS), default="name",
                   help="name (default), size (largest first), age (newest first), used (most recent first)")
    p.set_defaults(func=cmd_ls)

    p = csub.add_parser("stats", parents=[common], help="entries, size, hits, misses, builds, compile time")
    p.add_argument("--zero", action="store_true", help="reset the counters")
    p.set_defaults(func=cmd_stats)

    p = csub.add_parser("verify", parents=[common], help="check every entry; --repair fixes what is broken")
    p.add_argument("--repair", action="store_true",
                   help="quarantine broken entries and orphan files, delete dead temporaries")
    p.set_defaults(func=cmd_verify)

    p = csub.add_parser("prune", parents=[common], help="evict least recently used entries",
                        description="Evict least recently used entries (after quarantined files and debris) "
                                    "until the cache fits --max-size, and/or every entry not used for longer "
                                    "than --older-than. Entries in use by another process are kept.")
    p.add_argument("--max-size", type=_arg_type(parse_size), metavar="SIZE",
                   help="size bound, e.g. 500M or 2G (powers of 1024); default $OPBUILD_CACHE_MAX_SIZE")
    p.add_argument("--older-than", type=_arg_type(parse_age), metavar="AGE",
                   help="remove entries not used for longer than AGE, e.g. 12h, 30d, 2w")
    p.add_argument("--dry-run", action="store_true", help="only show what would be removed")
    p.set_defaults(func=cmd_prune)

    p = csub.add_parser("clear", parents=[common], help="remove every entry (asks first unless --yes)")
    p.add_argument("--all-ranks", action="store_true", help="every rank_N/kernel_meta under the cache root")
    p.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(func=cmd_clear)

    p = csub.add_parser("explain", parents=[common],
                        help="why a kernel missed: the closest entry of its op and the fields that differ")
    p.add_argument("kernel", metavar="KERNEL_OR_INFO_FILE",
                   help="a kernel name (or unique prefix) in the cache, or a path to an .info file")
    p.set_defaults(func=cmd_explain)

    p = csub.add_parser("export", parents=[common], help="write the cache's sound entries to a .tar.gz")
    p.add_argument("archive", metavar="FILE.tar.gz")
    p.set_defaults(func=cmd_export)

    p = csub.add_parser("import", parents=[common], help="add the entries of a .tar.gz that fit this machine")
    p.add_argument("archive", metavar="FILE.tar.gz")
    p.set_defaults(func=cmd_import)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``opbuild`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    try:
        return args.func(args)
    except UsageError as e:
        parser.exit(EXIT_USAGE, f"opbuild: error: {e}\n")
    except BrokenPipeError:  # `opbuild cache ls | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
