"""How the toolchain identity finds the BLAS package: a direct scan of sys.path that must agree with the import
system (compilers/gcc.py: _package_dir)."""

from __future__ import annotations

import importlib.util
import sys

from opbuild.compilers.gcc import _blas, _package_dir


def test_package_dir_agrees_with_the_import_system():
    for name in ("scipy_openblas32", "numpy", "opbuild"):
        assert _package_dir(name) == list(importlib.util.find_spec(name).submodule_search_locations)[0]
    assert _package_dir("no_such_package_here") is None


def test_package_earlier_on_the_path_wins(tmp_path, monkeypatch):
    shadow = tmp_path / "scipy_openblas32"
    (shadow / "lib").mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    (shadow / "lib" / "libscipy_openblas.so").write_bytes(b"x" * 7)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert _package_dir("scipy_openblas32") == str(shadow)
    assert _blas()["lib_dir"] == str(shadow / "lib") and _blas()["size"] == 7  # so its identity is in the key
