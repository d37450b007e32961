"""GPU kernels through the cache without a GPU: NVRTC compiles every kernel of the GPU op suite; a build writes
``.cubin`` + ``.info`` + ``.json`` entries, validated, that a second process reuses (built 0) and the cache
commands list, verify and explain like CPU entries; a damaged cubin is quarantined and rebuilt; running a
kernel where there is no GPU is a one-line error. Needs the ``cuda`` extra (NVRTC), no GPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from opbuild.targets.cuda import CudaTarget, device
from opbuild.targets.cuda.errors import NvrtcNotFoundError
from opbuild.targets.cuda.nvrtc import Nvrtc

from .suite import cases

pytestmark = pytest.mark.slow

try:
    Nvrtc("sm_90")
except NvrtcNotFoundError as e:  # only when the cuda extra is not installed
    pytest.skip(f"NVRTC is not installed (pip install 'opbuild[cuda]'): {e}", allow_module_level=True)

WORKER = Path(__file__).with_name("_build_worker.py")
NO_GPU = not device.probe().ok
ARCH = device.probe().arch or "sm_90"  # the device's when there is one, else OPBUILD_CUDA_ARCH (set below)


def _env(root: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(root), OPBUILD_PROGRESS="0", **extra)
    env.setdefault("OPBUILD_CUDA_ARCH", "sm_90")
    return env


def _build(root: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(WORKER), *args], env=_env(root, **extra), capture_output=True,
                          text=True, timeout=300)


def _cli(root: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "opbuild", *args], env=_env(root, **extra), capture_output=True,
                          text=True, timeout=300)


def test_nvrtc_compiles_every_kernel_of_the_gpu_suite(tmp_path, monkeypatch):
    monkeypatch.setenv("OPBUILD_CUDA_ARCH", "sm_90")
    target = CudaTarget()
    compiler = Nvrtc("sm_90")
    suite = cases()
    assert len(suite) > 200
    items = [(f"ob_k{i}", c.spec, target.emit(c.spec)) for i, c in enumerate(suite)]
    result = target.compile(compiler, target.translation_unit(items, False), tmp_path / "suite.cubin", tmp_path,
                            False, "suite")
    target.validate(result.binary.read_bytes(), [symbol for symbol, _, _ in items])


def test_entries_are_written_validated_reused_and_listed(tmp_path):
    first = _build(tmp_path)
    assert first.returncode == 0, first.stderr
    cold = json.loads(first.stdout.splitlines()[-1])
    assert (cold["built"], cold["reused"]) == (4, 0)
    meta = tmp_path / "rank_0" / "kernel_meta"
    for name in cold["names"]:
        for suffix in (".cubin", ".info", ".json"):
            assert (meta / (name + suffix)).is_file(), name + suffix
        info = json.loads((meta / (name + ".info")).read_text())
        assert info["target"]["arch"] == ARCH and info["compiler"]["compiler"] == "nvrtc"
        assert json.loads((meta / (name + ".json")).read_text())["suffix"] == ".cubin"

    second = _build(tmp_path)  # a new process: everything from kernel_meta
    assert second.returncode == 0, second.stderr
    warm = json.loads(second.stdout.splitlines()[-1])
    assert (warm["built"], warm["reused"], warm["names"]) == (0, 4, cold["names"])

    listed = _cli(tmp_path, "cache", "ls", "--target", "GPU", "--json")
    assert listed.returncode == 0, listed.stderr
    assert sorted(e["name"] for e in json.loads(listed.stdout)["entries"]) == cold["names"]
    verified = _cli(tmp_path, "cache", "verify", "--target", "GPU")
    assert verified.returncode == 0 and "no problems found" in verified.stdout, verified.stdout
    cpu_view = _cli(tmp_path, "cache", "verify", "--repair")  # the CPU's view: not its entries, left alone
    assert cpu_view.returncode == 0, cpu_view.stdout
    assert all((meta / (n + ".cubin")).is_file() for n in cold["names"])
    explained = _cli(tmp_path, "cache", "explain", "--target", "GPU", cold["names"][0])
    assert explained.returncode == 0 and cold["names"][0] in explained.stdout, explained.stdout + explained.stderr
    info = _cli(tmp_path, "info", "--target", "GPU", "--json")
    shown = json.loads(info.stdout)
    assert (shown["target"]["arch"], shown["entries"], shown["compiler"]["compiler"]) == (ARCH, 4, "nvrtc")

    archive = tmp_path / "gpu.tar.gz"  # export and import carry GPU entries like CPU ones
    exported = _cli(tmp_path, "cache", "export", "--target", "GPU", str(archive))
    assert exported.returncode == 0 and "exported 4 entries" in exported.stdout, exported.stdout + exported.stderr
    other = tmp_path / "other"
    imported = _cli(tmp_path, "--path", str(other), "cache", "import", "--target", "GPU", "--trust", str(archive))
    assert imported.returncode == 0 and "imported 4 entries" in imported.stdout, imported.stdout + imported.stderr
    assert sorted(p.stem for p in (other / "rank_0" / "kernel_meta").glob("*.cubin")) == cold["names"]


def test_unsigned_gpu_entries_are_signed_and_then_reused_under_the_secret(tmp_path):
    secret = {"OPBUILD_CACHE_SECRET": "a secret set on a warm GPU cache"}
    cold = _build(tmp_path)
    assert cold.returncode == 0, cold.stderr
    names = json.loads(cold.stdout.splitlines()[-1])["names"]
    signed = _cli(tmp_path, "cache", "sign", "--target", "GPU", "--trust", "--json", **secret)
    assert signed.returncode == 0, signed.stdout + signed.stderr
    assert sorted(json.loads(signed.stdout)["signed"]) == sorted(names)
    warm = _build(tmp_path, **secret)
    assert warm.returncode == 0, warm.stderr
    got = json.loads(warm.stdout.splitlines()[-1])
    assert (got["built"], got["reused"]) == (0, 4)


def test_a_damaged_cubin_is_quarantined_and_rebuilt(tmp_path):
    first = _build(tmp_path)
    assert first.returncode == 0, first.stderr
    names = json.loads(first.stdout.splitlines()[-1])["names"]
    victim = tmp_path / "rank_0" / "kernel_meta" / (names[0] + ".cubin")
    data = victim.read_bytes()
    victim.unlink()  # the entries of one batch are hard links of one cubin: damage only this entry's
    victim.write_bytes(data[:len(data) // 2])
    again = _build(tmp_path)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout.splitlines()[-1])
    assert (report["repaired"], report["reused"]) == (1, 3)
    assert victim.read_bytes() != data[:len(data) // 2]


@pytest.mark.skipif(not NO_GPU, reason="a GPU is present: kernels run")
def test_running_without_a_gpu_is_one_line_naming_what_is_missing(tmp_path):
    """The kernel is built into kernel_meta; asking to run it raises CudaUnavailableError, whose message is one
    line saying what is missing and what to do (the last line Python prints; ``opbuild run`` prints that line
    alone, without a traceback)."""
    script = tmp_path / "net.py"
    script.write_text("import numpy as np, opbuild as ms\nms.set_device('GPU')\n"
                      "ms.set_context(mode=ms.PYNATIVE_MODE)\nms.ops.exp(ms.Tensor(np.ones((4, 33), np.float32)))\n")
    out = subprocess.run([sys.executable, str(script)], env=_env(tmp_path), capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 1
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("opbuild.targets.cuda.errors.CudaUnavailableError: device_target 'GPU': cannot run GPU "
                           "kernels: no usable CUDA device"), out.stderr
    assert "device_target='CPU'" in last
    assert any(p.suffix == ".cubin" for p in (tmp_path / "rank_0" / "kernel_meta").iterdir())  # built anyway
    run = _cli(tmp_path, "run", str(script))  # opbuild run: the line alone, no traceback
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert any(ln.startswith("opbuild: device_target 'GPU': cannot run GPU kernels: no usable CUDA device")
               for ln in run.stderr.splitlines()), run.stderr


GRAPH_NET = """
import json, numpy as np, opbuild as ms
from opbuild import nn, ops
from opbuild.targets.cuda.errors import CudaUnavailableError

