"""Which BLAS GEMM/conv kernels bring into the process (compilers/blas.py, runtime/loader.py: preload).

By default they link the OpenBLAS NumPy has already loaded: no second BLAS is mapped. With the scipy-openblas32
package (OPBUILD_BLAS=scipy-openblas32) a build first loads it with lazy binding; OPBUILD_PRELOAD=0 turns that
off. Each case runs in a fresh interpreter: what a process has loaded cannot be unloaded."""

from __future__ import annotations

import json
import os

import pytest

from tests.conftest import run_python

pytestmark = pytest.mark.slow

CODE = r"""
import json, numpy as np
from opbuild.builder import Builder
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from opbuild.targets.cpu import loader

op = __import__("sys").argv[1]
t = TensorType((8, 8), "float32")
spec = REGISTRY[op].spec({}, [t] if op == "Square" else [t, t])
(kernel,), report = Builder().build([spec])
a = np.arange(64, dtype=np.float32).reshape(8, 8) / 64
out = np.empty((8, 8), np.float32)
import ctypes
arrays = [a, out] if op == "Square" else [a, a, out]
kernel.fn((ctypes.c_void_p * len(arrays))(*[x.ctypes.data for x in arrays]))
want = a @ a if op != "Square" else a * a
import os, re
maps = open("/proc/self/maps").read()
from opbuild.targets.cpu.compilers.blas import library_path
blas = library_path(Builder().compiler().identity()["blas"])
mapped = sorted({os.path.realpath(p) for p in re.findall(r"\S*openblas\S*[.]so\S*", maps)})
print(json.dumps({"preloads": [p for p, h in loader._preloaded.items() if h], "openblas_mapped": mapped,
                  "blas": blas, "blas_mapped": blas in maps, "name": kernel.name,
                  "ok": bool(np.allclose(out, want, rtol=1e-5, atol=1e-6))}))
"""


SCIPY = {"OPBUILD_BLAS": "scipy-openblas32"}


def _run(tmp_path, op: str, **env: str) -> dict:
    proc = run_python(CODE, op, env={"OPBUILD_CACHE_PATH": str(tmp_path), "RANK_ID": "", **env})
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("warm", [False, True])
def test_gemm_kernels_use_the_blas_numpy_loaded(tmp_path, warm):
    if warm:
        _run(tmp_path, "MatMul")
    got = _run(tmp_path, "MatMul")
    assert got["ok"] and "numpy.libs" in got["blas"]
    assert got["openblas_mapped"] == [os.path.realpath(got["blas"])]  # NumPy's, and no second OpenBLAS
    assert got["preloads"] == []  # nothing to load ahead: NumPy did


def test_blas_provider_is_part_of_the_key(tmp_path):
    numpy_blas, scipy_blas = _run(tmp_path, "MatMul"), _run(tmp_path, "MatMul", **SCIPY)
    assert numpy_blas["ok"] and scipy_blas["ok"] and numpy_blas["name"] != scipy_blas["name"]
    assert len(list(tmp_path.glob("rank_0/kernel_meta/matmul_*.info"))) == 2


@pytest.mark.parametrize("warm", [False, True])
def test_gemm_build_preloads_a_blas_numpy_did_not_load(tmp_path, warm):
    if warm:
        _run(tmp_path, "MatMul", **SCIPY)
    got = _run(tmp_path, "MatMul", **SCIPY)
    assert got["ok"] and got["blas_mapped"] and "scipy_openblas32" in got["blas"]
    assert got["preloads"] == [got["blas"]]  # loaded (lazily) before the kernel pulled it in


def test_no_preload_without_blas_kernels(tmp_path):
    got = _run(tmp_path, "Square", **SCIPY)
    assert got["ok"] and got["preloads"] == [] and not got["blas_mapped"]


def test_preload_can_be_turned_off(tmp_path):
    got = _run(tmp_path, "MatMul", OPBUILD_PRELOAD="0", **SCIPY)
    assert got["ok"] and got["preloads"] == [] and got["blas_mapped"]


def test_preload_of_a_missing_library_is_harmless(tmp_path):
    code = ("from opbuild.targets.cpu import loader\n"
            f"print(loader.preload({str(tmp_path / 'nope.so')!r}), loader.preload({str(tmp_path / 'nope.so')!r}))\n")
    assert run_python(code).stdout.split() == ["False", "False"]
