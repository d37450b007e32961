"""Degraded disks never stop a run: with a cache directory that cannot be created, is read-only or is full,
kernels are built in a private temporary place, ONE warning says why caching is off, and nothing
half-written is left in the cache.

How "read-only" and "full" are made real depends on the machine:
  * read-only: chmod when not root; as root (chmod does not stop root) a read-only bind mount; and, on every
    machine, a variant where the worker makes every write under the directory fail with EROFS (os functions
    and open() replaced in that process), which is what runs where neither chmod nor mount can work;
  * full: a small tmpfs mount (works as root with mount rights); ENOSPC injected at the cache's write layer
    is tested everywhere as well, so the code path is always exercised.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cache import _net
from tests.cache._util import committed, env_for, kernel_meta, run_worker, verify_cache

pytestmark = pytest.mark.slow

NET = _net.branches([3, 4])  # 10 kernels
MORE = NET + _net.branches([21])  # 5 more


def _snapshot(root: Path) -> dict[str, tuple]:
    """Every path under root with its type, size and mtime (the test's proof that nothing was written)."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for n in dirs + files:
            p = Path(dirpath, n)
            st = p.lstat()
            out[str(p.relative_to(root))] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


def _writable(path: Path) -> bool:
    probe = path / ".probe"
    try:
        probe.write_bytes(b"x")
    except OSError:
        return False
    probe.unlink()
    return True


def _mount(*args: str) -> bool:
    if not shutil.which("mount"):
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@contextlib.contextmanager
def read_only(path: Path, mechanism: str) -> Iterator[str]:
    """Make ``path`` (a directory tree) read-only for the duration; yields the mechanism used: "chmod",
    "mount", or "inject" (asked for, or when the filesystem cannot be made read-only here)."""
    if mechanism == "injected":
        yield "inject"
        return
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [path, *path.rglob("*")] if not p.is_symlink()}
        for p in modes:
            p.chmod(0o555 if p.is_dir() else 0o444)
        try:
            assert not _writable(path)
            yield "chmod"
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
        return
    if _mount("--bind", str(path), str(path)):
        try:
            if _mount("-o", "remount,ro,bind", str(path)) and not _writable(path):
                yield "mount"
                return
        finally:
            subprocess.run(["umount", str(path)], capture_output=True)
    yield "inject"


@contextlib.contextmanager
def small_tmpfs(path: Path, size: str) -> Iterator[bool]:
    """A tmpfs of ``size`` mounted at ``path``; yields False where it cannot be mounted."""
    path.mkdir(parents=True, exist_ok=True)
    if not _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)):
        yield False
        return
    try:
        yield True
    finally:
        subprocess.run(["umount", str(path)], capture_output=True)


def _one_warning(res: dict, *words: str) -> str:
    assert len(res["warnings"]) == 1, res["warnings"]
    (w,) = res["warnings"]
    for word in words:
        assert word in w, w
    return w