class Net(nn.Cell):
    def construct(self, x, b):
        y = ops.relu(x * 2.0 + b)
        return ops.softmax(y, axis=-1) * 3.0, ops.softmax(x, axis=0)

ms.set_device("GPU")
ms.set_context(mode=ms.GRAPH_MODE)
try:
    Net()(ms.Tensor(np.ones((4, 33), np.float32)), ms.Tensor(np.ones((33,), np.float32)))
    ran = True
except CudaUnavailableError:
    ran = False
report = ms.build_report()
print(json.dumps({"ran": ran, "built": report.built, "reused": report.reused,
                  "ops": sorted(k.op for k in report.kernels)}))
"""


def test_a_graph_mode_network_builds_its_gpu_kernels_fused(tmp_path):
    """GRAPH_MODE with fusion on: the traced network's kernels (a FusedRowReduce among them) are GPU
    entries; a second process builds none; without a GPU the call then stops at the run (with one, it runs:
    the GPU executor, runtime/device_graph.py)."""
    script = tmp_path / "graph_net.py"
    script.write_text(GRAPH_NET)
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, str(script)], env=_env(tmp_path), capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    cold, warm = runs
    assert cold["ran"] is not NO_GPU
    assert cold["built"] >= 2 and cold["reused"] == 0
    assert "FusedRowReduce" in cold["ops"], cold  # the prologue and epilogue fused around the softmax
    assert (warm["built"], warm["reused"], warm["ops"]) == (0, cold["built"], cold["ops"])
    meta = tmp_path / "rank_0" / "kernel_meta"
    assert len(list(meta.glob("*.cubin"))) == cold["built"]
