"""Which source files of opbuild a code generator's functions reach: the walk both targets key their kernels on
(``targets/cpu/sources.py`` for the C, ``targets/cuda/kernels/registry.py`` for the CUDA C).

From an emitter, every function and class of opbuild it may use, transitively: the globals its code (and
nested code) names (for a module of ours used as a namespace, its file and the attributes the code names), its
closure cells, the classes' members, and the callables held by opbuild objects among them (a table row of
ops/ reached from an emitter, with its reference, puts its family file in the hash). It reads ``co_names``
(every global and attribute name a code object uses): a superset of the globals it loads, so it may include
a file that shapes nothing (a needless rebuild after an edit), never miss one. Data a walk of code cannot
attribute (a prelude's C text, a table's C expression read as data) is named by each target itself.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from pathlib import Path

from ..core import dtypes

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


__all__ = ["emitter_file", "reached_files"]
