"""OpenBLAS's parallel work on the kernels' OpenMP pool (targets/cpu/blas_threads.py): the bridge is in every
BLAS translation unit and only there, compiled in only with ``OPBUILD_BLAS_THREADS=openmp`` (then loading a
BLAS kernel registers it with NumPy's OpenBLAS, whose GEMMs give the same results on either pool; the setting
is in the key); by default OpenBLAS keeps its own pool and a BLAS kernel does not load libgomp; a bad value is
refused up front, and ``opbuild info`` says which pool runs a GEMM."""

from __future__ import annotations

import json

import pytest

from opbuild.core import config
from opbuild.core.errors import ConfigError
from opbuild.targets.cpu import codegen
from tests.conftest import run_python


def test_the_bridge_is_in_blas_translation_units_only():
    assert "OB_BLAS_THREADS_CALLBACK(ob_blas_on_openmp)" in codegen.translation_unit(["/* k */"], True)
    assert "ob_blas_on_openmp" not in codegen.translation_unit(["/* k */"], False)


def test_bad_value_is_refused(monkeypatch):
    monkeypatch.setenv("OPBUILD_BLAS_THREADS", "tbb")
    with pytest.raises(ConfigError, match="OPBUILD_BLAS_THREADS='tbb'.*openblas or openmp"):
        config.blas_threads()
    monkeypatch.setenv("OPBUILD_BLAS_THREADS", "OpenMP")
    assert config.blas_threads() == "openmp"
    monkeypatch.delenv("OPBUILD_BLAS_THREADS")
    assert config.blas_threads() == "openblas"


CODE = r"""
import ctypes, json, sys
import numpy as np
import opbuild as ms, opbuild.ops as ops
from opbuild.targets.cpu.compilers.blas import find_blas, library_path
lib = ctypes.CDLL(library_path(find_blas()))
hook = ctypes.c_void_p.in_dll(lib, "openblas_threads_callback_")
before = hook.value
rng = np.random.default_rng(0)
a = rng.standard_normal((384, 512)).astype(np.float32)
# fewer columns than a vector: a BLAS call (wider float products run opbuild's generated GEMM, gemm_tiled.py)
b = rng.standard_normal((512, 8)).astype(np.float32)
got = ops.MatMul()(ms.Tensor(a), ms.Tensor(b)).asnumpy()
# small enough (under 2^22 multiply-adds) for Conv2D's tiled kernel to stay on the calling thread: no OpenMP
x = rng.standard_normal((1, 16, 16, 16)).astype(np.float32)
w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
conv = ops.Conv2D(32, 3, pad_mode="pad", pad=1)(ms.Tensor(x), ms.Tensor(w)).asnumpy()
ref = (a.astype(np.float64) @ b.astype(np.float64))
maps = open("/proc/self/maps").read()
print(json.dumps({"before": before is not None, "after": hook.value is not None, "libgomp": "libgomp" in maps,
                  "kernels": sorted(k.name for k in ms.build_report().kernels),
                  "err": float(np.abs(got - ref).max()), "numpy_err": float(np.abs(a @ b - ref).max()),
                  "conv_sum": float(np.abs(conv).sum())}))
"""


def _run(tmp_path, **env):
    out = run_python(CODE, env={"OPBUILD_CACHE_PATH": str(tmp_path), "OMP_NUM_THREADS": "2",
                                "OPENBLAS_NUM_THREADS": "2", **env})
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_openmp_puts_openblas_on_the_openmp_pool_and_the_default_does_not(tmp_path):
    on = _run(tmp_path, OPBUILD_BLAS_THREADS="OpenMP")
    assert not on["before"] and on["after"]  # registered by the kernel's constructor, not before
    assert on["err"] < 1e-2 and on["numpy_err"] < 1e-2  # opbuild's and NumPy's GEMMs, both on the bridge
    off = _run(tmp_path)  # other kernels (the setting is in the key), built without the bridge
    assert not off["before"] and not off["after"]
    assert not set(off["kernels"]) & set(on["kernels"])
    assert on["libgomp"] and not off["libgomp"]  # the default BLAS kernels need no OpenMP runtime
    assert off["err"] < 1e-2
    assert off["conv_sum"] == pytest.approx(on["conv_sum"], rel=1e-5)


def test_info_names_the_pool(tmp_path):
    env = {"OPBUILD_CACHE_PATH": str(tmp_path), "OMP_NUM_THREADS": "2"}
    out = run_python("from opbuild.cli import main; main(['info'])", env=env).stdout
    assert "BLAS threads      2 (OMP_NUM_THREADS), OpenBLAS's own pool" in out
    out = run_python("from opbuild.cli import main; main(['info'])",
                     env={**env, "OPBUILD_BLAS_THREADS": "openmp", "OPENBLAS_NUM_THREADS": "1"}).stdout
    assert "BLAS threads      1 (OPENBLAS_NUM_THREADS), on the loops' OpenMP pool" in out