def test_cache_dir_that_cannot_be_created(tmp_path):
    """OPBUILD_CACHE_PATH is a regular file, so rank_0/kernel_meta cannot be created under it."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file\n")
    for _ in range(2):
        res = run_worker({"net": NET}, env_for(blocker), cwd=tmp_path)
        assert res["report"]["built"] == 10
        _one_warning(res, "cannot create", str(kernel_meta(blocker)), "OPBUILD_CACHE_PATH")
    assert blocker.read_text() == "a file\n" and sorted(p.name for p in tmp_path.iterdir()) == ["not-a-dir"]


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    root = tmp_path_factory.mktemp("degraded")
    run_worker({"net": NET}, env_for(root))
    return root


def _skip_if_injected(asked: str, how: str) -> None:
    if asked == "filesystem" and how == "inject":
        pytest.skip("no way to make a directory read-only here (root without mount rights); the 'injected' "
                    "variant covers the code path")


@pytest.mark.parametrize("mechanism", ["filesystem", "injected"])
def test_read_only_cache_is_used_and_left_untouched(warm, tmp_path, mechanism):
    root = tmp_path / "ro"
    shutil.copytree(warm, root)
    before = _snapshot(root)
    with read_only(root, mechanism) as how:
        _skip_if_injected(mechanism, how)
        cfg = {"net": MORE, "readonly": str(root.resolve()) if how == "inject" else None}
        res = run_worker(cfg, env_for(root))
        again = run_worker(cfg, env_for(root))
    print("read-only mechanism:", how)
    for r in (res, again):
        assert (r["report"]["reused"], r["report"]["built"], r["report"]["repaired"]) == (10, 5, 0)
        _one_warning(r, "read-only", str(kernel_meta(root)))
    assert _snapshot(root) == before


@pytest.mark.parametrize("mechanism", ["filesystem", "injected"])
def test_read_only_root_without_kernel_meta(tmp_path, mechanism):
    root = tmp_path / "ro-empty"
    root.mkdir()
    with read_only(root, mechanism) as how:
        _skip_if_injected(mechanism, how)
        cfg = {"net": NET, "readonly": str(root.resolve()) if how == "inject" else None}
        res = run_worker(cfg, env_for(root))
    assert res["report"]["built"] == 10
    _one_warning(res, "cannot create")
    assert list(root.iterdir()) == []


def _check_full(root: Path, cfg: dict, still_full: dict | None = None) -> None:
    """``cfg`` runs on the disk that fills up, ``still_full`` (default ``cfg``) on the disk once full."""
    km = kernel_meta(root)
    res = run_worker(cfg, env_for(root))
    assert res["report"]["built"] == 15
    _one_warning(res, "cannot write", str(km), os.strerror(errno.ENOSPC))
    fitted = committed(km)
    assert 0 < len(fitted) < 15  # some entries fit before the disk filled
    assert verify_cache(km) == []  # ... and no half-written entry or temporary was left
    # The next run reuses what fitted and builds the rest privately, still with one warning.
    again = run_worker(still_full or cfg, env_for(root))
    assert again["report"]["reused"] == len(fitted) and again["report"]["built"] == 15 - len(fitted)
    _one_warning(again, "cannot write")
    assert committed(km) == fitted and verify_cache(km) == []


def test_full_cache_injected_enospc(tmp_path):
    """ENOSPC injected at the write layer after ~2.5 entries' worth of bytes (every machine)."""
    root = tmp_path / "root"
    root.mkdir()
    _check_full(root.resolve(), {"net": MORE, "enospc_after": 40_000}, {"net": MORE, "enospc_after": 0})


def test_full_cache_tmpfs(tmp_path):
    """A real full filesystem: a 64 KiB tmpfs holds two or three entries (each takes 4 KiB pages)."""
    with small_tmpfs(tmp_path / "tiny", "64k") as mounted:
        if not mounted:
            pytest.skip("cannot mount a tmpfs here (needs root with mount rights); "
                        "test_full_cache_injected_enospc covers the code path")
        _check_full(tmp_path / "tiny", {"net": MORE})


def test_full_cache_with_a_broken_entry(warm, tmp_path):
    """Repairing on a full disk: quarantining a broken entry must not need free space, nor fail the run."""
    with small_tmpfs(tmp_path / "tiny", "400k") as mounted:
        if not mounted:
            pytest.skip("cannot mount a tmpfs here (needs root with mount rights)")
        root = tmp_path / "tiny"
        km = kernel_meta(root)
        shutil.copytree(kernel_meta(warm), km, ignore=shutil.ignore_patterns(".locks"))
        fd = os.open(root / "filler", os.O_WRONLY | os.O_CREAT)
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
        os.close(fd)
        victim = committed(km)[4]
        data = bytearray((km / f"{victim}.so").read_bytes())
        data[200] ^= 4
        (km / f"{victim}.so").write_bytes(bytes(data))  # same size: fits on the full disk
        res = run_worker({"net": NET}, env_for(root))
        rep = res["report"]
        assert (rep["reused"], rep["repaired"], rep["built"]) == (9, 1, 0)
        # Two incidents, one warning each: the broken entry, and the disk that cannot take its rebuild.
        full, broken = sorted(res["warnings"], key=lambda w: victim in w)
        assert victim in broken and "quarantine" in broken
        assert "cannot write" in full and os.strerror(errno.ENOSPC) in full
        assert any(q.name.startswith(victim) for q in (km / "quarantine").iterdir())
        assert verify_cache(km) == [] and len(committed(km)) == 9


def test_one_warning_per_process_when_the_disk_fills(tmp_path):
    """Later graph builds of a process whose cache disk filled up stay quiet: the first warning said it."""
    root = tmp_path / "root"
    root.mkdir()
    then = [_net.branches([22]), _net.branches([23, 3])]
    res = run_worker({"net": MORE, "enospc_after": 40_000, "then": then}, env_for(root.resolve()))
    assert [r["built"] for r in res["reports"]] == [15, 5, 5]
    _one_warning(res, "cannot write")
    assert verify_cache(kernel_meta(root)) == []
