"""Every kernel of the GPU op suite, compiled for the host (host_emulation.py: one thread, one block) and run
against the op's NumPy reference with the CPU tests' tolerances: what the emitters compute is checked without
a GPU. The device (CUDA's math, many threads, the launch) is scripts/gpu_check.py's to check."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild.ops.registry import get as get_op

from .host_emulation import HostKernels, gxx
from .suite import cases

pytestmark = pytest.mark.slow

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}


@pytest.mark.skipif(gxx() is None, reason="no host C++ compiler (g++) to run the GPU kernels on the host")
def test_every_gpu_kernel_computes_what_the_reference_does(tmp_path):
    suite = cases()
    kernels = HostKernels([c.spec for c in suite], tmp_path)
    failures = []
    for i, case in enumerate(suite):
        arrays = case.inputs()
        got = kernels.run(i, case.spec, arrays)
        want = get_op(case.spec.op).run_reference(case.spec, arrays)
        for g, w in zip(got, want, strict=True):
            w = np.asarray(w).reshape(g.shape)
            if g.dtype.kind == "f":
                # a case may carry its own rule (suite_gpunn.py: convolutions, normalisations, GridSampleGrad)
                rtol, atol = case.tolerance(g.dtype.name) if hasattr(case, "tolerance") else TOL[g.dtype.name]
                ok = np.allclose(g, w.astype(g.dtype), rtol=rtol, atol=atol, equal_nan=True)
            else:
                ok = np.array_equal(g, w.astype(g.dtype))
            if not ok:
                failures.append(case.label)
    assert not failures, failures
    assert len(suite) > 250
