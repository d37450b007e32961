"""Which source files shape an op's generated C: the one definition of "what determines the generated code".

An op's C comes from:
  * its emitter (registered by op name in targets/cpu/kernels/, where every walk starts) and every function
    and class of opbuild the emitter reaches, transitively: the globals its code (and nested code) names
    (for a module of ours used as a namespace, its file and the attributes the code names), its closure
    cells, the classes' members, and the callables held by opbuild objects among them (a table row of
    ops/ reached from an emitter, with its reference, puts its family file in the hash);
  * the C code generator module (targets/cpu/codegen.py: the kernel ABI, loops, shared helpers), the C
    prelude every translation unit starts with (targets/cpu/prelude.py) and its FFT section (fft_prelude.py,
    which pins the sha256 of the vendored pocketfft it carries), the BLAS
    thread bridge every BLAS translation unit carries (targets/cpu/blas_threads.py) and the prelude section it
    takes from targets/cpu/f16_blocks.py (C text, which the walk cannot attribute);
  * dtypes.py, whose table gives the C type names: data, which the walk cannot attribute to a file;
  * the file declaring the op in ops/ (its ``infer``'s): the op's table row or constants there may shape the
    C as data (a row's C expression), which the walk cannot attribute either.

:func:`generator_files` returns those files. Both the per-kernel key (``kernels.codegen_hash``, recorded in every
``.info``) and the graph-manifest fingerprint (cache/manifest.py) hash exactly these files, so an edit to any
of them changes every key it can affect, and an edit elsewhere changes none.

The walk reads ``co_names`` (every global and attribute name a code object uses): a superset of the globals it
loads, so it may include a file that shapes nothing (a needless rebuild after an edit), never miss one.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable, Sequence
from pathlib import Path

from ...core import dtypes
from . import blas_threads as c_blas_threads
from . import codegen as c_codegen
from . import f16_blocks, fft_prelude
from . import prelude as c_prelude

_PACKAGE = str(Path(dtypes.__file__).parent.parent) + os.sep  # opbuild's own source directory


def _module_file(name: str) -> str | None:
    return getattr(sys.modules.get(name), "__file__", None)


def reached_files(*fns: Callable) -> set[str]:
    """The source files of ``fns`` and of every function and class of opbuild that they may use (one walk:
    what several emitters share is visited once). Exceptions are left out: raising one shapes no C."""
    found: set[str] = set()
    todo: list[object] = list(fns)
    roots = {id(fn) for fn in fns}
    seen: set[int] = set()
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, (staticmethod, classmethod)):
            todo.append(v.__func__)
        elif isinstance(v, types.FunctionType):
            if id(v) not in roots and not v.__code__.co_filename.startswith(_PACKAGE):
                continue  # NumPy's, the standard library's, or code that dataclasses generate
            found.add(v.__code__.co_filename)
            codes, names = [v.__code__], set()
            while codes:
                code = codes.pop()
                names.update(code.co_names)
                codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
            g = v.__globals__
            for n in names:
                if n not in g:
                    continue
                if isinstance(g[n], types.ModuleType):
                    # A module of ours used as a namespace (``K.forward(...)`` with ``from . import
                    # conv_kernels as K``): its file, and its attributes that the code names.
                    if getattr(g[n], "__file__", None) and g[n].__file__.startswith(_PACKAGE):
                        found.add(g[n].__file__)
                        todo.extend(getattr(g[n], a) for a in names if hasattr(g[n], a))
                    continue
                todo.append(g[n])
            for cell in v.__closure__ or ():
                try:
                    todo.append(cell.cell_contents)
                except ValueError:  # an empty cell
                    pass
        elif isinstance(v, type):
            if v.__module__.startswith("opbuild") and not issubclass(v, BaseException):
                if (f := _module_file(v.__module__)) is not None:
                    found.add(f)
                todo.extend(v.__dict__.values())
                todo.extend(v.__mro__[1:])  # inherited methods (a Geometry's ConvShape) shape it too
        elif type(v).__module__.startswith("opbuild") and hasattr(v, "__dict__"):
            # A table row (Reduction, Unary) of an op family: its data (a C expression) and its callables
            # shape the C, so its class's file (where the table is written) is hashed as well.
            todo.append(type(v))
            todo.extend(vars(v).values())
        elif isinstance(v, (tuple, list)):
            todo.extend(v)
    return found


def emitter_file(fn: Callable) -> str:
    """The source file of an emitter: its module's file, else the file its code was compiled from."""
    return _module_file(getattr(fn, "__module__", None) or "") or fn.__code__.co_filename


def generator_files(*emitters: Callable, declared_in: Sequence[str] = ()) -> tuple[str, ...]:
    """Every source file whose code shapes the C that ``emitters`` generate (see the module), sorted.
    ``declared_in``: the files declaring the ops (ops/<family>.py), hashed too: an op's table row or constants
    there may shape its C as data, which no walk of code can attribute."""
    fixed = {c_codegen.__file__, c_prelude.__file__, c_blas_threads.__file__, f16_blocks.__file__, dtypes.__file__,
             fft_prelude.__file__}
    files = reached_files(*emitters) | {emitter_file(e) for e in emitters} | fixed | set(declared_in)
    return tuple(sorted(files))


__all__ = ["emitter_file", "generator_files", "reached_files"]
