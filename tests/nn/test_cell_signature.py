"""Cell._state_signature (part of every graph-mode call's key) is kept between calls and recomputed after every
change it reads: a training flag, a structure change, a compute dtype. A stale signature would run a graph traced
for the other mode (Dropout/BatchNorm) or the old structure without an error."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn


def _net() -> nn.SequentialCell:
    return nn.SequentialCell([nn.Dense(4, 4), nn.Dropout(p=0.5), nn.SequentialCell([nn.ReLU(), nn.Dense(4, 2)])])


def test_the_signature_is_kept_while_nothing_changes():
    net = _net()
    first = net._state_signature()
    assert net._state_signature() is first
    assert len(first) == len(list(net.cells_and_names()))


@pytest.mark.parametrize("change", [
    lambda n: n.set_train(True),
    lambda n: n[2].set_train(True),  # a sub-cell alone
    lambda n: setattr(n[1], "training", True),  # a plain attribute assignment
    lambda n: n[2].to_float(ms.float16),
    lambda n: n.append(nn.ReLU()),
    lambda n: n[2].append(nn.Sigmoid()),  # a nested container grows
    lambda n: setattr(n[2], "extra", nn.Tanh()),
])
def test_every_change_the_signature_reads_is_seen(change):
    net = _net()
    before = net._state_signature()
    change(net)
    after = net._state_signature()
    fresh = tuple((c.training, c._version, c.__dict__.get("_mixed_precision")) for _, c in net.cells_and_names())
    assert after == fresh and after != before


def test_a_training_flip_between_calls_runs_the_other_graph(graph_mode):
    net = nn.SequentialCell([nn.Dropout(p=0.5)])
    x = ms.Tensor(np.ones((64, 64), np.float32))
    assert np.array_equal(net(x).asnumpy(), x.asnumpy())  # inference: identity
    net[0].set_train(True)  # on the sub-cell only: the root's kept signature must not hide it
    y = net(x).asnumpy()
    assert (y == 0).any() and np.allclose(y[y != 0], 2.0)
    net[0].set_train(False)
    assert np.array_equal(net(x).asnumpy(), x.asnumpy())
