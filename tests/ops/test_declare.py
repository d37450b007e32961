"""Operator declarations: one block registers an op's OpDef and ties its primitive class to it, and every
module whose code shapes an op's kernel is covered by that op's code-generator hash."""

from __future__ import annotations

import dis
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import opbuild
import opbuild.ops as ops
from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops.primitive import Primitive, declare, defop
from opbuild.ops.registry import REGISTRY, OpDef, broadcast_shapes
from opbuild.ops.sources import emitter_file as _emitter_file
from opbuild.targets.cpu import codegen as c_codegen


def _infer(attrs: dict, ins: list[TensorType]) -> list[TensorType]:
    return [ins[0]]


def _emit(k: KernelSpec) -> str:
    return "/* test */"


@pytest.fixture
def scratch_name():
    """A fresh op name, removed from the registry afterwards (the registry is process-wide)."""
    name = "ZzDeclareTest"
    yield name
    REGISTRY.pop(name, None)


def test_op_decorator_registers_and_binds(scratch_name):
    @defop(infer=_infer, emit=_emit, reference=lambda attrs, x: x, n_inputs=1, name=scratch_name)
    class Thing(Primitive):
        """A test primitive with a custom constructor."""

        def __init__(self, k: int = 3):
            super().__init__(k=k)

    opdef = REGISTRY[scratch_name]
    assert opdef.primitive is Thing and Thing.op_name == scratch_name
    assert (opdef.infer, opdef.emit, opdef.n_inputs, opdef.normalize) == (_infer, _emit, 1, None)
    assert Thing(k=5).attrs == {"k": 5} and Thing.__doc__.startswith("A test primitive")


def test_declare_derives_a_class_from_a_table_row(scratch_name):
    cls = declare(OpDef(scratch_name, _infer, _emit, lambda attrs, x: x, n_inputs=1), "Doc of the row.")
    assert cls.__name__ == scratch_name and cls.op_name == scratch_name and cls.__doc__ == "Doc of the row."
    assert REGISTRY[scratch_name].primitive is cls and issubclass(cls, Primitive)


def test_class_naming_another_op_is_rejected_and_not_registered(scratch_name):
    with pytest.raises(RuntimeError, match="names op 'Square'"):
        @defop(infer=_infer, emit=_emit, reference=lambda attrs, x: x, name=scratch_name)
        class Wrong(Primitive):
            op_name = "Square"
    assert scratch_name not in REGISTRY


def test_declaring_a_registered_name_again_fails():
    with pytest.raises(RuntimeError, match="registered twice"):
        declare(OpDef("Square", _infer, _emit, lambda attrs, x: x))
    assert REGISTRY["Square"].primitive is ops.Square


def test_every_op_has_its_primitive_class_exported_under_its_name():
    unexported = set()
    for name, opdef in REGISTRY.items():
        assert opdef.primitive is not None and opdef.primitive.op_name == name, name
        exported = getattr(ops, name, None)
        assert exported in (opdef.primitive, None), name
        if exported is None:
            unexported.add(name)
    # MindSpore has only the functional ops.clip_by_value, and keeps backward ops in its internal _grad_ops;
    # GridSample's MindSpore classes are GridSampler2D/GridSampler3D (ops/grid_sampling.py).
    assert unexported == {"ClipByValue", "GridSample", "GridSampleGrad", "ReluGrad", "ReLU6Grad", "SigmoidGrad",
                          "TanhGrad", "GeLUGrad",
                          "BiasAddGrad", "StridedSliceGrad", "MaxPoolGrad", "AvgPoolGrad", "BatchNormTraining",
                          "BatchNormGrad", "DropoutGrad", "SparseSoftmaxCrossEntropyWithLogitsGrad",
                          "FusedElementwise", "FusedRowReduce", "FusedMatMul", "FusedBatchMatMul", "FusedConv2D"}


# ---- what codegen_hash covers ----------------------------------------------------------------------------

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


def _uncovered(opdef: OpDef, hashed_files: tuple[str, ...] = ()) -> list[str]:
    """Functions and classes reached from ``opdef.emit`` whose file is neither the emitter's, codegen, nor in
    ``hashed_files``."""
    hashed = {Path(_emitter_file(opdef.emit)).resolve(), Path(c_codegen.__file__).resolve(),
              *(Path(f).resolve() for f in hashed_files)}
    return sorted(name for name, f in _reached(opdef.emit).items() if Path(f).resolve() not in hashed)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_codegen_hash_covers_every_module_the_emitter_uses(name):
    # codegen_hash hashes every file of ours the emitter reaches (ops/sources.py): a fused kernel's emitter
    # reaches the elementwise table's expressions in another module.
    opdef = REGISTRY[name]
    assert _uncovered(opdef, opdef.codegen_files()) == []


def _helper_emit(k: KernelSpec) -> str:
    return str(broadcast_shapes(k.op, k.inputs))  # a helper of ours from a module codegen_hash does not hash


def test_the_coverage_walk_finds_a_helper_in_another_module():
    opdef = OpDef("Nope", _infer, _helper_emit, lambda attrs, x: np.asarray(x))
    assert _uncovered(opdef) == ["opbuild.ops.registry.broadcast_shapes"]
