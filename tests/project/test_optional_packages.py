"""Optional features without their packages (issue 23, point 12): one line naming the extra to install, never a
traceback; examples/train_data_parallel.py without mpi4py runs as one process, as its docstring says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from opbuild.core.errors import MissingPackageError, OpbuildError

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def _without(tmp_path: Path, package: str) -> dict[str, str]:
    """An environment in which ``import <package>`` fails as for a package that is not installed."""
    blocker = tmp_path / "blockers" / package
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text(f"raise ModuleNotFoundError(\"No module named '{package}'\", "
                                         f"name='{package}')\n")
    path = os.pathsep.join([str(blocker.parent), str(REPO / "src"), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, "OPBUILD_CACHE_PATH": str(tmp_path / "cache")}


def test_the_error_is_an_opbuild_error_and_a_module_not_found_error() -> None:
    e = MissingPackageError("opbuild.onnx", "onnx", "onnx")
    assert isinstance(e, OpbuildError) and isinstance(e, ModuleNotFoundError) and e.name == "onnx"
    assert str(e) == "opbuild.onnx needs the 'onnx' package, which is not installed: pip install 'opbuild[onnx]'"


def test_opbuild_run_of_a_model_without_onnx_is_one_line(tmp_path) -> None:
    model = tmp_path / "model.onnx"
    model.write_bytes(b"\x08\x07")  # never parsed: the package is missing first
    proc = subprocess.run([sys.executable, "-m", "opbuild", "run", str(model)], env=_without(tmp_path, "onnx"),
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "needs the 'onnx' package, which is not installed: pip install 'opbuild[onnx]'" in proc.stderr


def test_export_to_onnx_without_onnx_names_the_extra(tmp_path) -> None:
    code = ("import sys; sys.modules['onnx'] = None\nimport numpy as np, opbuild as ms\n"
            "net = ms.nn.Dense(2, 2)\n"
            "try:\n    ms.export(net, ms.Tensor(np.ones((1, 2), np.float32)), file_name='m', file_format='ONNX')\n"
            "except ms.OpbuildError as e:\n    print('ERR', e)\n")
    proc = subprocess.run([sys.executable, "-c", code], env=_without(tmp_path, "onnx"), capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert "ERR export(file_format='ONNX') needs the 'onnx' package" in proc.stdout, proc.stdout + proc.stderr


def test_the_data_parallel_example_runs_as_one_process_without_mpi4py(tmp_path) -> None:
    proc = subprocess.run([sys.executable, str(REPO / "examples" / "train_data_parallel.py")],
                          env=_without(tmp_path, "mpi4py"), capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pip install 'opbuild[distributed]'; running as one process" in proc.stderr
    assert "Traceback" not in proc.stderr
    losses = [float(line.split("loss ")[1].split()[0]) for line in proc.stdout.splitlines() if "loss" in line]
    assert len(losses) == 5 and "(1 rank)" in proc.stdout and losses[-1] < losses[0]


def test_communication_without_mpi4py_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    from opbuild.communication import management

    with pytest.raises(MissingPackageError, match=r"pip install 'opbuild\[distributed\]'"):
        management._mpi()
