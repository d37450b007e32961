"""A new node's targets become the left side of an assignment in the generated construct: a target that is
no plain variable name is refused when the node is created, naming it, instead of surfacing as a SyntaxError
in generated code or (``self``) silently rebinding the network inside construct."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild import Tensor, nn, ops
from opbuild.rewrite import Node, ScopedValue, SymbolTree
from tests.rewrite import rewrite_cases as cases


@pytest.mark.parametrize("target", ["a b", "1y", "self", "lambda", "x.y",
                                    ScopedValue.create_naming_value("relu", "self"),
                                    ScopedValue.create_variable_value(3)])
@pytest.mark.parametrize("create", ["cell", "function"])
def test_a_target_that_is_not_a_variable_is_refused(target, create):
    x = ScopedValue.create_naming_value("x")
    with pytest.raises(ValueError, match=r"each target must name a variable .* got '.*'"):
        if create == "cell":
            Node.create_call_cell(nn.ReLU(), [target], [x], name="r2")
        else:
            Node.create_call_function(ops.abs, [target], [x])


def test_a_variable_target_still_rewrites():
    net = cases.LeNet5()
    cases.init_weights(net)
    inputs = Tensor(cases.INPUTS["LeNet5"]()[0])
    tree = SymbolTree.create(net)
    relu = tree.get_node("relu")
    tree.insert(tree.after(relu), Node.create_call_function(ops.abs, ["x"], [ScopedValue.create_naming_value("x")]))
    np.testing.assert_array_equal(tree.get_network()(inputs).asnumpy(), net(inputs).asnumpy())
