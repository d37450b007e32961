"""The ``opbuild`` argument parser and entry point: every command's arguments, and exit codes from exceptions."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .._version import __version__
from ..core import config
from ..core.errors import ConfigError, OpbuildError
from ..core.units import parse_age, parse_size
from . import cache as cache_cmds
from . import info as info_cmd
from . import run as run_cmd
from . import transfer as transfer_cmds
from .common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, UsageError


def _arg_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse`` as an argparse type: its ValueError becomes a usage error (exit 2)."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    convert.__name__ = parse.__name__.replace("parse_", "")
    return convert


def _rank_arg(text: str) -> int:
    """argparse type of ``--rank``: RANK_ID's rule (a whole number from 0 to 1e6)."""
    try:
        return int(config.RANK.parse(text))
    except ConfigError:
        raise argparse.ArgumentTypeError(f"rank must be {config.RANK.expected()}, got {text!r}") from None


def _target_arg(text: str) -> str:
    """argparse type of ``--target``: a registered target name (config.TARGETS), any case."""
    if text.upper() not in config.SUPPORTED_TARGETS:
        raise argparse.ArgumentTypeError(f"target must be one of {', '.join(config.SUPPORTED_TARGETS)}, "
                                         f"got {text!r}")
    return text.upper()


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
    p.add_argument("--target", type=_target_arg, default=d(None), metavar="NAME",
                   help="the device target whose entries to work on: CPU (.so, the default) or GPU (.cubin)")
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
    p.add_argument("--as-mindspore", action="store_true",
                   help="run a script written for MindSpore unmodified: `import mindspore` (and its submodules) "
                        "resolve to opbuild, in the script and in the processes it starts")
    p.add_argument("script", metavar="SCRIPT.py|MODEL.onnx")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS")
    p.set_defaults(func=run_cmd.cmd_run)

    p = sub.add_parser("info", parents=[common], help="version, compiler, target, cache location and size")
    p.set_defaults(func=info_cmd.cmd_info)

    cache = sub.add_parser(
        "cache", help="inspect and manage the kernel cache (kernel_meta)",
        description="Inspect and manage one rank's kernel cache: <root>/rank_N/kernel_meta.")
    csub = cache.add_subparsers(dest="cache_command", metavar="CACHE_COMMAND", required=True)

    p = csub.add_parser("ls", parents=[common], help="one row per cached kernel")
    p.add_argument("--op", metavar="NAME", help="only kernels of this op (case-insensitive)")
    p.add_argument("--sort", choices=sorted(cache_cmds.SORTS), default="name",
                   help="name (default), size (largest first), age (newest first), used (most recent first)")
    p.set_defaults(func=cache_cmds.cmd_ls)

    p = csub.add_parser("stats", parents=[common], help="entries, size, hits, misses, builds, compile time")
    p.add_argument("--zero", action="store_true", help="reset the counters")
    p.set_defaults(func=cache_cmds.cmd_stats)

    p = csub.add_parser("verify", parents=[common], help="check every entry; --repair fixes what is broken")
    p.add_argument("--repair", action="store_true",
                   help="quarantine broken entries and orphan files, delete dead temporaries")
    p.set_defaults(func=cache_cmds.cmd_verify)

    p = csub.add_parser("prune", parents=[common], help="evict least recently used entries",
                        description="Evict least recently used entries (after quarantined files and debris) "
                                    "until the cache fits --max-size, and/or every entry not used for longer "
                                    "than --older-than. Entries in use by another process are kept.")
    p.add_argument("--max-size", type=_arg_type(parse_size), metavar="SIZE",
                   help="size bound, e.g. 500M or 2G (powers of 1024); default $OPBUILD_CACHE_MAX_SIZE")
    p.add_argument("--older-than", type=_arg_type(parse_age), metavar="AGE",
                   help="remove entries not used for longer than AGE, e.g. 12h, 30d, 2w")
    p.add_argument("--dry-run", action="store_true", help="only show what would be removed")
    p.set_defaults(func=cache_cmds.cmd_prune)

    p = csub.add_parser("clear", parents=[common], help="remove every entry (asks first unless --yes)")
    p.add_argument("--all-ranks", action="store_true", help="every rank_N/kernel_meta under the cache root")
    p.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(func=cache_cmds.cmd_clear)

    p = csub.add_parser("explain", parents=[common],
                        help="why a kernel missed: the closest entry of its op and the fields that differ")
    p.add_argument("kernel", metavar="KERNEL_OR_INFO_FILE",
                   help="a kernel name (or unique prefix) in the cache, or a path to an .info file")
    p.set_defaults(func=cache_cmds.cmd_explain)

    p = csub.add_parser("export", parents=[common], help="write the cache's sound entries to a .tar.gz")
    p.add_argument("archive", metavar="FILE.tar.gz")
    p.set_defaults(func=transfer_cmds.cmd_export)

    p = csub.add_parser("import", parents=[common], help="add the entries of a .tar.gz that fit this machine")
    p.add_argument("archive", metavar="FILE.tar.gz")
    p.add_argument("--trust", action="store_true",
                   help="import an archive whose signature cannot be checked here (not signed, or "
                        "OPBUILD_CACHE_SECRET unset): its binaries will run in every later build")
    p.set_defaults(func=transfer_cmds.cmd_import)

    p = csub.add_parser("sign", parents=[common],
                        help="sign the entries written without OPBUILD_CACHE_SECRET under it (needs --trust)")
    p.add_argument("--trust", action="store_true",
                   help="vouch for every sound unsigned entry (or one signed under another secret): nobody else "
                        "could have written this folder; their binaries will run in every later build")
    p.set_defaults(func=transfer_cmds.cmd_sign)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``opbuild`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    if getattr(args, "target", None):  # every command then names, lists and checks that target's kernels
        config.set_context(device_target=args.target)
    try:
        return args.func(args)
    except (UsageError, ConfigError) as e:  # ConfigError: a bad OPBUILD_* value (or CC, RANK_ID...) named
        parser.exit(EXIT_USAGE, f"opbuild: error: {e}\n")
    except BrokenPipeError:  # `opbuild cache ls | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as e:  # a path the command cannot use: a symbolic link loop, no permission, a file for a folder
        parser.exit(EXIT_PROBLEMS, f"opbuild: error: {os_problem(e)}\n")
    except OpbuildError as e:  # the library's own errors carry their whole message
        parser.exit(EXIT_PROBLEMS, f"opbuild: error: {e}\n")
    except KeyboardInterrupt:
        return 130
    return EXIT_OK


def os_problem(e: OSError) -> str:
    """One line saying which path could not be used, why, and what to do."""
    where = f"{e.filename}: " if e.filename else ""
    hint = {40: " (a symbolic link loop: fix or remove the link)",
            13: " (no permission: run as the cache's owner or fix its permissions)"}.get(e.errno or 0, "")
    return f"cannot use {where}{e.strerror or e}{hint}"


__all__ = ["build_parser", "main", "os_problem"]
