"""Checkpoints opbuild saved before nn.Conv1d's weight became MindSpore's 4-D ``(out, in // group, 1, k)`` hold
it 3-D ``(out, in // group, k)``: load_checkpoint / load_param_into_net reshape such a weight of a Conv1d (with
a warning naming it) and give the same outputs as the 4-D save; any other shape, or a 3-D value for another
cell's weight, is still refused."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3, group=2, has_bias=True)
        self.conv2d = nn.Conv2d(2, 3, (1, 3))

    def construct(self, x):
        return self.conv(x)


def _old_save(net: Net, path: str, weight: np.ndarray | None = None) -> None:
    """A checkpoint as opbuild wrote it before: Conv1d's weight 3-D."""
    entries = [{"name": p.name, "data": ms.Tensor(p.asnumpy())} for p in net.get_parameters()]
    for e in entries:
        if e["name"] == "conv.weight":
            e["data"] = ms.Tensor(weight if weight is not None else net.conv.weight.asnumpy()[:, :, 0, :])
    ms.save_checkpoint(entries, path)


def test_old_3d_conv1d_weight_loads_with_a_warning(tmp_path, caplog) -> None:
    ms.set_seed(3)
    old = Net()
    path = str(tmp_path / "old.ckpt")
    _old_save(old, path)
    new = Net()
    assert not np.array_equal(new.conv.weight.asnumpy(), old.conv.weight.asnumpy())
    with caplog.at_level(logging.WARNING, logger="opbuild.checkpoint"):
        ms.load_checkpoint(path, new)
    assert "conv.weight" in caplog.text and "3-D" in caplog.text
    assert new.conv.weight.shape == (6, 2, 1, 3)
    np.testing.assert_array_equal(new.conv.weight.asnumpy(), old.conv.weight.asnumpy())
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 4, 9)).astype(np.float32))
    np.testing.assert_array_equal(new(x).asnumpy(), old(x).asnumpy())


def test_load_param_into_net_takes_the_3d_weight_too() -> None:
    net = Net()
    w = np.arange(36, dtype=np.float32).reshape(6, 2, 3)
    ms.load_param_into_net(net, {"conv.weight": ms.Parameter(ms.Tensor(w), name="conv.weight")})
    np.testing.assert_array_equal(net.conv.weight.asnumpy(), w.reshape(6, 2, 1, 3))


@pytest.mark.parametrize("shape", [(6, 2, 4), (6, 4, 3), (6, 2, 3, 1, 2)])
def test_a_wrong_conv1d_shape_is_still_refused(tmp_path, shape) -> None:
    net = Net()
    path = str(tmp_path / "bad.ckpt")
    _old_save(net, path, np.zeros(shape, np.float32))
    with pytest.raises(RuntimeError, match=r"conv\.weight has shape \(6, 2, 1, 3\) in the net"):
        ms.load_checkpoint(path, Net())


def test_a_3d_value_for_a_conv2d_weight_is_refused() -> None:
    """Conv2d's (out, in, 1, k) weight looks the same, but only a Conv1d's was ever saved 3-D."""
    net = Net()
    with pytest.raises(RuntimeError, match=r"conv2d\.weight has shape \(3, 2, 1, 3\)"):
        ms.load_param_into_net(net, {"conv2d.weight": ms.Tensor(np.zeros((3, 2, 3), np.float32))})
