"""Smoke tests of the benchmarks (bench_build.py, bench_train.py, bench_train_kernels.py, cold_breakdown.py,
bench_gpu.py, bench_call_overhead.py, bench_call_instructions.py, bench_mindcv.py, bench_init.py): quick runs in
subprocesses.

A correctness check of what the benchmark measures and writes (fields, counts, relations between the
builds), never of how fast anything is.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "bench_build.py"


def test_bench_build_quick_mlp(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env["OPBUILD_FUSION"] = "0"  # the counts below are the unfused ops (fusion merges the MLP into 3)
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--nets", "mlp", "--no-peers", "--repeats", "2",
         "--steady", "0.05", "--out", str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "targets" in proc.stdout and "mlp" in proc.stdout

    result = json.loads((tmp_path / "build.json").read_text())
    meta = result["meta"]
    assert meta["quick"] is True and meta["repeats"] == 2 and meta["wall_s"] > 0
    assert list(result["nets"]) == ["mlp"]
    net = result["nets"]["mlp"]
    assert "torch" not in net and "jax" not in net  # --no-peers
    ob = net["opbuild"]
    distinct = ob["distinct_kernels"]
    # MLP 784-256-128-10: MatMul, BiasAdd, ReLU per hidden layer (each shape distinct), MatMul + BiasAdd head.
    assert distinct == 8 and ob["graph_nodes"] == 8

    cold = ob["cold"]
    assert len(cold["runs"]) == 2
    for run in cold["runs"]:  # every cold run starts from an empty cache
        assert run["built"] == distinct and run["reused"] == 0 and run["repaired"] == 0
        assert run["compiler_cpu_s"] > 0
    assert cold["best_build_s"] <= cold["build_s"] <= cold["first_call_s"]
    assert cold["output_shape"] == [8, 10] and cold["output_finite"]

    warm = ob["warm"]
    assert len(warm["runs"]) == 2
    for run in warm["runs"]:  # every warm run reuses everything and compiles nothing
        assert run["reused"] == distinct and run["built"] == 0 and run["repaired"] == 0
        assert run["compiler_cpu_s"] == 0
        assert run["build_s"] <= run["first_call_s"] <= run["latency_s"]
    assert warm["steady_calls"] >= 5 and 0 < warm["steady_min_s"] <= warm["steady_s"]

    floor = ob["floor"]
    assert floor["floor_s"] > 0 and 1 <= floor["binaries"] <= distinct
    assert all(r["kernels"] == distinct for r in floor["runs"])

    inc = ob["incremental"]
    assert "128 -> 96" in inc["change"]
    # The changed hidden width touches its Dense (MatMul, BiasAdd, ReLU) and the head's MatMul only.
    assert 1 <= inc["built"] < distinct
    assert inc["built"] + inc["reused"] == inc["distinct"] == distinct and inc["repaired"] == 0
    assert inc["output_shape"] == [8, 10]

    assert ob["cold_ms_per_kernel"] == 1e3 * cold["build_s"] / distinct
    assert ob["warm_over_floor"] == warm["build_s"] / floor["floor_s"]
    targets = {t["target"] for t in result["targets"]}
    assert len(targets) == 2 and all(t["net"] == "mlp" for t in result["targets"])
    # The issue sets the warm target for the two ResNets only: the MLP's is shown for information.
    met = {t["target"].split(" ")[0]: t["met"] for t in result["targets"]}
    assert isinstance(met["cold"], bool) and met["warm"] is None

    if importlib.util.find_spec("matplotlib") is not None:
        assert (tmp_path / "build.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert any("matplotlib" in n for n in meta["notes"])


def test_bench_train_tiny_resnet(tmp_path: Path) -> None:
    """benchmarks/bench_train.py on the tiny ResNet-style CNN, opbuild only: what it measures and writes."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_train.py"), "--tiny", "--nets", "resnet", "--no-peers",
         "--repeats", "2", "--steady", "0.05", "--out", str(tmp_path)],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "resnet" in proc.stdout and "warm build <= 0.1 ms" in proc.stdout
    result = json.loads((tmp_path / "train.json").read_text())
    assert list(result["nets"]) == ["resnet"] and (tmp_path / "train.md").is_file()
    net = result["nets"]["resnet"]
    assert "torch" not in net and "jax.jit" not in net  # --no-peers
    ob = net["opbuild"]
    k = ob["distinct_kernels"]
    # The train step holds the forward kernels and backward and update ones: more than inference alone.
    assert k > ob["infer_kernels"] > 0
    assert {"Conv2DBackpropFilter", "BatchNormGrad", "ApplyMomentum"} <= set(ob["ops"])
    runs = ob["runs"]
    assert len(runs["cold"]) == len(runs["warm"]) == 2
    for r in runs["cold"]:  # every cold process starts from an empty cache
        assert r["built"] == k and r["reused"] == 0
    for r in runs["infer_cold"]:
        assert r["built"] == ob["infer_kernels"] and r["reused"] == 0
    for r in runs["warm"]:  # every warm process reuses the whole train step
        assert r["reused"] == k and r["built"] == 0 and r["build_s"] <= r["first_call_s"]
    assert r["loss_last"] < r["loss0"]  # the steps trained
    assert 0 < ob["warm_build_s"] < ob["cold_build_s"] and ob["steady_s"] > 0
    assert [t["target"] for t in net["targets"]][:2] == ["warm build <= 0.1 ms per distinct kernel",
                                                          "cold build per kernel <= inference build's"]


