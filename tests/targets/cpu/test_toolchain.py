"""How the toolchain identity finds the BLAS that GEMM/conv kernels link (compilers/blas.py): NumPy's bundled
OpenBLAS first, the scipy-openblas32 package as the fallback, OPBUILD_BLAS to choose."""

from __future__ import annotations

import importlib.util
import os
import sys
import types

import numpy
import pytest

from opbuild.core.errors import CompilerNotFoundError
from opbuild.targets.cpu.compilers import blas


def test_package_dir_agrees_with_the_import_system():
    for name in ("scipy_openblas32", "numpy", "opbuild"):
        assert blas.package_dir(name) == list(importlib.util.find_spec(name).submodule_search_locations)[0]
    assert blas.package_dir("no_such_package_here") is None


def test_default_is_the_openblas_numpy_bundles(monkeypatch):
    monkeypatch.delenv("OPBUILD_BLAS", raising=False)
    found = blas.find_blas()
    libs = os.path.dirname(numpy.__file__) + ".libs"
    assert found["provider"] == "numpy" and found["lib_dir"] == libs and found["lib"].startswith("libscipy_openblas64_")
    assert (found["sgemm"], found["dgemm"], found["int"]) == ("scipy_cblas_sgemm64_", "scipy_cblas_dgemm64_", "int64_t")
    assert found["size"] == os.stat(blas.library_path(found)).st_size  # its identity is in the key


def _fake_numpy(monkeypatch, tmp_path, libs: list[str] | None):
    """Make ``numpy`` look installed at ``tmp_path/numpy`` with ``libs`` in numpy.libs (None: no such folder)."""
    (tmp_path / "numpy").mkdir()
    if libs is not None:
        (tmp_path / "numpy.libs").mkdir()
        for name in libs:
            (tmp_path / "numpy.libs" / name).write_bytes(b"x" * 11)
    fake = types.ModuleType("numpy")
    fake.__file__ = str(tmp_path / "numpy" / "__init__.py")
    monkeypatch.setitem(sys.modules, "numpy", fake)


def test_numpy_1x_wheels_openblas_naming(monkeypatch, tmp_path):
    _fake_numpy(monkeypatch, tmp_path, ["libgfortran-abc.so.5", "libopenblas64_p-r0-0cf96a72.3.23.dev.so"])
    monkeypatch.delenv("OPBUILD_BLAS", raising=False)
    found = blas.find_blas()
    assert found["lib"] == "libopenblas64_p-r0-0cf96a72.3.23.dev.so" and found["size"] == 11
    assert (found["sgemm"], found["int"]) == ("cblas_sgemm64_", "int64_t")


def test_numpy_without_bundled_blas_falls_back_to_scipy_openblas32(monkeypatch, tmp_path):
    _fake_numpy(monkeypatch, tmp_path, None)  # e.g. conda's NumPy, linked against a system BLAS
    monkeypatch.delenv("OPBUILD_BLAS", raising=False)
    found = blas.find_blas()
    assert found["provider"] == "scipy-openblas32" and found["lib"] == "libscipy_openblas.so"
    assert (found["sgemm"], found["int"]) == ("scipy_cblas_sgemm", "int")
    monkeypatch.setenv("OPBUILD_BLAS", "numpy")
    with pytest.raises(CompilerNotFoundError, match="NumPy's bundled OpenBLAS"):
        blas.find_blas()


def test_scipy_openblas32_earlier_on_the_path_wins(tmp_path, monkeypatch):
    shadow = tmp_path / "scipy_openblas32"
    (shadow / "lib").mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    (shadow / "lib" / "libscipy_openblas.so").write_bytes(b"x" * 7)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.setenv("OPBUILD_BLAS", "scipy-openblas32")
    assert blas.package_dir("scipy_openblas32") == str(shadow)
    found = blas.find_blas()
    assert found["lib_dir"] == str(shadow / "lib") and found["size"] == 7  # so its identity is in the key


def test_no_blas_at_all_says_how_to_get_one(tmp_path, monkeypatch):
    _fake_numpy(monkeypatch, tmp_path, [])
    monkeypatch.setattr(sys, "path", [str(tmp_path)])  # no scipy_openblas32 either
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.delenv("OPBUILD_BLAS", raising=False)
    with pytest.raises(CompilerNotFoundError, match=r"pip install 'opbuild\[blas\]'"):
        blas.find_blas()


def test_unknown_blas_choice_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("OPBUILD_BLAS", "mkl")
    with pytest.raises(ValueError, match="OPBUILD_BLAS='mkl'.*auto, numpy, scipy-openblas32"):
        blas.find_blas()
