"""The gpumath GPU kernels (special functions, bit shifts, small linear algebra, random sampling) without a GPU:
NVRTC compiles every case of suite_gpumath.py for sm_90 in one program, each computes on the host (one thread,
one block: host_emulation.py) what the CPU target's kernel computes on the same inputs, within the case's
tolerance (identical values where the case says so: the random draws), and what the GPU target cannot emit is
refused naming the op and what is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.runtime.session import session
from opbuild.targets.cuda import CudaTarget, codegen, kernels
from opbuild.targets.cuda.kernels.linalg import OPS as LU_OPS
from opbuild.targets.cuda.kernels.linalg_qr import OPS as QR_OPS
from opbuild.targets.cuda.kernels.linalg_svd import OPS as SVD_OPS
from opbuild.targets.cuda.kernels.random_draws import OPS as RANDOM_OPS

from .host_emulation import HostKernels, gxx
from .host_threads import ThreadedHostKernels
from .nvrtc_check import compile_specs
from .suite_gpumath import cases

LINALG_OPS = (*LU_OPS, *QR_OPS, *SVD_OPS)

pytestmark = pytest.mark.slow


def cpu_run(spec, arrays):
    """The CPU target's kernel of ``spec`` on ``arrays``."""
    ms.set_device("CPU")
    return session().run_eager(spec, arrays)


def test_nvrtc_compiles_every_gpumath_kernel(tmp_path):
    compile_specs([c.spec for c in cases()], tmp_path, "gpumath")


def _mismatch(case, got, want) -> str | None:
    """Why ``got`` (a GPU kernel's outputs) is not the CPU kernel's ``want`` within ``case``'s rule, or None."""
    for g, w in zip(got, want, strict=True):
        w = np.asarray(w).reshape(g.shape)
        assert g.dtype == w.dtype, case.label
        if case.spec.op in RANDOM_OPS:  # the same stream and formulas, the same libm on the host: identical
            ok = np.array_equal(g, w)
        elif g.dtype.kind == "f":
            rtol, atol = case.tolerance(g.dtype.name)
            # A kernel that gives NaN everywhere would pass against a CPU that does: the cases' inputs are in
            # the ops' domains, so most values must be finite.
            ok = np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
            ok = ok and (case.kind == "edges" or np.isfinite(w).mean() > 0.5)
        else:
            ok = np.array_equal(g, w)
        if not ok:
            with np.errstate(invalid="ignore"):
                return f"{case.label}: max diff {np.nanmax(np.abs(g.astype(float) - w)):.3g}"
    return None


@pytest.mark.skipif(gxx() is None, reason="no host C++ compiler (g++) to run the GPU kernels on the host")
def test_every_gpumath_kernel_computes_what_the_cpu_kernel_does(tmp_path):
    suite = cases()
    host = HostKernels([c.spec for c in suite], tmp_path)
    failures = [why for i, case in enumerate(suite)
                if (why := _mismatch(case, host.run(i, case.spec, arrays := case.inputs()),
                                     cpu_run(case.spec, arrays)))]
    assert not failures, failures
    # MindSpore's stream kernels (MsUniformReal, ...) take a generator state, not sample inputs:
    # tests/ops/test_ms_random_kernels.py runs their GPU form on the host against the host generator.
    sampled = set(RANDOM_OPS) - {"MsUniformReal", "MsUniformInt", "MsStandardNormal", "MsShufflePerm"}
    assert {"BesselK1e", "Betainc", "LeftShift", "Polygamma", *sampled, *LINALG_OPS} <= {c.spec.op for c in suite}


@pytest.mark.skipif(gxx() is None, reason="no host C++ compiler (g++) to run the GPU kernels on the host")
def test_many_threads_and_blocks_compute_the_same(tmp_path):
    """The block-cooperative kernels (linear algebra: shared memory, barriers) and the grid-stride ones with 4
    threads in each of 3 blocks, against the CPU's kernels (host_threads.py)."""
    suite = [c for c in cases() if c.spec.op in (*LINALG_OPS, *RANDOM_OPS, "Betainc", "Zeta", "LeftShift")]
    host = ThreadedHostKernels([c.spec for c in suite], tmp_path, threads=4, blocks=3)
    failures = [why for i, case in enumerate(suite)
                if (why := _mismatch(case, host.run(i, case.spec, arrays := case.inputs()),
                                     cpu_run(case.spec, arrays)))]
    assert not failures, failures


def test_the_special_rows_files_are_in_their_keys():
    files = kernels.emitter("BesselJ0").files()
    assert any(f.endswith("ops/special.py") for f in files)
    assert any(f.endswith("targets/cuda/kernels/special.py") for f in files)
    assert any(f.endswith("ops/special_incomplete.py") for f in kernels.emitter("Igamma").files())
    assert any(f.endswith("ops/bitshift.py") for f in kernels.emitter("LeftShift").files())
    # the random stream's constants, the Jacobi SVD text both targets run, the math macros
    assert any(f.endswith("ops/random_ops.py") for f in kernels.emitter("StandardNormal").files())
    assert any(f.endswith("targets/jacobi_svd_c.py") for f in kernels.emitter("Svd").files())
    assert any(f.endswith("targets/cuda/kernels/special.py") for f in kernels.emitter("MatrixInverse").files())


