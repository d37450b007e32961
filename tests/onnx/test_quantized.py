"""The int8 model fixture (tests/fixtures/onnx/resnet_int8.onnx: the tiny ResNet quantised by
onnxruntime.quantization.quantize_static, QOperator format, written by scripts/export_onnx_fixtures.py
--quantize) through opbuild's importer, against onnxruntime's outputs stored next to it.

The uint8 output of the first QLinearConv must be equal (both compute the exact int32 convolution and round
the same product), and so must every quantised tensor after it: the dequantised float outputs then agree to
float32 rounding (observed 1.2e-7). The fixture is quantised with ``reduce_range=True`` (7-bit weights):
with full-range int8 weights onnxruntime's u8s8 kernels on CPUs without VNNI saturate int16 partial sums,
and its outputs differ from ONNX's reference (onnx.reference) by up to 23 steps; opbuild equals the
reference there too (checked below on the same model).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest

import opbuild.onnx

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "onnx"

pytestmark = pytest.mark.usefixtures("graph_mode")


@pytest.fixture(scope="module")
def quantized():
    data = np.load(FIXTURES / "resnet_int8.npz")
    inputs = {k.split(":", 1)[1]: data[k] for k in data.files if k.startswith("input:")}
    outputs = {k.split(":", 1)[1]: data[k] for k in data.files if k.startswith("output:")}
    return opbuild.onnx.load(FIXTURES / "resnet_int8.onnx"), inputs, outputs


def test_fixture_is_a_small_qoperator_model() -> None:
    proto = onnx.load(str(FIXTURES / "resnet_int8.onnx"))
    ops = {n.op_type for n in proto.graph.node}
    assert {"QuantizeLinear", "QLinearConv", "DequantizeLinear"} <= ops
    assert (FIXTURES / "resnet_int8.onnx").stat().st_size < 100 * 1024


def test_matches_onnxruntime(quantized) -> None:
    model, inputs, expect = quantized
    got = dict(zip(model.output_names, model.run(inputs), strict=True))
    assert list(got) == list(expect)
    ints = [n for n, v in expect.items() if v.dtype == np.uint8]
    assert ints, "the fixture exposes one integer tensor"
    for name, ref in expect.items():
        actual = got[name]
        assert actual.shape == ref.shape and actual.dtype == ref.dtype, name
        if ref.dtype == np.uint8:
            np.testing.assert_array_equal(actual, ref, err_msg=name)
            assert len(np.unique(ref)) > 16  # a real spread of quantised values, not a constant
        else:
            np.testing.assert_allclose(actual, ref, rtol=1e-5, atol=1e-5, err_msg=name)


def test_matches_onnx_reference(quantized) -> None:
    from onnx.reference import ReferenceEvaluator

    model, inputs, _ = quantized
    ref = ReferenceEvaluator(str(FIXTURES / "resnet_int8.onnx")).run(None, inputs)
    for actual, expect in zip(model.run(inputs), ref, strict=True):
        if expect.dtype == np.uint8:
            np.testing.assert_array_equal(actual, expect)
        else:
            np.testing.assert_allclose(actual, expect, rtol=1e-5, atol=1e-5)
