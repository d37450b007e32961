"""Large elementwise loops run on OpenMP's threads (codegen/c.py: parallel_for, compilers/gcc.py:
OPENMP_FLAGS, runtime/loader.py): correct results, libgomp linked only where a loop is large, idle threads
that sleep, a forked child that does not hang, and builds without OpenMP where the compiler has none or the
user says OPBUILD_OPENMP=0."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

import opbuild as ms
import opbuild.ops as ops
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get
from opbuild.targets.cpu.codegen import PARALLEL_MIN_ELEMENTS
from opbuild.targets.cpu.kernels import emit
from tests.conftest import run_python

pytestmark = pytest.mark.slow

BIG = PARALLEL_MIN_ELEMENTS * 2


def _emit(op: str, *types: TensorType) -> str:
    opdef = get(op)
    return emit(opdef.spec({}, list(types)))


def test_only_large_loops_get_the_pragma():
    pragma = "#pragma omp parallel for"
    assert pragma in _emit("Square", TensorType((BIG,), "float32"))
    assert pragma not in _emit("Square", TensorType((PARALLEL_MIN_ELEMENTS - 1,), "float32"))
    big4 = TensorType((4, 64, BIG // 256), "float32")
    assert pragma in _emit("Add", big4, TensorType((1, 64, 1), "float32"))  # a broadcasting nest
    assert pragma not in _emit("Add", TensorType((4, 8), "float32"), TensorType((1, 8), "float32"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_large_maps_are_correct(dtype):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((4, 64, BIG // 256)) * 8).astype(dtype)
    y = (rng.standard_normal((1, 64, 1)) * 8).astype(dtype)
    got = ops.Add()(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    np.testing.assert_array_equal(got, x + y)
    flat = x.reshape(-1)
    np.testing.assert_array_equal(ops.Square()(ms.Tensor(flat)).asnumpy(), flat * flat)
    np.testing.assert_array_equal(ops.Neg()(ms.Tensor(flat)).asnumpy(), -flat)


CODE = r"""
import json, os, sys
import numpy as np
import opbuild as ms, opbuild.ops as ops
n = int(sys.argv[1])
x = np.arange(n, dtype=np.float32) / n
ok = bool(np.array_equal(ops.Square()(ms.Tensor(x)).asnumpy(), x * x))
maps = open("/proc/self/maps").read()
child = None
if len(sys.argv) > 2:  # fork after a parallel loop ran: the child must not wait for the parent's threads
    pid = os.fork()
    if pid == 0:
        os._exit(0 if np.array_equal(ops.Square()(ms.Tensor(x)).asnumpy(), x * x) else 3)
    child = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
from opbuild.runtime.session import session
ident = session().builder.compiler().identity()
libgomp = any(line.rsplit("/", 1)[-1].startswith("libgomp") for line in maps.splitlines())
print(json.dumps({"ok": ok, "libgomp": libgomp, "child": child, "openmp": ident["openmp"],
                  "wait_policy_left": os.environ.get("OMP_WAIT_POLICY")}))
"""


def _run(tmp_path, n: int, *args: str, **env: str):
    proc = run_python(CODE, str(n), *args, env={"OPBUILD_CACHE_PATH": str(tmp_path), "RANK_ID": "",
                                                 "OMP_NUM_THREADS": "2", **env}, timeout=120)
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def test_libgomp_is_loaded_only_for_large_loops(tmp_path):
    small, _ = _run(tmp_path, 1000)
    big, _ = _run(tmp_path, BIG)
    assert small["ok"] and small["openmp"] and not small["libgomp"]
    assert big["ok"] and big["libgomp"]


def test_forked_child_runs_parallel_kernels(tmp_path):
    got, _ = _run(tmp_path, BIG, "fork")
    assert got["ok"] and got["libgomp"] and got["child"] == 0


@pytest.mark.parametrize("user", [None, "ACTIVE"])
def test_idle_threads_sleep_unless_the_user_chose(tmp_path, user):
    env = {"OMP_DISPLAY_ENV": "true"} | ({"OMP_WAIT_POLICY": user} if user else {})
    got, stderr = _run(tmp_path, BIG, **env)
    assert got["ok"] and got["libgomp"]
    assert f"OMP_WAIT_POLICY = '{user or 'PASSIVE'}'" in stderr  # libgomp's own report of its settings
    assert got["wait_policy_left"] == user  # set only around the dlopen


def test_openmp_can_be_turned_off_and_is_in_the_key(tmp_path):
    on, _ = _run(tmp_path, BIG)
    off, _ = _run(tmp_path, BIG, OPBUILD_OPENMP="0")
    assert on["ok"] and off["ok"] and on["openmp"] and not off["openmp"] and not off["libgomp"]
    assert len(list(tmp_path.glob("rank_0/kernel_meta/square_*.info"))) == 2


def test_compiler_without_an_openmp_runtime_builds_without_it(tmp_path):
    real = shutil.which("cc") or shutil.which("gcc")
    cc = tmp_path / "cc-no-openmp"
    cc.write_text("#!/bin/sh\n"
                  'case " $* " in *" -print-file-name="*) echo libgomp.so; exit 0;; esac\n'  # as gcc does: not found
                  'for a in "$@"; do [ "$a" = -fopenmp ] && { echo "no OpenMP here" >&2; exit 1; }; done\n'
                  f'exec {real} "$@"\n')
    cc.chmod(0o755)
    got, _ = _run(tmp_path / "cache", BIG, CC=str(cc))
    assert got["ok"] and not got["openmp"] and not got["libgomp"]
