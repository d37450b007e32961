"""`opbuild cache ls`, `opbuild cache stats`, `opbuild info`, entry points and common options."""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from opbuild.cache.signing import key_id

from .conftest import SECRET, child_env, kernel_meta, names, run_cli, run_json, run_net

pytestmark = pytest.mark.slow


def _entry_size(root: Path, name: str) -> int:
    return sum((kernel_meta(root) / (name + s)).stat().st_size for s in (".info", ".json", ".so"))


def test_ls_lists_every_kernel_with_shapes_size_and_times(warm_root):
    data = run_json("cache", "ls", root=warm_root)
    rows = data["entries"]
    assert {r["name"] for r in rows} == names(warm_root)
    assert sorted(r["name"] for r in rows) == [r["name"] for r in rows]  # default sort: name
    by_sig = {(r["op"], r["signature"]) for r in rows}
    assert ("Square", "float32[3] -> float32[3]") in by_sig
    assert ("Add", "float64[5], float64[5] -> float64[5]") in by_sig
    assert ("Exp", "float32[4] -> float32[4]") in by_sig
    for r in rows:
        assert r["size"] == _entry_size(warm_root, r["name"])
        assert r["built_at"] > 0 and r["last_used"] >= r["built_at"] - 1
        assert r["inputs"][0]["dtype"] in ("float32", "float64")
    assert data["bytes"] == sum(r["size"] for r in rows)

    human = run_cli("cache", "ls", root=warm_root)
    assert human.returncode == 0, human.stderr
    lines = human.stdout.splitlines()
    assert lines[0].split() == ["NAME", "OP", "SCENARIO", "SHAPES", "SIZE", "BUILT", "LAST", "USED", "SIGNED"]
    assert len(lines) == 1 + 9 + 1
    assert "9 entries" in lines[-1] and str(kernel_meta(warm_root)) in lines[-1]
    assert "KiB" in human.stdout and "float32[3] -> float32[3]" in human.stdout
    # aligned: every row starts its SIZE column at the same offset
    size_end = lines[0].index("SIZE") + len("SIZE")
    assert all(line[size_end - 1] == "B" for line in lines[1:-1])


def test_ls_filters_by_op_and_sorts(cache):
    rows = run_json("cache", "ls", "--op", "square", root=cache)["entries"]
    assert len(rows) == 3 and {r["op"] for r in rows} == {"Square"}

    # give each entry a distinct "last used" time, and check the orders
    km = kernel_meta(cache)
    all_names = sorted(names(cache))
    for i, n in enumerate(all_names):
        os.utime(km / f"{n}.json", (1_700_000_000 + i, 1_700_000_000 + i))
    used = [r["name"] for r in run_json("cache", "ls", "--sort", "used", root=cache)["entries"]]
    assert used == list(reversed(all_names))
    sized = run_json("cache", "ls", "--sort", "size", root=cache)["entries"]
    assert [r["size"] for r in sized] == sorted((r["size"] for r in sized), reverse=True)
    aged = run_json("cache", "ls", "--sort", "age", root=cache)["entries"]
    assert [r["built_at"] for r in aged] == sorted((r["built_at"] for r in aged), reverse=True)
    assert run_cli("cache", "ls", "--sort", "colour", root=cache).returncode == 2


def test_ls_of_missing_cache_is_empty_not_an_error(tmp_path):
    proc = run_cli("cache", "ls", root=tmp_path / "nowhere")
    assert proc.returncode == 0 and "no kernel cache" in proc.stdout


def test_stats_count_hits_misses_builds_and_seconds_across_runs(cache):
    assert run_json("cache", "stats", "--zero", root=cache)["zeroed"]
    zero = run_json("cache", "stats", root=cache)
    assert all(v == 0 for v in zero["counters"].values())
    assert zero["entries"] == 9 and zero["bytes"] == sum(_entry_size(cache, n) for n in names(cache))

    run_net(cache, 3)  # 3 kernels, all in the cache
    run_net(cache, 6)  # 3 new kernels
    s = run_json("cache", "stats", root=cache)
    c = s["counters"]
    assert (c["hits"], c["misses"], c["builds"], c["repairs"]) == (3, 3, 3, 0)
    built = [json.loads((kernel_meta(cache) / f"{n}.json").read_text()) for n in names(cache)]
    new = [m for m in built if m["built_at"] > zero["since"]]
    assert len(new) == 3
    assert c["compile_seconds"] == pytest.approx(sum(m["build_seconds"] for m in new), rel=1e-6)
    assert c["saved_seconds"] > 0
    assert s["entries"] == 12 and s["hit_rate"] == pytest.approx(0.5)

    human = run_cli("cache", "stats", root=cache)
    assert human.returncode == 0
    for row in (r"hits +3", r"misses +3", r"builds +3", r"repairs +0", r"hit rate +50\.0 %", r"entries +12",
                r"compile seconds spent +\d+\.\d\d s", r"compile seconds saved +\d+\.\d\d s"):
        assert re.search(rf"^{row}$", human.stdout, re.MULTILINE), (row, human.stdout)

    run_cli("cache", "stats", "--zero", root=cache)
    assert all(v == 0 for v in run_json("cache", "stats", root=cache)["counters"].values())


