"""MindSpore's Primitive base API on opbuild's primitives: attributes added/removed, io names, instance name,
the recorded-only placement attributes, check_elim, prim_attr_register, PrimitiveWithInfer/WithCheck and
constexpr. The expected values are those MindSpore 2.10 prints for its documented examples."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, ops
from opbuild.ops import Primitive, PrimitiveWithCheck, PrimitiveWithInfer, prim_attr_register


def test_add_and_del_prim_attr_return_the_primitive() -> None:
    a = ops.Add()
    assert a.add_prim_attr("attr", 1) is a and a.attrs == {"attr": 1}
    assert a.del_prim_attr("attr") is a and a.attrs == {}
    assert a.del_prim_attr("absent") is a


def test_io_names_instance_name_and_repr() -> None:
    a = ops.Add()
    assert a.init_prim_io_names(["x", "y"], ["sum"]) is None
    assert a.input_names == ["x", "y"] and a.output_names == ["sum"]
    assert a.set_prim_instance_name("add").instance_name == "add"
    assert repr(a) == "Prim[Add]"  # io names are not shown, as in MindSpore
    assert str(ops.Add().set_stage(0)) == "Prim[Add]<stage=0>"
    assert str(ops.MatMul()) == "Prim[MatMul]<transpose_a=False, transpose_b=False>"


def test_placement_attributes_are_recorded_and_checked() -> None:
    m = ops.MatMul()
    assert m.place("MS_WORKER", 0) is None
    assert m.attrs["ms_role"] == "MS_WORKER" and m.attrs["rank_id"] == 0
    assert ops.Add().set_device("GPU").primitive_target == "GPU"
    assert ops.Add().primitive_target == "CPU"
    assert ops.ReLU().recompute().attrs == {"recompute": True}
    with pytest.raises(ValueError, match="role"):
        m.place("WORKER", 0)
    with pytest.raises(ValueError, match="device_target"):
        ops.Add().set_device("TPU")
    with pytest.raises(ValueError, match="stage"):
        ops.Add().set_stage(-1)
    with pytest.raises(TypeError, match="mode"):
        ops.Add().recompute(1)


def test_recorded_attributes_do_not_change_results() -> None:
    relu = ops.ReLU().recompute().set_device("CPU").set_stage(1)
    x = Tensor(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_array_equal(relu(x).asnumpy(), [0.0, 2.0])
    grad = ops.GradOperation()(lambda t: ops.Sqrt()(relu(t)).sum())
    np.testing.assert_allclose(grad(Tensor(np.array([-1.0, 1.0], np.float32))).asnumpy(), [0.0, 0.5])


def test_prim_attr_register_and_check_elim() -> None:
    class AddN(Primitive):
        @prim_attr_register
        def __init__(self, attr1, attr2=2):
            self.init_prim_io_names(inputs=["inputs"], outputs=["sum"])

        def check_elim(self, inputs):
            return (True, inputs[0]) if len(inputs) == 1 else (False, None)

    p = AddN(1)
    assert p.name == "AddN" and p.attrs["attr1"] == 1 and p.attrs["attr2"] == 2
    assert p.input_names == ["inputs"]
    x = Tensor(np.array([1, 2, 3], np.float32))
    ok, out = p.check_elim((x,))
    assert ok and out is x
    assert ops.Add().check_elim(x) == (False, None)
    assert Primitive("add").name == "add"
    with pytest.raises(RuntimeError, match="no registered operator"):
        p(x)


def test_primitive_with_infer_and_check() -> None:
    class Same(PrimitiveWithInfer):
        @prim_attr_register
        def __init__(self):
            pass

        def infer_shape(self, x, y):
            return x

        def infer_dtype(self, x, y):
            return x

    out = Same().__infer__({"shape": [2], "dtype": ms.float32}, {"shape": [2], "dtype": ms.float32})
    assert out == {"shape": [2], "dtype": ms.float32, "value": None}

    class Rank1(PrimitiveWithCheck):
        @prim_attr_register
        def __init__(self):
            pass

        def check_shape(self, x):
            if len(x) < 1:
                raise ValueError("rank")

    Rank1().__check__({"shape": [3], "dtype": ms.float32})
    with pytest.raises(ValueError, match="rank"):
        Rank1().__check__({"shape": [], "dtype": ms.float32})


def test_constexpr_in_jit() -> None:
    @ms.constexpr
    def half(n):
        return n // 2

    @ms.jit
    def f(x):
        return ops.broadcast_to(x, (half(10),))

    assert f(Tensor([1])).shape == (5,)
    assert ms.ops.constexpr(reuse_result=False)(lambda: 3)() == 3
