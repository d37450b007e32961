"""``opbuild cache ls|stats|verify|prune|clear|explain``: what one rank's kernel_meta holds, and keeping it sound
and bounded. The work is done by cache/admin/; this module parses nothing and only formats."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import filelock

from ..cache import fsio, layout, signing, stats
from ..cache.admin import evict, explain, standing, verify
from ..cache.admin import scan as cache_entries
from ..cache.key import kernel_name
from ..cache.shared.stats import COUNTERS
from ..cache.shared.tier import backend_stats
from ..core import config
from ..core.units import format_ago, format_size, format_time
from ..ops import operations as _families  # noqa: F401  (registers every op, so scenario_of knows them)
from ..ops.registry import SCENARIOS, scenario_of
from ..targets import create as create_target
from .common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    UsageError,
    all_rank_dirs,
    binary_suffix,
    cache_directory,
    cache_root,
    target_name,
)
from .format import entries, err, fields, plural, print_json, short_signature, table

SORTS: dict[str, tuple[Callable[[cache_entries.Entry], Any], bool]] = {
    "name": (lambda e: e.name, False),
    "size": (lambda e: (e.size, e.name), True),  # largest first
    "age": (lambda e: (e.built_at, e.name), True),  # newest first
    "used": (lambda e: (e.last_used, e.name), True),  # most recently used first
}


def _signed_key(e: cache_entries.Entry) -> str | None:
    """The key id an entry's ``.json`` is signed with (cache/signing.py), None when it carries no MAC or cannot
    be read: what ``ls`` shows; whether the MAC is right is ``verify``'s to say."""
    try:
        with open(e.path(layout.JSON_SUFFIX), "rb") as f:
            return signing.signed_key(f.read(signing.FIELD_BYTES))
    except OSError:
        return None


def _signed_column(key: str | None, ours: str) -> str:
    """``yes`` (this process's key), ``no``, or ``key <id>`` when signed under another OPBUILD_CACHE_SECRET."""
    if key is None:
        return "no"
    return "yes" if key == ours else f"key {key}"


