"""A registered Parameter or sub-cell attribute is not silently replaced by a value of another kind, as in
MindSpore 2.10 (checked on its CPU build: ``self.w = 0.5`` on a Parameter attribute and ``self.sub = 3`` on a
sub-cell raise TypeError, a Parameter in place of a cell or a cell in place of a Parameter KeyError, and a
Parameter or cell named with a '.' KeyError). opbuild used to drop the Parameter from the network, so that
``parameters_dict()``, optimizers built later and checkpoints lost it without a word, and ``a.b`` made a
parameter name that a checkpoint cannot tell from the parameter ``b`` of a sub-cell ``a``."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild import Parameter, ParameterTuple, Tensor, nn


def _p(value: float, name: str | None = None) -> Parameter:
    return Parameter(Tensor(np.full(2, value, np.float32)), name=name)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = _p(1.0)
        self.sub = nn.Dense(2, 2)

    def construct(self, x):
        return self.sub(x * self.w)


NAMES = ["sub.bias", "sub.weight", "w"]


@pytest.mark.parametrize("value", ["str", 2.5, np.ones(2, np.float32), [1.0, 2.0], (1, 2)])
def test_a_parameter_attribute_refuses_a_plain_value(value) -> None:
    net = _Net()
    with pytest.raises(TypeError, match=r"_Net.w is a Parameter of the network: assigning a "):
        net.w = value
    assert sorted(net.parameters_dict()) == NAMES and isinstance(net.w, Parameter)


@pytest.mark.parametrize("value", [3, "s", Tensor(np.ones(2, np.float32))])
def test_a_sub_cell_attribute_refuses_a_plain_value(value) -> None:
    net = _Net()
    with pytest.raises(TypeError, match=r"_Net.sub is a sub-cell of the network: assigning a "):
        net.sub = value
    assert sorted(net.parameters_dict()) == NAMES and isinstance(net.sub, nn.Dense)


def test_a_parameter_and_a_cell_do_not_take_each_others_place() -> None:
    net = _Net()
    with pytest.raises(KeyError, match=r"_Net.sub is a sub-cell of the network: assigning a Parameter"):
        net.sub = _p(2.0)
    with pytest.raises(KeyError, match=r"_Net.w is a Parameter of the network: assigning a cell"):
        net.w = nn.ReLU()
    assert sorted(net.parameters_dict()) == NAMES


@pytest.mark.parametrize("value", [_p(3.0), nn.ReLU()])
def test_a_name_with_a_dot_is_refused_for_parameters_and_cells(value) -> None:
    net = _Net()
    with pytest.raises(KeyError, match=r"'a.b' holds a '.'"):
        setattr(net, "a.b", value)
    assert sorted(net.parameters_dict()) == NAMES


def test_what_stays_allowed() -> None:
    """None removes (both frameworks), another Parameter or cell replaces, a Tensor writes the Parameter, and
    ``del`` then any value (the attribute is no longer registered)."""
    net = _Net()
    net.w = _p(2.0)
    net.sub = nn.Dense(2, 2)
    net.w = Tensor(np.full(2, 5.0, np.float32))
    np.testing.assert_array_equal(net.w.asnumpy(), np.full(2, 5.0, np.float32))
    assert sorted(net.parameters_dict()) == NAMES
    net.w = None
    net.sub = None
    assert net.parameters_dict() == {}
    other = _Net()
    del other.w
    other.w = 2.5
    other.pt = ParameterTuple([_p(1.0, "x1")])
    assert other.w == 2.5 and sorted(other.parameters_dict()) == ["sub.bias", "sub.weight", "x1"]
