"""A small network built only from ``mindspore.mint`` (Conv2d with reflect padding, BatchNorm2d, PReLU,
ConvTranspose2d, AvgPool2d, bicubic Upsample, AdaptiveAvgPool2d, Linear) trained with ``ms.value_and_grad`` and
each ``mint.optim`` optimizer for three steps matches the same network in torch: losses, gradients through
every new layer, updated parameters and BatchNorm's running statistics. The convolution before BatchNorm has
no bias: its gradient is zero up to rounding, which Adam's g / sqrt(v) would magnify into noise."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import opbuild as ms
from opbuild import Tensor, mint

RNG = np.random.default_rng(11)
X = RNG.standard_normal((4, 3, 6, 6)).astype(np.float32)
LABELS = np.array([0, 2, 1, 2], np.int64)


def _add_layers(owner, nn):
    """The same layers on a mint Cell and a torch Module (``nn`` is mint.nn or torch.nn)."""
    owner.conv = nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect", bias=False)
    owner.bn = nn.BatchNorm2d(4)
    owner.act = nn.PReLU(4)
    owner.up = nn.ConvTranspose2d(4, 2, 2, stride=2)
    owner.pool = nn.AvgPool2d(2)
    owner.resize = nn.Upsample(size=(5, 5), mode="bicubic", align_corners=False)
    owner.gap = nn.AdaptiveAvgPool2d(1)
    owner.fc = nn.Linear(2, 3)


def _forward(m, x):
    y = m.pool(m.up(m.act(m.bn(m.conv(x)))))
    return m.fc(m.gap(m.resize(y)).reshape(x.shape[0], 2))


class Net(mint.nn.Cell):
    def __init__(self, nn):
        super().__init__()
        _add_layers(self, nn)

    def construct(self, x):
        return _forward(self, x)


class TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        _add_layers(self, torch.nn)

    def forward(self, x):
        return _forward(self, x)


OPTIMS = {
    "SGD": (lambda p: mint.optim.SGD(p, 0.1, momentum=0.9, weight_decay=0.01),
            lambda p: torch.optim.SGD(p, 0.1, momentum=0.9, weight_decay=0.01)),
    "Adam": (lambda p: mint.optim.Adam(p, lr=0.05, amsgrad=True),
             lambda p: torch.optim.Adam(p, lr=0.05, amsgrad=True)),
    "AdamW": (lambda p: mint.optim.AdamW(p, lr=0.05, weight_decay=0.1),
              lambda p: torch.optim.AdamW(p, lr=0.05, weight_decay=0.1)),
}


@pytest.mark.parametrize("opt_name", list(OPTIMS))
def test_mint_network_trains_as_torch(opt_name: str) -> None:
    net, tnet = Net(mint.nn), TorchNet()
    tstate = dict(tnet.named_parameters()) | dict(tnet.named_buffers())
    for p in net.get_parameters():
        p.set_data(Tensor(tstate[p.name].detach().numpy().copy()))
    assert sorted(p.name for p in net.get_parameters()) == sorted(tstate)
    net.set_train(True)
    loss_fn = mint.nn.CrossEntropyLoss()
    params = net.trainable_params()
    make, tmake = OPTIMS[opt_name]
    opt, topt = make(params), tmake(list(tnet.parameters()))

    def forward(x, y):
        return loss_fn(net(x), y)

    step = ms.value_and_grad(forward, None, opt.parameters)
    for _ in range(3):
        loss, grads = step(Tensor(X), Tensor(LABELS))
        opt(grads)
        topt.zero_grad()
        tloss = torch.nn.functional.cross_entropy(tnet(torch.tensor(X)), torch.tensor(LABELS))
        tloss.backward()
        tgrads = {n: p.grad.numpy().copy() for n, p in tnet.named_parameters()}
        topt.step()
        assert float(loss.asnumpy()) == pytest.approx(float(tloss.detach()), rel=1e-4, abs=1e-5)
        for p, g in zip(params, grads, strict=True):
            np.testing.assert_allclose(g.asnumpy(), tgrads[p.name], rtol=1e-3, atol=1e-5, err_msg=p.name)
    for p in net.get_parameters():
        np.testing.assert_allclose(p.asnumpy(), tstate[p.name].detach().numpy(), rtol=1e-3, atol=1e-5,
                                   err_msg=p.name)
