"""Cold builds: missing kernels are compiled concurrently (OPBUILD_BUILD_JOBS), several to one compiler call,
while every kernel keeps its own entry; a compiler error in one kernel fails the build with that kernel's
CompileError and keeps the others; a progress bar shows on terminals only.

A compiler wrapper (``cc-wrapper``) logs each compile's start and end time and fails any compile whose source
defines the symbol named by OB_FAIL_SYMBOL, so the tests observe the real builder without patching it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from opbuild.builder import Builder
from opbuild.core.errors import CompileError
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from opbuild.targets.cpu import CpuTarget
from tests.cache._util import committed, kernel_meta, verify_cache

pytestmark = pytest.mark.slow


def _specs(n: int, offset: int = 0) -> list:
    """``n`` distinct cheap kernels (Square on n shapes)."""
    return [REGISTRY["Square"].spec({}, [TensorType((offset + i + 1,), "float32")]) for i in range(n)]


@pytest.fixture
def wrapper(tmp_path) -> tuple[Path, Path]:
    """(compiler wrapper, its log of "<start_ns> <end_ns> <rc>" lines)."""
    real = shutil.which("cc") or shutil.which("gcc")
    log = tmp_path / "compiles.log"
    cc = tmp_path / "cc-wrapper"
    cc.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" --version "*|*" -print-file-name="*) exec {real} "$@";; esac\n'
        "start=$(date +%s%N)\n"
        'src=""; for a in "$@"; do case "$a" in *.c) src="$a";; esac; done\n'
        'if [ -n "$OB_FAIL_SYMBOL" ] && grep -q "$OB_FAIL_SYMBOL" "$src"; then\n'
        '  echo "error: refusing $OB_FAIL_SYMBOL (test)" >&2; rc=1\n'
        f'else {real} "$@"; rc=$?; fi\n'
        'if [ -n "$OB_COMPILE_SLEEP" ]; then sleep "$OB_COMPILE_SLEEP"; fi\n'
        f'echo "$start $(date +%s%N) $rc" >> {log}\n'
        "exit $rc\n")
    cc.chmod(0o755)
    return cc, log


def _compiles(log: Path) -> list[tuple[int, int, int]]:
    return [tuple(int(x) for x in line.split()) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def cache(tmp_path, monkeypatch, wrapper) -> Path:
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "root"))
    monkeypatch.setenv("CC", str(wrapper[0]))
    monkeypatch.delenv("RANK_ID", raising=False)
    monkeypatch.delenv("OPBUILD_CFLAGS", raising=False)
    return kernel_meta(tmp_path / "root")


def _batch_sizes(km: Path) -> list[int]:
    return sorted(json.loads((km / f"{n}.json").read_text())["batch_size"] for n in committed(km))


@pytest.mark.parametrize("jobs, batch, least, n, sizes, calls", [
    (2, "", "", 24, [12] * 24, 2),  # one round: 2 batches of 12, not 3 of 8 (a second round with one job idle)
    (2, "", "", 40, [20] * 40, 2),  # still one round (batches of up to 32)
    (2, "8", "", 40, [6] * 12 + [7] * 28, 6),  # OPBUILD_BATCH_SIZE=8: three rounds of 2 batches of <= 8
    (2, "", "1", 3, [1, 2, 2], 2),  # OPBUILD_BATCH_MIN=1: every job busy
    (2, "", "", 8, [8] * 8, 1),  # below 2 x OPBUILD_BATCH_MIN (8): one call, the other job idle
    (2, "", "", 15, [15] * 15, 1),
    (2, "", "", 16, [8] * 16, 2),  # from 2 x OPBUILD_BATCH_MIN on: both jobs
    (2, "", "4", 9, [4] * 4 + [5] * 5, 2),
    (2, "4", "", 8, [4] * 8, 2),  # OPBUILD_BATCH_SIZE still caps a batch
    (4, "", "", 25, [8] * 16 + [9] * 9, 3),  # four jobs, 25 kernels: three batches of >= 8
    (1, "", "", 5, [5] * 5, 1),  # one job: one batch
])
def test_missing_kernels_are_batched_in_whole_rounds(cache, monkeypatch, wrapper, jobs, batch, least, n, sizes,
                                                     calls):
    monkeypatch.setenv("OPBUILD_BUILD_JOBS", str(jobs))
    monkeypatch.setenv("OPBUILD_BATCH_SIZE", batch)
    monkeypatch.setenv("OPBUILD_BATCH_MIN", least)
    _, report = Builder().build(_specs(n))
    assert report.built == n and len(committed(cache)) == n  # one entry per kernel
    assert _batch_sizes(cache) == sizes
    inodes = {os.stat(cache / f"{name}.so").st_ino for name in committed(cache)}
    assert len(inodes) == len(_compiles(wrapper[1])) == calls  # one shared object per compiler call, linked
    assert verify_cache(cache) == []


def test_batches_compile_concurrently_on_all_jobs(cache, monkeypatch, wrapper):
    monkeypatch.setenv("OB_COMPILE_SLEEP", "0.5")  # every compile lasts at least 0.5 s
    monkeypatch.setenv("OPBUILD_BUILD_JOBS", "2")
    monkeypatch.setenv("OPBUILD_BATCH_MIN", "2")  # 4 kernels: two batches of 2
    Builder().build(_specs(4))
    (s1, e1, _), (s2, e2, _) = sorted(_compiles(wrapper[1]))
    assert s2 < e1  # the second compile started before the first ended

    wrapper[1].unlink()
    monkeypatch.setenv("OPBUILD_BUILD_JOBS", "1")
    Builder().build(_specs(4, offset=10))
    assert len(_compiles(wrapper[1])) == 1


def test_changing_one_kernel_of_a_batch_rebuilds_only_it(cache, monkeypatch, wrapper):
    monkeypatch.setenv("OPBUILD_BUILD_JOBS", "1")
    _, first = Builder().build(_specs(6))
    assert first.built == 6 and len(_compiles(wrapper[1])) == 1
    changed = _specs(6)[:5] + _specs(1, offset=100)
    _, second = Builder().build(changed)
    assert (second.built, second.reused) == (1, 5) and len(_compiles(wrapper[1])) == 2
    assert len(committed(cache)) == 7


def test_compile_error_fails_with_that_kernel_and_keeps_the_others(cache, monkeypatch, wrapper):
    monkeypatch.setenv("OPBUILD_BUILD_JOBS", "2")
    specs = _specs(6)
    victim = Builder().request(specs[3])
    monkeypatch.setenv("OB_FAIL_SYMBOL", victim.symbol)
    with pytest.raises(CompileError) as err:
        Builder().build(specs)
    assert err.value.kernel == victim.name and "refusing" in err.value.stderr
    assert victim.symbol in Path(err.value.source_path).read_text()  # the failing kernel's own source, kept
    assert set(committed(cache)) == {Builder().request(s).name for s in specs} - {victim.name}
    assert verify_cache(cache) == []

    monkeypatch.delenv("OB_FAIL_SYMBOL")
    _, report = Builder().build(specs)
    assert (report.built, report.reused) == (1, 5)
    assert [k.name for k in report.kernels if k.status == "built"] == [victim.name]


PROGRESS_CODE = """
from opbuild.builder import Builder
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from opbuild.targets.cpu import CpuTarget
Builder().build([REGISTRY["Square"].spec({}, [TensorType((i + 1,), "float32")]) for i in range(6)])
print("done")
"""


def _build_in_child(env: dict, tty: bool) -> str:
    full = {**os.environ, **env, "TERM": "xterm", "COLUMNS": "120"}
    if not tty:
        proc = subprocess.run([sys.executable, "-c", PROGRESS_CODE], env=full, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout + proc.stderr
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # child: stdin/stdout/stderr are the terminal
        os.execve(sys.executable, [sys.executable, "-c", PROGRESS_CODE], full)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, out
    return out.decode(errors="replace")


def test_progress_bar_on_a_terminal_only(tmp_path, wrapper):
    env = {"CC": str(wrapper[0]), "OB_COMPILE_SLEEP": "1.6", "OPBUILD_BUILD_JOBS": "2", "RANK_ID": "",
           "OPBUILD_CACHE_PATH": str(tmp_path / "tty")}
    shown = _build_in_child(env, tty=True)
    assert "opbuild: building kernels" in shown and "/6" in shown and "done" in shown
    assert "square_" in shown  # which kernel is compiling

    quiet = _build_in_child(dict(env, OPBUILD_CACHE_PATH=str(tmp_path / "pipe")), tty=False)
    assert "building kernels" not in quiet and quiet.strip().endswith("done")
    off = _build_in_child(dict(env, OPBUILD_CACHE_PATH=str(tmp_path / "off"), OPBUILD_PROGRESS="0"), tty=True)
    assert "building kernels" not in off and "done" in off


@pytest.mark.parametrize("var", ["OPBUILD_BATCH_SIZE", "OPBUILD_BATCH_MIN"])
@pytest.mark.parametrize("raw, message", [("0", "must be >= 1"), ("many", "is not an integer")])
def test_bad_batch_size_is_named(monkeypatch, var, raw, message):
    from opbuild.core import config

    monkeypatch.setenv(var, raw)
    with pytest.raises(ValueError, match=f"{var}='{raw}' {message}"):
        config.batch_size() if var == "OPBUILD_BATCH_SIZE" else config.batch_min()


def _claims(costs: list[float], blas: int = 0) -> tuple[list, dict]:
    from types import SimpleNamespace

    claims = [SimpleNamespace(req=SimpleNamespace(name=f"k{i}", needs_blas=i < blas)) for i in range(len(costs))]
    return claims, {f"k{i}": c for i, c in enumerate(costs)}


@pytest.mark.parametrize("batch, costs, jobs, most", [
    ("", [100, 10, 90] + [10] * 13, 2, 10),  # the two heavy kernels (LayerNorm, Softmax) in different batches,
    # where dealing round-robin would have put both in the first
    ("", [50, 50, 50, 50] + [1] * 28, 2, 20),
    ("4", [100] + [1] * 15, 2, 4),  # OPBUILD_BATCH_SIZE caps a batch even when one kernel dominates
    ("", [5] * 20, 4, 10),
])
def test_batches_balance_their_estimated_compile_cost(monkeypatch, batch, costs, jobs, most):
    from opbuild.builder.misses import batches_of

    monkeypatch.setenv("OPBUILD_BATCH_SIZE", batch)
    monkeypatch.delenv("OPBUILD_BATCH_MIN", raising=False)
    claims, cost = _claims(costs)
    batches = batches_of(list(claims), jobs, False, lambda c: cost[c.req.name])
    dealt = [c.req.name for b in batches for c in b]
    assert sorted(dealt) == sorted(cost) and len(dealt) == len(set(dealt))  # every kernel exactly once
    assert all(len(b) <= most for b in batches)
    totals = sorted(sum(cost[c.req.name] for c in b) for b in batches)
    # longest processing time first: the batches differ by at most the costliest kernel they could swap
    assert totals[-1] - totals[0] <= max(costs)
    if costs[:3] == [100, 10, 90]:
        assert not any({"k0", "k2"} <= {c.req.name for c in b} for b in batches)
        assert totals == [160, 170]


def test_without_costs_batches_are_dealt_round_robin_blas_first():
    from opbuild.builder.misses import batches_of

    claims, _ = _claims([1] * 16, blas=2)
    batches = batches_of(list(claims), 2, False)
    assert [[c.req.name for c in b] for b in batches] == [[f"k{i}" for i in range(0, 16, 2)],
                                                         [f"k{i}" for i in range(1, 16, 2)]]


def test_each_kernel_body_is_generated_once_per_build(cache, monkeypatch, wrapper):

    monkeypatch.setenv("OPBUILD_BUILD_JOBS", "2")
    emitted = []
    real = CpuTarget.emit

    def counting(self, spec):
        emitted.append(spec)
        return real(self, spec)

    monkeypatch.setattr(CpuTarget, "emit", counting)
    _, report = Builder().build(_specs(20))
    assert report.built == 20 and len(_compiles(wrapper[1])) == 2
    assert len(emitted) == 20  # for the cost estimate, then reused by the compile
