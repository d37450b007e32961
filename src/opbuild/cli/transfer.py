"""``opbuild cache export|import|sign``: entries crossing a trust boundary. A rank's sound entries into a tar.gz,
an archive's entries that fit this machine back into a kernel_meta (cache/admin/transfer.py does the work), and a
kernel_meta's unsigned entries adopted under OPBUILD_CACHE_SECRET (cache/admin/adopt.py)."""

from __future__ import annotations

import argparse
import platform
from pathlib import Path
from typing import Any

from ..cache.admin import adopt, transfer
from ..cache.identity import toolchain_record_key
from ..core import config
from ..core.units import format_size, format_time
from ..targets import create as create_target
from .common import EXIT_OK, EXIT_PROBLEMS, UsageError, binary_suffix, cache_directory, cache_root, rank
from .format import entries, err, plural, print_json
from .info import TOOLCHAIN_ERRORS, codegen_hash, compiler_identity, machine_identity


def cmd_export(args: argparse.Namespace) -> int:
    """`opbuild cache export FILE.tar.gz`: the rank's sound entries into an archive."""
    directory = cache_directory(args)
    if not directory.is_dir():
        raise UsageError(f"no kernel cache at {directory}")
    origin: dict[str, Any] = {"rank": None if cache_root(args).name == "kernel_meta" else rank(args),
                              "host": platform.node(), "target": {"arch": platform.machine()}}
    try:
        origin["compiler"] = compiler_identity().get("version")
    except TOOLCHAIN_ERRORS as e:  # informational only: exporting needs no compiler
        origin["compiler"] = f"unknown ({e})"
    archive = Path(args.archive).expanduser()
    _check_destination(archive, directory)
    try:
        result = transfer.export(directory, archive, origin, binary_suffix=binary_suffix(args),
                                 secret=config.cache_secret())
    except OSError as e:
        err(f"cannot write {archive}: {e.strerror or e}")
        return EXIT_PROBLEMS
    code = EXIT_PROBLEMS if result.skipped else EXIT_OK
    if args.json:
        print_json({**result.as_dict(), "archive_bytes": archive.stat().st_size})
        return code
    print(f"exported {entries(len(result.entries))} ({format_size(result.bytes)}) from "
          f"{directory} to {archive} ({format_size(archive.stat().st_size)} compressed)")
    for name, reason in result.skipped:
        print(f"left out broken entry {name}: {reason}")
    if result.uncommitted:
        print(f"left out {entries(result.uncommitted, 'uncommitted')}")
    print("signed with OPBUILD_CACHE_SECRET" if result.signed else
          "not signed (OPBUILD_CACHE_SECRET is unset): importing it will need --trust")
    return code


