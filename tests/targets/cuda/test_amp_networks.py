"""Mixed-precision training of the examples' networks on the emulated GPU: GRAPH_MODE TrainOneStepCell
(Momentum) steps of the ResNet-style CNN and the transformer encoder under ``amp.auto_mixed_precision``
(float16 and bfloat16) build every GPU kernel (convolutions, pooling, BatchNorm and Dense products in the half
type) and give the CPU target's losses and updated float32 master weights.

Tolerance: both targets round the same values to the half type, but sums (convolutions, products, BatchNorm
statistics) accumulate in other orders, so an intermediate may round one half ulp apart and the difference
propagates through two steps: rtol and atol relative to the largest CPU value of 4 ulps of the half type
(float16 2^-10, bfloat16 2^-7). Observed: at most 1.1e-3 (float16 O2 CNN), most runs equal to 1e-6.

Every level trains: O1 (convolutions and Dense layers in the half type), O2 (all but BatchNorm/LayerNorm),
O3 (everything; the embedding's gradient and the inference-form BatchNorm gradient compute in float32, as
the last test checks on the CPU).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms

from . import amp_nets

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "gpu_check.py"
TOL = {"float16": 4 * 2.0 ** -10, "bfloat16": 4 * 2.0 ** -7}


def _close(got: list, want: list, tol: float) -> str | None:
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        scale = max(1.0, float(np.abs(w).max()))
        if g.shape != w.shape or not np.allclose(g, w, rtol=tol, atol=tol * scale):
            return f"value {i}: max abs diff {float(np.abs(g - w).max()):.3g} (scale {scale:.3g})"
    return None


@pytest.mark.parametrize("name, level", amp_nets.CASES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_amp_network_trains_on_the_gpu_as_on_the_cpu(gpu, name, level, dtype):
    got = amp_nets.train(name, level, dtype)
    assert got["built"] > 0
    want_half = amp_nets.HALF_OPS[(name, level)]
    assert want_half <= set(got["half_ops"]), (want_half - set(got["half_ops"]), got["half_ops"])
    ms.set_device("CPU")
    want = amp_nets.train(name, level, dtype)
    ms.set_device("GPU")
    assert got["ops"] == want["ops"]  # the same graph, kernel for kernel
    tol = TOL[dtype]
    assert _close(got["losses"], want["losses"], tol) is None, _close(got["losses"], want["losses"], tol)
    assert _close(got["weights"], want["weights"], tol) is None, _close(got["weights"], want["weights"], tol)
    again = amp_nets.train(name, level, dtype)  # a new network over the same kernels: nothing built
    assert again["built"] == 0 and again["losses"] == got["losses"]


def test_half_gradients_of_gather_and_inference_batchnorm_compute_in_float32_on_the_cpu(graph_mode):
    # The two gradient rules the O2/O3 networks reach with a half x: Gather's (an embedding; UnsortedSegmentSum
    # takes no half type) sums in float32 and rounds once; inference BatchNorm's (float32 statistics beside a
    # half x) computes in float32 and gives dx in x's type.
    emb = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float16)
    idx = np.array([1, 3, 1, 5, 1], np.int32)
    dy = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float16)
    grad = ms.grad(lambda e, i: (ms.ops.gather(e, i, 0) * ms.Tensor(dy)).sum(), grad_position=0)
    got = grad(ms.Tensor(emb), ms.Tensor(idx)).asnumpy()
    want = np.zeros((6, 4), np.float32)
    np.add.at(want, idx, dy.astype(np.float32))
    assert got.dtype == np.float16 and np.array_equal(got, want.astype(np.float16))
    bn = ms.ops.BatchNorm(is_training=False)
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 4)).astype(np.float16)
    stats = [ms.Tensor(np.full(3, v, np.float32)) for v in (1.5, 0.2, 0.1, 2.0)]
    dx = ms.grad(lambda t: bn(t, *stats)[0].sum(), grad_position=0)(ms.Tensor(x)).asnumpy()
    assert dx.dtype == np.float16
    assert np.array_equal(dx, np.full(x.shape, 1.5 / np.sqrt(np.float32(2.0) + np.float32(1e-5)), np.float32)
                          .astype(np.float16))


def test_gpu_check_runs_the_amp_networks_and_they_agree_with_the_cpu(gpu, monkeypatch):
    # scripts/gpu_check.py's network list holds the same AMP networks: forward, gradients and two train
    # steps of each, against the CPU target with the half types' tolerance.
    spec = importlib.util.spec_from_file_location("gpu_check_amp", SCRIPT)
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    networks = {k: v for k, v in check._networks().items() if k.endswith(("-float16", "-bfloat16"))}
    assert len(networks) == 2 * len(amp_nets.CASES)
    monkeypatch.setattr(check, "_networks", lambda: networks)
    summary: dict = {"failures": []}
    check.check_networks(summary)
    assert summary["failures"] == []
    for name, row in summary["networks"].items():
        assert [row[p] for p in ("forward", "backward", "train")] == ["ok"] * 3, (name, row)
