"""Per-op launch sizes (``kernels.launch_blocks``, declared by ``kernels/launch_sizes.py`` and the GEMMs): every
kernel whose body is a block-stride loop (one block per row, channel, matrix, filter element or tile) asks for
exactly as many blocks as its loop has iterations, the grid-stride ones for one thread per element of their
largest output; the executor, PyNative and the emulated device launch with them."""

from __future__ import annotations

import re

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.targets.cuda import CudaTarget, codegen, kernels

from .suite import cases

pytestmark = pytest.mark.slow

_BLOCK_LOOP = re.compile(r"for \(int64_t (\w+) = blockIdx\.x; \1 < (\d+)(?:LL)?; \1 \+= gridDim\.x\)")


def test_block_stride_kernels_ask_for_one_block_per_iteration():
    target = CudaTarget()
    checked: set[str] = set()
    for case in cases():
        spec = case.spec
        body = target.emit(spec)
        loops = _BLOCK_LOOP.findall(body)
        if loops:
            assert kernels.launch_blocks(spec) == max(1, max(int(n) for _, n in loops)), case.label
            checked.add(spec.op)
        elif "blockIdx.x == 0" in body and "gridDim.x" not in body:  # one block's work (a loss's mean)
            assert kernels.launch_blocks(spec) == 1, case.label
            checked.add(spec.op)
        else:
            assert kernels.launch_blocks(spec) == kernels.default_blocks(spec), case.label
    # the families the default rule starved: reductions, softmax, the fused row reductions, norms, losses,
    # the filter gradient, pooling's global average, linear algebra, the tiled GEMMs
    for op in ("ReduceSum", "ArgMax", "Softmax", "FusedRowReduce", "LayerNorm", "BatchNormTraining",
               "BiasAddGrad", "SoftmaxCrossEntropyWithLogits", "Conv2DBackpropFilter", "GlobalAvgPool",
               "MatrixInverse", "Svd", "MatMul", "BatchMatMul", "FusedMatMul", "Conv2D", "FusedConv2D",
               "Conv2DBackpropInput"):
        assert op in checked, op


def test_row_kernels_get_their_row_counts():
    f32 = "float32"
    rows = get_op("ReduceSum").spec({"axis": (1,), "keep_dims": False}, [TensorType((4096, 1024), f32)])
    assert kernels.launch_blocks(rows) == 4096  # the default rule gave 16
    loss = get_op("SparseSoftmaxCrossEntropyWithLogits").spec({}, [TensorType((32, 10), f32),
                                                                  TensorType((32,), "int32")])
    assert kernels.launch_blocks(loss) == 1
    perm = get_op("RandpermV2").spec({"n": 20000, "dtype": "int64"}, [TensorType((2,), "int64")])
    assert kernels.launch_blocks(perm) == 1  # the grid's first thread runs Fisher-Yates past 16384 positions
    add = get_op("Add").spec({}, [TensorType((1000,), f32)] * 2)
    assert kernels.launch_blocks(add) == 4  # ceil(1000 / 256), the default
    with pytest.raises(RuntimeError, match="two GPU launch sizes"):
        kernels.set_launch("ReduceSum", lambda k: 1)


def test_the_executors_launch_with_the_declared_sizes(gpu):
    """PyNative and a compiled graph on the emulated device: the grid recorded per launch is the op's (48 rows:
    one block by the default rule; under the device's cap of 32 blocks per SM, 64 on the emulated one)."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = np.random.default_rng(0).standard_normal((48, 40)).astype(np.float32)
    got = ops.ReduceSum()(ms.Tensor(x), 1).asnumpy()
    assert gpu.grids[-1][1] == 48
    np.testing.assert_allclose(got, x.sum(1), rtol=1e-5, atol=1e-5)

    class Net(ms.nn.Cell):
        def construct(self, a):
            return ops.softmax(a, -1)

    ms.set_context(mode=ms.GRAPH_MODE)
    before = len(gpu.grids)
    out = Net()(ms.Tensor(x)).asnumpy()
    assert [blocks for _, blocks in gpu.grids[before:]] == [48]
    np.testing.assert_allclose(out.sum(-1), np.ones(48), rtol=1e-5)
    assert codegen.BLOCK == 256
