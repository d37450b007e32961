"""The linear-algebra kernels call LAPACKE of the BLAS provider (compilers/blas.py ``OB_LAPACKE``): the macro
names a symbol each provider's library exports, and switching providers rebuilds the kernels under new keys
with the same results. The provider switch runs in fresh interpreters (a process keeps what it loaded)."""

from __future__ import annotations

import ctypes
import json

import numpy as np
import pytest

from opbuild.targets.cpu.compilers import blas
from tests.conftest import run_python

pytestmark = pytest.mark.slow

ROUTINES = ("sgetrf", "dgetri", "spotrf", "dpotrs", "sgeqrf", "dorgqr", "sgesdd", "dtrtrs", "dgesv")


def _macro(identity: dict) -> tuple[str, str]:
    """(prefix, suffix) that OB_LAPACKE pastes around a routine name for this provider."""
    (flag,) = [f for f in blas.defines(identity) if f.startswith("-DOB_LAPACKE(f)=")]
    pre, _, post = flag.split("=", 1)[1].partition("##f")
    return pre, post.removeprefix("##")


@pytest.mark.parametrize("finder", ["_numpy_blas", "_scipy_openblas32"])
def test_lapacke_macro_names_symbols_the_library_exports(finder):
    identity = getattr(blas, finder)()
    if identity is None:
        pytest.skip(f"this environment has no {finder[1:]} provider")
    pre, post = _macro(identity)
    lib = ctypes.CDLL(blas.library_path(identity))
    for routine in ROUTINES:
        assert hasattr(lib, f"{pre}{routine}{post}"), f"{pre}{routine}{post}"


CODE = r"""
import json, sys
import numpy as np
from opbuild import Tensor, ops
a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32)
out = [ops.inverse(Tensor(a)).asnumpy().tolist(), float(ops.det(Tensor(a)).asnumpy()),
       ops.cholesky(Tensor(a)).asnumpy().tolist()]
import glob
names = sorted(p.rsplit("/", 1)[1] for p in glob.glob(sys.argv[1] + "/rank_0/kernel_meta/matrixinverse_*.info"))
print(json.dumps({"out": out, "names": names}))
"""


def test_provider_switch_rekeys_and_agrees(tmp_path):
    runs = []
    for provider in ("numpy", "scipy-openblas32"):
        proc = run_python(CODE, str(tmp_path), env={"OPBUILD_CACHE_PATH": str(tmp_path), "RANK_ID": "",
                                                    "OPBUILD_BLAS": provider})
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert len(runs[0]["names"]) == 1 and len(runs[1]["names"]) == 2  # a second MatrixInverse entry
    a, b = runs
    assert a["out"][1] == pytest.approx(b["out"][1], rel=1e-5)
    np.testing.assert_allclose(a["out"][0], b["out"][0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(a["out"][2], b["out"][2], rtol=1e-5, atol=1e-6)
