"""One definition of "what determines the generated code" (ops/sources.py), used by the per-kernel key and the
graph manifests: editing any file that shapes an op's C changes the key and invalidates the manifests that
record it, editing another file neither."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

import opbuild
import opbuild.ops  # noqa: F401 - registers every op family
from opbuild.builder.manifests import source_files
from opbuild.cache import identity, key, manifest
from opbuild.core import dtypes
from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops import registry
from opbuild.ops.registry import REGISTRY, OpDef, broadcast_shapes, codegen_digest
from opbuild.ops.sources import emitter_file
from opbuild.targets.cpu import codegen as c_codegen
from opbuild.targets.cpu import prelude as c_prelude

_PACKAGE = Path(opbuild.__file__).parent
_UNRELATED = str(_PACKAGE / "units.py")  # shapes no generated code


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _edited(target: str):
    """A file digest as after editing ``target`` (every other file unchanged)."""
    return lambda path: hashlib.sha256(b"edited " + path.encode()).hexdigest() if path == target else _digest(path)


def _kernel_name(opdef: OpDef, codegen_hash: str) -> str:
    """The entry name of one kernel of ``opdef`` whose descriptor differs only by the code generator hash."""
    t = TensorType((2, 3), "float32")
    info = key.canonical_bytes(key.descriptor(opdef.name, {}, [t], [t], codegen_hash=codegen_hash, abi=1,
                                              compiler={"path": "cc"}, target={"arch": "x"}, version="0"))
    return key.kernel_name(opdef.name, info)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_op_hashes_its_emitter_the_c_codegen_and_dtypes(name):
    files = {Path(f).resolve() for f in REGISTRY[name].codegen_files()}
    expected = {Path(emitter_file(REGISTRY[name].emit)), Path(c_codegen.__file__), Path(c_prelude.__file__),
                Path(dtypes.__file__)}
    assert {p.resolve() for p in expected} <= files


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_editing_any_contributing_file_changes_the_kernel_key(name):
    opdef = REGISTRY[name]
    before_hash = codegen_digest(opdef, _digest)
    assert before_hash == opdef.codegen_hash()  # the memoised value is this digest
    before = _kernel_name(opdef, before_hash)
    for f in opdef.codegen_files():
        after = _kernel_name(opdef, codegen_digest(opdef, _edited(f)))
        assert after != before, f"editing {f} leaves the key of {name} unchanged"
    assert codegen_digest(opdef, _edited(_UNRELATED)) == before_hash


@pytest.mark.parametrize("name", ["Conv2D", "Add", "ReduceSum", "Softmax", "Transpose"])
def test_editing_any_contributing_file_invalidates_the_graph_manifest(name, tmp_path, monkeypatch):
    """A manifest records the files of its ops with their stats (cache/manifest.py): a change to any of them
    makes the warm start ignore it; a change to a file that shapes nothing does not."""
    files = REGISTRY[name].codegen_files()
    sources = source_files([name])
    assert set(files) <= set(sources)
    manifest.write(tmp_path, "k" * 32, [], [], None, sources)
    recorded = manifest.load(manifest.path_of(tmp_path, "k" * 32), "k" * 32)
    assert manifest.files_unchanged(recorded)
    real_sig = manifest._sig
    for f in files:
        monkeypatch.setattr(manifest, "_sig", lambda p, f=f: (0, 0, 0, 0) if p == f else real_sig(p))
        assert not manifest.files_unchanged(recorded), f"editing {f} leaves the manifest valid"
    monkeypatch.setattr(manifest, "_sig", lambda p: (0, 0, 0, 0) if p == _UNRELATED else real_sig(p))
    assert manifest.files_unchanged(recorded)


def test_the_fingerprint_names_this_source_tree(monkeypatch):
    """Two opbuild trees of one version sharing a cache never read each other's manifests (their sources
    differ in path, so each would only find the other's stale and rewrite it)."""
    assert Path(identity._PACKAGE) == _PACKAGE
    before = manifest.fingerprint("0", 1)
    assert manifest.fingerprint("0", 1) == before
    monkeypatch.setattr(identity, "_PACKAGE", "/elsewhere/opbuild")
    assert manifest.fingerprint("0", 1) != before


def _infer(attrs, types):
    return [types[0]]


def _helper_emit(k: KernelSpec) -> str:
    return str(broadcast_shapes(k.op, k.inputs))  # a helper of ours in another module than the emitter's


def test_a_helper_in_another_module_contributes_its_file():
    opdef = OpDef("Nope", _infer, _helper_emit, lambda attrs, x: np.asarray(x))
    files = {Path(f).resolve() for f in opdef.codegen_files()}
    assert Path(registry.__file__).resolve() in files and Path(__file__).resolve() in files
    base = codegen_digest(opdef, _digest)
    assert codegen_digest(opdef, _edited(registry.__file__)) != base


def test_a_module_used_as_a_namespace_contributes_its_file():
    """Conv2D's emitter calls ``K.forward`` (``from . import conv_kernels as K``): that module's file shapes its
    C, so an edit of the convolution kernels must rekey Conv2D and its backward ops (it once did not)."""
    from opbuild.ops import conv_kernels

    for name in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "FusedConv2D"):
        opdef = REGISTRY[name]
        assert Path(conv_kernels.__file__).resolve() in {Path(f).resolve() for f in opdef.codegen_files()}, name
        assert codegen_digest(opdef, _edited(conv_kernels.__file__)) != codegen_digest(opdef, _digest), name
