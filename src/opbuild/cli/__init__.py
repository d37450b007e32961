"""The ``opbuild`` command: ``opbuild cache ls|stats|verify|prune|clear|explain|export|import|sign``,
``opbuild run`` (a script or an ONNX model) and ``opbuild info``.

Argument parsing and output formatting only; the work is done by ``opbuild.cache.*``. Modules: :mod:`.parser`
(``main``, ``build_parser``), :mod:`.format`, :mod:`.common` (exit codes, which kernel_meta), :mod:`.cache`
(ls, stats, verify, prune, clear, explain), :mod:`.transfer` (export, import), :mod:`.run`, :mod:`.info`.
Every command takes ``--path`` (the cache root, default as the runtime: OPBUILD_CACHE_PATH,
MS_COMPILER_CACHE_PATH, else the current directory), ``--rank`` (default RANK_ID, else 0) and ``--json``
(machine-readable output on stdout). Exit codes: 0 ok, 1 problems found (or the command could not do all it
was asked), 2 usage error.
"""

from .parser import build_parser, main

__all__ = ["build_parser", "main"]
