"""The ``mint`` functions, layers and optimizers of tests/compat/mint_cases.py against MindSpore 2.10's results
(tests/fixtures/mindspore/mint.npz, scripts/record_mint.py), in PyNative and GRAPH_MODE; where MindSpore's CPU
refused a case (no CPU kernel: many mint names are Ascend only) against the torch twin below, which must
exist. Layer parameter names, shapes and dtypes are compared with MindSpore's for every layer, answered or
not (MindSpore builds them before it runs)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as TF  # noqa: N812

import opbuild as ms
from opbuild import Tensor

from ..helpers import FnCell
from . import mint_cases as C

# torch.triangular_solve, the twin of mint.triangular_solve's exact signature, warns that it is deprecated.
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:torch.triangular_solve is deprecated")]

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "mint.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())
ERRORS = {k: v for k, v in META["errors"].items() if k != "__params__"}
PARAMS = META["errors"]["__params__"]


def _t(a):
    return torch.tensor(a)


# The torch twins of the function cases MindSpore's CPU refuses: fn(*torch tensors) -> result.
TORCH_FUNCS = {
    "conv1d": lambda x, w, b: TF.conv1d(x, w, b, 2, 1, 2, 2),
    "conv1d_same": lambda x, w: TF.conv1d(x, w, None, 1, "same", 1, 2),
    "conv2d": lambda x, w, b: TF.conv2d(x, w, b, (2, 1), (1, 2), (1, 2), 2),
    "conv2d_valid": lambda x, w: TF.conv2d(x, w, None, 1, "valid", 1, 2),
    "conv3d": lambda x, w, b: TF.conv3d(x, w, b, 1, (1, 0, 1)),
    "conv_transpose2d": lambda x, w, b: TF.conv_transpose2d(x, w, b, 2, (1, 0), (1, 0), 2),
    "mint_conv2d": lambda x, w: TF.conv2d(x, w, None, 1, 1, 1, 2),
    "avg_pool1d": lambda x: TF.avg_pool1d(x, 3, 2, 1, True, False),
    "avg_pool2d": lambda x: TF.avg_pool2d(x, 3, 2, 1),
    "avg_pool2d_div": lambda x: TF.avg_pool2d(x, 2, divisor_override=3),
    "avg_pool3d": lambda x: TF.avg_pool3d(x, 2, 1, 1, False, False),
    "max_pool2d": lambda x: TF.max_pool2d(x, 3, 2, 1),
    "max_pool2d_indices": lambda x: TF.max_pool2d(x, 2, return_indices=True),
    "max_unpool2d": lambda x: TF.max_unpool2d(*TF.max_pool2d(x, 2, return_indices=True), 2),
    "adaptive_avg_pool1d": lambda x: TF.adaptive_avg_pool1d(x, 4),
    "adaptive_avg_pool2d": lambda x: TF.adaptive_avg_pool2d(x, (3, 5)),
    "adaptive_avg_pool3d": lambda x: TF.adaptive_avg_pool3d(x, (2, 3, 2)),
    "adaptive_max_pool1d": lambda x: TF.adaptive_max_pool1d(x, 4),
    "pad_constant": lambda x: TF.pad(x, (1, 2, 2, 1), "constant", 0.5),
    "pad_reflect": lambda x: TF.pad(x, (1, 2, 2, 1), "reflect"),
    "pad_replicate": lambda x: TF.pad(x, (1, 2), "replicate"),
    "interpolate_bilinear": lambda x: TF.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False),
    "upsample_bicubic": lambda x: TF.interpolate(x, size=(9, 10), mode="bicubic", align_corners=True),
    "unfold": lambda x: TF.unfold(x, (2, 3), 1, 1, 2),
    "fold": lambda x: TF.fold(TF.unfold(x, (2, 3), 1, 1, 2), (7, 8), (2, 3), 1, 1, 2),
    "embedding": lambda i, e: TF.embedding(i, e),
    "batch_norm_eval": lambda x, m, v, w, b: TF.batch_norm(x, m, v, w, b),
    "kl_div": lambda x, y: TF.kl_div(x, y, reduction="batchmean"),
    "kl_div_log_target": lambda x, y: TF.kl_div(x, torch.log(y), reduction="sum", log_target=True),
    "soft_margin_loss": lambda x, y: TF.soft_margin_loss(x, y * 2 - 1),
    "cosine_embedding_loss": lambda a, b, t: TF.cosine_embedding_loss(a, b, t, 0.1),
    "threshold": lambda x: TF.threshold(x, 0.1, 20.0),
    "relu_": lambda x: TF.relu(x),
    "sigmoid_": lambda x: torch.sigmoid(x),
    "elu_": lambda x: TF.elu(x, 0.5),
    "hardtanh_": lambda x: TF.hardtanh(x, -0.5, 0.5),
    "threshold_": lambda x: TF.threshold(x, 0.1, 20.0),
    "dropout2d_eval": lambda x: TF.dropout2d(x, 0.5, False),
    "addbmm": lambda a, b, c: torch.addbmm(a, b, c, beta=0.5, alpha=2),
    "bitwise_not": lambda x: torch.bitwise_not(x),
    "bitwise_not_bool": lambda x: torch.bitwise_not(x),
    "index_add": lambda x, i, s: torch.index_add(x, 0, i, s, alpha=2),
    "kthvalue": lambda x: torch.kthvalue(x, 2, 1),
    "kthvalue_keepdim": lambda x: torch.kthvalue(x, 3, 0, True),
    "norm": lambda x: torch.norm(x),
    "norm_p1_dim": lambda x: torch.norm(x, 1, 1, True),
    "norm_p3": lambda x: torch.norm(x, 3.0),
    "triangular_solve": lambda b, a: torch.triangular_solve(b, a),
    "triangular_solve_t_unit": lambda b, a: torch.triangular_solve(b, a, True, True, True),
    "vdot": lambda a, b: torch.vdot(a, b),
    "empty_like_shape": lambda x: torch.zeros_like(x),
}


def _arrays(result) -> list[np.ndarray]:
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [np.asarray(r.detach().numpy() if isinstance(r, torch.Tensor) else
                       r.asnumpy() if hasattr(r, "asnumpy") else r) for r in items]


def _compare(got: list[np.ndarray], want: list[np.ndarray], exact_dtype: bool = True) -> None:
    assert len(got) == len(want), (len(got), len(want))
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape, (g.shape, w.shape)
        if exact_dtype:
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=2e-5, atol=2e-5)


def _want(key: str, inputs: list, twin) -> tuple[list[np.ndarray], bool]:
    """MindSpore's recorded outputs, or (refused) the torch twin's, and whether dtypes must match exactly
    (torch's int64 indices and float32 results are MindSpore's too, but not for every twin)."""
    if key not in ERRORS:
        n = len([k for k in FIXTURE.files if k.startswith(f"{key}:out")])
        assert n, f"{key}: the fixture has neither outputs nor a refusal; rerun scripts/record_mint.py"
        return [FIXTURE[f"{key}:out{i}"] for i in range(n)], True
    assert twin is not None, f"{key}: MindSpore refused ({ERRORS[key]}) and there is no torch twin"
    return _arrays(twin(*inputs)), True


def _in_mode(mode: str, fn):
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        return fn()
    finally:
        ms.set_context(mode=old)


FUNC_RUNS = [(n, m) for n in C.FUNCS for m in ("pynative", "graph") if m == "pynative" or n not in C.PYNATIVE_ONLY]


def test_fixture_covers_every_case() -> None:
    assert META["mindspore"].startswith("2.10")
    for name in C.FUNCS:
        assert name in ERRORS or f"{name}:out0" in FIXTURE.files, name
    for name in C.LAYERS:
        assert f"layer:{name}" in ERRORS or f"layer:{name}:out0" in FIXTURE.files, name
        assert name in PARAMS, name
    for name in C.OPTIMS:
        assert f"optim:{name}" in ERRORS or f"optim:{name}:out0" in FIXTURE.files, name


@pytest.mark.parametrize(("name", "mode"), FUNC_RUNS)
def test_function_matches_mindspore_or_torch(name: str, mode: str) -> None:
    fn, inputs = C.FUNCS[name]
    arrays = [FIXTURE[f"{name}:in{i}"] for i in range(len(inputs))]
    want, exact = _want(name, [_t(a) for a in arrays], TORCH_FUNCS.get(name))
    tensors = [Tensor(a) for a in arrays]
    call = FnCell(lambda *ts: fn(ms, *ts)) if mode == "graph" else (lambda *ts: fn(ms, *ts))
    got = _in_mode(mode, lambda: call(*tensors))
    _compare(_arrays(got), want, exact)


def _build(name: str):
    ctor, inputs, train = C.LAYERS[name]
    cell = eval(ctor, {"ms": ms})  # noqa: S307 - the cases' own constructors
    for p in cell.get_parameters():
        p.set_data(Tensor(C.param_value(name, p.name, tuple(p.shape), p.dtype.name)))
    cell.set_train(train)
    return cell


def _torch_layer(name: str):
    ctor, _, train = C.LAYERS[name]
    mod = eval(ctor.replace("ms.mint.nn.", "torch.nn."), {"torch": torch})  # noqa: S307
    state = dict(mod.named_parameters()) | dict(mod.named_buffers())
    with torch.no_grad():
        for pname, t in state.items():
            t.copy_(torch.tensor(C.param_value(name, pname, tuple(t.shape), str(t.dtype).split(".")[-1])))
    mod.train(train)
    return mod


@pytest.mark.parametrize("name", list(C.LAYERS))
def test_layer_parameters_are_mindsporess(name: str) -> None:
    cell = _build(name)
    got = [[p.name, list(p.shape), p.dtype.name, bool(p.requires_grad)] for p in cell.get_parameters()]
    assert got == PARAMS[name]


@pytest.mark.parametrize(("name", "mode"), [(n, m) for n in C.LAYERS for m in ("pynative", "graph")])
def test_layer_matches_mindspore_or_torch(name: str, mode: str) -> None:
    _, inputs, train = C.LAYERS[name]
    key = f"layer:{name}"
    arrays = [FIXTURE[f"{key}:in{i}"] for i in range(len(inputs))]
    if key in ERRORS:
        mod = _torch_layer(name)
        want = _arrays(mod(*[_t(a) for a in arrays]))
        if train:
            want += [b.detach().numpy() for n, b in mod.named_buffers()]
    else:
        want, _ = _want(key, [], None)
    cell = _build(name)
    got = _arrays(_in_mode(mode, lambda: cell(*[Tensor(a) for a in arrays])))
    if train:
        got += [p.asnumpy() for p in cell.get_parameters() if not p.requires_grad]
    _compare(got, want)


@pytest.mark.parametrize(("name", "mode"), [(n, m) for n in C.OPTIMS for m in ("pynative", "graph")])
def test_optimizer_matches_mindspore_or_torch(name: str, mode: str) -> None:
    key = f"optim:{name}"
    params = [ms.Parameter(C.W0.copy(), name="w"), ms.Parameter(C.BIAS0.copy(), name="b")]
    opt = eval(C.OPTIMS[name], {"ms": ms, "params": params})  # noqa: S307 - the cases' own constructors
    assert [p.name for p in opt.get_parameters()] == PARAMS[name]
    for grads in C.GRADS:
        assert _in_mode(mode, lambda grads=grads: opt(tuple(Tensor(g) for g in grads))) is True
    if key in ERRORS:
        tp = [torch.nn.Parameter(_t(C.W0)), torch.nn.Parameter(_t(C.BIAS0))]
        topt = eval(C.OPTIMS[name].replace("ms.mint.optim.", "torch.optim."), {"torch": torch, "params": tp})  # noqa: S307
        for gw, gb in C.GRADS:
            tp[0].grad, tp[1].grad = _t(gw), _t(gb)
            topt.step()
        want = [t.detach().numpy() for t in tp]
    else:
        want = [FIXTURE[f"{key}:out0"], FIXTURE[f"{key}:out1"]]
    _compare([p.asnumpy() for p in params], want)
