"""The gpumath GPU kernels (special functions, bit shifts, small linear algebra, random sampling) without a GPU:
NVRTC compiles every case of suite_gpumath.py for sm_90 in one program, each computes on the host (one thread,
one block: host_emulation.py) what the CPU target's kernel computes on the same inputs, within the case's
tolerance (identical values where the case says so: the random draws), and what the GPU target cannot emit is
refused naming the op and what is missing."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.runtime.session import session
from opbuild.targets.cuda import CudaTarget, codegen, kernels
from opbuild.targets.cuda.errors import NvrtcNotFoundError
from opbuild.targets.cuda.kernels.linalg import OPS as LINALG_OPS
from opbuild.targets.cuda.kernels.random_draws import OPS as RANDOM_OPS
from opbuild.targets.cuda.nvrtc import Nvrtc

from .host_emulation import HostKernels, gxx
from .host_threads import ThreadedHostKernels
from .suite_gpumath import cases

pytestmark = pytest.mark.slow


def _nvrtc() -> Nvrtc | None:
    try:
        return Nvrtc("sm_90")
    except NvrtcNotFoundError:
        return None


def cpu_run(spec, arrays):
    """The CPU target's kernel of ``spec`` on ``arrays``."""
    ms.set_device("CPU")
    return session().run_eager(spec, arrays)


@pytest.mark.skipif(_nvrtc() is None, reason="NVRTC is not installed (pip install 'opbuild[cuda]')")
def test_nvrtc_compiles_every_gpumath_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("OPBUILD_CUDA_ARCH", "sm_90")
    target = CudaTarget()
    suite = cases()
    items = [(f"ob_k{i}", c.spec, target.emit(c.spec)) for i, c in enumerate(suite)]
    result = target.compile(_nvrtc(), target.translation_unit(items, False), tmp_path / "math.cubin", tmp_path,
                            False, "gpumath")
    target.validate(result.binary.read_bytes(), [symbol for symbol, _, _ in items])


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
            ok = np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True) and np.isfinite(w).mean() > 0.5
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
    assert {"BesselK1e", "Betainc", "LeftShift", "Polygamma", *RANDOM_OPS, *LINALG_OPS} <= {c.spec.op for c in suite}


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


def test_half_special_functions_are_refused_by_name():
    spec = get_op("Lgamma").spec({}, [TensorType((4,), "float16")])
    with pytest.raises(codegen.Unsupported, match="Lgamma.*float16"):
        CudaTarget().emit(spec)