def test_stats_survive_concurrent_writers(tmp_path):
    """4 processes x 25 locked updates: no increment is lost, the file is never torn."""
    directory = tmp_path / "kernel_meta"
    directory.mkdir()
    code = ("import sys; from opbuild.cache import stats\n"
            "for _ in range(25):\n"
            "    assert stats.add(sys.argv[1], hits=1, builds=2, compile_seconds=0.25)\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(directory)], env=child_env())
             for _ in range(4)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    data = run_json("cache", "stats", "--path", str(directory))
    assert data["counters"]["hits"] == 100
    assert data["counters"]["builds"] == 200
    assert data["counters"]["compile_seconds"] == pytest.approx(25.0)


def test_unreadable_stats_file_is_reported_and_reset(cache):
    (kernel_meta(cache) / ".stats.json").write_text("{torn")
    proc = run_cli("cache", "stats", root=cache)
    assert proc.returncode == 1 and "not a valid statistics file" in proc.stderr
    verify = run_json("cache", "verify", root=cache, expect=1)
    assert [p["kind"] for p in verify["problems"]] == ["stats"]
    repaired = run_json("cache", "verify", "--repair", root=cache)
    assert repaired["problems"][0]["action"] == "reset"
    assert run_cli("cache", "stats", root=cache).returncode == 0


def test_info_shows_version_compiler_target_and_cache(warm_root):
    import opbuild
    from opbuild.builder import Builder

    data = run_json("info", root=warm_root)
    assert data["opbuild_version"] == opbuild.__version__
    assert data["compiler"]["path"] == Builder().compiler().identity()["path"]
    assert data["target"]["arch"] == platform.machine()
    assert data["cache_directory"] == str(kernel_meta(warm_root))
    assert data["cache_root_source"] == "OPBUILD_CACHE_PATH"
    assert data["entries"] == 9 and data["cache_key_id"] == "unsigned"
    signed = run_json("info", root=warm_root, env=SECRET)["cache_key_id"]
    assert signed == key_id(SECRET["OPBUILD_CACHE_SECRET"].encode())
    assert f"cache signing     entries signed and checked (key id {signed})" in run_cli(
        "info", root=warm_root, env=SECRET).stdout
    human = run_cli("info", root=warm_root)
    assert human.returncode == 0
    for text in (opbuild.__version__, data["compiler"]["version"], platform.machine(),
                 str(kernel_meta(warm_root)), "9 entries"):
        assert text in human.stdout



def test_ls_says_which_key_each_entry_is_signed_with(warm_root, tmp_path):
    ours = key_id(SECRET["OPBUILD_CACHE_SECRET"].encode())
    signed = run_json("cache", "ls", root=warm_root, env=SECRET)
    assert signed["key_id"] == ours and {r["signed_key"] for r in signed["entries"]} == {ours}
    human = run_cli("cache", "ls", root=warm_root, env=SECRET).stdout.splitlines()
    assert human[0].split()[-1] == "SIGNED" and all(line.split()[-1] == "yes" for line in human[1:-1])
    # without the secret the same entries are someone else's: ls names the key, verify says what it means
    other = run_cli("cache", "ls", root=warm_root).stdout.splitlines()
    assert all(line.endswith(f"key {ours}") for line in other[1:-1])
    run_net(tmp_path, 3)  # built without a secret: unsigned
    plain = run_json("cache", "ls", root=tmp_path)
    assert plain["key_id"] == "unsigned" and plain["entries"]
    assert all(r["signed_key"] is None for r in plain["entries"])
    assert all(line.split()[-1] == "no" for line in run_cli("cache", "ls", root=tmp_path).stdout.splitlines()[1:-1])


def test_info_says_how_many_threads_large_loops_use(tmp_path):
    import os

    cores = str(len(os.sched_getaffinity(0)))
    assert run_json("info", root=tmp_path)["loop_threads"] == f"{cores} (every core)"
    assert run_json("info", root=tmp_path, env={"OMP_NUM_THREADS": "3"})["loop_threads"] == "3 (OMP_NUM_THREADS)"
    off = run_json("info", root=tmp_path, env={"OPBUILD_OPENMP": "0"})
    assert off["loop_threads"] == "1 (no OpenMP: OPBUILD_OPENMP=0)" and off["compiler"]["openmp"] is False
    assert "-fopenmp" not in off["compiler"]["flags"]
    assert "loop threads      1 (no OpenMP" in run_cli("info", root=tmp_path, env={"OPBUILD_OPENMP": "0"}).stdout

def test_path_and_rank_default_like_the_runtime(cache):
    shutil.copytree(kernel_meta(cache), kernel_meta(cache, 1))
    (kernel_meta(cache, 1) / next(iter(sorted(names(cache)))).__add__(".json")).unlink()
    by_env = run_json("cache", "ls", root=cache, env={"RANK_ID": "1"})
    assert by_env["directory"] == str(kernel_meta(cache, 1)) and len(by_env["entries"]) == 8
    by_flag = run_json("cache", "ls", "--rank", "1", root=cache)
    assert by_flag == by_env
    by_path = run_json("cache", "ls", "--path", str(cache), "--rank", "0")
    assert len(by_path["entries"]) == 9
    # --path may name a kernel_meta directory itself; options may come before the command
    direct = run_cli("--json", "cache", "ls", "--path", str(kernel_meta(cache, 1)))
    assert len(json.loads(direct.stdout)["entries"]) == 8
    # MindSpore's variable name is honoured too
    ms = run_json("cache", "ls", env={"MS_COMPILER_CACHE_PATH": str(cache)})
    assert len(ms["entries"]) == 9
    assert run_cli("cache", "ls", "--rank", "-1", root=cache).returncode == 2
    # --rank follows RANK_ID's rule: the same upper bound, and the error says the accepted form
    huge = run_cli("cache", "ls", "--rank", str(10**30), root=cache)
    assert huge.returncode == 2 and "<= 1e+06" in huge.stderr and str(10**30) in huge.stderr
    assert not any(p.name.startswith("rank_1000") for p in cache.iterdir())
    assert run_cli("cache", "ls", root=cache, env={"RANK_ID": "x"}).returncode == 2


def test_usage_errors_exit_2(cache):
    for args in (["cache"], ["cache", "frobnicate"], ["nope"], ["cache", "prune", "--max-size", "lots"],
                 ["cache", "prune", "--older-than", "30"], ["cache", "explain"], ["run"],
                 ["cache", "import", "/nonexistent/archive.tar.gz"]):
        proc = run_cli(*args, root=cache)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert proc.stderr.strip(), args


def test_entry_points(warm_root):
    """`python -m opbuild.cli`, `python -m opbuild` and the installed `opbuild` script run the same CLI."""
    a = run_json("cache", "ls", root=warm_root, module="opbuild.cli")
    b = run_json("cache", "ls", root=warm_root, module="opbuild")
    assert a == b
    script = shutil.which("opbuild", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                          os.environ.get("PATH", "")]))
    if script is None:
        pytest.skip("the opbuild console script is not installed in this environment (pip install -e .)")
    proc = subprocess.run([script, "cache", "ls", "--json"], env=child_env(warm_root), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == a
    version = subprocess.run([script, "--version"], env=child_env(), capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("opbuild ")


def test_stats_of_quick_pynative_builds_are_all_written_by_exit(cache):
    """PyNative mode builds each op on first use; warm builds in quick succession share one statistics
    update, and whatever is pending is written at exit."""
    run_cli("cache", "stats", "--zero", root=cache)
    code = ("import numpy as np, opbuild as ms, opbuild.ops as ops\n"
            "ms.set_context(mode=ms.PYNATIVE_MODE)\n"
            "x = ms.Tensor(np.arange(4, dtype=np.float32))\n"
            "y = ops.Exp()(ops.Square()(x) + x)\n"
            "z = ops.Square()(ms.Tensor(np.arange(3, dtype=np.float32)))\n"
            "r = np.arange(4.0)\n"
            "np.testing.assert_allclose(y.asnumpy(), np.exp(r ** 2 + r), rtol=1e-5)\n")
    proc = subprocess.run([sys.executable, "-c", code], env=child_env(cache), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    c = run_json("cache", "stats", root=cache)["counters"]
    assert (c["hits"], c["misses"], c["builds"]) == (4, 0, 0)
    assert c["saved_seconds"] > 0


def test_stats_with_a_start_time_out_of_range_is_shown(cache):
    # A number JSON accepts but time.localtime cannot convert (hand-edited, or another tool's clock) was an
    # OverflowError traceback from `cache stats`.
    path = kernel_meta(cache) / ".stats.json"
    path.write_text('{"format": 1, "since": 1e300, "updated": null, "counters": {"hits": 3}}')
    proc = run_cli("cache", "stats", root=cache)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "counting since         ?" in proc.stdout
