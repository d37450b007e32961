"""Every call of the compiler is bounded (issue 23, points 5, 6 and 8): a probe (``--version``,
``-print-file-name``) that hangs is killed with its children after OPBUILD_COMPILE_TIMEOUT (at most the probes'
own bound) and reported as a hanging compiler naming the bound (not as a missing one); a compiler printing
megabytes of version text gives a small identity; a "compiler" that exits 0 without writing anything is a
clear CompileError."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from opbuild.builder import Builder
from opbuild.core import config
from opbuild.core.errors import CompileError, CompilerHangError, CompilerNotFoundError
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from opbuild.targets.cpu.compilers import gcc
from opbuild.targets.cpu.compilers.gcc import VERSION_LINE_MAX, GccLike
from opbuild.targets.cpu.compilers.process import ProcessTimeout, run_capped
from tests.cache._util import committed, kernel_meta


def _spec(n: int = 3):
    return REGISTRY["Square"].spec({}, [TensorType((n,), "float32")])


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def _dead(pid: int, within: float = 10.0) -> bool:
    """Whether ``pid`` is gone (or a zombie awaiting its new parent: killed) within ``within`` seconds: SIGKILL
    is delivered asynchronously, and on a loaded machine the kernel may take a moment to tear a process down."""
    deadline = time.monotonic() + within
    while True:
        try:
            state = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return True
        if "\nState:\tZ" in state:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def _env(monkeypatch, tmp_path):
    for name in config._CHECKED_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))


@pytest.mark.parametrize("probe", ["--version", "-print-file-name"])
def test_a_hanging_probe_is_a_hanging_compiler_killed_with_its_children(tmp_path, monkeypatch, probe) -> None:
    pids = tmp_path / "pids"
    hang = f'sleep 300 & echo $! >> {pids}; sleep 300'
    body = (f'case "$1" in {probe}*) {hang};; esac\nexec gcc "$@"\n' if probe != "--version"
            else f'case "$1" in --version) {hang};; esac\nexec gcc "$@"\n')
    monkeypatch.setenv("CC", _script(tmp_path / "hangcc", body))
    monkeypatch.setenv("OPBUILD_COMPILE_TIMEOUT", "1.5")
    t0 = time.monotonic()
    with pytest.raises(CompilerHangError) as info:
        Builder().build([_spec()])
    assert time.monotonic() - t0 < 30
    message = str(info.value)
    assert "hangs" in message and "OPBUILD_COMPILE_TIMEOUT=1.5" in message and probe in message
    assert "no C compiler found" not in message
    assert isinstance(info.value, CompilerNotFoundError)  # a warm cache still serves without a usable compiler
    for pid in map(int, pids.read_text().split()):
        assert _dead(pid), f"the probe's child {pid} is still running"
    assert not committed(kernel_meta(tmp_path / "cache"))


def test_probes_have_their_own_bound_under_the_compile_timeout(tmp_path, monkeypatch) -> None:
    # OPBUILD_COMPILE_TIMEOUT at its default (600 s) bounds compiles; a probe never needs that long, and a warm
    # start with a compiler that hangs on --version waited all of it before serving the cache.
    monkeypatch.setattr(gcc, "PROBE_TIMEOUT", 1.0)
    flag = tmp_path / "hang-now"
    body = f'if [ "$1" = --version ] && [ -e {flag} ]; then sleep 300; fi\nexec gcc "$@"\n'
    cc = _script(tmp_path / "latecc", body)
    monkeypatch.setenv("CC", cc)
    _, cold = Builder().build([_spec()])
    assert [k.status for k in cold.kernels] == ["built"]
    flag.touch()
    os.utime(cc, (time.time() + 5, time.time() + 5))  # "replaced": the memoised probe answers no longer hold
    t0 = time.monotonic()
    with pytest.raises(CompilerHangError) as info:
        GccLike(cc).identity()
    assert time.monotonic() - t0 < 20
    message = str(info.value)
    assert "did not finish within 1 s (the bound on a compiler's probes" in message
    assert "OPBUILD_COMPILE_TIMEOUT" not in message  # raising it would not help
    # A new process's warm start: the probe hangs, is killed after the bound, and the cache is served.
    code = ("import sys, time\nfrom opbuild.targets.cpu.compilers import gcc\ngcc.PROBE_TIMEOUT = 1.0\n"
            "from opbuild.builder import Builder\nfrom opbuild.core.ir import TensorType\n"
            "from opbuild.ops import REGISTRY\nt0 = time.monotonic()\n"
            "_, r = Builder().build([REGISTRY['Square'].spec({}, [TensorType((3,), 'float32')])])\n"
            "print([k.status for k in r.kernels], time.monotonic() - t0)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(gcc.__file__).parents[4]),
                                                       os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    statuses, seconds = proc.stdout.rsplit("]", 1)
    assert statuses + "]" == "['reused']" and 0.9 < float(seconds) < 20, proc.stdout  # waited for the probe
    monkeypatch.setenv("OPBUILD_COMPILE_TIMEOUT", "0.5")  # a smaller setting still wins, and is named
    with pytest.raises(CompilerHangError, match=r"within OPBUILD_COMPILE_TIMEOUT=0.5 s"):
        GccLike(cc).identity()


def test_run_capped_bounds_time_and_memory(tmp_path) -> None:
    with pytest.raises(ProcessTimeout):
        run_capped(["sh", "-c", "sleep 30"], 0.5)
    done = run_capped(["sh", "-c", "head -c 5000000 /dev/zero; echo err >&2"], 30, keep=1000)
    assert done.returncode == 0 and done.stdout.size == 5_000_000 and len(done.stdout.head) == 1000
    assert done.stdout.truncated and "4999000 more bytes not kept" in done.stdout.text()
    assert done.stderr.head == b"err\n" and not done.stderr.truncated


def test_a_huge_version_text_gives_a_small_identity_and_reuse(tmp_path, monkeypatch) -> None:
    body = ('if [ "$1" = --version ]; then head -c 27000000 /dev/zero | tr "\\\\0" x; echo; exit 0; fi\n'
            'exec gcc "$@"\n')
    monkeypatch.setenv("CC", _script(tmp_path / "bigcc", body))
    version = GccLike(os.environ["CC"]).identity()["version"]
    assert len(version) < VERSION_LINE_MAX and "27000001 bytes, sha256 " in version
    _, first = Builder().build([_spec()])
    _, second = Builder().build([_spec()])
    assert [k.status for k in first.kernels] == ["built"]
    assert [k.status for k in second.kernels] == ["reused"]  # the .info is within the reader's bound
    km = kernel_meta(tmp_path / "cache")
    assert all(p.stat().st_size < 64 << 10 for p in km.glob("*.info"))


def test_a_different_huge_version_text_is_a_different_identity(tmp_path) -> None:
    ids = []
    for ch in "xy":
        exe = _script(tmp_path / f"cc{ch}", f'head -c 2000000 /dev/zero | tr "\\\\0" {ch}\n')
        ids.append(GccLike(exe).identity()["version"])
    assert ids[0] != ids[1]


def test_a_short_version_line_is_kept_as_is(tmp_path) -> None:
    exe = _script(tmp_path / "cc", 'echo "mycc 1.2.3"; echo "second line"\n')
    assert GccLike(exe).identity()["version"] == "mycc 1.2.3"


def test_a_compiler_that_writes_nothing_is_a_clear_compile_error(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CC", "true")
    with pytest.raises(CompileError) as info:
        Builder().build([_spec()])
    assert "exited 0 but wrote no" in str(info.value) and "set CC to gcc or clang" in str(info.value)
    assert not committed(kernel_meta(tmp_path / "cache"))
