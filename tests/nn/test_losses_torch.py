"""The losses MindSpore 2.10 documents but cannot run on the CPU (SoftMarginLoss, MultilabelMarginLoss,
TripletMarginLoss: no CPU kernel) against PyTorch's, whose definitions MindSpore's documentation follows:
values and input gradients, every reduction; plus the argument checks of the new losses."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops

torch = pytest.importorskip("torch")
F = torch.nn.functional

RNG = np.random.default_rng(7)
X = RNG.uniform(-2, 2, (4, 5)).astype(np.float32)
PM1 = np.where(RNG.uniform(0, 1, (4, 5)) > 0.5, 1.0, -1.0).astype(np.float32)
ML_T = np.array([[3, 0, -1, 1, 2], [1, -1, 0, 0, 0], [4, 3, 2, 1, 0], [-1, 1, 1, 1, 1]], np.int32)
A, P, N = (RNG.uniform(-1, 1, (6, 8)).astype(np.float32) for _ in range(3))


def _compare(ours, theirs, arrays, grad_positions=(0,)) -> None:
    """ours(*Tensors) and theirs(*torch tensors) agree in value and in the gradient of their sum."""
    got = ours(*[Tensor(a) for a in arrays])
    ts = [torch.tensor(a, requires_grad=i in grad_positions) if a.dtype.kind == "f" else torch.tensor(a).long()
          for i, a in enumerate(arrays)]
    want = theirs(*ts)
    np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=2e-5, atol=2e-6)
    want.sum().backward()
    grads = ms.grad(lambda *t: ours(*t).sum(), grad_position=grad_positions)(*[Tensor(a) for a in arrays])
    grads = grads if isinstance(grads, tuple) else (grads,)
    for p, g in zip(grad_positions, grads, strict=True):
        np.testing.assert_allclose(g.asnumpy(), ts[p].grad.numpy(), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_soft_margin_loss(reduction) -> None:
    _compare(lambda x, y: ops.soft_margin_loss(x, y, reduction),
             lambda x, y: F.soft_margin_loss(x, y, reduction=reduction), [X, PM1])
    _compare(lambda x, y: nn.SoftMarginLoss(reduction)(x, y),
             lambda x, y: F.soft_margin_loss(x, y, reduction=reduction), [X, PM1])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss(reduction) -> None:
    _compare(lambda x, t: ops.multilabel_margin_loss(x, t, reduction),
             lambda x, t: F.multilabel_margin_loss(x, t, reduction=reduction), [X, ML_T])
    _compare(lambda x, t: nn.MultilabelMarginLoss(reduction)(x, t),
             lambda x, t: F.multilabel_margin_loss(x, t, reduction=reduction), [X[1], ML_T[1]])


@pytest.mark.parametrize(("reduction", "p", "swap", "margin"),
                         [("mean", 2, False, 1.0), ("sum", 1, True, 2.0), ("none", 3, False, 0.5)])
def test_triplet_margin_loss(reduction, p, swap, margin) -> None:
    _compare(lambda a, b, c: ops.triplet_margin_loss(a, b, c, margin, p, 1e-6, swap, reduction),
             lambda a, b, c: F.triplet_margin_loss(a, b, c, margin, p, 1e-6, swap, reduction=reduction),
             [A, P, N], (0, 1, 2))
    _compare(lambda a, b, c: nn.TripletMarginLoss(p, swap, reduction=reduction, margin=margin)(a, b, c),
             lambda a, b, c: F.triplet_margin_loss(a, b, c, margin, p, 1e-6, swap, reduction=reduction),
             [A, P, N], (0,))


def test_bad_arguments_get_clear_errors() -> None:
    x = Tensor(X)
    with pytest.raises(ValueError, match="reduction must be one of"):
        ops.huber_loss(x, x, reduction="avg")
    with pytest.raises(ValueError, match="reduction must be 'mean', 'sum' or 'none'"):
        nn.HuberLoss("avg")
    with pytest.raises(ValueError, match="beta must be > 0"):
        ops.smooth_l1_loss(x, x, beta=0.0)
    with pytest.raises(TypeError, match="target must hold int32/int64 class indices"):
        ops.nll_loss(x, x)
    with pytest.raises(ValueError, match=r"weight must have shape \(5,\)"):
        ops.nll_loss(x, Tensor(np.zeros(4, np.int32)), Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="must have the logits' shape"):
        ops.binary_cross_entropy(Tensor(np.full((4, 5), 0.5, np.float32)), x, Tensor(np.ones(5, np.float32)))
    with pytest.raises(ValueError, match="p must be 1 or 2"):
        nn.MultiMarginLoss(p=3)
    with pytest.raises(TypeError, match="float16/float32/float64"):
        ops.l1_loss(Tensor(np.ones(3, np.int32)), Tensor(np.ones(3, np.int32)))
    with pytest.raises(ValueError, match="reduction must be one of .*batchmean"):
        nn.KLDivLoss("avg")
