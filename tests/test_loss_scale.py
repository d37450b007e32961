"""Loss scaling (issue #16): the managers, nn.TrainOneStepWithLossScaleCell (overflow detected and the update
skipped inside the compiled step, the dynamic scale halved and grown), amp's functional scalers and
all_finite, ops.isfinite, and the fusion rule that keeps a snapshot read before an in-place write."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.ops.optim import Assign
from opbuild.train.loss_scale_manager import DynamicLossScaleManager, FixedLossScaleManager
from tests.helpers import TORCH_MISSING

torch = pytest.importorskip("torch", reason=TORCH_MISSING)

pytestmark = pytest.mark.slow


@pytest.fixture(params=["graph", "pynative"])
def mode(request):
    before = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if request.param == "graph" else ms.PYNATIVE_MODE)
    yield request.param
    ms.set_context(mode=before)


def _torch_scales(init: float, factor: float, window: int, overflows: list[bool]) -> list[float]:
    """The scale after each step by torch's GradScaler rule (torch._amp_update_scale_), which is MindSpore's
    dynamic rule: halve on overflow and restart the count, grow after ``window`` good steps in a row."""
    scale, tracker, out = torch.tensor([float(init)]), torch.tensor([0], dtype=torch.int32), []
    for bad in overflows:
        torch._amp_update_scale_(scale, tracker, torch.tensor([float(bad)]), float(factor), 1.0 / factor, window)
        out.append(float(scale))
    return out


# ---- managers --------------------------------------------------------------------------------------------------
def test_managers_api_and_exports():
    assert ms.DynamicLossScaleManager is DynamicLossScaleManager is ms.amp.DynamicLossScaleManager
    assert ms.FixedLossScaleManager is FixedLossScaleManager is ms.amp.FixedLossScaleManager
    fixed = FixedLossScaleManager()
    assert fixed.get_loss_scale() == 128.0 and fixed.get_drop_overflow_update() is True
    assert isinstance(fixed.get_update_cell(), nn.FixedLossScaleUpdateCell)
    assert FixedLossScaleManager(1024.0, False).get_update_cell() is None
    dyn = DynamicLossScaleManager()
    assert dyn.get_loss_scale() == 2 ** 24 and dyn.scale_window == 2000 and dyn.get_drop_overflow_update()
    cell = DynamicLossScaleManager(2 ** 10, 2, 5).get_update_cell()
    assert isinstance(cell, nn.DynamicLossScaleUpdateCell) and cell.get_loss_scale() == 2 ** 10


def test_manager_errors():
    with pytest.raises(ValueError, match="loss_scale must be >= 1"):
        FixedLossScaleManager(0.5)
    with pytest.raises(ValueError, match="init_loss_scale must be >= 1"):
        DynamicLossScaleManager(0.5)
    with pytest.raises(ValueError, match="scale_window must be a positive int"):
        DynamicLossScaleManager(scale_window=0)
    with pytest.raises(ValueError, match="scale_factor must be > 0"):
        DynamicLossScaleManager(scale_factor=0)
    with pytest.raises(TypeError, match="scale_sense must be a Cell or a Tensor"):
        net = nn.Dense(2, 1)
        nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()),
                                         nn.Momentum(net.trainable_params(), 0.1, 0.9), 1024.0)
    with pytest.raises(ValueError, match=r"shape of scale_sense must be \(\) or \(1,\)"):
        net = nn.Dense(2, 1)
        nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()),
                                         nn.Momentum(net.trainable_params(), 0.1, 0.9), ms.Tensor(np.ones(2)))


def test_host_update_rule_matches_torch():
    flags = [False] * 5 + [True, True] + [False] * 7 + [True] + [False] * 4
    m = DynamicLossScaleManager(2 ** 10, 2, 3)
    seen = []
    for bad in flags:
        m.update_loss_scale(bad)
        seen.append(m.get_loss_scale())
    assert seen == _torch_scales(2 ** 10, 2, 3, flags)


# ---- the train cell -------------------------------------------------------------------------------------------
def _step_cell(scale_sense, lr=0.1):
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    return net, opt, nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt, scale_sense)


def _state(net, opt):
    return [p.asnumpy().copy() for p in (*net.trainable_params(), *opt.moments)]


def test_overflow_skips_the_update_and_the_dynamic_scale_follows_torch(mode):
    """A step whose gradients hold inf/NaN leaves weights and moments bit-identical, reports overflow and
    halves the scale; good steps update and grow the scale every scale_window steps: the scale sequence is
    torch's GradScaler's for the same overflow pattern."""
    update = nn.DynamicLossScaleUpdateCell(2.0 ** 10, 2, 3)
    net, opt, step = _step_cell(update)
    rng = np.random.default_rng(0)
    y = ms.Tensor(np.zeros((4, 2), np.float32))
    flags = [False, False, False, True, False, False, False, False, True, True, False]
    scales = []
    for i, bad in enumerate(flags):
        x = rng.standard_normal((4, 3)).astype(np.float32)
        if bad:
            x[i % 4, i % 3] = np.inf if i % 2 else np.nan
        before, used = _state(net, opt), float(step.scale_sense.asnumpy())
        loss, overflow, scale = step(ms.Tensor(x), y)
        assert bool(overflow.asnumpy()) is bad
        assert float(scale.asnumpy()) == used  # the scale this step used
        after = _state(net, opt)
        if bad:
            assert all(np.array_equal(a, b) for a, b in zip(before, after)), "an overflowed step changed state"
        else:
            assert np.isfinite(float(loss.asnumpy()))
            assert all(not np.array_equal(a, b) for a, b in zip(before, after))
        scales.append(float(step.scale_sense.asnumpy()))
    assert scales == _torch_scales(2 ** 10, 2, 3, flags)
    assert int(update.cur_iter.asnumpy()) == len(flags) + 1


def test_scale_never_drops_below_one():
    net, opt, step = _step_cell(nn.DynamicLossScaleUpdateCell(2.0, 2, 100))
    x = ms.Tensor(np.full((4, 3), np.inf, np.float32))
    y = ms.Tensor(np.zeros((4, 2), np.float32))
    for _ in range(3):
        step(x, y)
    assert float(step.scale_sense.asnumpy()) == 1.0


def test_loss_scaled_step_equals_torch_momentum_step(mode):
    """With a power-of-two scale the unscaled gradients are exact, so three loss-scaled steps give torch's
    SGD-with-momentum result on the same Dense + MSE network (MindSpore's Momentum: v = 0.9 v + g,
    w -= lr v, which is torch's SGD(momentum=0.9, dampening=0))."""
    net, opt, step = _step_cell(FixedLossScaleManager(2.0 ** 12).get_update_cell(), lr=0.05)
    w = torch.tensor(net.weight.asnumpy(), requires_grad=True)
    b = torch.tensor(net.bias.asnumpy(), requires_grad=True)
    topt = torch.optim.SGD([w, b], lr=0.05, momentum=0.9)
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = rng.standard_normal((8, 3)).astype(np.float32)
        y = rng.standard_normal((8, 2)).astype(np.float32)
        loss, overflow, scale = step(ms.Tensor(x), ms.Tensor(y))
        topt.zero_grad()
        tloss = ((torch.tensor(x) @ w.T + b - torch.tensor(y)) ** 2).mean()
        tloss.backward()
        topt.step()
        assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 2.0 ** 12
        np.testing.assert_allclose(float(loss.asnumpy()), tloss.item(), rtol=1e-5)
    np.testing.assert_allclose(net.weight.asnumpy(), w.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_tensor_scale_sense_and_set_sense_scale():
    net, opt, step = _step_cell(ms.Tensor(np.array([1024.0], np.float32)))
    x, y = ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.zeros((4, 2), np.float32))
    assert float(step(x, y)[2].asnumpy()[0]) == 1024.0
    step.set_sense_scale(ms.Tensor(np.array([8.0], np.float32)))
    assert float(step(x, y)[2].asnumpy()[0]) == 8.0
    before = _state(net, opt)
    _, overflow, _ = step(ms.Tensor(np.full((4, 3), np.inf, np.float32)), y)
    assert bool(overflow.asnumpy()) and all(np.array_equal(a, b) for a, b in zip(before, _state(net, opt)))
    assert float(step.scale_sense.asnumpy()[0]) == 8.0  # no update cell: the scale stays
    with pytest.raises(ValueError, match="differs"):
        step.set_sense_scale(ms.Tensor(np.float32(2.0)))


def test_sens_seeds_the_backward_of_train_one_step_cell():
    """TrainOneStepCell(sens=s) with an optimizer of loss_scale=s (FixedLossScaleManager without
    drop_overflow_update) trains exactly as sens=1: the backward is seeded with s and the optimizer divides."""
    results = []
    for sens in (1.0, 1024.0):
        ms.set_seed(0)
        net = nn.Dense(3, 2)
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=sens)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, sens=sens)
        x, y = ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.zeros((4, 2), np.float32))
        losses = [float(step(x, y).asnumpy()) for _ in range(3)]
        results.append((losses, net.weight.asnumpy().copy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])


