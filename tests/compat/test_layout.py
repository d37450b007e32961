"""Part 1 of #18: MindSpore's module layout (context, common.dtype, common.initializer, P, F, ParameterTuple)
and layers' weight_init/bias_init."""

from __future__ import annotations

import math

import numpy as np
import pytest

import opbuild as ms
import opbuild.common.dtype as mstype
import opbuild.context as context
import opbuild.nn as nn
import opbuild.ops as ops
import opbuild.ops.functional as F
import opbuild.ops.operations as P
from opbuild import Tensor
from opbuild.common.initializer import (
    Constant,
    HeNormal,
    HeUniform,
    Normal,
    One,
    TruncatedNormal,
    Uniform,
    XavierUniform,
    Zero,
    initializer,
)

from ..conftest import run_python


def test_seed_tutorial_1x_variant_runs(tmp_path):
    """The seed page's MindSpore 1.x program with only the package name changed."""
    code = """
import numpy as np
import opbuild.context as context
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild import Tensor
context.set_context(mode=context.GRAPH_MODE, device_target="CPU")
class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.square = ops.Square()
    def construct(self, data):
        return self.square(data)
x = np.array([1.0, 4.0, 9.0]).astype(np.float32)
print("output: ", Net()(Tensor(x)))
"""
    out = run_python(code, env={"OPBUILD_CACHE_PATH": str(tmp_path)}).stdout
    assert out.strip() == "output:  [ 1. 16. 81.]"
    assert list((tmp_path / "rank_0" / "kernel_meta").glob("square_*.so"))


def test_context_module_is_the_one_context():
    old = ms.get_context("mode")
    try:
        context.set_context(mode=context.PYNATIVE_MODE)
        assert ms.get_context("mode") == ms.PYNATIVE_MODE == context.get_context("mode")
    finally:
        ms.set_context(mode=old)
    assert (context.GRAPH_MODE, context.PYNATIVE_MODE) == (0, 1)
    pm = context.ParallelMode
    assert (pm.STAND_ALONE, pm.DATA_PARALLEL, pm.HYBRID_PARALLEL, pm.SEMI_AUTO_PARALLEL, pm.AUTO_PARALLEL) == (
        "stand_alone", "data_parallel", "hybrid_parallel", "semi_auto_parallel", "auto_parallel")
    assert ms.ParallelMode is pm and ms.context is context


def test_mstype_is_the_same_dtypes():
    assert mstype.float32 == ms.float32 and mstype.float32 is ms.float32
    assert Tensor(np.ones(2, np.int32)).dtype == mstype.int32
    assert mstype.bool_ is ms.bool_ and mstype.float64 is ms.float64 and mstype.int64 is ms.int64
    assert mstype.dtype_to_nptype(mstype.float32) is np.float32
    assert mstype.pytype_to_dtype(bool) is mstype.bool_ and mstype.pytype_to_dtype(int) is mstype.int64


def test_p_and_f_namespaces():
    assert P.Square is ops.Square and P.MatMul is ops.MatMul and P.Argmax is ops.ArgMax
    assert F.relu is ops.relu and F.matmul is ops.matmul and callable(ops.matmul)
    from opbuild.ops.matmul import BatchMatMul, MatMul  # the family module still imports

    assert MatMul is P.MatMul and BatchMatMul is P.BatchMatMul


def test_parameter_tuple():
    a, b = ms.Parameter(np.ones(2, np.float32), name="a"), ms.Parameter(np.zeros(3, np.float32), name="b")
    pt = ms.ParameterTuple([a, b])
    assert isinstance(pt, tuple) and pt[1] is b
    clone = pt.clone("m", init="zeros")
    assert [p.name for p in clone] == ["m.a", "m.b"] and (clone[0].asnumpy() == 0).all()
    with pytest.raises(TypeError):
        ms.ParameterTuple([a, np.ones(2)])
    with pytest.raises(ValueError, match="duplicate"):
        ms.ParameterTuple([a, a])


SHAPE = (64, 32, 3, 3)  # fan_in = 32 * 9, fan_out = 64 * 9


