"""The compatibility corpus: MindSpore programs (tests/compat/corpus/, written in MindSpore's idioms) run with
only the import changed. The shim replaces the word ``mindspore`` by ``opbuild`` in the program's text (what a
user does by hand) and executes it; the checks read the program's own variables."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parent / "corpus"


def run_program(name: str) -> dict:
    """Execute corpus program ``name`` with ``mindspore`` replaced by ``opbuild``; returns its globals."""
    text = (CORPUS / name).read_text()
    assert re.match(r"(import numpy as np\n)?(import mindspore|from mindspore)", text), \
        f"{name} must start with MindSpore's import lines"
    namespace: dict = {"__name__": "__main__"}
    context = ms.get_context("mode")
    try:
        exec(compile(text.replace("mindspore", "opbuild"), str(CORPUS / name), "exec"), namespace)
    finally:
        ms.set_context(mode=context)
    return namespace


def test_every_program_is_tested():
    tested = {"square_1x.py", "square_2x.py", "square_cell.py", "lenet5.py", "quickstart_mlp.py", "resnet50.py",
              "mobilenet_v2.py", "lstm_sentiment.py", "transformer_encoder.py"}
    assert {p.name for p in CORPUS.glob("*.py")} == tested


@pytest.mark.parametrize("name", ["square_1x.py", "square_2x.py", "square_cell.py"])
def test_seed_tutorial_in_all_three_versions(name):
    ns = run_program(name)
    np.testing.assert_array_equal(ns["output"].asnumpy(), np.array([1, 16, 81], np.float32))


def test_lenet5():
    assert run_program("lenet5.py")["logits"].shape == (4, 10)


def test_quickstart_mlp_trains():
    losses = run_program("quickstart_mlp.py")["losses"]
    assert all(np.isfinite(losses)) and np.all(np.diff(losses) < 0) and losses[-1] < 0.85 * losses[0]


def test_resnet50_forward():
    ns = run_program("resnet50.py")
    assert ns["logits"].shape == (1, 10)
    np.testing.assert_allclose(ns["probs"].asnumpy().sum(), 1.0, rtol=1e-5)
    assert sum(p.size for p in ns["net"].get_parameters()) > 23_000_000  # the real ResNet-50 body


def test_mobilenet_v2_forward_with_depthwise_convs():
    ns = run_program("mobilenet_v2.py")
    assert ns["logits"].shape == (2, 10) and np.all(np.isfinite(ns["logits"].asnumpy()))
    depthwise = [c for _, c in ns["net"].cells_and_names() if type(c).__name__ == "Conv2d" and c.group > 1]
    assert depthwise and all(c.group == c.in_channels == c.out_channels for c in depthwise)


def test_lstm_sentiment_classifier():
    scores = run_program("lstm_sentiment.py")["scores"].asnumpy()
    assert scores.shape == (4, 1) and np.all((scores > 0) & (scores < 1))


def test_transformer_encoder():
    probs = run_program("transformer_encoder.py")["probs"].asnumpy()
    assert probs.shape == (2, 3)
    np.testing.assert_allclose(probs.sum(axis=-1), 1.0, rtol=1e-5)
