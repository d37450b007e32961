"""Real architectures: tiny BERT, GPT-2, ViT, ResNet and MobileNetV2 from the transformers package, exported
with torch.onnx.export(dynamo=True) by scripts/export_onnx_fixtures.py, run through opbuild's importer and
compared with the reference outputs onnxruntime produced at export time (stored next to each model).

Tolerance: rtol 1e-4 and atol 1e-4 (outputs are of order one: the fixtures' largest outputs are 0.4 to 6).
Observed differences are ~1e-6.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
import opbuild.onnx

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "onnx"
MODELS = ("bert", "gpt2", "vit", "resnet", "mobilenet")

pytestmark = pytest.mark.usefixtures("graph_mode")


def fixture(name: str) -> tuple[Path, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(model path, inputs by name, onnxruntime's outputs by name)."""
    data = np.load(FIXTURES / f"{name}.npz")
    inputs = {k.split(":", 1)[1]: data[k] for k in data.files if k.startswith("input:")}
    outputs = {k.split(":", 1)[1]: data[k] for k in data.files if k.startswith("output:")}
    return FIXTURES / f"{name}.onnx", inputs, outputs


@pytest.fixture(scope="module", params=MODELS)
def loaded(request):
    path, inputs, outputs = fixture(request.param)
    return request.param, opbuild.onnx.load(path), inputs, outputs


def test_fixture_is_small_and_meaningful(loaded) -> None:
    name, model, inputs, outputs = loaded
    assert (FIXTURES / f"{name}.onnx").stat().st_size < 400 * 1024
    for out in outputs.values():  # not collapsed to ~0 (MobileNetV2's weights are re-initialised for this)
        assert 0.1 < float(np.abs(out).max()) < 100
        assert float(np.abs(out).mean()) > 1e-2


def test_matches_onnxruntime(loaded) -> None:
    name, model, inputs, expect = loaded
    got = model.run(inputs)
    assert model.output_names == list(expect)
    for out_name, actual in zip(model.output_names, got, strict=True):
        ref = expect[out_name]
        assert actual.shape == ref.shape and actual.dtype == ref.dtype
        np.testing.assert_allclose(actual, ref, rtol=1e-4, atol=1e-4, err_msg=f"{name}: {out_name}")


def test_cell_call_builds_once_and_reuses(loaded) -> None:
    """Positional call with arrays returns Tensors; a second call with the same signature reuses the graph."""
    name, model, inputs, expect = loaded
    args = [inputs[n] for n in model.input_names]
    first = model(*args)
    n_graphs = len(model.compile_info())
    again = model(*args)
    assert len(model.compile_info()) == n_graphs
    firsts = first if isinstance(first, tuple) else (first,)
    agains = again if isinstance(again, tuple) else (again,)
    for a, b in zip(firsts, agains, strict=True):
        assert isinstance(a, ms.Tensor)
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_initializers_are_parameters(loaded) -> None:
    name, model, inputs, expect = loaded
    params = dict(model.parameters_and_names())
    assert params, "every initializer is a Parameter"
    floats = [p for p in params.values() if p.dtype.is_float]
    assert floats and all(p.requires_grad for p in floats)
    # Parameter names are the ONNX initializer names (torch's state-dict names where the exporter kept them).
    assert any(n.startswith("model.") for n in params)


def test_set_data_on_weights_takes_effect_at_next_call() -> None:
    path, inputs, expect = fixture("resnet")
    model = opbuild.onnx.load(path)
    base = model.run(inputs)
    name, weight = next((n, p) for n, p in model.parameters_and_names() if p.ndim == 4)
    original = weight.asnumpy().copy()
    weight.set_data(np.zeros_like(original))
    changed = model.run(inputs)
    assert not np.allclose(changed[0], base[0])
    weight.set_data(original)
    np.testing.assert_array_equal(model.run(inputs)[0], base[0])


