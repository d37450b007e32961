"""C compiler backends, one file each. :func:`find_compiler` picks one as the CC rules say."""

from __future__ import annotations

from .base import Compiler, CompileResult
from .gcc import GccLike, find_compiler

__all__ = ["Compiler", "CompileResult", "GccLike", "find_compiler"]
