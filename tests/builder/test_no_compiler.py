"""A warm start needs no compiler: a process that finds none names kernels with the toolchain identity the
cache recorded (builder/toolchain.py), runs every cached network, and fails a miss with a clear error."""

from __future__ import annotations

import json

import pytest

from tests.cache._util import env_for
from tests.conftest import run_python

NET = """
import sys
import numpy as np
import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops

class Net(nn.Cell):
    def __init__(self, extra):
        super().__init__()
        self.extra = extra
    def construct(self, x):
        y = ops.Square()(x) + x
        y = ops.Exp()(y) * y
        y = ops.Sqrt()(ops.Abs()(y)) - x
        return ops.Neg()(y) if self.extra else y

x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
extra = sys.argv[1] == "changed"
try:
    out = Net(extra)(ms.Tensor(x)).asnumpy()
except ms.CompilerNotFoundError as e:
    print("ERROR", e)
    raise SystemExit(3)
r = ms.build_report()
print("REPORT", r.built, r.reused, float(out.sum()))
"""


def _no_compiler(root, tmp_path) -> dict:
    """CC naming nothing and a PATH holding no compiler: a deployment image without gcc."""
    empty = tmp_path / "no-compilers"
    empty.mkdir(exist_ok=True)
    return env_for(root, CC="/nonexistent/cc", PATH=str(empty))


def _run(code_args: tuple[str, ...], env: dict, check: bool = True):
    return run_python(NET, *code_args, env=env, check=check)


@pytest.fixture
def root(tmp_path):
    r = tmp_path / "cache"
    out = _run(("same",), env_for(r)).stdout.split()
    assert out[:2] == ["REPORT", "7"], out  # 7 distinct kernels built with the compiler found here
    return r


def test_a_cached_network_runs_without_a_compiler(root, tmp_path) -> None:
    warm = _run(("same",), env_for(root)).stdout.split()
    cold = _run(("same",), _no_compiler(root, tmp_path)).stdout.split()
    assert cold[:3] == ["REPORT", "0", "7"]  # nothing built, every kernel reused
    assert cold[3] == warm[3]


def test_a_changed_network_without_a_compiler_fails_naming_kernel_and_compiler(root, tmp_path) -> None:
    proc = _run(("changed",), _no_compiler(root, tmp_path), check=False)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    message = proc.stdout
    assert "cannot build kernel neg_" in message and "(not in the cache)" in message
    assert "no C compiler found" in message and "/nonexistent/cc" in message


def test_info_says_which_toolchain_it_matched(root, tmp_path) -> None:
    env = _no_compiler(root, tmp_path)
    proc = run_python("from opbuild.cli import main; raise SystemExit(main(['info', '--json']))",
                      env=env, check=False)
    data = json.loads(proc.stdout)
    assert data["toolchain_matched"] == "recorded"
    assert data["compiler"]["path"]  # the recorded compiler, named
    here = run_python("from opbuild.cli import main; raise SystemExit(main(['info', '--json']))",
                      env=env_for(root), check=False)
    assert json.loads(here.stdout)["toolchain_matched"] == "compiler"


def test_no_compiler_and_nothing_recorded_fails_as_before(tmp_path) -> None:
    proc = _run(("same",), _no_compiler(tmp_path / "empty", tmp_path), check=False)
    assert proc.returncode == 3 and "no C compiler found" in proc.stdout
