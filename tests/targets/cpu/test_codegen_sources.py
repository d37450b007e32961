"""One definition of "what determines the generated code" (targets/cpu/sources.py, walked from the emitter
registered in targets/cpu/kernels/), used by the per-kernel key and the
graph manifests: editing any file that shapes an op's C changes the key and invalidates the manifests that
record it, editing another file neither."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import opbuild
import opbuild.ops  # noqa: F401 - registers every op family
from opbuild.builder.manifests import source_files
from opbuild.cache import identity, key, manifest
from opbuild.core import dtypes
from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops import registry
from opbuild.ops.registry import REGISTRY, broadcast_shapes
from opbuild.targets.cpu import codegen as c_codegen
from opbuild.targets.cpu import kernels
from opbuild.targets.cpu import prelude as c_prelude
from opbuild.targets.cpu.kernels import Emitter, codegen_digest
from opbuild.targets.cpu.sources import emitter_file

_KERNEL_OPS = sorted(n for n in REGISTRY if kernels.needs_kernel(n))

_PACKAGE = Path(opbuild.__file__).parent
_UNRELATED = str(_PACKAGE / "units.py")  # shapes no generated code


def _digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _edited(target: str):
    """A file digest as after editing ``target`` (every other file unchanged)."""
    return lambda path: hashlib.sha256(b"edited " + path.encode()).hexdigest() if path == target else _digest(path)


def _kernel_name(op: str, codegen_hash: str) -> str:
    """The entry name of one kernel of ``op`` whose descriptor differs only by the code generator hash."""
    t = TensorType((2, 3), "float32")
    info = key.canonical_bytes(key.descriptor(op, {}, [t], [t], codegen_hash=codegen_hash, abi=1,
                                              compiler={"path": "cc"}, target={"arch": "x"}, version="0"))
    return key.kernel_name(op, info)


@pytest.mark.parametrize("name", _KERNEL_OPS)
def test_every_op_hashes_its_emitter_the_c_codegen_and_dtypes(name):
    files = {Path(f).resolve() for f in kernels.emitter(name).files()}
    expected = {Path(emitter_file(kernels.emitter(name).fn)), Path(c_codegen.__file__), Path(c_prelude.__file__),
                Path(dtypes.__file__)}
    assert {p.resolve() for p in expected} <= files


@pytest.mark.parametrize("name", _KERNEL_OPS)
def test_editing_any_contributing_file_changes_the_kernel_key(name):
    before_hash = codegen_digest(name, _digest)
    assert before_hash == kernels.codegen_hash(name)  # the memoised value is this digest
    before = _kernel_name(name, before_hash)
    for f in kernels.emitter(name).files():
        after = _kernel_name(name, codegen_digest(name, _edited(f)))
        assert after != before, f"editing {f} leaves the key of {name} unchanged"
    assert codegen_digest(name, _edited(_UNRELATED)) == before_hash


@pytest.mark.parametrize("name", ["Conv2D", "Add", "ReduceSum", "Softmax", "Transpose"])
def test_editing_any_contributing_file_invalidates_the_graph_manifest(name, tmp_path, monkeypatch):
    """A manifest records the files of its ops with their stats (cache/manifest.py): a change to any of them
    makes the warm start ignore it; a change to a file that shapes nothing does not."""
    files = kernels.emitter(name).files()
    sources = source_files(kernels.codegen_files([name]))
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


def _helper_emit(k: KernelSpec) -> str:
    return str(broadcast_shapes(k.op, k.inputs))  # a helper of ours in another module than the emitter's


def test_a_helper_in_another_module_contributes_its_file(monkeypatch):
    monkeypatch.setitem(kernels.EMITTERS, "Nope", Emitter("Nope", _helper_emit))
    files = {Path(f).resolve() for f in kernels.emitter("Nope").files()}
    assert Path(registry.__file__).resolve() in files and Path(__file__).resolve() in files
    base = codegen_digest("Nope", _digest)
    assert codegen_digest("Nope", _edited(registry.__file__)) != base


def test_a_module_used_as_a_namespace_contributes_its_file():
    """Conv2D's emitter calls ``K.forward`` (``from . import conv_kernels as K``): that module's file shapes its
    C, so an edit of the convolution kernels must rekey Conv2D and its backward ops (it once did not)."""
    from opbuild.targets.cpu.kernels import conv_kernels

    for name in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "FusedConv2D"):
        files = {Path(f).resolve() for f in kernels.emitter(name).files()}
        assert Path(conv_kernels.__file__).resolve() in files, name
        assert codegen_digest(name, _edited(conv_kernels.__file__)) != codegen_digest(name, _digest), name


@pytest.mark.parametrize("table, names", [
    ("ops/elementwise.py", ["Square", "Add", "Cast", "Select", "ReluGrad", "FusedElementwise", "FusedRowReduce",
                            "FusedMatMul", "FusedBatchMatMul", "FusedConv2D"]),
    ("ops/reduction.py", ["ReduceSum", "ReduceMax", "ArgMax", "FusedRowReduce"]),
    ("ops/random_ops.py", ["Dropout", "DropoutGrad"]),
])
def test_editing_an_ops_table_rekeys_every_kernel_whose_c_reads_it(table, names):
    """The C of these kernels reads data of an ops/ module (a row's C expression, a reduction's mean flag,
    the generator's constants) from emitters that live in targets/cpu/kernels/: the op's declaring file and
    the modules the emitters use as namespaces are hashed, so editing the table never reuses a stale binary
    (the emitters once read the rows through a dict, which no code walk follows)."""
    path = str(_PACKAGE / table)
    for name in names:
        assert path in kernels.emitter(name).files(), name
        assert codegen_digest(name, _edited(path)) != codegen_digest(name, _digest), name