def _check_destination(archive: Path, directory: Path) -> None:
    """Refuse a destination inside the cache being archived (it would land among the entries, or replace one),
    and an existing file that is no gzip archive: a mistyped name (``cache export model.ckpt``) must not
    replace the user's file. An earlier export's archive is replaced, as before."""
    where = archive.resolve()
    if where == directory.resolve() or directory.resolve() in where.parents:
        raise UsageError(f"{archive} is inside the cache it would archive ({directory}); write the archive "
                         "elsewhere")
    if not (archive.exists() or archive.is_symlink()):
        return
    magic = b""
    if archive.is_file():
        with open(archive, "rb") as f:
            magic = f.read(2)
    if magic != b"\x1f\x8b":
        raise UsageError(f"{archive} exists and is not a .tar.gz archive; export replaces only an earlier "
                         "archive: remove the file or choose another name")


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
        raise UsageError(f"no such archive: {archive}" if not archive.exists() else
                         f"{archive} is not a regular file; give the .tar.gz that `opbuild cache export` wrote")
    try:  # no compiler here: the archive's toolchain record for these settings stands in (a deployment image)
        here = machine_identity(directory, require_compiler=False)
    except TOOLCHAIN_ERRORS as e:
        err(f"cannot import: this machine's identity is unknown ({e})")
        return EXIT_PROBLEMS
    try:
        result = transfer.import_archive(archive, directory, here, codegen_hash, secret=config.cache_secret(),
                                         trust=args.trust, binary_suffix=binary_suffix(args),
                                         record_key=toolchain_record_key(create_target(config.device_target()).name))
    except OSError as e:
        err(f"cannot import {archive} into {directory}: {e.strerror or e}")
        return EXIT_PROBLEMS
    code = EXIT_OK if result.ok else EXIT_PROBLEMS
    if args.json:
        print_json({**result.as_dict(), "ok": result.ok})
        return code
    if result.refused:
        err(result.error)
        return code
    if result.error and not (result.imported or result.replaced or result.present or result.skipped):
        # Nothing could be read: the reason alone (on one line), no "imported 0 entries" before it.
        err(" ".join(line.strip(" -") for line in result.error.splitlines()))
        return code
    if result.manifest:
        m = result.manifest
        print(f"archive {archive}: from {m.get('host', '?')} (rank {m.get('rank', '?')}, opbuild "
              f"{m.get('opbuild_version', '?')}, {format_time(m.get('created'))})")
    print("signature checked with OPBUILD_CACHE_SECRET" if result.signed else "signature not checked: imported on "
          "--trust")
    if result.compiler_from_archive:
        print("no compiler here: matched the entries against the toolchain the archive records for these settings")
    print(f"imported {entries(len(result.imported) + len(result.replaced))} into {directory}"
          + (f" ({len(result.replaced)} replacing broken local entries)" if result.replaced else "")
          + (f"; {len(result.present)} already present" if result.present else ""))
    by_cat: dict[str, list[tuple[str, str]]] = {}
    for name, cat, detail in result.skipped:
        by_cat.setdefault(cat, []).append((name, detail))
    for cat, items in by_cat.items():
        details = sorted({d for _, d in items})
        print(f"skipped {entries(len(items))} {_CATEGORY_TEXT.get(cat, cat)}: "
              + ("; ".join(details[:3]) + (" ..." if len(details) > 3 else "")))
        if cat in ("damaged", "incomplete", "in use", "write error"):
            for name, detail in items[:10]:
                print(f"  {name}: {detail}")
    for member, reason in result.rejected:
        print(f"refused archive member {member!r}: {reason}")
    if result.error:
        err(result.error)
    return code

def cmd_sign(args: argparse.Namespace) -> int:
    """`opbuild cache sign --trust`: sign the sound entries written without OPBUILD_CACHE_SECRET under it."""
    secret = config.cache_secret()
    if secret is None:
        raise UsageError("cache sign signs entries under OPBUILD_CACHE_SECRET, which is not set: set it (the same "
                         "one every process sharing this cache uses) and run the command again")
    if not args.trust:
        raise UsageError("cache sign vouches for every entry it signs: whoever could write this folder could have "
                         "planted one, and a signed binary runs in every later build. If nobody else can write "
                         "it, run `opbuild cache sign --trust`; otherwise let builds quarantine and rebuild the "
                         "unsigned entries")
    directory = cache_directory(args)
    try:
        result = adopt.adopt(directory, secret, binary_suffix=binary_suffix(args))
    except OSError as e:
        err(f"cannot sign the entries of {directory}: {e.strerror or e}")
        return EXIT_PROBLEMS
    code = EXIT_PROBLEMS if result.refused else EXIT_OK
    if args.json:
        print_json({**result.as_dict(), "ok": not result.refused})
        return code
    if not result.exists:
        print(f"no kernel cache at {directory}: nothing to sign")
        return EXIT_OK
    others = len(result.resigned_from)
    print(f"signed {entries(len(result.signed))} in {directory} with key id {result.key_id}"
          + (f" ({others} had been signed under another secret)" if others else "")
          + f"; {entries(result.already)} already signed with it")
    if result.manifests_dropped:
        print(f"removed {plural(result.manifests_dropped, 'graph manifest')} naming a re-signed entry (the "
              "next warm start of each graph writes it again)")
    for name, why in result.refused:
        err(f"not signed: {name}: {why}")
    return code

