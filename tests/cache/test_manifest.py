"""Graph manifests (cache/manifest.py): a warm build of a graph whose manifest matches loads its kernels without
naming them (no toolchain identity, no descriptors), verifying each entry against the manifest; anything
that differs sends the build down the ordinary path, which writes a fresh manifest."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from opbuild.builder import Builder
from opbuild.builder.manifests import MANIFEST_MIN_KERNELS, source_files
from opbuild.cache import manifest
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from opbuild.targets.cpu import kernels
from opbuild.targets.cpu.compilers import gcc
from tests.cache._util import kernel_meta, verify_cache

SPECS = [REGISTRY["Square"].spec({}, [TensorType((n,), "float32")]) for n in (3, 5, 7)] + [
    REGISTRY["Add"].spec({}, [TensorType((2, 4), "float32")] * 2),
    REGISTRY["MatMul"].spec({}, [TensorType((4, 4), "float32")] * 2),
]


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    monkeypatch.delenv("RANK_ID", raising=False)
    _, report = Builder().build(SPECS)  # cold: builds, then writes the manifest
    assert report.built == len(SPECS)
    return tmp_path


def _manifests(root: Path) -> list[Path]:
    d = kernel_meta(root) / manifest.MANIFEST_DIR
    return sorted(d.iterdir()) if d.is_dir() else []


class _Spy:
    """Counts the ordinary path's naming work: Builder.request and find_compiler."""

    def __init__(self, monkeypatch):
        self.requests = self.compilers = 0
        real_request, real_find = Builder.request, gcc.find_compiler

        def request(b, *a, **k):
            self.requests += 1
            return real_request(b, *a, **k)

        def find(*a, **k):
            self.compilers += 1
            return real_find(*a, **k)

        monkeypatch.setattr(Builder, "request", request)
        monkeypatch.setattr("opbuild.targets.cpu.find_compiler", find)


def test_warm_build_from_the_manifest_names_nothing(root, monkeypatch):
    (m,) = _manifests(root)
    data = json.loads(m.read_text())
    assert [k[1] for k in data["kernels"]] == [Builder().request(s).name for s in SPECS]
    spy = _Spy(monkeypatch)
    kernels, report = Builder().build(SPECS + SPECS[:2])  # repeated nodes map to the same kernels
    assert (report.reused, report.built) == (len(SPECS), 0)
    assert (spy.requests, spy.compilers) == (0, 0)
    assert [k.name for k in kernels] == [k[1] for k in data["kernels"]] + [k[1] for k in data["kernels"][:2]]
    assert _manifests(root) == [m]


def test_kernels_from_the_manifest_compute(root):
    import ctypes

    import numpy as np

    kernels, _ = Builder().build(SPECS)
    a = np.arange(16, dtype=np.float32).reshape(4, 4) / 7
    out = np.empty((4, 4), np.float32)
    kernels[4].fn((ctypes.c_void_p * 3)(a.ctypes.data, a.ctypes.data, out.ctypes.data))
    np.testing.assert_allclose(out, a @ a, rtol=1e-5)


def test_single_kernel_builds_write_no_manifest_two_kernels_do(tmp_path, monkeypatch):
    # PyNative's one-kernel builds would each write a manifest of one row; graphs from MANIFEST_MIN_KERNELS on
    # get one (a two-kernel graph's warm start then imports no code generator either).
    assert MANIFEST_MIN_KERNELS == 2
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    monkeypatch.delenv("RANK_ID", raising=False)
    Builder().build(SPECS[:1])
    assert _manifests(tmp_path) == []
    Builder().build(SPECS[1:3])
    assert len(_manifests(tmp_path)) == 1


