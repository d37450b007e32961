"""``mindspore.mint`` beyond the recorded cases of test_mint_nn.py: every public name of MindSpore 2.10's
``mint`` modules exists in opbuild's (tests/fixtures/mindspore/mint_names.json, scripts/record_mint_names.py),
every recorded signature is MindSpore's (parameter names, order and defaults; the exceptions listed), bad
arguments get one clear error, and the functions MindSpore's CPU cannot run (random draws, batch-norm
statistics helpers, FusedAdamW, ``conv_tbc``, ``addr_``) are checked against NumPy or torch."""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path

import numpy as np
import pytest
import torch

import opbuild as ms
from opbuild import Tensor, mint

NAMES = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "mint_names.json").read_text())


# Recorded names opbuild does not provide, and why (docs/distributed.md).
NOT_PROVIDED = {
    **{("utils", n): "Ascend fault detection, recovery and dispatch (opbuild's utils: DLPack)"
       for n in NAMES["utils"] if n not in ("to_dlpack", "from_dlpack")},
}


@pytest.mark.parametrize("module", [m for m in NAMES if m != "_meta"])
def test_every_public_mint_name_exists(module: str) -> None:
    mod = importlib.import_module(f"opbuild.{module}")
    missing = [n for n in NAMES[module] if not hasattr(mod, n) and (module, n) not in NOT_PROVIDED]
    assert not missing, f"opbuild.{module} lacks {missing}"
    listed = getattr(mod, "__all__", [])
    assert len(listed) == len(set(listed)), f"opbuild.{module}.__all__ repeats names"
    assert all(hasattr(mod, n) for n in listed)


def _params(sig: str) -> str:
    """A recorded signature without ``self``, annotations and the return annotation."""
    body = sig.split(" -> ")[0].strip()[1:-1]
    parts = [p.split("=")[0].split(":")[0].strip() + ("=" + p.split("=", 1)[1].strip() if "=" in p else "")
             for p in _split(body) if p.strip()]
    parts = [p for p in parts if p != "self"]
    return ", ".join(parts)


def _split(body: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in body:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [*out, cur]


# Public names whose recorded signature opbuild does not repeat, and why.
SIGNATURE_EXCEPTIONS = {
    ("mint", "randint"): "MindSpore's (*args, ...): opbuild also names low/high/size in keywords",
    ("mint", "randint_like"): "MindSpore's (*args, ...): opbuild names input and takes a generator",
    ("mint", "randperm"): "dtype='int64' is the same default as mindspore.int64",
    ("mint.nn", "Hardsigmoid"): "opbuild's nn.HSigmoid, whose only argument is Cell's auto_prefix",
    ("mint.nn", "Hardswish"): "opbuild's nn.HSwish, whose only argument is Cell's auto_prefix",
    ("mint.nn", "Identity"): "opbuild's nn.Identity (MindSpore's ignores any arguments)",
    ("mint.nn", "Mish"): "MindSpore's inherits Cell's (auto_prefix, flags); opbuild's takes none",
    ("mint.nn", "SELU"): "MindSpore's inherits Cell's (auto_prefix, flags); opbuild's takes none",
}
SIGNED = [(m, n) for m in NAMES if m != "_meta" for n, sig in NAMES[m].items()
          if sig not in ("?", "(*args, **kwargs)") and (m, n) not in {**SIGNATURE_EXCEPTIONS, **NOT_PROVIDED}]


@pytest.mark.parametrize(("module", "name"), SIGNED)
def test_signature_is_mindsporess(module: str, name: str) -> None:
    obj = getattr(importlib.import_module(f"opbuild.{module}"), name)
    ours = _params(str(inspect.signature(obj.__init__ if isinstance(obj, type) else obj)))
    assert ours.replace("'", '"') == _params(NAMES[module][name]).replace("'", '"')


def test_bad_arguments_get_clear_errors() -> None:
    x = Tensor(np.zeros((1, 4, 5, 5), np.float32))
    with pytest.raises(ValueError, match="padding must be 'valid', 'same'"):
        mint.nn.functional.conv2d(x, Tensor(np.zeros((2, 4, 3, 3), np.float32)), padding="full")
    with pytest.raises(ValueError, match="input has 4 channels, the weight expects 2 x groups 1"):
        mint.nn.functional.conv2d(x, Tensor(np.zeros((2, 2, 3, 3), np.float32)))
    with pytest.raises(ValueError, match="padding_mode must be zeros, reflect"):
        mint.nn.Conv2d(4, 2, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="padding='same' needs stride 1"):
        mint.nn.Conv2d(4, 2, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="divisible by groups"):
        mint.nn.Conv1d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="expected a 4-D input with 3 channels"):
        mint.nn.BatchNorm2d(3)(x)
    with pytest.raises(ValueError, match="reduction must be one of 'mean', 'sum', 'none'"):
        mint.nn.BCELoss(reduction="avg")
    with pytest.raises(ValueError, match="padding must be an int or 4 ints"):
        mint.nn.ZeroPad2d((1, 2, 3))
    with pytest.raises(ValueError, match="betas\\[1\\] must be a number in"):
        mint.optim.Adam([ms.Parameter(np.zeros(2, np.float32), name="p")], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="params is an empty list"):
        mint.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="nesterov needs a positive momentum"):
        mint.optim.SGD([ms.Parameter(np.zeros(2, np.float32), name="p")], 0.1, nesterov=True)
    with pytest.raises(ValueError, match="k must be an int in \\[1, 5\\]"):
        mint.kthvalue(x, 6)
    with pytest.raises(ValueError, match="every element must be in \\[0, 1\\]"):
        mint.bernoulli(Tensor(np.array([1.5], np.float32)))
    with pytest.raises(TypeError, match="mint.nn.Sigmoid\\(\\) got an unexpected argument 'inplace'"):
        mint.nn.Sigmoid(inplace=True)
    assert mint.nn.SiLU(inplace=True)(Tensor(np.array([0.0], np.float32))).asnumpy().tolist() == [0.0]
    with pytest.raises(ValueError, match="must be divisible by num_groups"):
        mint.nn.GroupNorm(3, 4)
    with pytest.raises(ValueError, match="without replacement"):
        mint.multinomial(Tensor(np.array([0.5, 0.5, 0.0], np.float32)), 3)


