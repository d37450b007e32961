"""Graph manifests are hostile input (issue #12, point 1): a manifest may never make a build load anything
from outside kernel_meta, neither a BLAS named in its ``blas`` field nor a kernel named with ``..``, even when
every sha256 it records matches; ``opbuild cache verify`` reports such a manifest and ``--repair`` removes it."""

from __future__ import annotations

import ctypes
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from opbuild.builder import Builder
from opbuild.cache import manifest
from opbuild.cache.admin.verify import verify
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from opbuild.targets import create as create_target
from tests.cache._util import kernel_meta, verify_cache

SPECS = [REGISTRY["Square"].spec({}, [TensorType((n,), "float32")]) for n in (3, 5, 7)] + [
    REGISTRY["MatMul"].spec({}, [TensorType((4, 4), "float32")] * 2),
]


def _evil_library(where: Path, marker: Path, symbol: str | None = None) -> Path:
    """A shared object whose constructor creates ``marker`` (so loading it at all is visible), optionally with
    a kernel ``symbol`` that writes 42 into its output instead of computing anything."""
    src = where / "evil.c"
    body = f"void {symbol}(void *const *args) {{ ((float *)args[1])[0] = 42.0f; }}\n" if symbol else ""
    src.write_text('#include <stdio.h>\n__attribute__((constructor)) static void mark(void) {\n'
                   f'  FILE *f = fopen("{marker}", "w"); if (f) fclose(f);\n}}\n' + body)
    out = where / "libevil.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(out), str(src)], check=True, capture_output=True)
    return out


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))
    monkeypatch.delenv("RANK_ID", raising=False)
    _, report = Builder().build(SPECS)  # cold: builds, then writes the manifest
    assert report.built == len(SPECS)
    return tmp_path / "cache"


def _manifest(root: Path) -> tuple[Path, dict]:
    (path,) = (kernel_meta(root) / manifest.MANIFEST_DIR).iterdir()
    return path, json.loads(path.read_text())


def _square(kernel, n: int) -> np.ndarray:
    x = np.arange(1, n + 1, dtype=np.float32)
    out = np.zeros(n, np.float32)
    kernel.fn((ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data))
    return out


def _verify_flags(km: Path, path: Path) -> None:
    """verify names the manifest; --repair removes it and leaves a clean cache."""
    where = f"{manifest.MANIFEST_DIR}/{path.name}"
    found = [p for p in verify(km).problems if p.kind == "manifest"]
    assert [p.path for p in found] == [where], found
    repaired = verify(km, repair=True)
    assert [(p.path, p.action) for p in repaired.problems] == [(where, "removed")]
    assert not path.exists() and verify_cache(km) == []


def test_manifest_blas_outside_the_cache_is_never_loaded(root, tmp_path):
    km = kernel_meta(root)
    marker = tmp_path / "blas-was-loaded"
    evil = _evil_library(tmp_path, marker)
    path, data = _manifest(root)
    data["blas"] = str(evil)  # a warm start from this manifest used to dlopen it ahead of the GEMM kernel
    path.write_text(json.dumps(data))
    assert manifest.blas_problem(str(evil), create_target("CPU").known_linked_libraries()) is not None
    _verify_flags(km, path)
    path.write_text(json.dumps(data))  # again, for the build

    kernels, report = Builder().build(SPECS)
    assert not marker.exists()  # the foreign object's constructor never ran
    assert report.reused == len(SPECS) and report.built == 0  # the ordinary path served every kernel
    np.testing.assert_allclose(_square(kernels[2], 7), np.arange(1, 8, dtype=np.float32) ** 2)
    assert _manifest(root)[1]["blas"] is None  # a fresh manifest replaced the planted one
    assert verify_cache(km) == []


def test_manifest_kernel_name_escaping_the_cache_is_never_loaded(root, tmp_path):
    """``../../../x/square_<hash>`` with sha256 values that match the files planted there: refused by name."""
    km = kernel_meta(root)
    path, data = _manifest(root)
    row = data["kernels"][2]  # the Square of 7 elements
    name = row[1]
    outside = tmp_path / "x"
    outside.mkdir()
    marker = tmp_path / "kernel-was-loaded"
    evil = _evil_library(tmp_path, marker, "ob_" + name.rsplit("_", 1)[1])
    for suffix in (".info", ".json"):
        (outside / (name + suffix)).write_bytes((km / (name + suffix)).read_bytes())
    (outside / (name + ".so")).write_bytes(evil.read_bytes())
    import hashlib

    escaping = "../../../x/" + name
    assert (km / (escaping + ".so")).resolve() == (outside / (name + ".so")).resolve()
    binary = evil.read_bytes()
    data["kernels"][2] = [2, escaping, row[2], row[3], hashlib.sha256(binary).hexdigest(), len(binary), row[6]]
    path.write_text(json.dumps(data))
    assert manifest.read(km, path.stem) is None  # refused by name: no entry is even looked at
    _verify_flags(km, path)
    path.write_text(json.dumps(data))  # again, for the build

    kernels, report = Builder().build(SPECS)
    assert not marker.exists()
    assert report.reused == len(SPECS) and report.built == 0
    assert kernels[2].name == name
    np.testing.assert_allclose(_square(kernels[2], 7), np.arange(1, 8, dtype=np.float32) ** 2)  # not 42
    assert _manifest(root)[1]["kernels"][2][1] == name
    assert verify_cache(km) == []


@pytest.mark.parametrize("bad", ["newline", "dot", "slash", "absolute", "not-a-string", "sha-mismatch"])
def test_manifest_names_are_checked_as_strictly_as_entry_names(root, bad):
    km = kernel_meta(root)
    path, data = _manifest(root)
    name = data["kernels"][0][1]
    data["kernels"][0][1] = {"newline": name + "\n", "dot": name.replace("_", ".", 1), "slash": "a/" + name,
                             "absolute": "/" + name, "not-a-string": [name],
                             "sha-mismatch": name[:-1] + ("0" if name[-1] != "0" else "1")}[bad]
    path.write_text(json.dumps(data))
    assert manifest.read(km, path.stem) is None
    _verify_flags(km, path)