@pytest.mark.parametrize("name", ["bert", "gpt2", "vit"])
def test_transformers_fuse_their_row_ops_into_fewer_kernels(name, monkeypatch) -> None:
    """Reduction fusion (passes/reduce_fusion.py): Softmax and LayerNorm with their residual/mask Add (and the
    export's Where(IsNaN) after Softmax) become FusedRowReduce kernels; fewer kernel calls than with fusion
    off, same outputs. A LayerNorm with nothing to fuse (GPT-2's pre-norm blocks: its input Add is also the
    residual stream, read later) stays the single op."""
    path, inputs, expect = fixture(name)
    counts = {}
    for flag in ("0", "1"):
        monkeypatch.setenv("OPBUILD_FUSION", flag)
        model = opbuild.onnx.load(path)
        got = model.run(inputs)
        np.testing.assert_allclose(got[0], expect[model.output_names[0]], rtol=1e-4, atol=1e-4)
        counts[flag] = [n.op for n in model.compile_info()[0].graph.memory_plan.kernel_nodes]
    assert "Softmax" in counts["0"] and "LayerNorm" in counts["0"]
    row_ops = counts["0"].count("Softmax") + counts["0"].count("LayerNorm")
    assert "Softmax" not in counts["1"] and counts["1"].count("FusedRowReduce") >= 2
    assert counts["1"].count("FusedRowReduce") + counts["1"].count("LayerNorm") == row_ops
    assert len(counts["1"]) < len(counts["0"])


# ---- float16 versions (scripts/onnx_float16.py) -------------------------------------------------------------
# The float32 fixtures converted to float16 (initializers, inputs and outputs; nothing needed keeping in float32
# for onnxruntime 1.23), compared with onnxruntime's float16 run and with the float32 reference. Tolerance:
# 4e-3 relative to the output's largest magnitude (at least 1), about four float16 ulps there: onnxruntime
# and opbuild round differently inside (opbuild computes every op in float32 and rounds once per op output).
# Observed for the transformers: at most 2 float16 ulps from onnxruntime, within ~1e-3 of float32.
#
# The CNNs need more: onnxruntime's CPU provider runs their float16 convolutions in float32 (its optimised
# MobileNetV2 graph is Cast, then 52 float32 NCHWc Convs with Clips, then Casts: no float16 value inside),
# while opbuild computes each op in float32 and rounds its output to float16, as the model states. Over a
# 50-layer network that is ~3x onnxruntime's error against float32 (MobileNetV2: mean 0.0094 against 0.0032,
# max 0.089 against 0.041 for outputs up to 6). Those are bounded by CNN_FACTOR x onnxruntime's own distance to
# the float32 reference (and, through it, to onnxruntime's output). ResNet (half MaxPool since issue #16) is
# within the transformers' bound: 0.0020 from onnxruntime's run, 0.0025 from float32 (outputs up to 3.2;
# onnxruntime's own float16 run is 0.0017 from float32).
FP16_MODELS = ("bert", "gpt2", "vit", "resnet", "mobilenet")
FP16_TOL = 4e-3
CNN_FACTOR = 3.0


@pytest.mark.parametrize("name", FP16_MODELS)
def test_float16_model_matches_onnxruntime(name) -> None:
    path, inputs, expect = fixture(f"{name}_fp16")
    _, _, expect32 = fixture(name)
    model = opbuild.onnx.load(path)
    assert all(p.dtype == ms.float16 for p in model.get_parameters() if p.dtype.is_float)
    got = model.run(inputs)
    for out_name, actual in zip(model.output_names, got, strict=True):
        ref, ref32 = expect[out_name], expect32[out_name]
        assert actual.dtype == np.float16 and ref.dtype == np.float16 and actual.shape == ref.shape
        scale = max(1.0, float(np.abs(ref32).max()))
        ort_err32 = np.abs(ref.astype(np.float32) - ref32).max()  # onnxruntime's float16 run vs float32
        cnn = name in ("resnet", "mobilenet")
        bound = max(FP16_TOL * scale, CNN_FACTOR * ort_err32 if cnn else 0.0)
        err = np.abs(actual.astype(np.float32) - ref.astype(np.float32)).max()
        assert err <= bound + (ort_err32 if cnn else 0.0), f"{name}: {out_name}: {err} from onnxruntime's run"
        err32 = np.abs(actual.astype(np.float32) - ref32).max()
        assert err32 <= bound, f"{name}: {out_name}: {err32} from the float32 reference"


def test_float16_fixture_is_about_half_the_size() -> None:
    """float16 weights take half the bytes (the graph structure itself does not shrink)."""
    for name in MODELS:
        assert (FIXTURES / f"{name}_fp16.onnx").stat().st_size < 0.65 * (FIXTURES / f"{name}.onnx").stat().st_size
