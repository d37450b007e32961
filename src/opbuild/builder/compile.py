"""Compile a batch of kernels in one compiler call, publish one cache entry per kernel, keep failed sources.

The entries of a batch hold hard links of one binary (one copy on disk, one ``dlopen`` when warm), yet every
kernel keeps its own ``.info``/``.json``, so eviction, verification and incremental rebuilds stay per kernel.
A binary is published only once the target has validated it (a compiler exiting 0 may still write junk).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from .._version import __version__
from ..cache import hashio
from ..cache.local import KernelStore
from ..core.errors import CompileError, CompilerNotFoundError, CompileTimeoutError
from ..targets.base import Target
from .requests import KernelRequest
from .stores import Stores
from .toolchain import Toolchains


def keep_failed_source(source_path: str) -> Path:
    """Copy a failed translation unit where the user can read it after this process is gone: a per-user folder,
    a unique file per failure (concurrent failures never overwrite each other)."""
    kept = _failed_sources_dir()
    fd, dest_name = tempfile.mkstemp(prefix=Path(source_path).stem + ".", suffix=".c", dir=kept)
    os.close(fd)
    dest = Path(dest_name)
    shutil.copyfile(source_path, dest)
    return dest


def _failed_sources_dir() -> Path:
    """``$TMPDIR/opbuild-failed-<uid>``, when it is a directory of ours that nobody else can write to; else (a
    regular file, a symbolic link or a directory another user planted there in a shared /tmp) a fresh private
    directory beside it, so that a compile error is never hidden behind a FileExistsError."""
    kept = Path(tempfile.gettempdir()) / f"opbuild-failed-{os.getuid()}"
    try:
        kept.mkdir(mode=0o700, exist_ok=True)
    except OSError:  # FileExistsError for a file in the way, or an unwritable TMPDIR (mkdtemp will tell)
        pass
    try:
        st = os.lstat(kept)
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022:
            return kept
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix=f"{kept.name}-"))


class BatchCompiler:
    """Compiles and publishes batches for one Builder (its target, toolchain and stores)."""

    def __init__(self, target: Target, toolchains: Toolchains, stores: Stores):
        self.target = target
        self.toolchains = toolchains
        self.stores = stores

    def bodies(self, reqs: Sequence[KernelRequest]) -> dict[str, str]:
        """The C body of each request (the target's emitter of its op) by entry name, leaving out any that fails
        to generate (``compile_batch`` generates those again and raises there)."""
        out = {}
        for req in reqs:
            try:
                out[req.name] = self.target.emit(req.spec)
            except Exception:  # noqa: BLE001 (an estimate only: the error surfaces in compile_batch)
                continue
        return out

    def _source(self, reqs: Sequence[KernelRequest], bodies: Mapping[str, str]) -> tuple[str, bool]:
        kernels = [(req.symbol, req.spec, bodies.get(req.name) or self.target.emit(req.spec)) for req in reqs]
        needs_blas = any(r.needs_blas for r in reqs)
        return self.target.translation_unit(kernels, needs_blas), needs_blas

    def compile_batch(self, store: KernelStore, reqs: Sequence[KernelRequest],
                      bodies: Mapping[str, str] | None = None) -> list[tuple[KernelRequest, Path, float]]:
        """Compile several kernels in ONE compiler call and publish each as its own entry (and to the shared
        tier). ``bodies``: C bodies already generated, by entry name (the others are generated here). Returns
        (request, binary path, seconds attributed) per kernel."""
        label = reqs[0].name if len(reqs) == 1 else f"batch{len(reqs)}_{reqs[0].name}"
        try:
            compiler = self.toolchains.compiler(self.target)
        except CompilerNotFoundError as e:
            raise e.for_kernels([req.name for req in reqs]) from None
        source, needs_blas = self._source(reqs, bodies or {})
        build_dir = Path(tempfile.mkdtemp(prefix=label + ".", dir=self.stores.workdir()))
        out = build_dir / (label + self.target.binary_suffix)
        try:
            result = self.target.compile(compiler, source, out, build_dir, needs_blas, label)
            try:  # bounded (cache/hashio.py): an output over MAX_BINARY_BYTES is refused, never read or committed
                binary = bytes(hashio.read_hashed(str(result.binary))[0])
            except OSError as e:
                raise CompileError(result.cmd, f"the compiler exited 0, but its output {result.binary.name} cannot be "
                                   f"used: {e.strerror or e}", str(build_dir / (label + ".c")), label) from None
            try:  # committed only once proven loadable
                self.target.validate(binary, [req.symbol for req in reqs])
            except ValueError as e:
                raise CompileError(result.cmd, f"the compiler exited 0, but its output {result.binary.name} is not "
                                   f"a loadable shared object: {e}", str(build_dir / (label + ".c")), label) from None
        except CompileTimeoutError as e:
            shutil.rmtree(build_dir, ignore_errors=True)  # a timeout is not the source's fault: nothing to keep
            raise CompileTimeoutError(e.cmd, e.source_path, [req.name for req in reqs], e.timeout) from None
        except CompileError as e:
            dest = keep_failed_source(e.source_path)
            shutil.rmtree(build_dir, ignore_errors=True)
            raise CompileError(e.cmd, e.stderr, str(dest), reqs[0].name if len(reqs) == 1 else label) from None
        shutil.rmtree(build_dir, ignore_errors=True)
        each = result.seconds / len(reqs)
        base = {"build_seconds": round(each, 6), "batch_seconds": round(result.seconds, 6), "batch_size": len(reqs),
                "compile_command": result.cmd, "opbuild_version": __version__, "built_at": time.time()}
        metas = [dict(base, kernel=req.name, op=req.spec.op, symbol=req.symbol) for req in reqs]
        paths = self.publish_entries(store, binary, list(zip(reqs, metas)), label)
        tier = self.stores.shared()
        if tier is not None:
            tier.publish(binary, [(req.name, req.info, meta) for req, meta in zip(reqs, metas)])
        return [(req, path, each) for req, path in zip(reqs, paths)]

    def publish_entries(self, store: KernelStore, binary: bytes, items: Sequence[tuple[KernelRequest, dict]],
                        label: str) -> list[Path]:
        """Publish one entry per ``(request, result meta)``, all holding ``binary``: hard links of one staged
        copy, so they share one inode on disk and one dlopen. Returns each entry's binary path."""
        try:
            staged = store.stage_binary(binary, label) if len(items) > 1 else None
        except OSError:
            staged = None
        try:
            return [self.stores.publish(store, req, binary, meta, staged) for req, meta in items]
        finally:
            if staged is not None:
                staged.unlink(missing_ok=True)


__all__ = ["BatchCompiler", "keep_failed_source"]
