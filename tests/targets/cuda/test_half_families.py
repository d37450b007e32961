"""float16/bfloat16 GPU kernels of the neural-network, training and math families, without a GPU.

* NVRTC compiles every kernel of suite_gpuhalf2.py (the half variants of those families' suite cases) for
  sm_90.
* Each of them run on the host (host_emulation.py) gives the CPU target's kernel's result on the same inputs:
  exactly where both compute in the same order (maxima, pooling gradients, BatchNorm inference, BiasAdd,
  scans, scatters, TopK and the moves; a max of +0 and -0 may keep either zero), within the CPU float16
  tests' rule otherwise (one half ulp; sums by the sums' rule: convolutions, averages, normalisation
  statistics, bias gradients sum in another order than the CPU's BLAS, tiled and lane-parallel loops).
* Every op of those families whose CPU kernel takes a half type opted in; ops whose CPU kernel refuses one
  stay refused by the GPU target too, naming the op.
"""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild.core.ir import TensorType
from opbuild.runtime.session import session
from opbuild.targets.cuda import CudaTarget, codegen, half
from opbuild.targets.cuda.kernels import cumulative, scatter, topk

from .host_emulation import HostKernels, gxx
from .host_threads import ThreadedHostKernels
from .nvrtc_check import compile_specs
from .suite import Case
from .suite_gpuhalf2 import FAMILY_OPS, cases

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(gxx() is None, reason="no host C++ compiler (g++) to run the GPU code on the host")]

# Ops whose half results are one float expression of loaded elements rounded once (or a max, exact), computed
# in the CPU's order: bit for bit.
EXACT = {"MaxPool", "MaxPoolGrad", "BatchNorm", "BiasAdd", "Assign", "AssignAdd", *cumulative.OPS, *topk.OPS,
         *scatter.OPS, "GatherD", "StridedSliceGrad", "StopGradient"}
_ULP = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 1e-5, "float64": 1e-12}


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _compare(case: Case, got: np.ndarray, want: np.ndarray) -> str | None:
    w = np.asarray(want).reshape(got.shape)
    if got.dtype.kind in "iub":
        return None if np.array_equal(got, w) else f"{int((got != w).sum())} integers differ"
    g64, w64 = got.astype(np.float64), w.astype(np.float64)
    # Equal values: a max of +0 and -0 may keep either zero (the CPU's vector loops compare in another order).
    same = (_bits(got) == _bits(w)) | (g64 == w64) | (np.isnan(g64) & np.isnan(w64))
    if same.all():
        return None
    if case.spec.op in EXACT:
        return f"{int((~same).sum())} of {got.size} differ from the CPU target's bits"
    # Sums: one unit of the output's type per rounding, atol growing with the square root of the terms; a
    # float32 statistic of half inputs (BatchNorm's float32 mean/variance) by the float32 sums' rule.
    tol = _ULP[got.dtype.name]
    terms = max(t.size for t in case.spec.inputs) / max(got.size, 1)
    atol = tol * max(terms, 1) ** 0.5 * max(1.0, float(np.nanmax(np.abs(w64))) if w64.size else 1.0)
    if np.allclose(g64, w64, rtol=tol, atol=atol, equal_nan=True):
        return None
    return f"max abs diff {np.nanmax(np.abs(g64 - w64)):.3g} beyond rtol {tol:.3g} / atol {atol:.3g}"


@pytest.fixture(scope="module")
def suite():
    return cases()


def test_the_half_cases_cover_every_opted_in_op_of_the_families(suite):
    ops = {c.spec.op for c in suite}
    assert ops == FAMILY_OPS & half.HALF_OPS
    assert {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPool", "MaxPoolGrad", "AvgPool",
            "AvgPoolGrad", "GlobalAvgPool", "BatchNorm", "BatchNormTraining", "BatchNormGrad", "LayerNorm",
            "BiasAdd", "BiasAddGrad"} <= ops
    dtypes = {t.dtype for c in suite for t in c.spec.inputs}
    assert {"float16", "bfloat16", "float32"} <= dtypes  # float32 parameters beside a half x too


def test_nvrtc_compiles_every_half_kernel_of_the_families(suite, tmp_path):
    compile_specs([c.spec for c in suite], tmp_path, "half2")


def test_every_half_kernel_of_the_families_computes_what_the_cpu_target_does(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))
    host = HostKernels([c.spec for c in suite], tmp_path)
    ms.set_device("CPU")
    session().builder.build([c.spec for c in suite])
    failures, exact = [], 0
    for i, case in enumerate(suite):
        arrays = case.inputs()
        got = host.run(i, case.spec, arrays)
        want = session().run_eager(case.spec, arrays)
        for g, w in zip(got, want, strict=True):
            problem = _compare(case, g, w)
            if problem:
                failures.append(f"{case.label} -> {g.dtype}: {problem}")
            elif g.dtype.name in ("float16", "bfloat16"):
                exact += bool(np.array_equal(_bits(g), _bits(np.asarray(w).reshape(g.shape))))
    assert not failures, "\n".join(failures)
    half_outputs = sum(t.dtype in ("float16", "bfloat16") for c in suite for t in c.spec.outputs)
    print(f"{exact} of {half_outputs} half outputs bit-identical to the CPU target's")
    assert exact >= max(sum(c.spec.op in EXACT for c in suite), half_outputs // 2)


def test_half_kernels_load_and_round_as_the_cpu_does():
    target = CudaTarget()
    from opbuild.ops.registry import get as get_op
    conv = target.emit(get_op("Conv2D").spec({"pad_mode": "pad", "pad": 1}, [TensorType((1, 2, 5, 5), "float16"),
                                                                                TensorType((3, 2, 3, 3), "float16")]))
    assert "float acc = 0;" in conv and "ob_f16_to_f32(" in conv and "ob_f16_from_f32(" in conv
    gap = target.emit(get_op("GlobalAvgPool").spec({}, [TensorType((1, 2, 5, 5), "float16")]))
    assert "ob_f16_from_f64(" in gap  # the double mean rounds once, as the CPU's kernel


def test_ops_whose_cpu_kernel_refuses_half_types_stay_refused():
    for op in ("GridSampleGrad", "UnsortedSegmentSum", "Multinomial", "Igamma", "MatrixInverse"):
        with pytest.raises(codegen.Unsupported, match=f"does not emit {op} kernels for bfloat16"):
            codegen.check_dtypes(op, [TensorType((1, 2, 4, 4), "bfloat16")])


def test_block_reductions_in_half_types_agree_with_the_cpu_on_several_threads_and_blocks(suite, tmp_path,
                                                                                        monkeypatch):
    # The kernels that split a sum over a block's threads (shared-memory tree) and loop over blocks, run as 4
    # host threads x 3 blocks: the CPU target's results within the sums' rule (another order of additions).
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))
    chosen = [c for c in suite if c.spec.op in ("BatchNormTraining", "BatchNormGrad", "BiasAddGrad",
                                                "Conv2DBackpropFilter", "GlobalAvgPool", "LayerNorm")]
    assert len(chosen) >= 20
    host = ThreadedHostKernels([c.spec for c in chosen], tmp_path, threads=4, blocks=3)
    ms.set_device("CPU")
    failures = []
    for i, case in enumerate(chosen):
        arrays = case.inputs()
        for g, w in zip(host.run(i, case.spec, arrays), session().run_eager(case.spec, arrays), strict=True):
            problem = _compare(case, g, w)
            if problem:
                failures.append(f"{case.label} -> {g.dtype}: {problem}")
    assert not failures, "\n".join(failures)
