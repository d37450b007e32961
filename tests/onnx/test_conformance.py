"""ONNX's own node tests (onnx.backend.test.BackendTest) through opbuild's backend.

Every node test whose graph uses only operators the importer supports runs (src/opbuild/frontends/
conformance.py selects them; onnx >= 1.16 builds them in memory). Each must pass, or match a documented
exception (EXCEPTIONS there, listed test by test in docs/onnx-conformance.md): an excepted test must fail,
and for its documented reason (its error must match the rule's pattern); it is then reported as xfail. An
excepted test that passes, or fails for another reason, fails the suite. The other node tests (operators
the importer does not claim, CUDA variants) are not collected at all.

Tolerances are the node tests' own (rtol 1e-3, atol 1e-7 unless a test sets others).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from onnx.backend.test import BackendTest

from opbuild.frontends.onnx_ops import CONVERTERS

from . import conformance as conf

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SELECTED = {c.name for c in conf.selected_tests()}


def _documented(fn: Callable, name: str, reason: str, pattern: str) -> Callable:
    """Wrap an excepted test: it must fail with an error matching ``pattern``; then it is an xfail."""

    @functools.wraps(fn)
    def test(self) -> None:
        try:
            fn(self)
        except Exception as e:
            if re.search(pattern, str(e)):
                pytest.xfail(f"documented: {reason}")
            raise AssertionError(f"{name} is documented to fail ({reason}) but failed otherwise: {e}") from e
        raise AssertionError(f"{name} passes but is listed as an exception ({reason}): remove it from "
                             f"EXCEPTIONS in tests/onnx/conformance.py and regenerate docs/onnx-conformance.md")

    return test


def _node_test_class() -> type:
    backend_test = BackendTest(conf.OpbuildBackend, __name__)
    backend_test.include("^(" + "|".join(sorted(SELECTED)) + ")_cpu$")
    cls = backend_test.test_cases["OnnxBackendNodeModelTest"]
    for attr in [a for a in vars(cls) if a.startswith("test_")]:
        name = attr[:-len("_cpu")] if attr.endswith("_cpu") else None
        if name not in SELECTED:
            delattr(cls, attr)  # not claimed by the importer (or a CUDA variant): not a test of opbuild
            continue
        found = conf.exception_for(name)
        if found is not None:
            setattr(cls, attr, _documented(getattr(cls, attr), name, *found))
    return cls


OnnxBackendNodeModelTest = _node_test_class()


def test_every_supported_op_has_node_tests() -> None:
    """The selection is not accidentally empty or partial: each required operator of the issue runs tests."""
    required = [
        "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log", "Erf", "Tanh", "Relu", "Sigmoid", "Clip",
        "HardSigmoid", "HardSwish", "Gelu", "MatMul", "Gemm", "Conv", "MaxPool", "AveragePool", "GlobalAveragePool",
        "BatchNormalization", "LayerNormalization", "Softmax", "ReduceMean", "ReduceSum", "Reshape", "Transpose",
        "Concat", "Split", "Slice", "Squeeze", "Unsqueeze", "Flatten", "Gather", "GatherElements", "GatherND",
        "Where", "Cast", "CastLike", "IsNaN", "And", "Or", "Not", "Equal", "Less", "Greater", "Expand", "Shape",
        "ConstantOfShape", "Constant", "Identity", "Range",
    ]
    assert set(required) <= set(CONVERTERS)
    covered = {op for c in conf.selected_tests() for op in conf.graph_ops(c.model)}
    assert set(required) <= covered
    passing = {conf.case_op(c) for c in conf.selected_tests() if conf.exception_for(c.name) is None}
    assert set(required) <= passing, sorted(set(required) - passing)


def test_document_lists_every_exception() -> None:
    """docs/onnx-conformance.md names exactly the excepted tests, each under its reason."""
    doc = (REPO / "docs" / "onnx-conformance.md").read_text()
    listed = set(re.findall(r"^- `(test_\w+)`$", doc, flags=re.M))
    expected = {n for n in SELECTED if conf.exception_for(n) is not None}
    assert listed == expected, (f"regenerate with `python scripts/onnx_conformance.py --markdown "
                                f"docs/onnx-conformance.md`; missing {sorted(expected - listed)[:5]}, "
                                f"stale {sorted(listed - expected)[:5]}")
    for _, reason, _ in conf.EXCEPTIONS:
        assert reason in doc
