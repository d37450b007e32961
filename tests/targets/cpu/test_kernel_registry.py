"""The CPU's emitter registry (targets/cpu/kernels): emitters registered by op name with the target's own
choices (BLAS, optimisation class), looked up by the target when it builds a kernel."""

from __future__ import annotations

import pytest

import opbuild.ops  # noqa: F401 - registers every op family
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.targets.cpu import CpuTarget, kernels
from opbuild.targets.cpu.kernels import registry


def test_emits_registers_one_function_for_several_ops_and_refuses_a_second(monkeypatch):
    monkeypatch.setattr(registry, "EMITTERS", {})  # the registry the decorators write

    @kernels.emits("ZzA", "ZzB", copy=True)
    def body(k):
        return "/* zz */"

    assert kernels.emitter("ZzA").fn is body and kernels.emitter("ZzB").copy
    with pytest.raises(RuntimeError, match="ZzA has two CPU emitters"):
        kernels.register("ZzA", body)


def test_the_blas_and_copy_choices_live_with_the_emitters():
    assert kernels.needs_blas("MatMul") and kernels.needs_blas("Conv2D") and kernels.needs_blas("FusedConv2D")
    assert not kernels.needs_blas("Add") and not kernels.needs_blas("NoSuchOp")
    t = TensorType((4, 5), "float32")
    assert kernels.opt_class(get_op("Transpose").spec({"perm": (1, 0)}, [t])) == "copy"
    assert kernels.opt_class(get_op("Exp").spec({}, [t])) == "compute"
    assert kernels.opt_class(get_op("MatMul").spec({}, [t, TensorType((5, 3), "float32")])) == "glue"


def test_the_target_emits_through_the_registry(monkeypatch):
    spec = get_op("Exp").spec({}, [TensorType((8,), "float32")])
    target = CpuTarget()
    assert target.emit(spec) == kernels.emitter("Exp").fn(spec)
    monkeypatch.setitem(kernels.EMITTERS, "Exp", kernels.Emitter("Exp", lambda k: "/* replaced */"))
    assert target.emit(spec) == "/* replaced */"
