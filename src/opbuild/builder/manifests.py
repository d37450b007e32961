"""Graph manifests in the build: a warm start of a whole graph from one verified index (cache/manifest.py),
and the writing of that index after an ordinary build.

The graph key hashes the manifest fingerprint (toolchain settings, opbuild's version and directory, ...),
the graph-pass pipeline's identity (passes/base.py: ``Pipeline.identity``; another pipeline may produce
other kernels from the same network) and the distinct kernels' memo keys in order.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import sys
from collections.abc import Iterable, Sequence
from types import ModuleType

from .._version import __version__
from ..cache import fsio, identity, locks, manifest, rows
from ..cache.local import KernelStore
from ..core.ir import KernelSpec
from ..report import BuildReport, KernelRecord
from ..targets.base import Kernel, Target
from .memory import KernelMemory
from .requests import KernelRequest

log = logging.getLogger("opbuild")

# Smaller builds (PyNative ops, one by one) write no graph manifest: their warm start names each kernel, which
# imports the target's code generators (targets/cpu/generation.py; docs/benchmarks.md, "Warm builds, fourth pass").
MANIFEST_MIN_KERNELS = 2
# Modules whose code decides the descriptor's fields other than the generated code (the key's encoding, the
# compiler's identity and flags, the environment's parsing). The generated code's own modules come from the
# target (Target.codegen_files), the one definition the per-kernel key uses too.
_DESCRIPTOR_MODULES = ("opbuild", "opbuild._version", "opbuild.core.config", "opbuild.cache.key",
                       "opbuild.cache.identity", "opbuild.builder.requests", "opbuild.builder.toolchain")
_DESCRIPTOR_PACKAGES = ("opbuild.targets.cpu",)


def source_files(codegen_files: Iterable[str]) -> list[str]:
    """The sources a manifest records, as loaded in this process: ``codegen_files`` (every file that shapes the
    generated code of the graph's ops, as the target lists them: ``Target.codegen_files``), then the descriptor
    modules and the packages' submodules (a package holds each imported submodule as an attribute; cheaper
    than scanning ``sys.modules``)."""
    files = list(codegen_files)
    for name in _DESCRIPTOR_MODULES:
        files.append(getattr(sys.modules.get(name), "__file__", None) or name)
    for name in _DESCRIPTOR_PACKAGES:
        pkg = sys.modules.get(name)
        files.append(getattr(pkg, "__file__", None) or name)
        subs = [m.__file__ for m in vars(pkg).values() if isinstance(m, ModuleType)
                and m.__name__.startswith(name + ".") and getattr(m, "__file__", None)] if pkg else []
        files.extend(sorted(set(subs)))
    return files


def graph_key(target: Target, pipeline: str, kernels: Sequence[bytes]) -> str:
    """The manifest name of a graph built for ``target`` after the pass pipeline of identity ``pipeline`` (the
    files that shape its kernels are recorded in the manifest and checked when it is read)."""
    fp = manifest.fingerprint(__version__, target.abi_version)
    return identity.manifest_key(fingerprint=fp, target=target.name, pipeline=pipeline, kernels=kernels)


def from_manifest(store: KernelStore, graph: str, todo: dict[bytes, KernelSpec], target: Target,
                  memory: KernelMemory) -> list[tuple[bytes, KernelSpec, Kernel]] | None:
    """Load every kernel of ``todo`` as the graph manifest ``graph`` lists them, verifying each entry against
    it: ``(memo key, spec, kernel)`` per kernel in order, or None (nothing loaded) when there is no valid
    manifest or any entry does not match (the ordinary path then finds, repairs and re-indexes them)."""
    found = manifest.read(store.path, graph)
    if found is None or len(found.items) != len(todo) or not manifest.files_unchanged(found):
        log.debug("opbuild: graph manifest %s not used: %s", graph, "none" if found is None else
                  "another kernel count" if len(found.items) != len(todo) else "a recorded file changed")
        return None
    if found.blas and any(target.needs_blas(spec.op) for spec in todo.values()):
        # The manifest is hostile input: its ``blas`` is only compared with the library the toolchain resolves
        # itself (what the compiler identity records), never loaded from the manifest's say-so.
        blas = target.linked_library(None)
        if blas != found.blas:
            log.debug("opbuild: graph manifest %s not used: its BLAS %r is not the toolchain's %r", graph,
                      found.blas, blas)
            return None
        target.preload(blas)
    check, hits = store.check, []
    with locks.loading(store):
        for item, spec in zip(found.items, todo.values()):
            # Rows are paired with the graph's kernels by position: each entry must describe its kernel.
            hit = check(item.name, item.info_sha256, item.json_sha256, item.binary_sha256, item.size,
                        functools.partial(rows.info_problem, spec=spec))
            if hit.status != "hit":
                log.debug("opbuild: graph manifest %s not used: %s: %s", graph, item.name, hit.reason)
                return None
            hits.append(hit)
        libs, loaded, symbol, load = memory.libs, [], identity.kernel_symbol, target.load
        for item, hit in zip(found.items, hits):
            try:
                loaded.append(load(hit.binary, item.name, symbol(item.name), libs, hit.ident))
            except OSError as e:  # the ordinary path finds it again, quarantines and rebuilds it
                log.debug("opbuild: graph manifest %s not used: %s cannot be loaded: %s", graph, item.name, e)
                return None
    return [(mk, spec, kernel) for (mk, spec), kernel in zip(todo.items(), loaded)]


def record_manifest_hits(report: BuildReport, loaded: list[tuple[bytes, KernelSpec, Kernel]], swept: set[str],
                         seconds: float) -> None:
    """One report record per kernel a manifest served (``seconds`` shared out evenly)."""
    each = seconds / max(1, len(loaded))
    records = report.kernels
    for _, spec, kernel in loaded:
        records.append(KernelRecord(kernel.name, spec.op, "repaired" if kernel.name in swept else "reused", each,
                                    "local"))


def write_manifest(store: KernelStore, graph: str, reqs: list[KernelRequest], target: Target,
                   toolchain_files: list[str], blas: str | None) -> None:
    """Record the graph's verified entries (after an ordinary build) for the next process's warm start, with
    the toolchain files and the sources of the graph's ops; nothing when any entry is not in ``store`` (a
    private fallback, a concurrent eviction)."""
    items = []
    for req in reqs:
        base = os.path.join(str(store.path), req.name)
        try:
            raw = fsio.read_small(base + ".json")
            result = fsio.parse_json(raw, ".json")
            binary = base + target.binary_suffix
            st = os.lstat(binary)
            digest = store.digest_of(binary, (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
        except (OSError, ValueError):
            return
        if digest != result.get("sha256") or st.st_size != result.get("size"):
            return
        items.append(manifest.Item(req.name, hashlib.sha256(req.info).hexdigest(), hashlib.sha256(raw).hexdigest(),
                                   digest, st.st_size, rows.spec_digest(req.spec)))
    sources = source_files(target.codegen_files(sorted({req.spec.op for req in reqs})))
    manifest.write(store.path, graph, items, toolchain_files, blas, sources)


__all__ = ["MANIFEST_MIN_KERNELS", "from_manifest", "graph_key", "record_manifest_hits", "source_files",
           "write_manifest"]
