"""Recomputation (core/recompute.py, passes/autodiff.py ``_Recomputed``): a recomputed block's activations are
computed again in the backward pass instead of kept, which shrinks the arena and changes no value."""

from __future__ import annotations

import numpy as np

import opbuild as ms
from opbuild import Tensor, nn, ops


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.Dense(32, 32, weight_init="ones", bias_init="zeros")
        self.b = nn.Dense(32, 32, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return ops.tanh(self.b(ops.tanh(self.a(x)))) * 0.01


class Net(nn.Cell):
    def __init__(self, how):
        super().__init__()
        self.blocks = nn.CellList([Block() for _ in range(3)])
        self.how = how
        if how == "cell":
            for b in self.blocks:
                b.recompute()

    def construct(self, x):
        for b in self.blocks:
            x = ms.recompute(b, x) if self.how == "function" else b(x)
        return x.sum()


def _run(how, x):
    net = Net(how)
    grads = ms.grad(net, grad_position=0, weights=net.trainable_params())(x)
    return grads, ms.build_report().as_dict()["memory"]


def test_recomputed_blocks_give_the_same_gradients_in_a_smaller_arena(pynative_mode):
    x = Tensor(np.random.RandomState(0).randn(1024, 32).astype(np.float32) * 0.01)
    (g_in, g_w), kept = _run("none", x)
    for how in ("function", "cell"):
        (r_in, r_w), again = _run(how, x)
        # The same values up to rounding: the recomputed chain may fuse differently from the forward's.
        np.testing.assert_allclose(r_in.asnumpy(), g_in.asnumpy(), rtol=2e-4, atol=1e-7)
        for a, b in zip(r_w, g_w):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=2e-4, atol=1e-6)
        assert again["arena_bytes"] < 0.75 * kept["arena_bytes"], (how, again, kept)
        assert again["intermediate_bytes"] > kept["intermediate_bytes"]  # the activations computed twice


def test_a_host_call_inside_a_recomputed_block_runs_once(pynative_mode, capsys):
    class Loud(nn.Cell):
        def construct(self, x):
            y = ops.sin(x)
            ops.print_("y", y)
            return y * y

    cell = Loud()
    cell.recompute()
    g = ms.grad(lambda x: cell(x).sum())(Tensor(np.array([0.5], np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [2 * np.sin(0.5) * np.cos(0.5)], rtol=1e-6)
    assert capsys.readouterr().out.count("y\n") == 1
