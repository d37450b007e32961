"""The zoo check (scripts/onnx_zoo_check.py): every model of the script, exported by torch.onnx with random
weights, loads on opbuild, holds the operators it is about and matches onnxruntime within rtol 1e-3."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("graph_mode")]

_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "onnx_zoo_check.py"
_spec = importlib.util.spec_from_file_location("onnx_zoo_check", _SCRIPT)
zoo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(zoo)


@pytest.mark.parametrize("name", sorted(zoo.models()))
def test_zoo_model_matches_onnxruntime(name) -> None:
    row = zoo.check(name, zoo.models()[name], 1e-3, None)
    assert row["missing_ops"] == [], f"{name}: the export no longer holds {row['missing_ops']}"
    assert row["error"] is None, f"{name}: {row['error']}"
