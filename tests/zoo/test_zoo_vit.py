"""mindcv's transformer and MLP-style vision models run on opbuild unchanged and give MindSpore 2.10's results.

The smallest registered variant of each of 21 families (tests/zoo/zoo_vit_cases.py) is built with
``create_model(name, num_classes=10)`` after ``set_seed``, put in eval mode and given one fixed image, in a
subprocess under ``opbuild.alias_mindspore()`` (tests/zoo/zoo_vit_runner.py), as a mindcv user would run it.
MindSpore's side was recorded by scripts/record_zoo_vit.py into tests/fixtures/mindspore/zoo_vit.json.

Checked per model:
- every parameter's name and shape, in order, and its float64 sum within 1e-6 relative: the seeded
  initializers give MindSpore's float32 values bit for bit (the sums agree to the 9 digits stored); the slack
  is for values computed with ops at construction (Swin V2's logit scales are ``log(10)``, where MindSpore's
  CPU Log is 1 ulp low: docs/mindspore-compat.md, "mindcv");
- the logits: ``max|opbuild - ms| <= 1e-4 * max|ms| + 1e-6``, float32 rounding of a few ulps per layer over
  tens of layers scaled to the output; a wrong op or a live dropout moves them by a large part of their scale.
GRAPH_MODE (the main mode) for every model, PyNative for two. Four families set a drop-path rate by default
(swin, swin v2, convit, visformer) and one case raises every dropout and drop-path rate: eval mode must leave
them inactive. Three models MindSpore 2.10 cannot run forward on CPU are checked to fail on opbuild as well.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .zoo_vit_cases import DROP, MODELS, PARAMS_ONLY, unpack_params

HERE = Path(__file__).resolve().parent
FIXTURE = json.loads((HERE.parent / "fixtures" / "mindspore" / "zoo_vit.json").read_text())
REF = FIXTURE["models"]
RUNNER = HERE / "zoo_vit_runner.py"
SRC = HERE.parents[1] / "src"
FORWARD = [*MODELS, *DROP]
PYNATIVE = ["mlp_mixer_s_p32", "pit_ti"]
# Forward errors of MindSpore 2.10 on CPU (recorded): pvt's ops.ResizeBilinear is gone from MindSpore 2.10,
# volo passes ops.pad nested pairs; halonet stops at ExtractImagePatches (no CPU kernel) before it reaches
# mindcv's ops.pad(x, paddings=...), which MindSpore 2.10 rejects as well (the fixture's "facts").
MS_FORWARD_FAILS = sorted(label for label, rec in REF.items() if "error" in rec)


def _run(mode: str, args: list[str]) -> dict:
    # mindcv (the test extra) imports mindspore at import time: the runner imports it under the alias.
    proc = subprocess.run([sys.executable, str(RUNNER), mode, *args], capture_output=True, text=True,
                          timeout=1500, env={**os.environ, "PYTHONPATH": str(SRC)})
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def graph_results() -> dict:
    return _run("GRAPH", [*FORWARD, "--params-only", *PARAMS_ONLY])


@pytest.fixture(scope="module")
def pynative_results() -> dict:
    return _run("PYNATIVE", PYNATIVE)


def check_params(packed_ref: list[str], got: dict) -> None:
    assert "params" in got, got.get("error")
    want, have = unpack_params(packed_ref), unpack_params(got["params"])
    assert [p[:2] for p in have] == [p[:2] for p in want]
    bad = [(n, s, h[2]) for (n, _, s), h in zip(want, have, strict=True) if abs(s - h[2]) > 1e-6 * abs(s) + 1e-9]
    assert not bad, f"{len(bad)} parameter sums differ (name, ms, opbuild): {bad[:5]}"


def check_logits(label: str, got: dict) -> None:
    assert "error" not in got, got["error"]
    want, have = np.array(REF[label]["logits"]), np.array(got["logits"])
    assert got["shape"] == REF[label]["shape"] == [1, 10]
    assert np.abs(have - want).max() <= 1e-4 * np.abs(want).max() + 1e-6, (have, want)


def test_the_fixture_covers_every_family() -> None:
    assert set(REF) == set(FORWARD) and len(MODELS) == 21 and set(FIXTURE["params_only"]) == set(PARAMS_ONLY)
    assert MS_FORWARD_FAILS == ["halonet_50t", "pvt_tiny", "volo_d1"]


@pytest.mark.parametrize("label", FORWARD)
def test_graph_mode_parameters_match_mindspore(label: str, graph_results: dict) -> None:
    check_params(REF[label]["params"], graph_results[label])


@pytest.mark.parametrize("name", PARAMS_ONLY)
def test_more_variants_construct_with_mindspores_parameters(name: str, graph_results: dict) -> None:
    check_params(FIXTURE["params_only"][name], graph_results[name])


@pytest.mark.parametrize("label", [m for m in FORWARD if m not in MS_FORWARD_FAILS])
def test_graph_mode_logits_match_mindspore(label: str, graph_results: dict) -> None:
    check_logits(label, graph_results[label])


def test_eval_mode_leaves_dropout_and_drop_path_inactive(graph_results: dict) -> None:
    """With every rate at 0.5 the eval logits are MindSpore's, and the plain model's (same weights)."""
    for label, (name, _) in DROP.items():
        assert graph_results[label]["logits"] == graph_results[name]["logits"]


@pytest.mark.parametrize("label", MS_FORWARD_FAILS)
def test_models_mindspore_cannot_run_fail_on_opbuild_too(label: str, graph_results: dict) -> None:
    err = graph_results[label].get("error", "")
    want = REF[label]["error"]
    if label == "halonet_50t":  # opbuild has ExtractImagePatches; the next stop is MindSpore's own TypeError
        want = FIXTURE["facts"]["pad_paddings_keyword"]
        assert "paddings" in err and "paddings" in want
    assert err.split(":")[0] == want.split(":")[0], (err, want)


@pytest.mark.parametrize("label", PYNATIVE)
def test_pynative_matches_mindspore(label: str, pynative_results: dict) -> None:
    check_params(REF[label]["params"], pynative_results[label])
    check_logits(label, pynative_results[label])