@pytest.mark.parametrize("init, lo, hi, std", [
    (Normal(sigma=0.02, mean=1.0), None, None, 0.02),
    (Uniform(scale=0.3), -0.3, 0.3, 0.3 / math.sqrt(3)),
    (TruncatedNormal(sigma=1.0), -2.0, 2.0, None),
    (XavierUniform(gain=2), -2 * math.sqrt(6 / (32 * 9 + 64 * 9)), 2 * math.sqrt(6 / (32 * 9 + 64 * 9)), None),
    (HeUniform(), -math.sqrt(6 / (32 * 9)), math.sqrt(6 / (32 * 9)), None),
    (HeUniform(negative_slope=math.sqrt(5)), -1 / math.sqrt(32 * 9), 1 / math.sqrt(32 * 9), None),
    (HeNormal(mode="fan_out", nonlinearity="relu"), None, None, math.sqrt(2 / (64 * 9))),
])
def test_random_initializers_follow_their_distribution(init, lo, hi, std):
    v = initializer(init, SHAPE, mstype.float64).asnumpy()
    assert v.shape == SHAPE and v.dtype == np.float64
    if lo is not None:
        assert v.min() >= lo and v.max() <= hi and v.max() > 0.9 * hi and v.min() < 0.9 * lo
    if std is not None:
        assert abs(v.std() - std) < 0.05 * std
    if isinstance(init, Normal):
        assert abs(v.mean() - 1.0) < 0.01


def test_constant_initializers_and_names():
    assert (initializer(Zero(), (2, 3)).asnumpy() == 0).all()
    assert (initializer(One(), 4).asnumpy() == 1).all()
    assert (initializer(Constant(2.5), (2,)).asnumpy() == 2.5).all()
    assert (initializer(7, (2,), mstype.int32).asnumpy() == 7).all()
    t = initializer(Tensor(np.arange(3, dtype=np.float32)))
    assert t.shape == (3,) and isinstance(t, Tensor)
    for name, cls in [("normal", Normal), ("zeros", Zero), ("ones", One), ("xavier_uniform", XavierUniform),
                      ("XavierUniform", XavierUniform), ("he_uniform", HeUniform), ("he_normal", HeNormal),
                      ("truncatedNormal", TruncatedNormal), ("uniform", Uniform)]:
        ms.set_seed(3)
        a = initializer(name, (8, 4)).asnumpy()
        ms.set_seed(3)
        np.testing.assert_array_equal(a, initializer(cls(), (8, 4)).asnumpy())
    with pytest.raises(ValueError, match="unknown initializer"):
        initializer("glorot", (2, 2))
    with pytest.raises(ValueError, match="fewer than 2"):
        initializer("he_uniform", (4,))


def test_dense_and_conv_defaults_are_mindspore_2x():
    d = nn.Dense(50, 20)
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    bound = 1 / math.sqrt(50)  # HeUniform(sqrt(5)): sqrt(3) * sqrt(2 / 6) / sqrt(fan_in)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound and np.abs(b).max() <= bound
    c = nn.Conv2d(4, 8, 3, has_bias=True)
    bound = 1 / math.sqrt(4 * 9)
    assert np.abs(c.weight.asnumpy()).max() <= bound and np.abs(c.bias.asnumpy()).max() <= bound


@pytest.mark.parametrize("weight_init", ["zeros", Constant(0.5), One(), Normal(0.1), "xavier_uniform"])
def test_layers_accept_names_and_initializer_objects(weight_init):
    d = nn.Dense(3, 2, weight_init=weight_init, bias_init=Constant(1.0))
    assert d.weight.shape == (2, 3) and (d.bias.asnumpy() == 1).all()
    c = nn.Conv2d(2, 4, 3, weight_init=weight_init, has_bias=True, bias_init="ones")
    assert c.weight.shape == (4, 2, 3, 3) and (c.bias.asnumpy() == 1).all()
    bn = nn.BatchNorm2d(3, gamma_init=Constant(2.0), beta_init=Zero())
    assert (bn.gamma.asnumpy() == 2).all() and (bn.beta.asnumpy() == 0).all()
    ln = nn.LayerNorm((4,), gamma_init=One(), beta_init=Constant(0.5))
    assert (ln.beta.asnumpy() == 0.5).all()
    emb = nn.Embedding(5, 3, embedding_table=Constant(0.25))
    assert (emb.embedding_table.asnumpy() == 0.25).all()
    if weight_init == "zeros":
        assert (d.weight.asnumpy() == 0).all() and (c.weight.asnumpy() == 0).all()
