"""Operator declarations: one block registers an op's OpDef and ties its primitive class to it."""

from __future__ import annotations

import pytest

import opbuild.ops as ops
from opbuild.core.ir import TensorType
from opbuild.ops import ms_prim_pooling, ms_primitives
from opbuild.ops.primitive import Primitive, declare, defop
from opbuild.ops.registry import REGISTRY, OpDef
from opbuild.ops.scatters_inplace import INPLACE_OPS


def _infer(attrs: dict, ins: list[TensorType]) -> list[TensorType]:
    return [ins[0]]


@pytest.fixture
def scratch_name():
    """A fresh op name, removed from the registry afterwards (the registry is process-wide)."""
    name = "ZzDeclareTest"
    yield name
    REGISTRY.pop(name, None)


def test_op_decorator_registers_and_binds(scratch_name):
    @defop(infer=_infer, reference=lambda attrs, x: x, n_inputs=1, name=scratch_name)
    class Thing(Primitive):
        """A test primitive with a custom constructor."""

        def __init__(self, k: int = 3):
            super().__init__(k=k)

    opdef = REGISTRY[scratch_name]
    assert opdef.primitive is Thing and Thing.op_name == scratch_name
    assert (opdef.infer, opdef.n_inputs, opdef.normalize) == (_infer, 1, None)
    assert Thing(k=5).attrs == {"k": 5} and Thing.__doc__.startswith("A test primitive")


def test_declare_derives_a_class_from_a_table_row(scratch_name):
    cls = declare(OpDef(scratch_name, _infer, lambda attrs, x: x, n_inputs=1), "Doc of the row.")
    assert cls.__name__ == scratch_name and cls.op_name == scratch_name and cls.__doc__ == "Doc of the row."
    assert REGISTRY[scratch_name].primitive is cls and issubclass(cls, Primitive)


def test_class_naming_another_op_is_rejected_and_not_registered(scratch_name):
    with pytest.raises(RuntimeError, match="names op 'Square'"):
        @defop(infer=_infer, reference=lambda attrs, x: x, name=scratch_name)
        class Wrong(Primitive):
            op_name = "Square"
    assert scratch_name not in REGISTRY


def test_declaring_a_registered_name_again_fails():
    with pytest.raises(RuntimeError, match="registered twice"):
        declare(OpDef("Square", _infer, lambda attrs, x: x))
    assert REGISTRY["Square"].primitive is ops.Square


def test_every_op_has_its_primitive_class_exported_under_its_name():
    unexported = set()
    for name, opdef in REGISTRY.items():
        assert opdef.primitive is not None and opdef.primitive.op_name == name, name
        exported = getattr(ops, name, None)
        # ops/ms_primitives.py: MindSpore's ops.GeLU is the tanh form, composed of other ops; the GeLU op
        # itself (erf) is reached through ops.gelu(approximate='none').
        # ops/ms_prim_pooling.py: MindSpore 2.10's ops.Dropout takes one input (the family op's second, the
        # seed state, is its own), so the exported class is that one, over the same op.
        overrides = {**ms_primitives.PRIMITIVES, "Dropout": ms_prim_pooling.Dropout}
        assert exported in (opdef.primitive, None) or exported is overrides.get(name), name
        if exported is None:
            unexported.add(name)
    # MindSpore has only the functional ops.clip_by_value, and keeps backward ops in its internal _grad_ops;
    # GridSample's MindSpore classes are GridSampler2D/GridSampler3D (ops/grid_sampling.py).
    assert unexported == {"ClipByValue", "GridSample", "GridSampleGrad", "ReluGrad", "ReLU6Grad", "SigmoidGrad",
                          "TanhGrad", "GeLUGrad",
                          "BiasAddGrad", "StridedSliceGrad", "MaxPoolGrad", "AvgPoolGrad", "BatchNormTraining",
                          "BatchNormGrad", "DropoutGrad", "SparseSoftmaxCrossEntropyWithLogitsGrad",
                          "FusedElementwise", "FusedRowReduce", "FusedMatMul", "FusedBatchMatMul", "FusedConv2D",
                          "FFTN",  # the FFT functions' one primitive (ops/spectral.py); MindSpore's are internal
                          "PyCall",  # the host node running Python callbacks (ops/python_calls.py)
                          "CustomGradient",  # the junction of a Cell's own bprop (ops/grad_hooks.py)
                          # MindSpore's random streams as graph kernels (ops/ms_random_ops.py)
                          "MsUniformReal", "MsUniformInt", "MsStandardNormal", "MsShufflePerm",
                          "PhiloxFill",  # the initializer fills' kernels (runtime/init_fill.py)
                          # the in-place ND scatters behind ScatterAdd/ScatterNdAdd/... (ops/scatters_inplace.py)
                          *INPLACE_OPS}