# ---- functional scalers, all_finite, isfinite -----------------------------------------------------------------
def test_isfinite_matches_numpy():
    x = np.array([0.0, -1.5, np.inf, -np.inf, np.nan, 3e38], np.float32)
    for dt in (np.float32, np.float16, np.float64):
        with np.errstate(over="ignore"):  # 3e38 becomes inf in float16, on purpose
            x16 = x.astype(dt)
        np.testing.assert_array_equal(ms.ops.isfinite(ms.Tensor(x16)).asnumpy(), np.isfinite(x16))


def test_all_finite():
    ok = (ms.Tensor(np.ones(3, np.float32)), ms.Tensor(np.zeros((2, 2), np.float16)))
    assert bool(ms.amp.all_finite(ok).asnumpy()) is True
    for bad in (np.inf, -np.inf, np.nan):
        arr = np.ones(5, np.float32)
        arr[3] = bad
        assert bool(ms.amp.all_finite((*ok, ms.Tensor(arr))).asnumpy()) is False


def test_dynamic_loss_scaler_follows_mindspore_rule():
    """MindSpore's example: window 1, a NaN gradient halves 1024 to 512; then finite steps grow the scale
    every scale_window-th finite step in a row."""
    scaler = ms.amp.DynamicLossScaler(scale_value=2 ** 10, scale_factor=2, scale_window=1)
    grads = (ms.Tensor(np.array([np.nan, 1.0], np.float16)),
             ms.Tensor(np.array([0.2], np.float16)))
    unscaled = scaler.unscale(grads)
    np.testing.assert_array_equal(unscaled[1].asnumpy(), (np.float16(0.2) * np.float16(2 ** -10)).reshape(1))
    assert scaler.adjust(ms.amp.all_finite(unscaled)) is True
    assert float(scaler.scale_value.asnumpy()) == 512.0
    scaler = ms.amp.DynamicLossScaler(scale_value=8, scale_factor=2, scale_window=3)
    finite = ms.Tensor(np.array(True))
    seen = []
    for flag in (True, True, True, True, False, True, True, True):
        scaler.adjust(finite if flag else ms.Tensor(np.array(False)))
        seen.append(float(scaler.scale_value.asnumpy()))
    assert seen == [8, 8, 16, 16, 8, 8, 8, 16]
    assert seen == _torch_scales(8, 2, 3, [False, False, False, False, True, False, False, False])