def test_half_types_the_cpu_refuses_are_refused_by_name():
    # Lgamma and the other special rows take the half types (test_half_families.py); Igamma does not, on
    # either target.
    with pytest.raises(codegen.Unsupported, match="Igamma.*float16"):
        codegen.check_dtypes("Igamma", [TensorType((4,), "float16")])


def test_decompositions_without_a_gpu_library_are_refused_by_name():
    target = CudaTarget()
    svd = get_op("Svd").spec({"full_matrices": False, "compute_uv": True}, [TensorType((20, 16), "float32")])
    with pytest.raises(codegen.Unsupported, match="Svd: .*fewer than 16 columns.*20x16.*cuSOLVER"):
        target.emit(svd)
    tall = get_op("Svd").spec({"full_matrices": False, "compute_uv": True}, [TensorType((100, 3), "float64")])
    with pytest.raises(codegen.Unsupported, match="Svd: .*shared memory.*100x3 float64"):
        target.emit(tall)
    # Eig and FFTN have complex outputs or inputs: the GPU target has no complex dtype, which is named first.
    eig = get_op("Eig").spec({"compute_v": True}, [TensorType((3, 3), "float32")])
    with pytest.raises(codegen.Unsupported, match="Eig kernels for complex64"):
        target.emit(eig)
    fft = get_op("FFTN").spec({"dims": (0,), "s": (8,), "kind": "r2c", "forward": True},
                              [TensorType((8,), "float32")])
    with pytest.raises(codegen.Unsupported, match="FFTN kernels for complex64"):
        target.emit(fft)
    assert "cuFFT" in str(pytest.raises(codegen.Unsupported, kernels.emitter("FFTN").fn, fft).value)


def test_matrices_beyond_one_blocks_shared_memory_are_refused():
    big = get_op("MatrixInverse").spec({"adjoint": False}, [TensorType((2, 100, 100), "float64")])
    with pytest.raises(codegen.Unsupported, match=r"MatrixInverse: .*shared memory.*100x100 float64 matrices need"):
        CudaTarget().emit(big)
    CudaTarget().emit(get_op("MatrixInverse").spec({"adjoint": False}, [TensorType((2, 70, 70), "float32")]))


def _singular_inputs():
    """Matrices LAPACK reports as singular or not positive definite, with the CPU's answer NaN / 0 / -inf."""
    sing = np.array([[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 0.0]], [[2.0, 0.0, 0.0], [0.0, 3.0, 0.0],
                                                                           [0.0, 0.0, 4.0]]])
    not_pd = np.array([[[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]], np.eye(3) * 2])
    zero_diag = np.array([[[1.0, 0.0, 0.0], [5.0, 0.0, 0.0], [1.0, 2.0, 3.0]], np.eye(3) + np.tri(3, k=-1)])
    rhs = np.arange(12.0).reshape(2, 3, 2)
    f = "float64"
    t3, r3 = ((2, 3, 3), f), ((2, 3, 2), f)
    rows = [("MatrixInverse", {"adjoint": False}, [t3], [sing]),
            ("MatrixDeterminant", {}, [t3], [sing]),
            ("LogMatrixDeterminant", {}, [t3], [sing]),
            ("MatrixSolve", {"adjoint": False}, [t3, r3], [sing, rhs]),
            ("Cholesky", {"upper": False}, [t3], [not_pd]),
            ("CholeskyInverse", {"upper": False}, [t3], [zero_diag]),
            ("MatrixTriangularSolve", {"lower": True, "adjoint": False}, [t3, r3], [zero_diag, rhs])]
    return [(get_op(op).spec(attrs, [TensorType(*t) for t in types]), arrays) for op, attrs, types, arrays in rows]


@pytest.mark.skipif(gxx() is None, reason="no host C++ compiler (g++) to run the GPU kernels on the host")
def test_singular_matrices_give_what_the_cpu_gives(tmp_path):
    rows = _singular_inputs()
    host = ThreadedHostKernels([spec for spec, _ in rows], tmp_path)
    for i, (spec, arrays) in enumerate(rows):
        got, want = host.run(i, spec, arrays), cpu_run(spec, arrays)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=spec.op)
        assert not np.isfinite(got[-1][0]).all() or spec.op == "MatrixDeterminant", spec.op  # the failing one
        assert np.isfinite(got[-1][1]).all(), spec.op  # the good one of the batch


def _tsan_runtime() -> str | None:
    compiler = gxx()
    if compiler is None:
        return None
    found = subprocess.run([compiler, "-print-file-name=libtsan.so"], capture_output=True, text=True).stdout.strip()
    return found if os.path.isabs(found) and os.path.exists(found) else None


@pytest.mark.skipif(_tsan_runtime() is None, reason="no ThreadSanitizer runtime (libtsan) for the host compiler")
def test_block_cooperative_kernels_have_no_data_race_under_thread_sanitizer():
    """The linear algebra's shared-memory steps and barriers, and the permutations' one-thread path, with 4
    threads per block under ThreadSanitizer (_tsan_worker.py): no race reported. Dropping one of LU's barriers
    makes it report three (checked by hand)."""
    env = dict(os.environ, LD_PRELOAD=_tsan_runtime(), TSAN_OPTIONS="halt_on_error=1 exitcode=66",
               OPBUILD_CUDA_ARCH="sm_90")
    run = subprocess.run([sys.executable, str(Path(__file__).with_name("_tsan_worker.py"))], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0 and "ThreadSanitizer" not in run.stderr, run.stderr[-4000:]
    assert run.stdout.strip().splitlines()[-1].startswith("ran ")
