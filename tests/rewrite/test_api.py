"""opbuild.rewrite's own behaviour beyond the recorded cases: its errors for wrong uses, the rewritten
network's relation to the original, statements kept as written, the node table, saving, and the
``mindspore.rewrite`` path under the import alias."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from opbuild import Tensor, nn, ops
from opbuild.rewrite import Node, NodeType, ScopedValue, SymbolTree
from tests.conftest import REPO, run_python
from tests.rewrite import rewrite_cases as cases


def _x():
    return ScopedValue.create_naming_value("x")


def _lenet():
    net = cases.LeNet5()
    cases.init_weights(net)
    return net, Tensor(cases.INPUTS["LeNet5"]()[0])


def test_a_cell_without_source_is_refused_clearly():
    namespace = {"nn": nn}
    exec("class NoSource(nn.Cell):\n    def construct(self, x):\n        return x\n", namespace)  # noqa: S102
    with pytest.raises(TypeError, match=r"source of NoSource.construct cannot be read.*\.py file"):
        SymbolTree.create(namespace["NoSource"]())


def test_a_node_name_must_be_an_identifier():
    with pytest.raises(ValueError, match="'my relu' is not a Python identifier"):
        Node.create_call_cell(nn.ReLU(), ["x"], [_x()], name="my relu")


def test_an_unknown_node_name_lists_the_nodes():
    stree = SymbolTree.create(cases.ConvBlock())
    with pytest.raises(RuntimeError, match=r"no node named 'conv9'; its nodes are \['input_x', 'conv', 'relu'"):
        stree.after("conv9")
    with pytest.raises(RuntimeError, match="no node named 'nope'"):
        stree.erase("nope")


def test_a_position_of_another_tree_is_refused():
    # MindSpore returns a Position here and inserts into the wrong tree; opbuild says what is wrong.
    one, other = SymbolTree.create(cases.ConvBlock()), SymbolTree.create(cases.ConvBlock())
    with pytest.raises(RuntimeError, match="in another SymbolTree"):
        one.after(other.get_node("conv"))
    node = Node.create_call_cell(nn.ReLU(), ["x"], [_x()])
    with pytest.raises(RuntimeError, match="position belongs to another SymbolTree"):
        one.insert(other.after("conv"), node)


def test_reading_an_undefined_name_is_refused_by_get_network():
    stree = SymbolTree.create(cases.ConvBlock())
    stree.insert(stree.after("conv"), Node.create_call_cell(nn.ReLU(), ["x"], [ScopedValue.create_naming_value("y")],
                                                           name="r"))
    assert "x = self.r(y)" in stree.get_code()  # the code shows it, as MindSpore's does
    with pytest.raises(ValueError, match=r"node 'r' reads 'y', which no input or earlier node defines"):
        stree.get_network()
    stree.get_node("r").set_arg(0, "x")
    stree.get_network()


def test_the_original_network_is_left_unchanged():
    net, x = _lenet()
    before = net(x).asnumpy()
    names = [p.name for p in net.trainable_params()]
    stree = SymbolTree.create(net)
    stree.insert(stree.after("conv1"), Node.create_call_cell(nn.Tanh(), ["x"], [_x()], name="tanh"))
    stree.erase("relu")
    new = stree.get_network()
    assert isinstance(new, cases.LeNet5) and type(new) is not cases.LeNet5
    assert not hasattr(net, "tanh") and "tanh" in dict(new.name_cells())
    np.testing.assert_array_equal(net(x).asnumpy(), before)
    assert [p.name for p in net.trainable_params()] == names
    # The rewritten network trains the same Parameter objects.
    assert all(any(p is q for q in new.trainable_params()) for p in net.trainable_params())


def test_inserted_function_and_user_function_run():
    net, x = _lenet()
    stree = SymbolTree.create(net)
    node = stree.insert(stree.after("conv1"), Node.create_call_function(ops.abs, ["x"], [_x()]))
    assert node.get_node_type() == NodeType.CallFunction and node.get_instance_type() is ops.abs
    want = net.fc3(net.relu(net.fc2(net.relu(net.fc1(net.flatten(
        net.max_pool2d(net.relu(net.conv2(net.max_pool2d(net.relu(ops.abs(net.conv1(x)))))))))))))
    np.testing.assert_allclose(stree.get_network()(x).asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)


def test_loops_and_statements_of_other_shapes():
    scale = 3.0

    class Odd(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()

        def construct(self, x):
            y = x[0]
            for i in range(2):
                y = y * scale + i
            y += 1
            return self.relu(y)

    net = Odd()
    stree = SymbolTree.create(net)
    got = [(n.get_name(), n.get_node_type().name, [str(t) for t in n.get_targets()], [str(a) for a in n.get_args()])
           for n in stree.nodes()]
    # As MindSpore's: the loop is a ControlFlow node "for_node" reading its split-out iterable, an augmented
    # assignment a Python node named after its statement; a subscript (a CallMethod "subscript_var" in
    # MindSpore) is a Python node here, kept as written.
    assert got == [("input_x", "Input", ["x"], []), ("Assign", "Python", ["y"], ["x"]),
                   ("range", "CallFunction", ["range_var"], ["2"]), ("for_node", "ControlFlow", [], ["range_var"]),
                   ("AugAssign", "Python", ["y"], ["y"]), ("relu", "CallCell", ["relu_var"], ["y"]),
                   ("return", "Output", [], ["relu_var"])]
    assert [n.get_name() for n in stree.nodes(all_nodes=True)][-2:] == ["binop_mult", "binop_add"]
    code = "\n".join(line[8:] for line in stree.get_code().splitlines())
    assert "\nfor i in range_var:\n    mult_var = y * scale\n    y = mult_var + i\ny += 1\n" in code
    x = Tensor(np.arange(-3, 3, dtype=np.float32).reshape(2, 3))
    # ``scale`` is a variable of the test function: construct's closure is available to the new code.
    np.testing.assert_array_equal(stree.get_network()(x).asnumpy(), net(x).asnumpy())
    ast.parse(stree.get_code())


def test_print_node_tabulate_lists_every_node(capsys):
    stree = SymbolTree.create(cases.ConvBlock())
    stree.print_node_tabulate()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["node", "type", "name", "codes", "arg", "providers", "target", "users"]
    rows = lines[2:]
    assert [r.split()[1] for r in rows] == [n.get_name() for n in stree.nodes()]
    assert "x = self.relu(x)" in rows[2] and "{0: ('conv', 0)}" in rows[2] and "{0: [('head', 0)]}" in rows[2]


def test_save_network_to_file(tmp_path):
    stree = SymbolTree.create(cases.ConvBlock())
    stree.set_saved_file_name(str(tmp_path / "block"))
    assert stree.get_saved_file_name().endswith("block.py")
    stree.save_network_to_file()
    assert (tmp_path / "block.py").read_text() == stree.get_code()


def test_nodes_and_sub_trees():
    top = cases.Top()
    stree = SymbolTree.create(top)
    sub = stree.get_node("subnet").get_sub_tree()
    assert isinstance(sub, SymbolTree) and sub.get_origin_network() is top.subnet
    with pytest.raises(TypeError, match="should be 'NodeType.Tree', but got NodeType.CellContainer"):
        stree.get_node("seq").get_sub_tree()
    assert [n.get_name() for n in stree.all_nodes()][-3:] == ["input_x", "dense", "return"]
    assert [n.get_name() for n in stree.get_inputs()] == ["input_x"]
    lenet = SymbolTree.create(cases.LeNet5())
    assert [n.get_name() for n in lenet.nodes(all_nodes=True)][-1] == "return"  # inside the if branch
    fc1 = lenet.get_node("fc1")
    assert {k: [(u.get_name(), i) for u, i in v] for k, v in fc1.get_target_users().items()} == {0: [("relu_2", 0)]}
    assert {k: (n.get_name(), i) for k, (n, i) in lenet.get_node("relu_2").get_arg_providers().items()} == {
        0: ("fc1", 0)}


def test_mindspore_rewrite_under_the_alias(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        "import opbuild\nopbuild.alias_mindspore()\n"
        "from mindspore import nn\nfrom mindspore.rewrite import SymbolTree\n"
        "import mindspore.rewrite.api.symbol_tree as st\n"
        "class ReLUNet(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
        "        self.relu = nn.ReLU()\n\n    def construct(self, x):\n        y = self.relu(x=x)\n        return y\n"
        "stree = SymbolTree.create(ReLUNet())\n"
        "print(st.SymbolTree is SymbolTree, stree.get_node('relu').get_kwargs())\n")
    out = run_python(str(script), cwd=tmp_path, env={"PYTHONPATH": str(REPO / "src")}).stdout
    assert out.strip() == "True {'x': x}"


def test_an_inserted_input_keeps_its_default():
    # MindSpore 2.10 writes such a parameter as ``scale=None`` whatever the default; opbuild writes the default.
    net = cases.ConvBlock()
    cases.init_weights(net)
    x = Tensor(cases.INPUTS["ConvBlock"]()[0])
    stree = SymbolTree.create(net)
    node = stree.insert(stree.after("input_x"), Node.create_input("scale", ScopedValue.create_variable_value(2.0)))
    assert node.get_name() == "input_scale" and node.get_node_type() == NodeType.Input
    assert [n.get_name() for n in stree.get_inputs()] == ["input_x", "input_scale"]
    scale = ScopedValue.create_naming_value("scale")
    mul = stree.insert(stree.after("head"), Node.create_call_function(ops.mul, ["x"], [_x(), scale]))
    assert [n.get_name() for n in mul.get_inputs()] == ["head", "input_scale"]
    assert "def construct(self, x, scale=2.0):" in stree.get_code()
    new = stree.get_network()
    np.testing.assert_allclose(new(x).asnumpy(), 2 * net(x).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(new(x, 3.0).asnumpy(), 3 * net(x).asnumpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="already has a parameter scale"):
        stree.insert(stree.after("input_x"), Node.create_input("scale"))
    with pytest.raises(RuntimeError, match="parameter of construct, which cannot be erased"):
        stree.erase("input_scale")


def test_an_inserted_sub_network_is_rewritable():
    net = cases.ConvBlock()
    cases.init_weights(net)
    x = Tensor(cases.INPUTS["ConvBlock"]()[0])
    stree = SymbolTree.create(net)
    fused = cases.FusedConvReLU(nn.Conv2d(2, 2, 1, weight_init="ones", has_bias=False))
    node = stree.insert(stree.after("head"), Node.create_call_cell(fused, ["x"], [_x()], name="post",
                                                                   is_sub_net=True))
    assert node.get_node_type() == NodeType.Tree
    sub = node.get_sub_tree()
    assert [n.get_name() for n in sub.nodes()] == ["input_x", "conv", "relu", "return"]
    sub.erase("relu")
    sub.get_node("return").set_arg(0, "conv_var")
    got = stree.get_network()(x).asnumpy()
    head = net(x).asnumpy()
    np.testing.assert_allclose(got, np.repeat(head.sum(axis=1, keepdims=True), 2, axis=1), rtol=1e-5, atol=1e-6)


def test_an_if_and_its_else_stay_together():
    stree = SymbolTree.create(cases.Loop())
    assert [n.get_name() for n in stree.nodes()][3:5] == ["if_node", "else_node"]
    relu = Node.create_call_cell(nn.ReLU(), ["x"], [_x()])
    with pytest.raises(ValueError, match="between an if and its else"):
        stree.insert(stree.after("if_node"), relu)
    with pytest.raises(ValueError, match="between an if and its else"):
        stree.insert(stree.before("else_node"), relu)
    stree.erase("if_node")
    assert [n.get_name() for n in stree.nodes()] == ["input_x", "range", "for_node", "relu_1", "return"]
    assert "else" not in stree.get_code()
    # The loop runs as written: two dense layers in turn, then the last ReLU.
    net = stree.get_origin_network()
    x = Tensor(cases.INPUTS["Loop"]()[0])
    np.testing.assert_allclose(stree.get_network()(x).asnumpy(), net.relu(net.dense(net.dense(x))).asnumpy(),
                               rtol=1e-6)


def test_the_classes_are_top_level_names_as_in_mindspore():
    import opbuild
    import opbuild.rewrite as rewrite

    assert opbuild.rewrite is rewrite
    for name in rewrite.__all__:
        assert getattr(opbuild, name) is getattr(rewrite, name)
        assert name in opbuild.__all__
