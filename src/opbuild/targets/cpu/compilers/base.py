"""The compiler backend contract."""

from __future__ import annotations

import abc
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ....cache.statmemo import StatMemo


@dataclass
class CompileResult:
    """What a successful compile produced: the shared object, the argv used and the seconds it took."""

    binary: Path
    cmd: list[str]
    seconds: float


class Compiler(abc.ABC):
    """A backend turning one C translation unit into one shared object.

    Contract: ``identity()`` returns JSON-able data that changes whenever the produced code could change
    (resolved executable, version output, flags, linked libraries); it becomes part of every cache key.
    ``compile()`` raises CompileError (with command, output and source path) on failure and never leaves a
    partial binary at ``out_path``.
    """

    @abc.abstractmethod
    def identity(self, memo: StatMemo | None = None) -> dict: ...

    @abc.abstractmethod
    def compile(self, source: str, out_path: Path, workdir: Path, needs_blas: bool, label: str = "") -> CompileResult:
        ...

    def blas_library(self) -> str | None:
        """Path of the shared BLAS library that ``needs_blas`` kernels link (preloaded ahead of them on a warm
        start), or None when there is none to preload."""
        return None

    def toolchain_files(self) -> list[str]:
        """Files whose replacement (new inode, size or mtime) may change what this backend produces; a warm
        start validated by graph manifests (cache/manifest.py) re-checks them with one stat each."""
        return []
