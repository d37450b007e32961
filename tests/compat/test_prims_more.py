"""The primitive classes of ops/ms_prim_classes_zoo*.py against MindSpore 2.10's recorded outputs
(tests/fixtures/mindspore/prims_more.json, recorded by scripts/record_prims_more.py): values within float
tolerance, dtypes and shapes equal (random ones: shapes and dtypes), documented bad inputs refused with
MindSpore's exception type; every class MindSpore's CPU runs is present in ``opbuild.ops`` and
``opbuild.ops.operations``. The classes MindSpore's CPU has no kernel for are checked against NumPy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import opbuild as ms
from opbuild import Parameter, Tensor, ops
from opbuild.ops import operations as P

from ..helpers import FnCell

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "prims_more.json").read_text())
CASES = [c for c in FIXTURE["cases"] if "out" in c or c["kind"] == "refuse" and c["error"]]
# The classes whose inputs are read as values (shapes, counts, data-dependent output sizes): a traced graph
# input has none, so these run in PyNative only; the rest also run inside a GRAPH_MODE Cell.
CONCRETE_INPUTS = {"Range", "Expand", "Zeros", "Ones", "Fills", "UnravelIndex", "ListDiff", "UniqueWithPad",
                   "RaggedRange", "Coalesce", "CheckNumerics", "Assert", "SegmentSum", "SegmentMax", "SegmentMin",
                   "SegmentMean", "SegmentProd", "MaskedSelect", "Randperm", "Gamma", "Poisson", "TruncatedNormal",
                   "CumulativeLogsumexp", "PadV3", "NthElement", "EuclideanNorm", "HistogramFixedWidth",
                   "MatrixSolveLs", "AssignSub", "ScatterAddWithAxis", "GatherV2", "Histogram", "IdentityN", "Pack",
                   "AccumulateNV2", "ConjugateTranspose", "TransposeView", "TransposeExtView", "FillDiagonal",
                   "LogNormalReverse", "NonDeterministicInts", "ParameterizedTruncatedNormal", "Cauchy", "Bucketize",
                   "LuSolve", "Lstsq", "NuclearNorm"}
# Run on MindSpore's CPU, not provided (yet): listed in docs/mindspore-compat.md with the reason.
NOT_PROVIDED: set[str] = set()


def _dec(v):
    if isinstance(v, dict):
        if "t" in v:
            return Tensor(np.asarray(_floats(v["t"]), dtype=v["dtype"]))
        if "param" in v:
            return Parameter(_dec(v["param"]), name="p")
        if "tuple" in v:
            return tuple(_dec(x) for x in v["tuple"])
        if "dtype_obj" in v:
            return getattr(ms, v["dtype_obj"])
        if "float" in v:
            return float(v["float"])
    if isinstance(v, list):
        return [_dec(x) for x in v]
    return v


def _floats(v):
    if isinstance(v, dict) and "float" in v:
        return float(v["float"])
    if isinstance(v, list):
        return [_floats(x) for x in v]
    return v


def _flat(r) -> list:
    if isinstance(r, (tuple, list)):
        return [o for x in r for o in _flat(x)]
    return [r]


def _run(case: dict, graph: bool):
    prim = getattr(ops, case["prim"])(**{k: _dec(v) for k, v in case["kwargs"].items()})
    inputs = [_dec(v) for v in case["inputs"]]
    if not graph:
        return prim(*inputs)
    tensors = [i for i, v in enumerate(inputs) if isinstance(v, Tensor)]

    def fn(*ts):
        args = list(inputs)
        for i, t in zip(tensors, ts):
            args[i] = t
        return prim(*args)

    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        return FnCell(fn)(*[inputs[i] for i in tensors])
    finally:
        ms.set_context(mode=old)


def _check(case: dict, result) -> None:
    got, want = _flat(result), case["out"]
    assert len(got) == len(want), (case["prim"], got)
    for g, w in zip(got, want):
        g = g.asnumpy() if isinstance(g, Tensor) else np.asarray(g)
        assert str(g.dtype) == w["dtype"], (case["prim"], g.dtype, w["dtype"])
        assert list(g.shape) == w["shape"], (case["prim"], g.shape, w["shape"])
        if case["kind"] == "value":
            np.testing.assert_allclose(g.astype(np.float64), np.asarray(_floats(w["t"]), np.float64), rtol=2e-5,
                                       atol=2e-6, err_msg=case["prim"])


def _id(case: dict) -> str:
    return f"{case['prim']}-{json.dumps(case['kwargs'], sort_keys=True)}"


def test_fixture_records_mindspore_2_10_and_classifies_every_name() -> None:
    assert FIXTURE["mindspore"] == "2.10.0"
    assert not set(FIXTURE["runs_on_cpu"]) & set(FIXTURE["not_on_cpu"])
    assert all(FIXTURE["not_on_cpu"].values())


def test_every_class_mindspore_cpu_runs_is_provided() -> None:
    missing = [n for n in FIXTURE["runs_on_cpu"] if n not in NOT_PROVIDED and not (hasattr(ops, n) and
                                                                                    hasattr(P, n))]
    assert not missing


@pytest.mark.parametrize("case", [c for c in CASES if c["kind"] != "refuse" and c["prim"] not in NOT_PROVIDED],
                         ids=_id)
def test_matches_mindspore_pynative(case) -> None:
    _check(case, _run(case, graph=False))


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c["kind"] == "value" and c["prim"] not in CONCRETE_INPUTS
                                  and c["prim"] not in NOT_PROVIDED], ids=_id)
def test_matches_mindspore_graph(case) -> None:
    _check(case, _run(case, graph=True))


@pytest.mark.parametrize("case", [c for c in CASES if c["kind"] == "refuse"], ids=_id)
def test_refuses_what_mindspore_refuses(case) -> None:
    with pytest.raises(getattr(__builtins__, case["error"], None) or Exception):
        _run(case, graph=False)


def _t(a, dtype=np.float32) -> Tensor:
    return Tensor(np.asarray(a, dtype))


X = np.array([[-1.5, 0.0, 2.0], [0.5, -3.0, 1.0]], np.float32)


def _hist_fixed(x, lo, hi, n):
    return np.bincount(np.clip(np.floor((x - lo) / (hi - lo) * n), 0, n - 1).astype(int), minlength=n)


def _space_to_batch(x, b, pads):
    x = np.pad(x, [(0, 0), (0, 0), *map(tuple, pads)])
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(3, 5, 0, 1, 2, 4)
    return y.reshape(b * b * n, c, h // b, w // b)


def _batch_to_space(x, b, crops):
    bn, c, h, w = x.shape
    y = x.reshape(b, b, bn // (b * b), c, h, w).transpose(2, 3, 4, 0, 5, 1).reshape(bn // (b * b), c, h * b, w * b)
    (t, bo), (le, r) = crops
    return y[:, :, t:h * b - bo, le:w * b - r]


ML_X = np.array([[0.1, 0.2, 0.4, 0.8], [0.5, -0.2, 0.3, 0.0]], np.float32)
ML_Y = np.array([[3, 0, 1, -1], [2, -1, 0, 1]], np.int64)
DW_X = np.linspace(-1, 1, 3 * 16, dtype=np.float32).reshape(1, 3, 4, 4)
DW_W = np.linspace(-1, 2, 2 * 3 * 4, dtype=np.float32).reshape(2, 3, 2, 2)
ME_X = np.array([[[0.0, 1.5], [-2.0, 0.3]], [[3.0, 1.0], [0.5, -2.0]]], np.float32)
QX = np.array([[3.0, 1.0, 2.0, 7.0], [0.5, -1.0, 4.0, 2.0]], np.float32)
QN = np.array([[1.0, np.nan], [3.0, 2.0], [2.0, 5.0]], np.float32)
def _same(x, k, st, rate, fill):
    span = [(kk - 1) * r + 1 for kk, r in zip(k, rate)]
    outs = [-(-n // s) for n, s in zip(x.shape[2:], st)]
    tot = [max((o - 1) * s + sp - n, 0) for o, s, sp, n in zip(outs, st, span, x.shape[2:])]
    return torch.nn.functional.pad(torch.tensor(x), (tot[1] // 2, tot[1] - tot[1] // 2, tot[0] // 2,
                                                     tot[0] - tot[0] // 2), value=fill), outs


def _tf_patches(x, k, st, rate):
    """torch's unfold (channel order (c, kh, kw)) reordered to TensorFlow's (kh, kw, c)."""
    xp, outs = _same(x, k, st, rate, 0.0)
    cols = torch.nn.functional.unfold(xp, k, dilation=rate, stride=st).numpy()
    n, c = x.shape[:2]
    return cols.reshape(n, c, k[0] * k[1], *outs).transpose(0, 2, 1, 3, 4).reshape(n, -1, *outs)


def _dilation(x, w, st, rate):
    xp, outs = _same(x, w.shape[1:], st, rate, float("-inf"))
    cols = torch.nn.functional.unfold(xp, w.shape[1:], dilation=rate, stride=st).numpy()
    n, c = x.shape[:2]
    cols = cols.reshape(n, c, -1, *outs) + w.reshape(1, c, -1, 1, 1)
    return cols.max(2)


SQ16 = np.arange(32, dtype=np.float32).reshape(2, 1, 4, 4)
# MindSpore 2.10's CPU has no kernel for these (see the fixture's not_on_cpu): checked against NumPy/torch.
NUMPY_CASES = {
    "Roll": (lambda: ops.Roll(shifts=(1, -1), dims=(0, 1))(_t(X)), lambda: np.roll(X, (1, -1), (0, 1))),
    "Roll-flat": (lambda: ops.Roll(shifts=2)(_t(X)), lambda: np.roll(X, 2)),
    "SplitV": (lambda: ops.SplitV((1, -1), 1, 2)(_t(X)), lambda: np.split(X, [1], 1)),
    "Fmin": (lambda: ops.Fmin()(_t([1.0, np.nan, 3.0]), _t([2.0, 1.0, np.nan])),
             lambda: np.fmin([1.0, np.nan, 3.0], [2.0, 1.0, np.nan]).astype(np.float32)),
    "SoftMarginLoss": (lambda: ops.SoftMarginLoss()(_t(X), _t(np.sign(X) + (X == 0))),
                       lambda: torch.nn.functional.soft_margin_loss(torch.tensor(X), torch.tensor(
                           np.sign(X) + (X == 0))).numpy()),
    "Fills": (lambda: ops.Fills()(_t(X), 2.5), lambda: np.full_like(X, 2.5)),
    "EuclideanNorm": (lambda: ops.EuclideanNorm(keep_dims=True)(_t(X), _t([1], np.int32)),
                      lambda: np.sqrt((X.astype(np.float64) ** 2).sum(1, keepdims=True)).astype(np.float32)),
    "AccumulateNV2": (lambda: ops.AccumulateNV2()((_t(X), _t(X), _t(np.ones_like(X)))), lambda: X + X + 1),
    "HistogramFixedWidth": (lambda: ops.HistogramFixedWidth(5)(_t([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]), _t([0.0, 5.0])),
                            lambda: _hist_fixed(np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]), 0, 5, 5).astype(np.int32)),
    "CountNonZero": (lambda: ops.CountNonZero(dims=[1])(_t(X)), lambda: np.count_nonzero(X, 1).astype(np.int64)),
    "LerpScalar": (lambda: ops.LerpScalar()(_t(X), _t(np.ones_like(X)), 0.25), lambda: X + 0.25 * (1 - X)),
    "LogSoftmaxExt": (lambda: ops.LogSoftmaxExt()(_t(X), 1),
                      lambda: torch.log_softmax(torch.tensor(X), 1).numpy()),
    "SpaceToBatch": (lambda: ops.SpaceToBatch(2, [[1, 1], [0, 2]])(_t(SQ16)),
                     lambda: _space_to_batch(SQ16, 2, [[1, 1], [0, 2]])),
    "BatchToSpace": (lambda: ops.BatchToSpace(2, [[0, 1], [1, 0]])(_t(np.arange(32).reshape(8, 1, 2, 2))),
                     lambda: _batch_to_space(np.arange(32, dtype=np.float32).reshape(8, 1, 2, 2), 2,
                                             [[0, 1], [1, 0]])),
    "TripletMarginLoss": (lambda: ops.TripletMarginLoss()(_t(X), _t(X[::-1]), _t(X * 0.5), _t(1.0)),
                          lambda: torch.nn.functional.triplet_margin_loss(
                              torch.tensor(X), torch.tensor(X[::-1].copy()), torch.tensor(X * 0.5)).numpy()),
    "MultilabelMarginLoss": (lambda: ops.MultilabelMarginLoss()(_t(ML_X), _t(ML_Y, np.int64)),
                             lambda: (torch.nn.functional.multilabel_margin_loss(torch.tensor(ML_X),
                                                                                 torch.tensor(ML_Y)).numpy(),
                                      np.array([[1, 1, 0, 1], [0, 0, 1, 0]], np.float32))),
    "SparseGatherV2": (lambda: ops.SparseGatherV2()(_t(X), _t([1, 0, 1], np.int32), 0), lambda: X[[1, 0, 1]]),
    "ScatterNonAliasingAdd": (lambda: ops.ScatterNonAliasingAdd()(Parameter(_t([1.0, 2.0, 3.0]), name="x"),
                                                                  _t([[0], [2], [0]], np.int32), _t([5.0, 6.0, 1.0])),
                              lambda: np.array([7.0, 2.0, 9.0], np.float32)),
    "DepthwiseConv2dNative": (lambda: ops.DepthwiseConv2dNative(2, 2, pad_mode="pad", pad=1)(_t(DW_X), _t(DW_W)),
                              lambda: torch.nn.functional.conv2d(torch.tensor(DW_X), torch.tensor(
                                  DW_W.transpose(1, 0, 2, 3).reshape(6, 1, 2, 2)), padding=1, groups=3).numpy()),
    "ConfusionMatrix": (lambda: ops.ConfusionMatrix(3)(_t([0, 1, 2, 2], np.int32), _t([0, 2, 2, 1], np.int32)),
                        lambda: np.array([[1, 0, 0], [0, 0, 1], [0, 1, 1]], np.int32)),
    "MatrixExp": (lambda: ops.MatrixExp()(_t(ME_X)), lambda: torch.linalg.matrix_exp(torch.tensor(ME_X)).numpy()),
    "Quantile": (lambda: ops.Quantile(dim=1, keep_dims=True)(_t(QX), _t([0.1, 0.5, 1.0])),
                 lambda: torch.quantile(torch.tensor(QX), torch.tensor([0.1, 0.5, 1.0]), 1, True).numpy()),
    "ExtractImagePatches": (lambda: ops.ExtractImagePatches((1, 1, 2, 3), (1, 1, 2, 1), (1, 1, 1, 2), "SAME")(_t(DW_X)),
                            lambda: _tf_patches(DW_X, (2, 3), (2, 1), (1, 2))),
    "Dilation2D": (lambda: ops.Dilation2D((1, 1, 2, 1), (1, 1, 1, 2))(_t(DW_X), _t(DW_W[0])),
                   lambda: _dilation(DW_X, DW_W[0], (2, 1), (1, 2))),
    "Quantile-nan": (lambda: ops.Quantile(dim=0, ignore_nan=True)(_t(QN), _t(0.3)),
                     lambda: torch.nanquantile(torch.tensor(QN), 0.3, 0).numpy()),
    "Quantile-flat": (lambda: ops.Quantile()(_t(QN), _t([0.5])),
                      lambda: torch.quantile(torch.tensor(QN).reshape(-1), torch.tensor([0.5])).numpy()),
}


@pytest.mark.parametrize("name", sorted(NUMPY_CASES))
def test_classes_mindspore_cpu_lacks_match_numpy(name) -> None:
    run, ref = NUMPY_CASES[name]
    got, want = _flat(run()), _flat(ref())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = g.asnumpy(), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_random_classes_mindspore_cpu_lacks_draw_the_documented_shapes() -> None:
    perm = ops.Randperm(max_length=6, pad=-1)(_t([4], np.int32)).asnumpy()
    assert perm.dtype == np.int32 and sorted(perm[:4]) == [0, 1, 2, 3] and list(perm[4:]) == [-1, -1]
    g = ops.Gamma()((3, 2), _t([1.0, 2.0]), _t([1.0, 3.0])).asnumpy()
    assert g.shape == (3, 2) and g.dtype == np.float32 and np.all(g > 0)
    p = ops.Poisson()((3, 2), _t([2.0, 5.0])).asnumpy()
    assert p.shape == (3, 2) and p.dtype == np.int32 and np.all(p >= 0)
    tn = ops.TruncatedNormal()(_t([200, 5], np.int32)).asnumpy()
    assert np.all(np.abs(tn) <= 2.0) and tn.std() > 0.5


def test_bad_inputs_get_clear_errors() -> None:
    with pytest.raises(ValueError, match="size_splits"):
        ops.SplitV((1, 1), 1, 2)(_t(X))
    with pytest.raises(ValueError, match="sorted"):
        ops.SegmentSum()(_t(X), _t([1, 0], np.int32))
    with pytest.raises(ValueError, match="n \\(7\\)"):
        ops.Randperm(max_length=4)(_t([7], np.int32))
    with pytest.raises(TypeError, match="unexpected argument"):
        ops.Elu(beta=1.0)


def test_docs_list_every_class_not_provided() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "mindspore-compat.md").read_text()
    listed = doc.split("### Primitive classes not provided", 1)[1].split("\n## ", 1)[0]
    absent = [n for n in FIXTURE["not_on_cpu"] if not hasattr(ops, n)]
    assert absent and all(f"`{n}`" in listed for n in absent), [n for n in absent if f"`{n}`" not in listed]
    assert not [n for n in FIXTURE["not_on_cpu"] if hasattr(ops, n) and f"`{n}`" in listed]
    assert not [n for n in FIXTURE["runs_on_cpu"] if f"`{n}`" in listed]


IMG, DWW = _t(DW_X), _t(DW_W)
# The classes checked against NumPy above, inside a GRAPH_MODE Cell: equal to their PyNative results.
GRAPH_CASES = {
    "Roll": (lambda x: ops.Roll((1, -1), (0, 1))(x), [_t(X)]),
    "SplitV": (lambda x: ops.SplitV((1, -1), 1, 2)(x), [_t(X)]),
    "Fmin": (lambda x: ops.Fmin()(x, x * 0.5), [_t(X)]),
    "SoftMarginLoss": (lambda x: ops.SoftMarginLoss()(x, ops.sign(x)), [_t(X)]),
    "LogSoftmaxExt": (lambda x: ops.LogSoftmaxExt()(x, 1), [_t(X)]),
    "TripletMarginLoss": (lambda x: ops.TripletMarginLoss()(x, x * 2, x * 0.5, _t(1.0)), [_t(X)]),
    "DepthwiseConv2dNative": (lambda x, w: ops.DepthwiseConv2dNative(2, 2)(x, w), [IMG, DWW]),
    "SpaceToBatch": (lambda x: ops.SpaceToBatch(2, [[0, 0], [0, 0]])(x), [IMG]),
    "ExtractImagePatches": (lambda x: ops.ExtractImagePatches((1, 1, 2, 2), (1, 1, 1, 1), (1, 1, 1, 1), "SAME")(x),
                            [IMG]),
    "Dilation2D": (lambda x, w: ops.Dilation2D(1, 1)(x, w), [IMG, _t(DW_W[0])]),
    "Quantile": (lambda x: ops.Quantile(dim=1)(x, _t([0.5])), [_t(QX)]),
    "MultilabelMarginLoss": (lambda x, y: ops.MultilabelMarginLoss()(x, y), [_t(ML_X), _t(ML_Y, np.int64)]),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GRAPH_CASES))
def test_classes_mindspore_cpu_lacks_run_in_graph_mode(name) -> None:
    fn, inputs = GRAPH_CASES[name]
    want = _flat(fn(*inputs))
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        got = _flat(FnCell(fn)(*inputs))
    finally:
        ms.set_context(mode=old)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6, atol=1e-6)
