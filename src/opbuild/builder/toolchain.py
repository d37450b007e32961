"""The toolchain a build names kernels with: the compiler the settings resolve, or, when there is none, the
identity last recorded in the cache for the same settings (a warm start needs no compiler).

Recorded identity: every identity resolved from a real compiler is remembered in the store's memo
(``kernel_meta/.memo.json``, builder/stores.py: ``Stores.memo``) under :func:`record_key`
(cache/identity.py: ``toolchain_record_key``): the target and the toolchain settings that do not locate the
compiler (``OPBUILD_CFLAGS``, ``OPBUILD_BLAS``, ``OPBUILD_OPENMP``). ``cache export`` carries these records and
``cache import`` writes them, so an imported cache serves a process without a compiler as a copied one does.
``CC`` and ``PATH`` are left out on purpose: they say where to find a compiler, and a process without one (a
deployment image) has them pointing nowhere. Such a process names kernels with the recorded identity, so every
kernel built by that toolchain is found; a kernel that is not in the cache then fails with
CompilerNotFoundError naming it. With a compiler present the record is never read.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from ..cache import identity as cache_identity
from ..cache.statmemo import StatMemo
from ..core import config
from ..core.errors import CompilerNotFoundError
from ..targets import create as create_target
from ..targets.base import Target, Toolchain

RECORD_PREFIX = cache_identity.TOOLCHAIN_RECORD_PREFIX


def record_key(target: Target) -> str:
    """The memo key of the identity recorded for the current settings (see the module docstring)."""
    return cache_identity.toolchain_record_key(target.name)


class Toolchains:
    """The process's toolchain resolution, re-done whenever the settings (config.toolchain_env) change."""

    def __init__(self) -> None:
        self._compiler: Toolchain | None = None
        self._compiler_env: tuple | None = None
        self._identity: dict | None = None
        self._identity_env: tuple | None = None
        self.missing: CompilerNotFoundError | None = None  # why the current identity is a recorded one
        self._recorded: set = set()  # memo files the current identity was recorded in
        self._lock = threading.Lock()

    def compiler(self, target: Target, memo: StatMemo | None = None) -> Toolchain:
        """The compiler of the current settings, its identity computed (CompilerNotFoundError if none)."""
        env = (target.name, *config.toolchain_env())
        with self._lock:
            if self._compiler is None or env != self._compiler_env:
                compiler = target.find_compiler()
                compiler.identity(memo)
                self._compiler, self._compiler_env = compiler, env
            return self._compiler

    def identity(self, target: Target, memo: StatMemo, record: StatMemo, write: bool = True) -> dict:
        """The toolchain identity kernels are named with: the compiler's (then recorded in ``record``), or the
        one recorded in ``record`` for these settings when no compiler is found (``missing`` says why);
        CompilerNotFoundError when there is neither. ``write`` False: record nothing (``opbuild info``)."""
        env = (target.name, *config.toolchain_env())
        if self._identity is not None and env == self._identity_env:
            if write and self.missing is None and record.path not in self._recorded:
                self._record(target, record, self._identity)
            return self._identity
        try:
            identity = self.compiler(target, memo).identity()
            missing = None
            if write:
                self._record(target, record, identity)
        except CompilerNotFoundError as e:
            identity = _recalled(record, record_key(target))
            if identity is None:
                raise
            missing = e
        if env != self._identity_env:
            self._recorded = {record.path} if missing is None and write else set()
        self._identity, self._identity_env, self.missing = identity, env, missing
        return identity

    def _record(self, target: Target, record: StatMemo, identity: dict) -> None:
        self._recorded.add(record.path)
        record.remember(record_key(target), json.dumps(identity, sort_keys=True))

    def compiler_if_found(self, target: Target) -> Toolchain | None:
        """The compiler of the current settings, or None when there is none (a build served from the record)."""
        try:
            return self.compiler(target)
        except CompilerNotFoundError:
            return None


def _recalled(memo: StatMemo, key: str) -> dict | None:
    """The identity recorded under ``key``, or None (absent, or not a JSON object: the memo is an optimisation
    and hostile input alike; a wrong identity only names kernels that are not found)."""
    raw = memo.recall(key)
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


# ---- what `opbuild info` reports --------------------------------------------------------------------------
def toolchain_info(store_dir: Path | None = None) -> dict:
    """The target and the toolchain identity a build would name kernels with here, and how it was matched:
    ``{"target": name, "target_identity": {...}, "compiler": identity or None, "matched": "compiler" |
    "recorded" | "none", "missing": why no compiler was found, or None}``. ``store_dir``: the kernel_meta
    whose recorded identity counts (default: the one builds use here). Builds nothing, writes no memo."""
    target = create_target(config.device_target())
    memo = StatMemo(store_dir if store_dir is not None else config.cache_dir())
    toolchains = Toolchains()
    try:
        identity = toolchains.identity(target, memo, memo, write=False)
    except CompilerNotFoundError as e:
        return {"target": target.name, "target_identity": target.identity(), "compiler": None, "matched": "none",
                "missing": str(e)}
    missing = toolchains.missing
    return {"target": target.name, "target_identity": target.identity(), "compiler": identity,
            "matched": "recorded" if missing is not None else "compiler",
            "missing": str(missing) if missing is not None else None}


__all__ = ["RECORD_PREFIX", "Toolchains", "record_key", "toolchain_info"]