def cmd_ls(args: argparse.Namespace) -> int:
    """`opbuild cache ls`: one row per committed kernel."""
    directory = cache_directory(args)
    listing = cache_entries.scan(directory, binary_suffix(args))  # the --target's binaries
    rows = listing.committed
    if args.op:
        rows = [e for e in rows if e.op.lower() == args.op.lower()]
    key, reverse = SORTS[args.sort]
    rows = sorted(rows, key=key, reverse=reverse)
    uncommitted = len(listing.entries) - len(listing.committed)
    logical = sum(e.size for e in rows)
    on_disk = listing.disk_bytes(listing.entry_files(rows))  # hard-linked binaries of batches count once
    ours = signing.key_id(config.cache_secret())
    signed = {e.name: _signed_key(e) for e in rows}
    if args.json:
        print_json({"directory": str(directory), "exists": listing.exists, "key_id": ours, "entries": [
            {"name": e.name, "op": e.op, "signature": cache_entries.signature(e.info()),
             "signed_key": signed[e.name],
             "inputs": e.info().get("inputs"), "outputs": e.info().get("outputs"),
             "attrs": e.info().get("attrs"), "size": e.size, "built_at": e.built_at, "last_used": e.last_used,
             "build_seconds": e.build_seconds, "scenario": scenario_of(e.op),
             "binary_links": listing.files[e.binary_path()].links
             if e.binary_path() in listing.files else 0}
            for e in rows], "bytes": logical, "disk_bytes": on_disk, "uncommitted": uncommitted})
        return EXIT_OK
    if not listing.exists:
        print(f"no kernel cache at {directory}")
        return EXIT_OK
    if rows:
        print(table(["NAME", "OP", "SCENARIO", "SHAPES", "SIZE", "BUILT", "LAST USED", "SIGNED"],
                    [(e.name, e.op, scenario_of(e.op), short_signature(e.info(), cache_entries.signature),
                      format_size(e.size), format_time(e.built_at), format_ago(e.last_used),
                      _signed_column(signed[e.name], ours)) for e in rows], right=(4,)))
    what = f" of op {args.op}" if args.op else ""
    shared = f" ({format_size(on_disk)} on disk: batched builds share binaries)" if on_disk < logical else ""
    print(f"{entries(len(rows))}{what}, {format_size(logical)}{shared} in {directory}")
    if uncommitted:
        print(f"({entries(uncommitted, 'uncommitted')} not shown: being built, or "
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
            err(f"cannot reset statistics in {directory}: {e}")
            return EXIT_PROBLEMS
        if args.json:
            print_json({"directory": str(directory), "zeroed": True})
        else:
            print(f"statistics zeroed for {directory}")
        return EXIT_OK
    listing = cache_entries.scan(directory, binary_suffix(args))
    code = EXIT_OK
    try:
        data = stats.read(directory)
    except ValueError as e:
        err(f"{e}; showing zeros (`opbuild cache stats --zero` resets it)")
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
    by_scenario = scenario_counts(listing.committed)
    if args.json:
        print_json({"directory": str(directory), "entries": len(listing.committed), "scenarios": by_scenario,
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
        ("by scenario", ", ".join(f"{n} {name}" for name, n in by_scenario.items()) or "-"),
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


def scenario_counts(committed: list[cache_entries.Entry]) -> dict[str, int]:
    """Committed entries per scenario (forward / backward / update, then "unknown" for ops this opbuild does
    not register), in that order, scenarios with no entry left out."""
    counts = {name: 0 for name in (*SCENARIOS, "unknown")}
    for e in committed:
        counts[scenario_of(e.op)] += 1
    return {name: n for name, n in counts.items() if n}


def _shared_tier() -> dict | None:
    """The shared tier named by OPBUILD_REMOTE_CACHE and what it holds (None when unset)."""
    url = config.remote_cache_url()
    if not url:
        return None
    try:
        return backend_stats(url)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _shared_tier_rows(shared: dict | None, c: dict) -> list[tuple[str, Any]]:
    """`cache stats` lines of the shared tier: when OPBUILD_REMOTE_CACHE is set or this cache has used one."""
    if shared is None and not any(c[k] for k in COUNTERS):
        return []
    if shared is None:
        where = "none now (OPBUILD_REMOTE_CACHE is unset)"
    elif "error" in shared:
        where = f"{shared['url']} (unreachable: {shared['error']})"
    else:
        where = f"{shared['url']}: {plural(shared['entries'], 'entry', 'entries')}, {format_size(shared['bytes'])}"
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
    target = create_target(target_name(args))
    report = verify.verify(directory, repair=args.repair, binary_suffix=target.binary_suffix,
                           known_blas=target.known_linked_libraries())
    bad = report.unrepaired if args.repair else report.problems
    code = EXIT_PROBLEMS if bad else EXIT_OK
    if args.json:
        print_json({**report.as_dict(), "ok": not bad})
        return code
    if not report.exists:
        print(f"no kernel cache at {directory}: nothing to verify")
        return EXIT_OK
    print(f"checked {entries(report.checked)} in {directory}")
    if report.key_id != signing.UNSIGNED:
        print(f"entries must be signed with OPBUILD_CACHE_SECRET (key id {report.key_id})")
    if report.problems:
        headers = ["PROBLEM", "WHERE", "DETAIL"] + (["ACTION"] if args.repair else [])
        print(table(headers, [[p.kind, p.path, p.detail] + ([p.action] if args.repair else [])
                              for p in report.problems]))
    if report.in_progress:
        print(f"{entries(len(report.in_progress))} being built by another process "
              f"right now (not checked)")
    if not report.problems:
        print("no problems found")
    elif args.repair:
        fixed = len(report.problems) - len(report.unrepaired)
        print(f"{plural(len(report.problems), 'problem')} found, {fixed} repaired"
              + (f", {len(report.unrepaired)} left" if report.unrepaired else ""))
    else:
        print(f"{plural(len(report.problems), 'problem')} found; `opbuild cache verify --repair` "
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
        print_json({**result.as_dict(), "max_size": max_size, "older_than": args.older_than})
        return code
    verb = "would remove" if args.dry_run else "removed"
    if (args.verbose or args.dry_run) and result.removed:
        heading = "WOULD REMOVE" if args.dry_run else "REMOVED"
        print(table([heading, "SIZE"], _removal_rows(result), right=(1,)))
    loose = len(result.removed) - result.entries_removed
    print(f"{verb} {entries(result.entries_removed)}"
          + (f" and {plural(loose, 'stale file')}" if loose else "")
          + f", {format_size(result.freed)}; {directory} {'would hold' if args.dry_run else 'holds'} "
          + format_size(result.bytes_after) + (f" (bound {format_size(max_size)})" if max_size else ""))
    if result.in_use:
        print(f"kept {entries(len(result.in_use))} in use by another process: "
              + ", ".join(result.in_use))
    for e in result.errors:
        err(e)
    return code


def cmd_clear(args: argparse.Namespace) -> int:
    """`opbuild cache clear [--all-ranks] [--yes]`: remove every entry, after asking."""
    root = cache_root(args)
    dirs = all_rank_dirs(root) if args.all_ranks else [cache_directory(args)]
    plans = [(d, cache_entries.scan(d)) for d in dirs]
    n_entries = sum(len(s.entries) for _, s in plans)
    n_bytes = sum(s.total_bytes for _, s in plans)
    if not n_entries and not n_bytes:
        if args.json:
            print_json({"directories": [str(d) for d in dirs], "removed": 0, "freed": 0, "in_use": []})
        else:
            print("nothing to clear in "
                  + (", ".join(map(str, dirs)) if dirs else f"{root} (no rank directories)"))
        return EXIT_OK
    where = str(dirs[0]) if len(dirs) == 1 else f"{len(dirs)} kernel_meta directories under {root}"
    if not args.yes:
        prompt = (f"Remove {entries(n_entries, 'cache')} ({format_size(n_bytes)}) "
                  f"from {where}? [y/N] ")
        print(prompt, end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline()
        if not sys.stdin.isatty():
            print(answer.strip(), file=sys.stderr)  # echo a piped answer so the transcript reads well
        answer = answer.strip().lower()
        if answer not in ("y", "yes"):
            err("clear aborted; nothing was removed (use --yes to skip this question)")
            return EXIT_PROBLEMS
    results = [evict.clear(d) for d, _ in plans]
    removed = sum(r.entries_removed for r in results)
    freed = sum(r.freed for r in results)
    in_use = [n for r in results for n in r.in_use]
    errors = [e for r in results for e in r.errors]
    if args.json:
        print_json({"directories": [str(d) for d in dirs], "removed": removed, "freed": freed,
                     "in_use": in_use, "errors": errors})
    else:
        print(f"removed {entries(removed)} ({format_size(freed)}) from {where}")
        if in_use:
            print(f"kept {entries(len(in_use))} in use by another process: {', '.join(in_use)}")
        for e in errors:
            err(e)
    return EXIT_PROBLEMS if in_use or errors else EXIT_OK


# ---- cache explain --------------------------------------------------------------------------------------

def _resolve_kernel(arg: str, directory: Path, suffix: str) -> tuple[bytes, str]:
    """(.info bytes, kernel name) of KERNEL_OR_INFO_FILE: a path to an entry file, or a (prefix of a) name."""
    path = Path(arg).expanduser()
    if path.is_file():
        parts = layout.split_entry_file(path.name, suffix)
        info_path = (path if path.suffix == layout.INFO_SUFFIX or parts is None
                     else path.with_name(parts[0] + layout.INFO_SUFFIX))
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
    for part in layout.entry_suffixes(suffix):
        name = name.removesuffix(part)
    if not name:  # "", "." or a bare suffix: as a prefix it would match every entry
        raise UsageError(f"{arg!r} names no kernel: give a kernel's name (or a unique start of one, as "
                         "`opbuild cache ls` prints) or the path of its .info file")
    names = [e.name for e in cache_entries.scan(directory, suffix).entries
             if e.name.startswith(name) and layout.INFO_SUFFIX in e.sizes]
    if name in names:
        names = [name]
    if not names:
        raise UsageError(f"no cache entry or .info file named {arg!r} in {directory}")
    if len(names) > 1:
        raise UsageError(f"{arg!r} is ambiguous in {directory}: {', '.join(names[:5])}"
                         + (" ..." if len(names) > 5 else ""))
    try:
        return fsio.read_small(str(directory / (names[0] + layout.INFO_SUFFIX))), names[0]
    except OSError as e:
        raise UsageError(f"cannot read the .info of {names[0]}: {e.strerror or e}; `opbuild cache verify "
                         "--repair` quarantines a broken entry") from None


def cmd_explain(args: argparse.Namespace) -> int:
    """`opbuild cache explain`: closest entry of the same op and the differing fields."""
    directory = cache_directory(args)
    info, name = _resolve_kernel(args.kernel, directory, binary_suffix(args))
    try:
        desc = fsio.parse_json(info, f"the .info of {name}")
    except fsio.CorruptFile as e:
        raise UsageError(f"{e.strerror}: not a kernel descriptor; `opbuild cache verify --repair` quarantines "
                         "a broken entry") from None
    listing = cache_entries.scan(directory, binary_suffix(args))
    result = explain.explain(directory, desc, name, listing)
    stands = standing.standing(directory, name, listing, binary_suffix(args))
    if args.json:
        print_json({**result.as_dict(), "directory": str(directory),
                     "signature": cache_entries.signature(desc), "entry": stands.as_dict()})
        return EXIT_OK
    print(f"kernel   {name} ({result.op})  {cache_entries.signature(desc)}")
    for line in stands.lines():
        print(line)
    if result.closest is None:
        print(f"no other entry of op {result.op} in {directory} to compare with: this is the first kernel of "
              f"its op (or the cache was cleared)")
        return EXIT_OK
    closest = next(e for e in listing.committed if e.name == result.closest)
    print(f"closest  {closest.name} ({closest.op})  {cache_entries.signature(closest.info())}, "
          f"last used {format_ago(closest.last_used)}  [{plural(result.candidates, 'candidate')}]")
    if result.identical:
        print("identical descriptors: this kernel is a cache hit")
        return EXIT_OK
    print(f"differs in {plural(len(result.changes), 'field')} (closest -> this):")
    for line in result.lines():
        print(f"  {line}")
    return EXIT_OK
