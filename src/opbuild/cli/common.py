"""What every ``opbuild`` command shares: exit codes, the usage error, and which kernel_meta it works on
(``--path``, ``--rank``, defaulting as the runtime does through config.py)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from ..core import config
from ..core.envvalues import cache_path

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad argument that argparse could not catch (exit code 2)."""


def cache_root(args: argparse.Namespace) -> Path:
    """The cache root: ``--path``, else config's (OPBUILD_CACHE_PATH, MS_COMPILER_CACHE_PATH, the cwd)."""
    if not args.path:
        return config.cache_root()
    try:
        root = cache_path("--path", args.path)  # ~user expanded; a path that cannot be one is a usage error
    except ValueError as e:
        raise UsageError(str(e)) from None
    # A file on the way (the path itself or a parent) means no cache can ever be there: say so rather than
    # report an empty cache that "does not exist yet".
    existing = next((p for p in (root, *root.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise UsageError(f"--path {args.path}: {existing} is a file, not a directory; give the cache root (the "
                         "folder holding rank_N/) or a kernel_meta directory")
    return root


def rank(args: argparse.Namespace) -> int:
    """The rank: ``--rank``, else RANK_ID (a bad value is a usage error)."""
    if args.rank is not None:
        return args.rank
    try:
        return config.rank_id()
    except ValueError as e:
        raise UsageError(str(e)) from None


def cache_directory(args: argparse.Namespace) -> Path:
    """The kernel_meta directory the command works on: ``<root>/rank_<rank>/kernel_meta``, or ``--path``
    itself when it already names a kernel_meta directory."""
    root = cache_root(args)
    if root.name == "kernel_meta":
        return root
    return config.cache_dir(rank(args), root=root)


def target_name(args: argparse.Namespace) -> str:
    """The target whose entries the command works on: ``--target``, else ``set_context``'s (CPU)."""
    return getattr(args, "target", None) or config.device_target()


def binary_suffix(args: argparse.Namespace) -> str:
    """The binary suffix of :func:`target_name`'s entries (``.so``, ``.cubin``); imports no toolkit."""
    from ..targets import create as create_target

    return create_target(target_name(args)).binary_suffix


def all_rank_dirs(root: Path) -> list[Path]:
    """Every ``rank_N/kernel_meta`` under ``root`` in rank order (``root`` itself if it is a kernel_meta)."""
    if root.name == "kernel_meta":
        return [root]
    return sorted((p for p in root.glob("rank_*/kernel_meta") if re.fullmatch(r"rank_\d+", p.parent.name)),
                  key=lambda p: int(p.parent.name[5:]))


__all__ = ["EXIT_OK", "EXIT_PROBLEMS", "EXIT_USAGE", "UsageError", "all_rank_dirs", "binary_suffix",
           "cache_directory", "cache_root", "rank", "target_name"]