def test_static_loss_scaler():
    scaler = ms.amp.StaticLossScaler(scale_value=2 ** 10)
    assert float(scaler.scale(ms.Tensor(np.array([1.0], np.float32))).asnumpy()[0]) == 1024.0
    assert scaler.adjust(ms.Tensor(np.array(False))) is False
    assert float(scaler.scale_value.asnumpy()) == 1024.0
    with pytest.raises(ValueError, match="scale_value must be >= 1"):
        ms.amp.StaticLossScaler(0.5)


# ---- fusion keeps a read before an in-place write --------------------------------------------------------------
class _SnapshotThenAssign(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = ms.Parameter(np.arange(4, dtype=np.float32), name="p", requires_grad=False)
        self.assign = Assign()

    def construct(self, x):
        snap = self.p * 2.0          # read before the write ...
        self.assign(self.p, x)
        return snap + 1.0            # ... used after it: fusing Mul into Add must not move the read


def test_fusion_does_not_move_a_read_across_an_in_place_write(monkeypatch):
    monkeypatch.setenv("OPBUILD_FUSION", "1")
    ms.set_context(mode=ms.GRAPH_MODE)
    cell = _SnapshotThenAssign()
    out = cell(ms.Tensor(np.full(4, 10.0, np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.arange(4, dtype=np.float32) * 2 + 1)
    np.testing.assert_array_equal(cell.p.asnumpy(), np.full(4, 10.0, np.float32))
    ops = [n.op for n in cell.compile_info()[-1].graph.nodes]
    assert "FusedElementwise" not in ops, ops
