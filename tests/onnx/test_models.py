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