def test_layer_initialisation_is_mindsporess() -> None:
    conv = mint.nn.Conv2d(4, 6, 3, groups=2)
    bound = 1 / np.sqrt(2 * 9)
    w, b = conv.weight.asnumpy(), conv.bias.asnumpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound and w.std() > bound / 4
    assert mint.nn.ConvTranspose2d(4, 6, 3, groups=2).weight.shape == (4, 3, 3, 3)
    assert mint.nn.Conv3d(2, 4, 3, bias=False, dtype=ms.float16).weight.dtype == ms.float16
    bn = mint.nn.BatchNorm1d(3)
    assert (bn.weight.asnumpy() == 1).all() and (bn.running_var.asnumpy() == 1).all()
    assert not bn.running_mean.requires_grad and bn.num_batches_tracked.dtype == ms.int64
    assert mint.nn.PReLU(3, 0.1).weight.asnumpy().tolist() == pytest.approx([0.1] * 3)


def test_conv_checkpoint_loads_by_name(tmp_path: Path) -> None:
    a, b = mint.nn.Conv2d(2, 3, 3), mint.nn.Conv2d(2, 3, 3)
    ms.save_checkpoint(a, str(tmp_path / "c.ckpt"))
    ms.load_param_into_net(b, ms.load_checkpoint(str(tmp_path / "c.ckpt")))
    np.testing.assert_array_equal(a.weight.asnumpy(), b.weight.asnumpy())
    x = Tensor(np.random.default_rng(0).standard_normal((1, 2, 5, 5)).astype(np.float32))
    np.testing.assert_allclose(a(x).asnumpy(), b(x).asnumpy())


def test_sync_batch_norm_trains_as_batch_norm() -> None:
    x = Tensor(np.random.default_rng(1).standard_normal((4, 3, 5)).astype(np.float32))
    sync, plain = mint.nn.SyncBatchNorm(3), mint.nn.BatchNorm1d(3)
    sync.set_train(True)
    plain.set_train(True)
    np.testing.assert_allclose(sync(x).asnumpy(), plain(x).asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(sync.running_var.asnumpy(), plain.running_var.asnumpy(), rtol=1e-6)
    assert int(sync.num_batches_tracked.asnumpy()) == 1


def test_conv_transpose_output_size_and_conv_tbc_match_torch() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 4, 5, 5)).astype(np.float32)
    layer = mint.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
    t = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
    with torch.no_grad():
        t.weight.copy_(torch.tensor(layer.weight.asnumpy()))
        t.bias.copy_(torch.tensor(layer.bias.asnumpy()))
    got = layer(Tensor(x), (10, 10)).asnumpy()
    np.testing.assert_allclose(got, t(torch.tensor(x), output_size=(10, 10)).detach().numpy(), atol=1e-5)
    xt, wt, bt = (rng.standard_normal(s).astype(np.float32) for s in ((7, 2, 3), (3, 3, 4), (4,)))
    want = torch.conv_tbc(torch.tensor(xt), torch.tensor(wt), torch.tensor(bt), 1).numpy()
    np.testing.assert_allclose(mint.conv_tbc(Tensor(xt), Tensor(wt), Tensor(bt), 1).asnumpy(), want, atol=1e-5)


