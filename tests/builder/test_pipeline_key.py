"""The graph-pass pipeline's identity is part of the graph manifest key: a network built after other passes
does not warm-start from the manifest of this one."""

from __future__ import annotations

from opbuild.builder import Builder
from opbuild.builder.manifests import graph_key
from opbuild.cache.manifest import MANIFEST_DIR
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from opbuild.passes import DEFAULT_PIPELINE
from opbuild.targets import create as create_target

OPS = ("Square", "Exp", "Neg", "Abs")
SPECS = [REGISTRY[op].spec({}, [TensorType((i + 3,), "float32")]) for i, op in enumerate(OPS)]


def test_graph_key_depends_on_the_pipeline() -> None:
    keys = [s.memo_key() for s in SPECS]
    cpu = create_target("CPU")
    assert graph_key(cpu, DEFAULT_PIPELINE.identity, keys) == graph_key(cpu, DEFAULT_PIPELINE.identity, keys)
    assert graph_key(cpu, DEFAULT_PIPELINE.identity, keys) != graph_key(cpu, "other@1", keys)


def test_each_pipeline_writes_its_own_manifest(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    monkeypatch.delenv("RANK_ID", raising=False)
    Builder().build(SPECS, DEFAULT_PIPELINE.identity)
    Builder().build(SPECS, "other@1")
    manifests = list((tmp_path / "rank_0" / "kernel_meta" / MANIFEST_DIR).glob("*.json"))
    assert len(manifests) == 2
