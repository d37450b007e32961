"""The vectorised math path (libmvec SIMD declarations in codegen/c.py, -fno-trapping-math and 512-bit vectors
in compilers/gcc.py) keeps IEEE special values and accuracy.

Inputs are long enough (> 64 elements, special values spread over the array) that the vector loop body, not
only the scalar remainder, sees every special value. Oracles are NumPy/math in float64, rounded to the
dtype. Tolerances: float32 rtol 1e-5 atol 1e-6, float64 rtol 1e-12 atol 1e-14 (libmvec promises 4 ulp);
NaN and inf must match exactly.
"""

from __future__ import annotations

import math
import platform
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from opbuild import Tensor, ops
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get
from opbuild.runtime.session import session

SPECIAL = [0.0, -0.0, 1e-30, -1e-30, 1e-40, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 9.0, -9.0, 20.0, -20.0, 88.0,
           89.0, -87.0, -104.0, 100.0, -100.0, 710.0, -745.0, 1e30, -1e30, math.inf, -math.inf, math.nan]
TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-14)}

_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_erf = np.vectorize(math.erf, otypes=[np.float64])

ORACLES = {
    "Exp": np.exp,
    "Log": np.log,
    "Sin": np.sin,
    "Cos": np.cos,
    "Tanh": np.tanh,
    "Sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "GeLU": lambda x: 0.5 * x * _erfc(-x / math.sqrt(2)),
    "Erf": _erf,
    "Softplus": lambda x: np.logaddexp(0, x),
    "Sqrt": np.sqrt,
    "Floor": np.floor,
    "Ceil": np.ceil,
    "Round": np.round,
}


def inputs(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.standard_normal(300) * 4, rng.uniform(-120, 120, 300)])
    idx = rng.choice(len(x), size=len(SPECIAL) * 3, replace=False)
    x[idx] = np.tile(SPECIAL, 3)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(ORACLES))
def test_unary_special_values_and_accuracy(op, dtype):
    x = inputs(dtype)
    got = get(op).primitive()(Tensor(x)).asnumpy()  # the op itself (ops.GeLU is MindSpore's tanh form)
    with np.errstate(all="ignore"):
        want = ORACLES[op](x.astype(np.float64)).astype(dtype)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, equal_nan=True, **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_nan_propagation_and_special_values(dtype):
    x = np.abs(inputs(dtype))
    y = np.resize(np.array([2, 0.5, -1, 3, math.nan, math.inf, 0, -2], dtype), x.shape)
    got = ops.Pow()(Tensor(x), Tensor(y)).asnumpy()
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), y.astype(np.float64)).astype(dtype)
    np.testing.assert_allclose(got, want, equal_nan=True, **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_isnan_and_nan_propagating_maximum_survive_the_flags(dtype):
    x = inputs(dtype)
    y = np.resize(np.array([math.nan, 0.0, -math.inf, 1.0], dtype), x.shape)
    np.testing.assert_array_equal(ops.IsNan()(Tensor(x)).asnumpy(), np.isnan(x))
    np.testing.assert_array_equal(ops.Maximum()(Tensor(x), Tensor(y)).asnumpy(), np.maximum(x, y))
    np.testing.assert_array_equal(ops.Minimum()(Tensor(x), Tensor(y)).asnumpy(), np.minimum(x, y))


def _glibc_has_new_libmvec() -> bool:
    name, version = platform.libc_ver()
    try:
        return name == "glibc" and tuple(int(p) for p in version.split(".")[:2]) >= (2, 35)
    except ValueError:
        return False


def _kernel_binary(op: str, dtype: str) -> Path:
    spec = get(op).spec({}, [TensorType((4096,), dtype)])
    (kernel,), _ = session().builder.build([spec])
    return Path(kernel.lib.path)


@pytest.mark.skipif(platform.machine() != "x86_64" or not _glibc_has_new_libmvec(),
                    reason="libmvec vector math is declared only for x86-64 glibc >= 2.35")
@pytest.mark.parametrize(("op", "dtype"), [("Exp", "float32"), ("GeLU", "float32"), ("Sigmoid", "float32"),
                                           ("Exp", "float64")])
def test_transcendental_kernels_call_vector_math(op, dtype):
    """The kernels link libmvec's SIMD entry points (_ZGV...), i.e. the loops really were vectorised."""
    assert b"_ZGV" in _kernel_binary(op, dtype).read_bytes()


@pytest.mark.skipif(platform.machine() != "x86_64", reason="checks x86-64 instructions")
@pytest.mark.parametrize(("dtype", "packed_div"), [("float32", "divps"), ("float64", "divpd")])
def test_tanh_is_inline_and_vectorised(dtype, packed_div):
    """Tanh computes codegen's ob_tanhf / ob_tanh inline: the kernel imports no tanh at all (neither libm's
    scalar function nor a libmvec variant), and its loop divides whole vectors (a packed division; a scalar loop
    only has ``divss`` / ``divsd``)."""
    so = _kernel_binary("Tanh", dtype)
    data = so.read_bytes()
    assert b"tanhf" not in data and b"_ZGV" not in data and b"\0tanh\0" not in data
    objdump = shutil.which("objdump")
    if objdump is None:
        pytest.skip("objdump (binutils) not found: vectorisation not checked")
    disasm = subprocess.run([objdump, "-d", str(so)], capture_output=True, text=True, check=True).stdout
    assert re.search(rf"\bv?{packed_div}\s", disasm), "no packed division: the tanh loop was not vectorised"
