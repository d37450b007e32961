"""Every module whose code shapes an op's CPU kernel is covered by that op's code-generator hash: an
independent walk (by bytecode) of what each registered emitter reaches, checked against the files the key
hashes (targets/cpu/sources.py)."""

from __future__ import annotations

import dis
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest

import opbuild
import opbuild.ops  # noqa: F401 - registers every op family
from opbuild.core.ir import KernelSpec
from opbuild.ops.registry import REGISTRY, broadcast_shapes
from opbuild.targets.cpu import codegen as c_codegen
from opbuild.targets.cpu import kernels
from opbuild.targets.cpu.sources import emitter_file as _emitter_file

# ---- the independent walk --------------------------------------------------------------------------------------

_OURS = str(Path(opbuild.__file__).parent) + os.sep


def _reached(fn: Callable) -> dict[str, str]:
    """Every function and class of opbuild that ``fn`` may use, transitively (the globals its code and nested
    code name, its closure cells, and the callables held by opbuild objects among them), by qualified name ->
    source file. Exceptions are left out: raising one shapes no generated code."""
    found: dict[str, str] = {}
    todo: list[object] = [fn]
    seen: set[int] = set()
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, (staticmethod, classmethod)):
            todo.append(v.__func__)
        elif isinstance(v, types.FunctionType):
            # Only code written in opbuild's files counts (not NumPy's, nor what dataclasses generate or wrap).
            if v is not fn and not v.__code__.co_filename.startswith(_OURS):
                continue
            found[f"{v.__module__}.{v.__qualname__}"] = v.__code__.co_filename
            codes, names = [v.__code__], set()
            while codes:
                code = codes.pop()
                names.update(i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL")
                codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
            todo.extend(v.__globals__[n] for n in names if n in v.__globals__)
            for cell in v.__closure__ or ():
                try:
                    todo.append(cell.cell_contents)
                except ValueError:  # an empty cell
                    pass
        elif isinstance(v, type):
            if v.__module__.startswith("opbuild") and not issubclass(v, BaseException):
                found[f"{v.__module__}.{v.__qualname__}"] = sys.modules[v.__module__].__file__
                todo.extend(v.__dict__.values())
        elif type(v).__module__.startswith("opbuild") and hasattr(v, "__dict__"):
            todo.extend(vars(v).values())  # a table row (Reduction, Unary): its callables shape the C
        elif isinstance(v, (tuple, list)):
            todo.extend(v)
    return found


def _uncovered(emit: Callable, hashed_files: tuple[str, ...] = ()) -> list[str]:
    """Functions and classes reached from the emitter ``emit`` whose file is neither the emitter's, codegen,
    nor in ``hashed_files``."""
    hashed = {Path(_emitter_file(emit)).resolve(), Path(c_codegen.__file__).resolve(),
              *(Path(f).resolve() for f in hashed_files)}
    return sorted(name for name, f in _reached(emit).items() if Path(f).resolve() not in hashed)


@pytest.mark.parametrize("name", sorted(n for n in REGISTRY if kernels.needs_kernel(n)))
def test_codegen_hash_covers_every_module_the_emitter_uses(name):
    # codegen_hash hashes every file of ours the emitter reaches (sources.py): a fused kernel's emitter
    # reaches the elementwise table's expressions in another module.
    em = kernels.emitter(name)
    assert _uncovered(em.fn, em.files()) == []


def _helper_emit(k: KernelSpec) -> str:
    return str(broadcast_shapes(k.op, k.inputs))  # a helper of ours from a module codegen_hash does not hash


def test_the_coverage_walk_finds_a_helper_in_another_module():
    assert _uncovered(_helper_emit) == ["opbuild.ops.registry.broadcast_shapes"]
