"""The ONNX operators real models stopped at (Resize, CumSum, ScatterND, ScatterElements,
InstanceNormalization, ReduceL2, ReduceLogSumExp, ...): tiny torch modules exported with torch.onnx (the
TorchScript exporter, as the zoo script uses), run on opbuild and on onnxruntime, compared at rtol 1e-4.

Each case also checks that the exported graph really contains the operator it is about, so a torch version
that exports it differently makes the test fail rather than pass vacuously.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnx
import pytest

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")

import opbuild.onnx  # noqa: E402

F = torch.nn.functional

pytestmark = pytest.mark.usefixtures("graph_mode")


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def export(module: torch.nn.Module, args: tuple, opset: int = 17) -> onnx.ModelProto:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module.eval(), args, buf, dynamo=False, opset_version=opset)
    return onnx.load_from_string(buf.getvalue())


def check(module: torch.nn.Module, args: tuple, op: str, opset: int = 17, rtol: float = 1e-4) -> None:
    model = export(module, args, opset)
    assert op in {n.op_type for n in model.graph.node}, [n.op_type for n in model.graph.node]
    feeds = {i.name: a.numpy() for i, a in zip(model.graph.input, args, strict=False)}
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, feeds)
    got = opbuild.onnx.load(model).run(feeds)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-5 * max(1.0, float(np.abs(w).max())))


def rand(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize(("mode", "align", "kw"), [
    ("nearest", None, {"scale_factor": 2}),
    ("nearest", None, {"size": (5, 3)}),
    ("bilinear", False, {"scale_factor": 2}),
    ("bilinear", True, {"size": (7, 9)}),
    ("bilinear", False, {"size": (3, 2)}),
    ("bicubic", False, {"scale_factor": 1.5}),
    ("bicubic", True, {"size": (8, 8)}),
])
def test_interpolate_exports_resize(mode, align, kw) -> None:
    check(Fn(lambda x: F.interpolate(x, mode=mode, align_corners=align, **kw)), (rand(2, 3, 4, 5),), "Resize")


def test_cumsum_position_ids() -> None:
    """RoBERTa's position ids: cumsum of a padding mask, times the mask, plus the padding index."""
    def pos(ids):
        mask = ids.ne(1).int()
        return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + 1

    ids = torch.tensor([[0, 5, 7, 1, 1], [0, 3, 1, 1, 1]])
    check(Fn(pos), (ids,), "CumSum")
    check(Fn(lambda x: torch.cumsum(x, dim=-1)), (rand(3, 6),), "CumSum")


def test_index_put_exports_scatter_nd() -> None:
    def put(x, v):
        y = x.clone()
        y[torch.tensor([0, 2])] = v
        return y

    check(Fn(put), (rand(4, 3), rand(2, 3, seed=1)), "ScatterND", opset=16)


def test_scatter_and_scatter_add_export_scatter_elements() -> None:
    index = torch.tensor([[0, 2, 1], [3, 0, 0]])
    check(Fn(lambda x, s: x.scatter(1, index, s)), (rand(2, 4), rand(2, 3, seed=1)), "ScatterElements", opset=16)
    check(Fn(lambda x, s: x.scatter_add(1, index, s)), (rand(2, 4), rand(2, 3, seed=1)), "ScatterElements",
          opset=16)


def test_instance_norm_and_group_norm() -> None:
    torch.manual_seed(0)
    norm = torch.nn.InstanceNorm2d(3, affine=True)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-0.5, 0.5)
    check(norm, (rand(2, 3, 5, 4),), "InstanceNormalization")
    check(torch.nn.GroupNorm(2, 4), (rand(2, 4, 3, 3),), "InstanceNormalization")


def test_norms_and_logsumexp() -> None:
    check(Fn(lambda x: torch.linalg.vector_norm(x, dim=1)), (rand(3, 5, 2),), "ReduceL2")
    check(Fn(lambda x: torch.linalg.vector_norm(x, ord=1, dim=(1, 2), keepdim=True)), (rand(3, 5, 2),), "ReduceL1")
    check(Fn(lambda x: torch.logsumexp(x * 30, dim=-1)), (rand(4, 6),), "ReduceLogSumExp")
    check(Fn(lambda x: F.normalize(x, dim=1)), (rand(4, 6),), "ReduceL2")


@pytest.mark.parametrize(("module", "shape"), [
    (torch.nn.MaxPool3d(2, stride=2), (1, 2, 4, 6, 5)),
    (torch.nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False), (1, 2, 5, 6, 5)),
    (torch.nn.MaxPool2d(3, stride=1, dilation=2, padding=1), (2, 3, 9, 8)),
    (torch.nn.MaxPool2d(3, stride=2, ceil_mode=True), (1, 2, 8, 9)),
])
def test_pooling_3d_dilated_and_ceil(module, shape) -> None:
    check(module, (rand(*shape),), "MaxPool" if "Max" in type(module).__name__ else "AveragePool")


def test_max_pool_indices() -> None:
    """torch's return_indices exports MaxPool's second output (flat indices per image)."""
    check(Fn(lambda x: F.max_pool2d(x, 2, 2, return_indices=True)[1]), (rand(2, 3, 6, 4),), "MaxPool")


@pytest.mark.parametrize(("module", "shape"), [
    (torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1), (2, 4, 5, 6)),
    (torch.nn.ConvTranspose2d(4, 6, (2, 3), stride=(2, 1), groups=2, dilation=(1, 2)), (1, 4, 3, 5)),
    (torch.nn.ConvTranspose1d(3, 2, 4, stride=3, padding=2), (2, 3, 7)),
])
def test_conv_transpose(module, shape) -> None:
    torch.manual_seed(0)
    check(module, (rand(*shape),), "ConvTranspose")


def test_batch_norm_training_mode() -> None:
    """Exported in training mode, the batch's own statistics normalise (the running-statistics outputs are
    checked by ONNX's node tests)."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(torch.nn.BatchNorm2d(3, momentum=0.3), (rand(4, 3, 5, 2),), buf, dynamo=False,
                          opset_version=17, training=torch.onnx.TrainingMode.TRAINING)
    model = onnx.load_from_string(buf.getvalue())
    node = next(n for n in model.graph.node if n.op_type == "BatchNormalization")
    assert any(a.name == "training_mode" and a.i == 1 for a in node.attribute)
    x = rand(4, 3, 5, 2).numpy() * 3 + 1
    got = opbuild.onnx.load(model).run({model.graph.input[0].name: x})
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    want = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-5)


def test_cross_entropy_and_nll_losses() -> None:
    target = torch.tensor([[1, 0, 3], [2, 2, -100]])
    weight = torch.tensor([0.5, 1.0, 2.0, 1.5])
    check(Fn(lambda x: F.cross_entropy(x, target, weight=weight)), (rand(2, 4, 3),), "SoftmaxCrossEntropyLoss")
    check(Fn(lambda x: F.nll_loss(x, target, reduction="none")), (rand(2, 4, 3),),
          "NegativeLogLikelihoodLoss")
