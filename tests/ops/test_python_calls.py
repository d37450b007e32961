"""Python-calling operators (ops/python_calls.py, printing.py, custom_ops.py, grad_hooks.py, control_prims.py):
what runs when, what the graphs keep, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops
from opbuild.ops.printing import summaries


def _t(*v):
    return Tensor(np.array(v, np.float32))


def test_print_in_graph_mode_prints_at_every_run_though_nothing_reads_it(graph_mode, capsys):
    class Net(nn.Cell):
        def construct(self, x):
            ops.print_("x:", x)
            return x + 1

    net = Net()
    net(_t(1.5))
    net(_t(2.5))  # the compiled graph again: the Print node is kept by dead-code elimination and runs
    assert capsys.readouterr().out == ("x:\nTensor(shape=[1], dtype=Float32, value=[ 1.50000000e+00])\n"
                                       "x:\nTensor(shape=[1], dtype=Float32, value=[ 2.50000000e+00])\n")
    assert len(net._graphs) == 1


def test_two_prints_of_one_layout_stay_apart_in_a_loop(graph_mode, capsys):
    @ms.jit
    def f(x):
        for tag in ("a", "b"):
            ops.print_(tag)
            x = x * 2
        return x

    f(_t(1.0))
    assert capsys.readouterr().out == "a\nb\n"


def test_print_pynative_keeps_a_0d_tensor_0d(pynative_mode, capsys):
    ops.print_(Tensor(np.float32(3.0)))
    assert capsys.readouterr().out == "Tensor(shape=[], dtype=Float32, value= 3)\n"


def test_print_refuses_what_it_cannot_print():
    with pytest.raises(TypeError, match="print_: can print str, numbers and Tensors, got dict"):
        ops.print_({"a": 1})
    with pytest.raises(ValueError, match="at least one value"):
        ops.print_()


def test_summaries_keep_the_latest_value_by_tag(graph_mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.scalar, self.tensor = ops.ScalarSummary(), ops.TensorSummary()

        def construct(self, x):
            self.scalar("loss", x.sum())
            self.tensor("x", x)
            return x * 2

    Net()(_t(1.0, 2.0))
    assert float(summaries()["loss[:Scalar]"]) == 3.0
    np.testing.assert_array_equal(summaries()["x[:Tensor]"], [1.0, 2.0])
    with pytest.raises(ValueError, match="one element"):
        ops.ScalarSummary()("s", _t(1.0, 2.0))
    with pytest.raises(TypeError, match="name must be a non-empty str"):
        ops.TensorSummary()("", _t(1.0))


def test_custom_pyfunc_in_both_modes_and_refused_func_types():
    op = ops.Custom(lambda a, b: a * b + 1, lambda a, b: a, lambda a, b: a, "pyfunc")
    np.testing.assert_array_equal(op(_t(2, 3), _t(4, 5)).asnumpy(), [9, 16])
    jitted = ms.jit(lambda a, b: op(a, b) * 2)
    np.testing.assert_array_equal(jitted(_t(2, 3), _t(4, 5)).asnumpy(), [18, 32])
    np.testing.assert_array_equal(jitted(_t(1, 1), _t(1, 1)).asnumpy(), [4, 4])  # the graph again, new values
    with pytest.raises(NotImplementedError, match="func_type='aot' compiles device code"):
        ops.Custom("./add.so:add", (2,), ms.float32, "aot")
    with pytest.raises(ValueError, match="needs out_shape and out_dtype"):
        ops.Custom(lambda a: a, func_type="pyfunc")(_t(1))
    bad = ops.Custom(lambda a: np.ones(3), lambda a: a, lambda a: a, "pyfunc")
    with pytest.raises(ValueError, match=r"returned shape \[3\], \[2\] declared"):
        bad(_t(1, 2))


def test_hybrid_kernel_runs_its_loops_in_python():
    @ops.kernel
    def outer(a, b):
        c = output_tensor((a.shape[0], b.shape[1]), a.dtype)  # noqa: F821 - the DSL provides it
        for i in range(a.shape[0]):
            for j in range(b.shape[1]):
                c[i, j] = 0.0
                for k in range(a.shape[1]):
                    c[i, j] = c[i, j] + a[i, k] * b[k, j]
        return c

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(outer(a, b), a @ b)
    np.testing.assert_array_equal(ops.Custom(outer, func_type="hybrid")(Tensor(a), Tensor(b)).asnumpy(), a @ b)


def test_registration_builders_record_what_they_are_given():
    info = (ops.CustomRegOp().input(0, "x", "dynamic").output(0, "y")
            .dtype_format(ops.DataType.F16_Default, ops.DataType.F16_Default).target("CPU").get_op_info())
    assert info["op_name"] == "Custom" and info["target"] == "CPU"
    assert info["inputs"] == [{"index": 0, "name": "x", "paramType": "dynamic"}]
    assert info["outputs"] == [{"index": 0, "name": "y", "paramType": "required"}]
    assert info["dtype_format"] == [(("float16", "DefaultFormat"), ("float16", "DefaultFormat"))]
    assert ops.DataType.F32_None == ("float32", "") and ops.DataType.I64_Default_Tuple[2] == "tuple"
    tbe = ops.TBERegOp("Abs").fusion_type("ELEMWISE").kernel_name("abs").get_op_info()
    assert tbe["fusion_type"] == "ELEMWISE" and tbe["kernel_name"] == "abs"

    @ops.op_info_register(tbe)
    def abs_impl():
        return None

    assert abs_impl.op_info is tbe
    with pytest.raises(ValueError, match="target: must be 'Ascend', 'GPU' or 'CPU'"):
        ops.CustomRegOp().target("TPU")
    with pytest.raises(TypeError, match="each argument must be a DataType constant"):
        ops.CustomRegOp().dtype_format("float32")


def test_hooks_do_nothing_outside_a_gradient(pynative_mode):
    seen = []
    hook = ops.HookBackward(lambda g: seen.append(g))
    x = _t(1.0)
    assert hook(x) is x and seen == []
    with pytest.raises(TypeError, match="hook_fn must be callable"):
        ops.HookBackward(3)
    with pytest.raises(ValueError, match="returned 2 gradient"):
        ms.grad(lambda a: ops.HookBackward(lambda g: (g[0], g[0]))(a) * 2)(x)


def test_loop_primitives_and_combinators_refuse_bad_arguments():
    with pytest.raises(ValueError, match="must return a pair"):
        ops.Scan()(lambda c, x: c + x, 0, [1, 2])
    with pytest.raises(TypeError, match="no implementation registered for \\(String\\)"):
        ops.MultitypeFuncGraph("f")("a")
    with pytest.raises(ValueError, match="different lengths"):
        ops.Map()(lambda a, b: a, (1, 2), (1,))
    assert ops.HyperMap()(lambda a: a * 2, [1, (2, 3)]) == [2, (4, 6)]


def test_vmap_checks_its_axes():
    with pytest.raises(ValueError, match="different sizes"):
        ms.vmap(lambda a, b: a + b)(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 3), np.float32)))
    with pytest.raises(ValueError, match="in_axes maps no argument"):
        ms.vmap(lambda a: a, in_axes=None)(_t(1.0))
    with pytest.raises(TypeError, match="in_axes must be an int, None"):
        ms.vmap(lambda a: a, in_axes="0")
    out = ms.vmap(ms.vmap(lambda a: a * 2, in_axes=0), in_axes=1, out_axes=1)(Tensor(np.ones((2, 3), np.float32)))
    assert out.shape == (2, 3)


def test_stop_gradient_is_a_view_in_graphs(graph_mode):
    def f(x):
        return (ops.stop_gradient(x * 2) * x).sum()

    np.testing.assert_array_equal(ms.grad(f)(_t(1.0, 3.0)).asnumpy(), [2.0, 6.0])
    report = ms.build_report().as_dict()
    assert not any(k["op"] == "StopGradient" for k in report["kernels"])


def test_a_graph_of_python_calls_does_not_announce_its_build_to_other_ranks(graph_mode, monkeypatch, capsys):
    from opbuild.communication import build_plans

    def no_exchange(names):
        raise AssertionError("a graph without collectives exchanged build plans (it would wait for every rank)")

    monkeypatch.setattr(build_plans, "exchange", no_exchange)

    @ms.jit
    def f(x):
        ops.print_("rank-local", x)
        return ops.HookBackward(lambda g: None)(x * 3)

    np.testing.assert_array_equal(f(_t(1.0)).asnumpy(), [3.0])
    assert capsys.readouterr().out.startswith("rank-local")


def test_the_composite_module_path():
    import opbuild.ops.composite as C

    assert C.HyperMap is ops.HyperMap and C.MultitypeFuncGraph is ops.MultitypeFuncGraph and C.Map is ops.Map
    assert C.GradOperation is ops.GradOperation and C.zeros_like is ops.zeros_like
