"""``opbuild.export``: ONNX models of traced networks, checked by onnx.checker, run by onnxruntime and
re-imported by opbuild's own ONNX frontend, against the network's own outputs."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

import opbuild as ms
import opbuild.onnx
from opbuild import models, nn, ops
from opbuild.frontends.onnx_export import UnsupportedExportError

ort = pytest.importorskip("onnxruntime")


def _run_ort(path, *xs):
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(None, {i.name: x for i, x in zip(sess.get_inputs(), xs, strict=True)})


def _check_export(net, x, tmp_path, rtol=1e-4, atol=1e-5):
    ms.set_context(mode=ms.GRAPH_MODE)
    net.set_train(False)
    want = net(x).asnumpy()
    path = ms.export(net, x, file_name=str(tmp_path / "net"), file_format="ONNX")
    assert path.name == "net.onnx" and path.exists()
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    got = _run_ort(path, x.asnumpy())[0]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    back = opbuild.onnx.load(str(path))
    np.testing.assert_allclose(back(x).asnumpy(), want, rtol=rtol, atol=atol)
    return model


def test_mlp_round_trip_and_parameter_names(tmp_path):
    net = models.mlp(in_features=20, hidden=(16, 8), num_classes=4)
    model = _check_export(net, models.mlp_input(batch=3, in_features=20), tmp_path)
    inits = {i.name for i in model.graph.initializer}
    assert {name for name, _ in net.parameters_and_names()} <= inits
    assert [i.name for i in model.graph.input] == ["x0"] and [o.name for o in model.graph.output] == ["y0"]
    assert model.opset_import[0].version == 17


def test_resnet_round_trip_in_inference_mode(tmp_path):
    net = models.resnet_small(width=4, layers=(1, 1, 1))
    net.set_train(True)
    _check_export(net, models.resnet_input(batch=2, image_size=16), tmp_path)
    assert net.training is False  # export left it as _check_export set it; the flag is restored, not forced


def test_export_restores_training_flag(tmp_path):
    net = models.mlp(in_features=6, hidden=(5,), num_classes=2)
    net.set_train(True)
    ms.export(net, np.ones((2, 6), np.float32), file_name=str(tmp_path / "m.onnx"))
    assert net.training is True
    assert (tmp_path / "m.onnx").exists() and not (tmp_path / "m.onnx.onnx").exists()


def test_transformer_round_trip(tmp_path):
    cfg = models.TransformerConfig(vocab_size=50, hidden=16, heads=2, layers=1, intermediate=32, seq_len=5,
                                   batch=2)
    _check_export(models.transformer_encoder(cfg), models.transformer_input(cfg), tmp_path, rtol=1e-3,
                  atol=1e-4)


class _Misc(nn.Cell):
    """Ops beyond the model zoo's: slicing, concat, reductions, transposed convolution, pooling."""

    def __init__(self):
        super().__init__()
        self.up = nn.Conv2dTranspose(3, 2, 3, stride=2, pad_mode="same", has_bias=True)

    def construct(self, x):
        y = self.up(x)
        z = ops.concat((y, y * 2.0), axis=1)[:, 1:3, ::2]
        return ops.mean(z, axis=(2, 3)), ops.max_pool2d(z, 2, 2).sqrt().abs()


def test_more_primitives_round_trip(tmp_path):
    net = _Misc()
    x = ms.Tensor(np.random.default_rng(0).standard_normal((1, 3, 5, 5)).astype(np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    want = [t.asnumpy() for t in net(x)]
    path = ms.export(net, x, file_name=str(tmp_path / "misc"))
    for got, ref in zip(_run_ort(path, x.asnumpy()), want, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


class _Unsupported(nn.Cell):
    def construct(self, x, seg):
        a = ops.UnsortedSegmentSum()(x, seg, 3)
        return ops.MatrixInverse()(a[:2]) + ops.Lgamma()(a[1:])


def test_unsupported_primitives_listed_at_once(tmp_path):
    x = ms.Tensor(np.ones((4, 2), np.float32))
    seg = ms.Tensor(np.array([0, 1, 2, 0], np.int32))
    with pytest.raises(UnsupportedExportError) as e:
        ms.export(_Unsupported(), x, seg, file_name=str(tmp_path / "bad"))
    assert {"MatrixInverse", "Lgamma"} <= set(e.value.problems)
    assert "MatrixInverse" in str(e.value) and "Lgamma" in str(e.value)
    assert not list(tmp_path.iterdir())  # nothing written, not even a temporary


@pytest.mark.parametrize("fmt", ["AIR", "air"])
def test_ascend_format_is_refused(tmp_path, fmt):  # MINDIR is written: tests/mindir/test_mindir_export.py
    with pytest.raises(ValueError, match="not supported"):
        ms.export(models.mlp(in_features=4, hidden=(3,), num_classes=2), np.ones((1, 4), np.float32),
                  file_name=str(tmp_path / "m"), file_format=fmt)


def test_bad_arguments(tmp_path):
    net = models.mlp(in_features=4, hidden=(3,), num_classes=2)
    with pytest.raises(ValueError, match="file_format must be one of"):
        ms.export(net, np.ones((1, 4), np.float32), file_name=str(tmp_path / "m"), file_format="TFLITE")
    with pytest.raises(ValueError, match="at least one input"):
        ms.export(net, file_name=str(tmp_path / "m"))
    with pytest.raises(TypeError, match="enc_key"):
        ms.export(net, np.ones((1, 4), np.float32), file_name=str(tmp_path / "m"), enc_key=b"k")