def test_random_draws_follow_the_seed_and_the_probabilities() -> None:
    ms.manual_seed(7)
    p = Tensor(np.full((4000,), 0.3, np.float32))
    first = mint.bernoulli(p).asnumpy()
    ms.manual_seed(7)
    assert (mint.bernoulli(p).asnumpy() == first).all()
    assert first.dtype == np.float32 and set(np.unique(first)) <= {0.0, 1.0} and abs(first.mean() - 0.3) < 0.03
    draws = mint.multinomial(Tensor(np.array([[0.0, 1.0, 3.0], [1.0, 0.0, 0.0]], np.float32)), 2000, True)
    d = draws.asnumpy()
    assert d.dtype == np.int64 and (d[1] == 0).all() and not (d[0] == 0).any() and abs((d[0] == 2).mean() - 0.75) < 0.04
    no_rep = mint.multinomial(Tensor(np.array([0.2, 0.3, 0.5], np.float32)), 3).asnumpy()
    assert sorted(no_rep.tolist()) == [0, 1, 2]
    r = mint.randint_like(Tensor(np.zeros((50,), np.int32)), 3, 6).asnumpy()
    assert r.dtype == np.int32 and r.min() >= 3 and r.max() < 6


def test_batch_norm_statistics_helpers_match_numpy() -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3, 5)).astype(np.float32)
    mean, invstd = mint.batch_norm_stats(Tensor(x), 1e-5)
    np.testing.assert_allclose(mean.asnumpy(), x.mean((0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(invstd.asnumpy(), 1 / np.sqrt(x.var((0, 2)) + 1e-5), rtol=1e-5)
    w, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    y = mint.batch_norm_elemt(Tensor(x), Tensor(w), Tensor(b), mean, invstd, 1e-5).asnumpy()
    want = (x - x.mean((0, 2))[:, None]) / np.sqrt(x.var((0, 2)) + 1e-5)[:, None] * w[:, None] + b[:, None]
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-5)
    # two halves of the batch as two "processes": their gathered statistics are the whole batch's
    parts = [mint.batch_norm_stats(Tensor(x[:1]), 1e-5), mint.batch_norm_stats(Tensor(x[1:]), 1e-5)]
    rm, rv = ms.Parameter(np.zeros(3, np.float32), name="rm"), ms.Parameter(np.ones(3, np.float32), name="rv")
    gmean, ginv = mint.batch_norm_gather_stats_with_counts(
        Tensor(x), ms.ops.stack([p[0] for p in parts]), ms.ops.stack([p[1] for p in parts]), rm, rv, 0.1, 1e-5,
        Tensor(np.array([5.0, 15.0], np.float32)))
    np.testing.assert_allclose(gmean.asnumpy(), x.mean((0, 2)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ginv.asnumpy(), 1 / np.sqrt(x.var((0, 2)) + 1e-5), rtol=1e-4)
    np.testing.assert_allclose(rv.asnumpy(), 0.9 + 0.1 * x.var((0, 2), ddof=1), rtol=1e-4)


def test_fused_adamw_is_adamw_and_amsgrad_state_is_in_the_group() -> None:
    grads = [Tensor(np.array([0.5, -1.0], np.float32)), Tensor(np.array([2.0, 0.25], np.float32))]
    out = []
    for cls in (mint.optim.AdamW, mint.optim.FusedAdamW):
        p = ms.Parameter(np.array([1.0, 2.0], np.float32), name="p")
        opt = cls([p], lr=0.1, amsgrad=True)
        for g in grads:
            opt((g,))
        out.append(p.asnumpy())
        assert [q.name for q in opt.param_groups[0]["max_exp_avg_sq"]] == ["max_exp_avg_sq.p"]
        assert "max_exp_avg_sq.p" not in [q.name for q in opt.get_parameters()]
    np.testing.assert_array_equal(out[0], out[1])


def test_in_place_functions_write_their_input() -> None:
    x = Tensor(np.array([-1.0, 0.5, 2.0], np.float32))
    assert mint.nn.functional.relu_(x) is x and x.asnumpy().tolist() == [0.0, 0.5, 2.0]
    a = Tensor(np.ones((2, 2), np.float32))
    mint.addr_(a, Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32)), beta=2)
    assert a.asnumpy().tolist() == [[5.0, 6.0], [8.0, 10.0]]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_batch_norm_cumulative_average_matches_torch(mode: str) -> None:
    rng = np.random.default_rng(4)
    xs = [rng.standard_normal((3, 2, 4)).astype(np.float32) * (i + 1) for i in range(3)]
    bn, tb = mint.nn.BatchNorm1d(2, momentum=None), torch.nn.BatchNorm1d(2, momentum=None)
    bn.set_train(True)
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        for x in xs:
            np.testing.assert_allclose(bn(Tensor(x)).asnumpy(), tb(torch.tensor(x)).detach().numpy(), atol=1e-5)
    finally:
        ms.set_context(mode=old)
    np.testing.assert_allclose(bn.running_mean.asnumpy(), tb.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.asnumpy(), tb.running_var.numpy(), rtol=1e-5)
    assert int(bn.num_batches_tracked.asnumpy()) == 3