def test_bench_train_kernels_quick(tmp_path: Path) -> None:
    """benchmarks/bench_train_kernels.py --quick: every case checked against torch, timed, written."""
    pytest.importorskip("torch")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    out = tmp_path / "train_kernels.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_train_kernels.py"), "--quick", "--repeat", "1",
         "--min-time", "0.01", "--json", str(out)],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    result = json.loads(out.read_text())
    cases = [r["case"] for r in result["rows"]]
    for name in ("MaxPoolGrad", "MaxPool + MaxPoolGrad", "AvgPoolGrad", "BatchNormTraining", "BatchNormGrad",
                 "ReluGrad", "BiasAddGrad", "ApplyMomentum", "Adam"):
        assert any(c.startswith(name) for c in cases), (name, cases)
    for r in result["rows"]:
        assert r["opbuild_s"] > 0 and r["torch_s"] > 0
        assert r["ratio"] == pytest.approx(r["opbuild_s"] / r["torch_s"])
    assert result["threads"] == 1


def test_cold_breakdown_quick_mlp(tmp_path: Path) -> None:
    """benchmarks/cold_breakdown.py: the MLP's cold build is kept and split into gcc stages, with the
    empty-call baselines; --compare runs interleaved environment variants (here OPBUILD_BATCH_MIN)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env["OPBUILD_FUSION"] = "0"  # the counts below are the unfused ops (fusion merges the MLP into 3)
    env.pop("OPBUILD_BATCH_MIN", None)
    script = ROOT / "benchmarks" / "cold_breakdown.py"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--nets", "mlp", "--repeats", "1",
                           "--out", str(tmp_path)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    net = json.loads((tmp_path / "cold_breakdown.json").read_text())["nets"]["mlp"]
    assert net["distinct"] == net["built"] == 8
    assert [b["kernels"] for b in net["batches"]] == [8]  # fewer than 2 x OPBUILD_BATCH_MIN: one call
    for stage in ("parse", "optimise", "assemble", "link", "total"):
        assert net["batches"][0][stage]["cpu_s"] > 0, stage
    base = net["baselines"]
    assert base["empty_no_headers"]["cpu_s"] < base["empty_full_prelude"]["cpu_s"]

    proc = subprocess.run([sys.executable, str(script), "--quick", "--nets", "mlp", "--repeats", "1",
                           "--out", str(tmp_path), "--compare", "one:", "split:OPBUILD_BATCH_MIN=1"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    rows = json.loads((tmp_path / "cold_compare.json").read_text())["compare"]["mlp"]
    assert set(rows) == {"one", "split"}
    assert all(r["distinct"] == 8 and r["compiler_cpu_ms_per_kernel"] > 0 and r["steady_ms"] > 0
               for r in rows.values())


def test_bench_gpu_quick_mlp(tmp_path: Path) -> None:
    """benchmarks/bench_gpu.py --quick on the MLP: opbuild's GPU kernels built cold (NVRTC), reused by a second
    process (built 0); where no GPU answers (CI), every timing column says it needs one."""
    pytest.importorskip("torch")
    pytest.importorskip("cuda.bindings")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_gpu.py"), "--nets", "mlp", "--quick", "--steady", "0.05",
         "--out", str(tmp_path)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    result = json.loads((tmp_path / "gpu.json").read_text())
    o = result["nets"]["mlp"]["opbuild"]
    assert o["kernels"] >= 2 and o["cold_build_s"] > 0 and o["warm_built"] == 0
    assert "FusedMatMul" in o["ops"]
    if o["gpu"]:
        assert o["steady_s"] > 0 and result["nets"]["mlp"]["torch.compile"]["first_call_cold_s"] > 0
    else:
        assert o["steady_s"] is None and not result["nets"]["mlp"]["torch"]["gpu"]
        assert "needs a GPU" in (tmp_path / "gpu.md").read_text()


def test_bench_call_overhead_writes_every_figure(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    out = tmp_path / "overhead.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_call_overhead.py"), "--rounds", "1",
                           "--baseline-src", str(ROOT / "src"), "--json", str(out)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    result = json.loads(out.read_text())
    assert set(result["trees"]) == {"this", "baseline"} and result["rounds"] == 1
    for tree in ("this", "baseline"):
        best = result["best_us"][tree]
        assert set(best) == {"pynative_op", "graph_call", "onnx_run", "onnx_kernels", "pn_add_8x8", "pn_mul_8x8",
                             "pn_matmul_8x8", "pn_sum_8x8", "pn_det_8x8", "pn_dense", "graph_mlp",
                             "graph_train_step"}
        assert all(v is not None and v > 0 for v in best.values()), best
        assert best["onnx_kernels"] < best["onnx_run"]  # the kernels alone are part of the run
    assert "onnx_run above its kernels" in proc.stdout and "load average" in proc.stdout
    assert len(result["loadavg_at_end"]) == 3
    bad = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_call_overhead.py"), "--baseline-src",
                          str(tmp_path)], env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no opbuild package there" in bad.stderr


@pytest.mark.skipif(not (shutil.which("valgrind") and Path("/usr/include/valgrind/callgrind.h").exists()),
                    reason="bench_call_instructions.py needs valgrind and its headers")
def test_bench_call_instructions_counts_every_small_call(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    out = tmp_path / "instructions.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_call_instructions.py"), "--calls", "5",
                           "--json", str(out)], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    counts = json.loads(out.read_text())["instructions"]["this"]
    assert set(counts) == {"pn_add_8x8", "pn_mul_8x8", "pn_matmul_8x8", "pn_sum_8x8", "pn_det_8x8", "pn_dense",
                           "graph_mlp", "graph_train_step"}
    # A Dense forward is two ops and a Cell call: more work than one op; a train step more than a forward.
    assert counts["pn_dense"] > counts["pn_add_8x8"] > 0 and counts["graph_train_step"] > counts["graph_mlp"] > 0


def test_bench_mindcv_warm_process_builds_nothing(tmp_path: Path) -> None:
    out = tmp_path / "mindcv.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_mindcv.py"), "--models", "resnet18", "--size", "32",
         "--repeat", "1", "--min-time", "0.01", "--json", str(out)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    (row,) = json.loads(out.read_text())["rows"]
    cold, warm = row["cold"], row["warm"]
    assert "error" not in cold and "error" not in warm, row
    # The second process on the same cache builds nothing and reuses what the first built.
    assert cold["built"] == cold["kernels"] > 0 and cold["reused"] == 0
    assert warm["built"] == 0 and warm["reused"] == cold["kernels"]
    assert warm["steady_s"] > 0 and "| resnet18 |" in proc.stdout


def test_bench_init_fills_and_construction(tmp_path: Path) -> None:
    out = tmp_path / "init.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_init.py"), "--n", "70001", "--repeat", "1",
         "--models", "resnet18", "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    result = json.loads(out.read_text())
    assert [r["fill"] for r in result["fills"]] == ["uniform", "normal", "truncated_normal"]
    for r in result["fills"]:  # the compiled fills give the NumPy path's values, and both were timed
        assert r["equal"] is True and r["n"] == 70001 and r["numpy_ns"] > 0 and r["compiled_ns"] > 0
    (row,) = result["construct"]
    modes = [row[m] for m in ("numpy", "compiled_cold", "compiled_warm")]
    assert all("error" not in m for m in modes), row
    # the same model in every mode: mindcv's resnet18 with 1000 classes
    assert {m["parameters"] for m in modes} == {11_699_112}
    assert "| resnet18 |" in proc.stdout and "| truncated_normal |" in proc.stdout
