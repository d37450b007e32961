"""mindcv's CNN models run on opbuild unchanged and give MindSpore 2.10's results.

For the smallest variant of each CNN family (tests/zoo/cnn_cases.py), built with ``create_model(name,
num_classes=10)`` after ``set_seed`` and run in eval mode on a fixed input, opbuild gives the logits MindSpore
gave (tests/fixtures/mindspore/zoo_cnn.json, recorded by scripts/record_zoo_cnn.py) and the same parameters:
the same names and shapes in the same order, and the same float64 sums (zoo_cnn_params.npz). A sample of the
other registered CNN variants is built too and its parameter totals compared.

Tolerance rule for logits: ``|got - expected| <= 1e-4 * max|expected|`` elementwise (float32 rounding
accumulated over up to ~200 layers, scaled to the output's magnitude, since some models' logits are ~1e-14
and others ~1e3). Parameter sums are compared to 1e-6 relative plus ``1e-6 * sqrt(numel)`` absolute: the
weights are the same float32 values, so only the order of the float64 summation may differ.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from .cnn_cases import CONSTRUCT_ONLY, FAMILIES, SWEEP

pytestmark = pytest.mark.slow  # child processes compile and run whole networks

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"
RECORDED = json.loads((FIXTURES / "zoo_cnn.json").read_text())
PARAMS = np.load(FIXTURES / "zoo_cnn_params.npz")
RUNNER = Path(__file__).with_name("cnn_runner.py")

# Run in PyNative as well (the rest run in GRAPH_MODE only, the project's main mode).
PYNATIVE = ("resnet", "squeezenet")


def _run(mode: str, *jobs: tuple[tuple[str, ...], tuple[str, ...]]) -> dict:
    """Run the runner once per (families, sweep) job, the jobs side by side (CI has two cores and most of the
    time goes to compiling kernels in one process), and merge what they print."""
    procs = [subprocess.Popen([sys.executable, str(RUNNER), mode, ",".join(families), ",".join(sweep)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for families, sweep in jobs]
    merged: dict = {}
    for proc in procs:
        out, err = proc.communicate(timeout=1800)
        assert proc.returncode == 0, err[-4000:]
        for key, value in json.loads(out.strip().splitlines()[-1]).items():
            merged.setdefault(key, {}).update(value)
    return merged


@pytest.fixture(scope="module")
def graph() -> dict:
    # vgg11 alone takes as long as a dozen small families: building its 133M weights is most of it.
    families = sorted(FAMILIES)
    first = tuple(f for f in families if f == "vgg" or families.index(f) % 3 == 0)
    rest = tuple(f for f in families if f not in first)
    return _run("graph", (first, SWEEP), (rest, ()))


@pytest.fixture(scope="module")
def pynative() -> dict:
    return _run("pynative", (PYNATIVE, ()))


def _check_forward(family: str, got: dict) -> None:
    assert "error" not in got, f"{FAMILIES[family][0]}: {got.get('error')}"
    expected = RECORDED["outputs"][family]
    assert got["shape"] == expected["shape"]
    logits = np.array(expected["logits"])
    np.testing.assert_allclose(got["logits"], logits, rtol=0, atol=1e-4 * np.abs(logits).max(),
                               err_msg=FAMILIES[family][0])


def _check_params(family: str, got: dict) -> None:
    keys = bytes(PARAMS[f"{family}/keys"]).decode().split("\n")
    assert got["keys"] == keys, FAMILIES[family][0]
    numel = np.array([math.prod(int(d) for d in k.rsplit(":", 1)[1].split("x") if d) for k in keys])
    diff = np.abs(np.array(got["sums"]) - PARAMS[f"{family}/sums"].astype(np.float64))
    bound = 1e-6 * np.abs(PARAMS[f"{family}/sums"]) + 1e-6 * np.sqrt(numel)
    assert (diff <= bound).all(), [(k, d) for k, d, b in zip(keys, diff, bound) if d > b][:5]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_matches_mindspore_in_graph_mode(family: str, graph: dict) -> None:
    _check_forward(family, graph["forward"][family])
    _check_params(family, graph["forward"][family])


@pytest.mark.parametrize("family", PYNATIVE)
def test_family_matches_mindspore_in_pynative(family: str, pynative: dict) -> None:
    _check_forward(family, pynative["forward"][family])


@pytest.mark.parametrize("name", SWEEP)
def test_variant_parameters_match_mindspore(name: str, graph: dict) -> None:
    got, expected = graph["sweep"][name], RECORDED["sweep"][name]
    assert "error" not in got, got.get("error")
    assert (got["count"], got["numel"]) == (expected["count"], expected["numel"])
    for key in ("sum", "abs_sum"):
        assert got[key] == pytest.approx(expected[key], rel=1e-6, abs=1e-6 * math.sqrt(expected["numel"])), key


@pytest.mark.parametrize("family", sorted(CONSTRUCT_ONLY))
def test_construct_only_family_builds(family: str, graph: dict) -> None:
    """rexnet: MindSpore 2.10 itself fails to build it (an uninitialized Tensor), so there is nothing to compare;
    opbuild builds it."""
    assert isinstance(graph["construct_only"][family], int) and graph["construct_only"][family] > 0