@pytest.mark.parametrize("damage", ["info", "json", "binary", "missing", "manifest", "manifest-garbage"])
def test_anything_that_differs_takes_the_ordinary_path_and_is_repaired(root, monkeypatch, damage):
    km = kernel_meta(root)
    (m,) = _manifests(root)
    victim = json.loads(m.read_text())["kernels"][1][1]
    if damage == "info":
        (km / f"{victim}.info").write_bytes((km / f"{victim}.info").read_bytes().replace(b'"op"', b'"oq"'))
    elif damage == "json":
        (km / f"{victim}.json").write_text((km / f"{victim}.json").read_text() + " ")
    elif damage == "binary":
        data = bytearray((km / f"{victim}.so").read_bytes())
        data[len(data) // 2] ^= 1
        (km / f"{victim}.so").unlink()  # hard-linked with the batch: replace, do not rewrite the shared inode
        (km / f"{victim}.so").write_bytes(bytes(data))
    elif damage == "missing":
        for suffix in (".json", ".info", ".so"):
            (km / f"{victim}{suffix}").unlink()
    elif damage == "manifest":
        data = json.loads(m.read_text())
        data["kernels"][1][4] = "0" * 64  # a wrong binary digest: the entry does not match, ordinary path
        m.write_text(json.dumps(data))
    else:
        m.write_bytes(b"\x00garbage")
    spy = _Spy(monkeypatch)
    _, report = Builder().build(SPECS)
    assert spy.requests == len(SPECS)  # the ordinary path named every kernel
    status = {k.name: k.status for k in report.kernels}
    assert sum(s == "reused" for s in status.values()) >= len(SPECS) - 1
    if damage in ("info", "binary"):
        assert status[victim] == "repaired"
    elif damage == "json":  # a harmless rewrite (still the same fields): the ordinary lookup accepts it
        assert status[victim] == "reused"
    elif damage == "missing":
        assert status[victim] == "built"
    assert verify_cache(km) == []
    # The fresh manifest serves the next build again.
    spy2 = _Spy(monkeypatch)
    _, again = Builder().build(SPECS)
    assert again.reused == len(SPECS) and spy2.requests == 0


def test_changed_flags_or_compiler_do_not_use_the_manifest(root, monkeypatch, tmp_path):
    monkeypatch.setenv("OPBUILD_CFLAGS", "-DOB_MANIFEST_TEST=1")
    _, report = Builder().build(SPECS)
    assert report.built == len(SPECS)  # new flags, new keys: nothing reused through the old manifest
    assert len(_manifests(root)) == 2

    monkeypatch.delenv("OPBUILD_CFLAGS")
    real = "/usr/bin/cc" if os.path.exists("/usr/bin/cc") else "gcc"
    cc = tmp_path / "cc-wrapper"
    cc.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    spy = _Spy(monkeypatch)
    Builder().build(SPECS)
    assert spy.requests == len(SPECS)


def test_replaced_compiler_is_noticed(root, monkeypatch, tmp_path):
    """The toolchain files (the compiler as found, through its symlinks; the BLAS) are re-checked by stat."""
    (m,) = _manifests(root)
    data = json.loads(m.read_text())
    data["toolchain"][0][1][3] += 1  # as if the compiler's mtime had changed since
    m.write_text(json.dumps(data))
    spy = _Spy(monkeypatch)
    _, report = Builder().build(SPECS)
    assert spy.requests == len(SPECS) and report.reused == len(SPECS)


def test_edited_source_is_noticed_and_the_manifest_rewritten(root, monkeypatch):
    """The sources of the graph's ops are recorded with their stats: one that changed since (an edited emitter)
    sends the build down the ordinary path, which rewrites the manifest; the next build uses it again."""
    (m,) = _manifests(root)
    data = json.loads(m.read_text())
    recorded = [p for p, _ in data["sources"]]
    assert kernels.emitter("MatMul").files()[0] in recorded
    assert set(source_files(kernels.codegen_files(sorted({s.op for s in SPECS})))) == set(recorded)
    data["sources"][0][1][3] += 1  # as if the file's mtime had changed since
    m.write_text(json.dumps(data))
    spy = _Spy(monkeypatch)
    _, report = Builder().build(SPECS)
    assert spy.requests == len(SPECS) and report.reused == len(SPECS)
    assert json.loads(m.read_text())["sources"][0][1][3] == data["sources"][0][1][3] - 1  # rewritten
    spy.requests = 0
    _, report = Builder().build(SPECS)
    assert spy.requests == 0 and report.reused == len(SPECS)


def test_a_manifest_without_sources_is_damaged(root):
    """An empty list would check nothing: such a manifest is reported and never used."""
    (m,) = _manifests(root)
    data = json.loads(m.read_text())
    data["sources"] = []
    m.write_text(json.dumps(data))
    with pytest.raises(OSError, match="sources"):
        manifest.load(str(m), m.stem)


def test_manifest_serves_another_process(tmp_path):
    """The key is computed alike in every process (the second one loads from the manifest the first wrote)."""
    from tests.cache._util import env_for
    from tests.conftest import run_python

    code = ("import sys\nfrom opbuild.builder import Builder\nfrom opbuild.core.ir import TensorType\n"
            "from opbuild.ops import REGISTRY\ncalls = []\nreal = Builder.request\n"
            "Builder.request = lambda b, *a, **k: (calls.append(1), real(b, *a, **k))[1]\n"
            "specs = [REGISTRY['Square'].spec({}, [TensorType((n,), 'float32')]) for n in (3, 5, 7, 9)]\n"
            "_, report = Builder().build(specs)\nprint(report.built, report.reused, len(calls))\n")
    env = env_for(tmp_path)
    assert run_python(code, env=env).stdout.split() == ["4", "0", "4"]
    assert run_python(code, env=env).stdout.split() == ["0", "4", "0"]
    assert run_python(code, env=dict(env, PYTHONHASHSEED="12345")).stdout.split() == ["0", "4", "0"]


def test_manifest_path_preloads_the_blas(tmp_path):
    """A warm start from a manifest still loads OpenBLAS lazily bound before the GEMM kernels that link it."""
    from tests.cache._util import env_for
    from tests.conftest import run_python

    code = ("from opbuild.builder import Builder\nfrom opbuild.core.ir import TensorType\n"
            "from opbuild.ops import REGISTRY\n"
            "from opbuild.targets.cpu import loader\ncalls = []\nreal = Builder.request\n"
            "Builder.request = lambda b, *a, **k: (calls.append(1), real(b, *a, **k))[1]\n"
            "t = TensorType((4, 4), 'float32')\n"
            "specs = [REGISTRY['MatMul'].spec({}, [t, t])] + [REGISTRY['Square'].spec({}, [TensorType((n,), "
            "'float32')]) for n in (3, 5, 7)]\n"
            "Builder().build(specs)\n"
            "blas = [Builder().compiler().blas_library()]\n"
            "print(len(calls), [p for p, h in loader._preloaded.items() if h] == blas)\n")
    env = dict(env_for(tmp_path), OPBUILD_BLAS="scipy-openblas32")  # a BLAS that NumPy has not loaded
    assert run_python(code, env=env).stdout.split() == ["4", "True"]
    assert run_python(code, env=env).stdout.split() == ["0", "True"]  # the manifest path, BLAS preloaded


def test_prune_removes_manifests_no_warm_start_can_use(root, monkeypatch):
    """Manifests accumulate (one per graph and toolchain); prune drops those naming an evicted entry, damaged
    ones and, with an age, old ones, and keeps those whose entries are all there."""
    import time

    from opbuild.cache.admin import evict

    km = kernel_meta(root)
    other = [REGISTRY["Neg"].spec({}, [TensorType((n,), "float32")]) for n in (2, 4, 6, 8)]
    Builder().build(other)  # a second graph, a second manifest
    assert len(_manifests(root)) == 2
    kept = [m for m in _manifests(root) if "neg_" in m.read_text()]
    assert len(kept) == 1
    (km / manifest.MANIFEST_DIR / "garbage.json").write_text("{not json")
    old_format = json.loads(kept[0].read_text()) | {"format": manifest.FORMAT - 1, "key": "0" * 32}
    (km / manifest.MANIFEST_DIR / f"{'0' * 32}.json").write_text(json.dumps(old_format))  # unusable, entries fine
    victim = next(p for p in km.glob("square_*.json"))
    victim.unlink()  # an entry of the first graph is gone (uncommitted now)
    dropped = sorted(f"{manifest.MANIFEST_DIR}/{m.name}" for m in _manifests(root) if m not in kept)
    assert len(dropped) == 3  # the first graph's, the damaged one, the older format
    result = evict.prune(km, max_size=1 << 40)  # nothing to evict for size
    assert _manifests(root) == kept
    assert sorted(label for label, _ in result.removed if label.startswith(manifest.MANIFEST_DIR)) == dropped
    old = time.time() - 3 * 86400
    os.utime(kept[0], (old, old))
    evict.prune(km, older_than=2 * 86400)
    assert _manifests(root) == []
    _, report = Builder().build(other)  # its entries were younger than the age: still served, manifest rewritten
    assert report.reused == len(other) and len(_manifests(root)) == 1


def test_evicting_an_entry_drops_the_manifests_that_name_it(root):
    from opbuild.cache.admin import evict

    km = kernel_meta(root)
    (m,) = _manifests(root)
    evict.prune(km, max_size=1)  # evicts every entry
    assert not m.exists() and not list(km.glob("*_*.json"))  # no entry left (side files remain)
