"""Every identity the cache keys something with, each built from named parts (JAX's ``cache_key.py`` style).

=====================  =====================================================================================
identity               named parts (and who supplies them)
=====================  =====================================================================================
kernel key             the canonical descriptor (``.info``): op, attrs, inputs, outputs, codegen, abi, compiler,
                       target, opbuild_version, opt_class (:mod:`.key`: :func:`~.key.descriptor`, its fast
                       encoder and the diff that explains a miss); the entry name ``<op lower>_<hash>`` and the
                       kernel's C symbol are :func:`kernel_name` and :func:`kernel_symbol` here
codegen hash           the digests of the files that generate an op's C, in order, and the op's name
                       (:func:`codegen_hash`; ops/registry.py lists the files)
memo key               op, attrs and the (shape, dtype) of inputs and outputs, marshalled:
                       ``KernelSpec.memo_key`` in core/ir.py (the IR sits below the cache and cannot import it)
pipeline identity      the graph passes' ``name@version[:setting]`` in order (:func:`pipeline_identity`)
manifest key           a fingerprint of the settings descriptors derive from (:func:`manifest_fingerprint`),
                       the target's name, the pipeline identity and the graph's memo keys (:func:`manifest_key`)
toolchain record key   the target and the toolchain settings that do not locate the compiler
                       (:func:`toolchain_record_key`): the key under which ``.memo.json`` keeps the compiler
                       identity a process without a compiler names kernels with; ``cache export`` carries these
                       records, ``cache import`` writes them
machine components     the descriptor fields that depend on the machine, not the kernel
                       (:data:`MACHINE_COMPONENTS`: what ``cache import`` compares)
=====================  =====================================================================================

Each function logs its parts at debug level (logger ``opbuild.cache``) so that two keys can be compared part
by part. Nothing here reads a kernel_meta file; the parts are passed in by the layer that owns them (the
builder, the passes, the registry), so the cache imports no higher layer.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import os
import sys
from collections.abc import Iterable, Sequence

from ..core import config
from . import fsio
from .layout import HASH_CHARS

log = logging.getLogger("opbuild.cache")

#: Descriptor components that depend on the machine (and opbuild) rather than on the kernel.
MACHINE_COMPONENTS = ("compiler", "target", "opbuild_version", "abi")
#: Prefix of every toolchain record key in ``.memo.json``.
TOOLCHAIN_RECORD_PREFIX = "toolchain|"
_BOOT_ID = "/proc/sys/kernel/random/boot_id"
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this opbuild's source directory


def _parts(what: str, **parts: object) -> None:
    if log.isEnabledFor(logging.DEBUG):
        for k, v in parts.items():
            log.debug("%s component %s: %r", what, k, v)


# ---- kernel ---------------------------------------------------------------------------------------
def kernel_name(op: str, info: bytes) -> str:
    """``<op lower>_<hash>``; the hash is the first HASH_CHARS hex digits of sha256(info)."""
    return f"{op.lower()}_{hashlib.sha256(info).hexdigest()[:HASH_CHARS]}"


def kernel_symbol(name: str) -> str:
    """The exported C symbol of kernel ``name``: ``ob_<hash>`` (unique per descriptor, so the kernels of one
    batched shared object never clash). Derived from the name, like every path, never read from a file."""
    return "ob_" + name[name.rfind("_") + 1:]


def codegen_hash(op: str, file_digests: Iterable[str]) -> str:
    """The code generator hash of ``op``: the hex sha256 digests of its generator files (in the registry's
    order), each by its digest alone, then the op's name."""
    h = hashlib.sha256()
    for digest in file_digests:
        h.update(bytes.fromhex(digest))
    h.update(op.encode())
    return h.hexdigest()


# ---- graph ----------------------------------------------------------------------------------------
def pipeline_identity(passes: Iterable[str]) -> str:
    """The identity of a graph-pass pipeline: its passes' identities (``name@version[:setting]``) in order."""
    return ",".join(passes)


def _sig(path: str) -> tuple[int, int, int, int] | None:
    """A file's stat signature (device, inode, size, mtime), or None if it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def manifest_fingerprint(version: str, abi: int, manifest_format: int) -> str:
    """A hash of the settings a graph's descriptors are derived from, observed without running anything or
    touching a file of the graph: the manifest format, opbuild's version, ABI and source directory, the
    toolchain variables, ``PATH`` and the stat of each of its directories (a compiler installed earlier on
    the PATH changes one), ``sys.path`` (not stat-ed: the script's own directory is among them) and the boot
    id (the CPU's features cannot change without a reboot). The files themselves are checked against the
    manifest (cache/manifest.py)."""
    path = os.environ.get("PATH", "")
    parts = [f"{manifest_format}|{version}|{abi}|{_PACKAGE}", *config.toolchain_env(), path, repr(sys.path)]
    for d in path.split(os.pathsep):
        parts.append(repr(_sig(d or ".")))
    try:
        parts.append(fsio.read_small(_BOOT_ID).decode().strip())
    except OSError:
        parts.append(str(os.getpid()))  # no boot id: manifests only serve this process
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def manifest_key(*, fingerprint: str, target: str, pipeline: str, kernels: Sequence[bytes]) -> str:
    """The name of a graph's manifest: its fingerprint, target, pass pipeline identity and distinct kernels'
    memo keys in order (marshal length-prefixes each)."""
    _parts("manifest key", fingerprint=fingerprint, target=target, pipeline=pipeline, kernels=len(kernels))
    head = f"{fingerprint}|{target}|{pipeline}".encode()
    return hashlib.sha256(head + marshal.dumps(list(kernels), 0)).hexdigest()[:32]


# ---- toolchain ------------------------------------------------------------------------------------
def toolchain_record_key(target: str, env: Sequence[str] | None = None) -> str:
    """The ``.memo.json`` key of the toolchain identity recorded for ``target`` under the current settings
    (``env``: :func:`opbuild.core.config.toolchain_env`). ``CC`` is left out on purpose: it says where to find
    a compiler, and a process without one (a deployment image) has it pointing nowhere."""
    _cc, cflags, blas, openmp, blas_threads = config.toolchain_env() if env is None else env
    _parts("toolchain record", target=target, cflags=cflags, blas=blas, openmp=openmp, blas_threads=blas_threads)
    return f"{TOOLCHAIN_RECORD_PREFIX}{target}|{cflags}|{blas}|{openmp}|{blas_threads}"


def is_toolchain_record_key(key: object) -> bool:
    """Whether ``key`` (from a memo or an archive: hostile input) is a toolchain record key."""
    return isinstance(key, str) and key.startswith(TOOLCHAIN_RECORD_PREFIX) and len(key) <= 4096


__all__ = ["MACHINE_COMPONENTS", "TOOLCHAIN_RECORD_PREFIX", "codegen_hash", "is_toolchain_record_key",
           "kernel_name", "kernel_symbol", "manifest_fingerprint", "manifest_key", "pipeline_identity",
           "toolchain_record_key"]
