"""A build that needs GEMM/conv kernels first loads the BLAS they link with lazy binding (runtime/loader.py:
preload); OPBUILD_PRELOAD=0 turns that off. Each case runs in a fresh interpreter: what a process has loaded
cannot be unloaded."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_python

CODE = r"""
import json, numpy as np
from opbuild.build import Builder
from opbuild.ir import TensorType
from opbuild.ops import REGISTRY
from opbuild.runtime import loader

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
maps = open("/proc/self/maps").read()
blas = Builder().compiler().blas_library()
print(json.dumps({"preloads": [p for p, h in loader._preloaded.items() if h],
                  "blas": blas, "blas_mapped": blas in maps,
                  "ok": bool(np.allclose(out, want, rtol=1e-5, atol=1e-6))}))
"""


def _run(tmp_path, op: str, **env: str) -> dict:
    proc = run_python(CODE, op, env={"OPBUILD_CACHE_PATH": str(tmp_path), "RANK_ID": "", **env})
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("warm", [False, True])
def test_gemm_build_preloads_the_blas(tmp_path, warm):
    if warm:
        _run(tmp_path, "MatMul")
    got = _run(tmp_path, "MatMul")
    assert got["ok"] and got["blas_mapped"]
    assert got["preloads"] == [got["blas"]]  # loaded (lazily) before the kernel pulled it in


def test_no_preload_without_blas_kernels(tmp_path):
    got = _run(tmp_path, "Square")
    assert got["ok"] and got["preloads"] == [] and not got["blas_mapped"]


def test_preload_can_be_turned_off(tmp_path):
    got = _run(tmp_path, "MatMul", OPBUILD_PRELOAD="0")
    assert got["ok"] and got["preloads"] == [] and got["blas_mapped"]


def test_preload_of_a_missing_library_is_harmless(tmp_path):
    code = ("from opbuild.runtime import loader\n"
            f"print(loader.preload({str(tmp_path / 'nope.so')!r}), loader.preload({str(tmp_path / 'nope.so')!r}))\n")
    assert run_python(code).stdout.split() == ["False", "False"]
