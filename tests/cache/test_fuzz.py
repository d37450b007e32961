"""Fuzzing every kind of file of a real kernel_meta (issue #12): whatever one file becomes (random bytes, a
truncation, deeply nested JSON, nothing, a FIFO, a symbolic link to elsewhere, a directory), the next run in a
fresh session computes the right results with nothing deleted by hand, ``opbuild cache verify`` never
crashes, ``verify --repair`` leaves nothing unrepaired, and the run after that reuses every kernel."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opbuild as ms
from opbuild.cache import manifest
from opbuild.cache.admin.verify import verify
from opbuild.runtime import session as session_module
from tests.cache import _net
from tests.cache._util import kernel_meta
from tests.conftest import execution_mode

pytestmark = pytest.mark.slow

NET = _net.branches([3, 4])  # 10 distinct kernels: enough for a graph manifest
DAMAGES = ("random bytes", "truncated", "deeply nested", "empty", "fifo", "symlink elsewhere", "directory")
KINDS = (".info", ".json", ".so", "manifest", ".memo.json", ".stats.json", "lock")


@contextmanager
def _cache_root(root: Path) -> Iterator[None]:
    """OPBUILD_CACHE_PATH set to ``root`` and a fresh session (a new Builder: no kernel in memory), the way a
    new process starts. (hypothesis runs examples without function-scoped fixtures such as monkeypatch.)"""
    old_env, old_session = os.environ.get("OPBUILD_CACHE_PATH"), session_module._session
    os.environ["OPBUILD_CACHE_PATH"] = str(root)
    session_module._session = None
    try:
        yield
    finally:
        session_module._session = old_session
        if old_env is None:
            os.environ.pop("OPBUILD_CACHE_PATH", None)
        else:
            os.environ["OPBUILD_CACHE_PATH"] = old_env


def _run(root: Path) -> dict:
    """Build and run NET in a fresh session of cache ``root``; check the outputs against NumPy; write the
    statistics as the process would at exit. Returns the build report."""
    with _cache_root(root), execution_mode("graph"):
        arrays = _net.make_inputs(NET)
        outs = _net.make_net(NET)(*[ms.Tensor(a) for a in arrays])
        _net.check_outputs(NET, [o.asnumpy() for o in outs], arrays)
        report = ms.build_report().as_dict()
        session_module.session().builder.observer.flush()
    return report


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A cache of NET built once (entries, manifest, memo, statistics, lock files); examples damage copies."""
    root = tmp_path_factory.mktemp("fuzz-template")
    assert _run(root)["built"] == 10
    km = kernel_meta(root)
    for kind in KINDS:
        assert _files(km, kind), f"the template has no {kind} file"
    return root


def _files(km: Path, kind: str) -> list[Path]:
    if kind == "manifest":
        return sorted((km / manifest.MANIFEST_DIR).iterdir())
    if kind == "lock":
        return sorted((km / ".locks").iterdir())
    if kind.startswith("."):
        return sorted(km.glob(f"*_*{kind}")) if kind in (".info", ".json", ".so") else [km / kind]
    raise AssertionError(kind)


def _damage(path: Path, how: str, data: bytes, elsewhere: Path) -> None:
    """Replace ``path`` (never written in place: binaries of one batch share an inode) by ``how``."""
    old = path.read_bytes()
    path.unlink()
    if how == "random bytes":
        path.write_bytes(data)
    elif how == "truncated":
        path.write_bytes(old[: len(old) * len(data) // 256])
    elif how == "deeply nested":
        path.write_bytes(b"[" * 100_000 if len(data) % 2 else b'{"a":' * 50_000)
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "symlink elsewhere":
        target = elsewhere / path.name  # a perfect copy outside the cache: still never to be followed
        target.write_bytes(old)
        path.symlink_to(target)
    elif how == "directory":
        path.mkdir()
        (path / "inside").write_bytes(data)
    else:
        raise AssertionError(how)


@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kind=st.sampled_from(KINDS), pick=st.integers(0, 1000), how=st.sampled_from(DAMAGES),
       data=st.binary(min_size=1, max_size=256))
def test_any_damage_to_any_file_heals_without_hands(template, kind, pick, how, data):
    work = Path(tempfile.mkdtemp(prefix="opbuild-fuzz-"))
    try:
        root, elsewhere = work / "root", work / "elsewhere"
        elsewhere.mkdir()
        shutil.copytree(template, root, symlinks=True)
        km = kernel_meta(root)
        files = _files(km, kind)
        victim = files[pick % len(files)]
        _damage(victim, how, data, elsewhere)
        copies = {p.name: p.read_bytes() for p in elsewhere.iterdir()}

        logging.getLogger("opbuild").setLevel(logging.ERROR)  # the repair's one warning is expected here
        report = _run(root)  # correct results (checked inside), whatever was damaged
        assert report["built"] == 0, report  # nothing is ever lost: only repaired or reused

        before = verify(km)  # never crashes: not on a FIFO, a directory, a symlink or nested JSON
        repaired = verify(km, repair=True)
        assert repaired.unrepaired == [], [(p.kind, p.path, p.detail, p.action) for p in repaired.unrepaired]
        assert len(repaired.problems) <= len(before.problems)

        again = _run(root)
        assert again["reused"] == 10 and again["repaired"] == 0 and again["built"] == 0, again
        after = verify(km)
        assert after.problems == [], [(p.kind, p.path, p.detail) for p in after.problems]
        # Nothing outside the cache was written through a symlink, and nothing inside was deleted by hand:
        # whatever was damaged went to quarantine or was replaced by an atomic rename.
        assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == copies
        assert not victim.is_symlink()
    finally:
        logging.getLogger("opbuild").setLevel(logging.NOTSET)
        shutil.rmtree(work, ignore_errors=True)
