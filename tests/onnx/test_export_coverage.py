"""Every registered primitive either exports to ONNX or says why it cannot (tests/onnx/export_cases.py).

Enumerates the registry at run time: a new primitive fails here until it has an export case in
``export_cases.CASES`` (run against onnxruntime by tests/onnx/test_export_checks.py) or a reasoned entry in
``export_cases.NO_EXPORT``. Fast (nothing is built or exported): it runs in the everyday subset."""

from __future__ import annotations

from opbuild.frontends.onnx_export import CONVERTERS
from opbuild.ops.registry import REGISTRY
from tests.onnx import export_cases as E


def test_every_primitive_exports_or_says_why():
    missing = sorted(set(REGISTRY) - set(E.CASES) - set(E.NO_EXPORT))
    assert missing == [], (
        f"{len(missing)} primitive(s) neither export nor say why: {', '.join(missing)}. Write the converter "
        "(src/opbuild/frontends/onnx_export*.py) and add one line to CASES in tests/onnx/export_cases.py, or "
        "give the reason in NO_EXPORT")


def test_tables_are_consistent():
    assert not set(E.CASES) & set(E.NO_EXPORT), sorted(set(E.CASES) & set(E.NO_EXPORT))
    assert sorted(set(E.CASES) - set(REGISTRY)) == [], "CASES names ops that are not registered"
    assert sorted(set(E.NO_EXPORT) - set(REGISTRY)) == [], "NO_EXPORT names ops that are not registered"
    without = sorted(op for op in E.CASES if op not in CONVERTERS)
    assert without == [], f"ops with an export case but no converter: {without}"
    assert all(len(reason) > 30 for reason in E.NO_EXPORT.values())
