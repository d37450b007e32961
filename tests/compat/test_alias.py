"""The mindspore import alias: ``opbuild.alias_mindspore()``, ``OPBUILD_AS_MINDSPORE=1`` and ``opbuild run
--as-mindspore`` make ``import mindspore`` (and its submodule paths) resolve to opbuild, so a program written
for MindSpore runs unmodified and gives MindSpore's results (tests/fixtures/mindspore/surface.json, recorded
under real MindSpore 2.10 by scripts/record_ms_surface.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from ..conftest import REPO, run_python

pytestmark = pytest.mark.slow  # every test starts interpreters

FIXTURE = json.loads((REPO / "tests" / "fixtures" / "mindspore" / "surface.json").read_text())
ZOO = REPO / "tests" / "compat" / "zoo"


def _compare(got: dict, expected: dict) -> None:
    assert set(got) == set(expected)
    for key, exp in expected.items():
        act = got[key]
        if isinstance(exp, dict) and "tensor" in exp:
            assert (act["dtype"], act["shape"]) == (exp["dtype"], exp["shape"]), key
            np.testing.assert_allclose(act["tensor"], exp["tensor"], rtol=2e-3 if exp["dtype"] == "Float16" else 1e-4,
                                       atol=1e-5, err_msg=key)
        else:
            assert act == exp, key


@pytest.mark.parametrize("script", sorted(p.name for p in ZOO.glob("*.py")))
def test_mindspore_program_runs_unmodified_with_mindspore_results(script, tmp_path):
    out = subprocess.run([sys.executable, "-m", "opbuild", "run", "--as-mindspore", str(ZOO / script)],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])
    _compare(got, FIXTURE[f"script:{script}"])


def test_env_var_and_function_install_the_same_hook():
    code = (
        "import opbuild, sys\n"
        "import mindspore as ms\n"
        "from mindspore import nn, ops, Tensor\n"
        "import mindspore.nn as nn2\n"
        "from mindspore.common import dtype as mstype\n"
        "from mindspore.common.initializer import Normal\n"
        "import mindspore.ops.operations as P\n"
        "from mindspore.ops.operations import nn_ops\n"
        "import mindspore.context as context\n"
        "from mindspore.nn.layer.activation import ReLU\n"
        "from mindspore.nn.loss.loss import MSELoss\n"
        "from mindspore.common.sparse_tensor import COOTensor\n"
        "assert ReLU is opbuild.nn.ReLU and MSELoss is opbuild.nn.MSELoss and COOTensor is opbuild.COOTensor\n"
        "assert ms is opbuild and nn is opbuild.nn and nn2 is opbuild.nn and ops is opbuild.ops\n"
        "assert Tensor is opbuild.Tensor and mstype.float32 is opbuild.float32 and P.MatMul is nn_ops.MatMul\n"
        "assert isinstance(nn.Dense(2, 3), nn2.Cell) and Normal is opbuild.common.initializer.Normal\n"
        "print(sys.modules['mindspore.nn'] is opbuild.nn)\n")
    out = run_python(code, env={"OPBUILD_AS_MINDSPORE": "1"})
    assert out.stdout.strip() == "True"
    out = run_python("import opbuild; opbuild.alias_mindspore(); opbuild.alias_mindspore()\n"
                     "import mindspore; print(mindspore.tensor([1, 2]).dtype)")
    assert out.stdout.strip() == "Int64"


def test_missing_module_is_a_clear_error_never_real_mindspore():
    out = run_python("import opbuild; opbuild.alias_mindspore()\nimport mindspore.no_such_thing",
                     env={"OPBUILD_AS_MINDSPORE": "0"}, check=False)
    assert out.returncode != 0
    assert "No module named 'mindspore.no_such_thing': opbuild (standing in for mindspore) has no " \
           "'opbuild.no_such_thing'" in out.stderr


def test_without_the_hook_mindspore_is_not_opbuild():
    out = run_python("import opbuild, importlib.util\nprint(importlib.util.find_spec('mindspore') is None or "
                     "not importlib.util.find_spec('mindspore').origin.startswith(opbuild.__path__[0]))",
                     env={"OPBUILD_AS_MINDSPORE": ""})
    assert out.stdout.strip() == "True"


def test_bad_env_value_is_refused():
    out = run_python("import opbuild", env={"OPBUILD_AS_MINDSPORE": "maybe"}, check=False)
    assert out.returncode != 0 and "OPBUILD_AS_MINDSPORE='maybe': expected 1" in out.stderr



def test_importing_mindspore_leaves_opbuild_modules_their_own_specs():
    # The import system sets the spec of every module it loads; the alias loads opbuild's own module objects
    # under mindspore's names, which must keep their opbuild specs (found by a test that asked the import
    # system where opbuild lives after another test had imported mindspore).
    code = ("import importlib.util, opbuild; opbuild.alias_mindspore(); "
            "import mindspore, mindspore.nn, mindspore.ops.operations; "
            "print(opbuild.__spec__.name, opbuild.nn.__spec__.name, opbuild.ops.__spec__.name, "
            "bool(importlib.util.find_spec('opbuild').submodule_search_locations), mindspore is opbuild)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["opbuild", "opbuild.nn", "opbuild.ops", "True", "True"]


def test_importing_mindspore_packages_leaves_opbuild_modules_their_own_children():
    # mindspore.ops.operations (and nn.wrap, nn.loss, ...) are packages in MindSpore and plain modules in
    # opbuild: the alias imports them as package copies, which the import system then sets on their parent,
    # opbuild's own package (mindspore.ops is opbuild.ops). opbuild.ops.operations must stay opbuild's module.
    code = ("import sys, types, opbuild; opbuild.alias_mindspore(); "
            "import mindspore.ops.operations.nn_ops, mindspore.ops.operations._grad_ops, "
            "mindspore.nn.wrap.cell_wrapper, mindspore.nn.loss.loss, mindspore.common.tensor; "
            "from mindspore.ops.operations import math_ops; "
            "bad = [n for n, m in list(sys.modules.items()) if n.startswith('opbuild.') and "
            "isinstance(getattr(sys.modules[n.rpartition('.')[0]], n.rpartition('.')[2], None), types.ModuleType) "
            "and getattr(sys.modules[n.rpartition('.')[0]], n.rpartition('.')[2]) is not m]; "
            "print(bad, opbuild.ops.operations is sys.modules['opbuild.ops.operations'], "
            "mindspore.ops.operations.nn_ops.Conv2D is opbuild.ops.operations.Conv2D, "
            "sys.modules['mindspore.ops'].operations is sys.modules['opbuild.ops.operations'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["[]", "True", "True", "True"]
