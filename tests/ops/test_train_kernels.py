"""The vectorised training kernels (docs/benchmarks.md, "Training kernels") against their float64 references
on the shapes that pick each code path: MaxPoolGrad's two-pass row form (interior columns, edge columns,
padding, ceil_mode, ties, NaN and -inf windows) and its scalar form, BiasAddGrad's lane sums (runs longer
and shorter than the lanes, with tails) and channel blocks (channels innermost, more than one block), and
BatchNorm's training forward and gradient with lane sums."""

import numpy as np
import pytest

import opbuild as ms
from opbuild.core.ir import TensorType
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get as get_op
from opbuild.targets.cpu.kernels.conv_grad import _vector_rows_pay
from opbuild.targets.cpu.kernels.matmul import BIAS_GRAD_BLOCK, BIAS_GRAD_LANES
from opbuild.targets.cpu.kernels.norm_train import LANES

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.GRAPH_MODE)


def _max_pool_grad(x: np.ndarray, pool: dict) -> tuple[np.ndarray, np.ndarray, bool]:
    """(kernel result, reference, whether the vector form ran) of MaxPoolGrad on x with a random dy."""
    fwd = get_op("MaxPool").spec(pool, [TensorType(x.shape, x.dtype.name)])
    dy = np.random.default_rng(1).standard_normal(fwd.outputs[0].shape).astype(x.dtype)
    y = np.zeros(fwd.outputs[0].shape, x.dtype)  # MaxPoolGrad takes y for the signature only
    spec = get_op("MaxPoolGrad").spec(fwd.attrs, [TensorType(a.shape, a.dtype.name) for a in (x, y, dy)])
    got = apply("MaxPoolGrad", fwd.attrs, [ms.Tensor(x), ms.Tensor(y), ms.Tensor(dy)]).asnumpy()
    want = get_op("MaxPoolGrad").reference(fwd.attrs, x, y, dy)
    return got, want, _vector_rows_pay(spec)


POOLS = [
    ({"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1}, (2, 3, 21, 23), True),
    ({"kernel_size": 3, "strides": 1, "pad_mode": "same"}, (1, 2, 12, 17), True),
    ({"kernel_size": 3, "strides": 2, "pad_mode": "valid", "ceil_mode": True}, (1, 2, 20, 24), True),
    ({"kernel_size": (2, 3), "strides": (1, 2), "pad_mode": "pad", "pad": 1}, (1, 2, 9, 30), True),
    ({"kernel_size": 2, "strides": 2}, (2, 3, 16, 16), False),
    ({"kernel_size": 3, "strides": 2}, (1, 2, 8, 8), False),  # 3 output columns: the scalar form
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("pool,shape,vector", POOLS, ids=[str(i) for i in range(len(POOLS))])
def test_max_pool_grad_matches_reference(pool, shape, vector, dtype):
    rng = np.random.default_rng(0)
    # Small integers make ties in most windows: the first maximum in row-major order must take the gradient.
    x = rng.integers(-3, 3, size=shape).astype(dtype)
    x.flat[rng.choice(x.size, 5, replace=False)] = np.nan
    x.flat[rng.choice(x.size, 5, replace=False)] = -np.inf
    # Whole windows of -inf (away from the padding, where the reference would credit a padded tap): the
    # window's first tap takes the gradient.
    x[0, 0, 3:8, 3:8] = -np.inf
    got, want, used_vector = _max_pool_grad(x, pool)
    assert used_vector == vector
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("shape,fmt", [((3, 5, 7, 11), "NCHW"),                       # runs shorter than lanes
                                       ((2, 4, 9, 2 * BIAS_GRAD_LANES + 3), "NCHW"),   # lanes and a tail
                                       ((7, BIAS_GRAD_BLOCK + 37), "NCHW"),            # channels innermost
                                       ((2, 3, 5, BIAS_GRAD_BLOCK * 2 + 1), "NHWC")])  # three blocks
def test_bias_add_grad_sums(shape, fmt, dtype):
    x = np.random.default_rng(2).standard_normal(shape).astype(dtype)
    got = apply("BiasAddGrad", {"data_format": fmt}, [ms.Tensor(x)]).asnumpy()
    axes = tuple(d for d in range(x.ndim) if d != (1 if fmt == "NCHW" else x.ndim - 1))
    np.testing.assert_allclose(got, x.astype(np.float64).sum(axis=axes), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [(3, 4, 5, 5), (2, 3, 2 * LANES + 5, 1), (4, 6, 8, 8)],
                         ids=["short", "tail", "lanes"])
def test_batch_norm_training_and_grad(shape):
    rng = np.random.default_rng(3)
    c = shape[1]
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    scale, bias = rng.uniform(0.5, 1.5, c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    mean, var = rng.standard_normal(c).astype(np.float32), rng.uniform(0.5, 2, c).astype(np.float32)
    attrs = {"epsilon": 1e-5, "momentum": 0.1}
    ins = [x, scale, bias, mean, var]
    outs = apply("BatchNormTraining", attrs, [ms.Tensor(a) for a in ins])
    spec = get_op("BatchNormTraining").spec(attrs, [TensorType(a.shape, "float32") for a in ins])
    want = get_op("BatchNormTraining").reference(spec.attrs, *ins)
    for o, w in zip(outs, want, strict=True):
        np.testing.assert_allclose(o.asnumpy(), w, rtol=1e-5, atol=1e-5)
    dy = rng.standard_normal(shape).astype(np.float32)
    grad_ins = [dy, x, scale, want[3], want[4]]
    got = apply("BatchNormGrad", {}, [ms.Tensor(a) for a in grad_ins])
    want_grad = get_op("BatchNormGrad").reference({"data_format": "NCHW"}, *grad_ins)
    for o, w in zip(got, want_grad, strict=True):
        np.testing.assert_allclose(o.asnumpy(), w, rtol=1e-5, atol=1e-5)
