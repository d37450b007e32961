"""Launch sizes of the GPU kernels that give one block per row, channel, matrix or output element (their
bodies are block-stride loops: ``for (row = blockIdx.x; row < rows; row += gridDim.x)``): such a kernel
wants one block per row, not one thread per output element (the default, right for grid-stride loops).

Launched by the default rule a row kernel gets ``ceil(outputs / 256)`` blocks: a ReduceSum of 4096 rows
gets 16 blocks, each summing 256 rows in turn; a BiasAddGrad of 64 channels or a loss over 32 rows gets one
block. Here each family declares the rows its loop covers (``registry.set_launch``), computed from the spec
exactly as its emitter computes the loop's bound; ``tests/targets/cuda/test_launch_sizes.py`` checks the two
agree for every such kernel of the GPU suite. The device caps the grid (``device.py``); a smaller or larger
grid computes the same values, so a size here is a performance choice only and never enters a kernel's key.

The kernels run by one thread or one block (a loss's mean, the long permutations) ask for one block.
Conv2D and FusedConv2D: one block per tile of their implicit GEMM where it is used (``conv_tiles.py``).

Kept apart from the emitters' modules so the families' code (and their keys) stay as they are.
"""

from __future__ import annotations

from ....core.ir import KernelSpec
from ....ops.fused_gemm import _parts
from ....ops.fused_reduce import analyse
from . import conv_tiles
from .conv import Geometry
from .random_draws import PARALLEL_MAX
from .reduction import gather_layout
from .registry import default_blocks, set_launch


def _prod(shape) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _out0(k: KernelSpec) -> int:
    """One block per element of the first output (a reduction's row, a filter element, a channel's sum)."""
    return k.outputs[0].size


def _softmax_rows(k: KernelSpec) -> int:
    x = k.inputs[0]
    return gather_layout(x.shape, (k.attrs["axis"] % max(x.rank, 1),)).count


def _fused_rows(k: KernelSpec) -> int:
    return analyse(k.attrs, k.inputs).rows


def _out1(k: KernelSpec) -> int:
    """One block per element of the second output (BatchNorm's per-channel statistics, LayerNorm's rows)."""
    return k.outputs[1].size


def _first_axis(k: KernelSpec) -> int:
    """One block per row of a ``(N, C)`` loss input."""
    return int(k.inputs[0].shape[0]) if k.inputs[0].rank else 1


def _one(k: KernelSpec) -> int:
    return 1


def _conv(k: KernelSpec) -> int:
    """Conv2D: a block per tile of its implicit GEMM when tiled (conv_tiles.py), else a thread per element."""
    x, w = k.inputs
    return conv_tiles.blocks(Geometry.of(k.attrs, x.shape, w.shape, k.outputs[0].shape), k)


def _conv_input_grad(k: KernelSpec) -> int:
    dy, w = k.inputs
    out = k.outputs[0]
    return conv_tiles.input_grad_blocks(Geometry.of(k.attrs, out.shape, w.shape, dy.shape), k)


def _fused_conv(k: KernelSpec) -> int:
    prod = _parts(k.op, k.attrs, k.inputs).producer
    x, w = prod.inputs
    return conv_tiles.blocks(Geometry.of(prod.attrs, x.shape, w.shape, prod.outputs[0].shape), k)


def _shuffle(k: KernelSpec) -> int:
    """RandomShuffle: past ``PARALLEL_MAX`` rows the grid's first thread runs the swaps (one block)."""
    x = k.inputs[1]
    return 1 if x.rank and x.shape[0] > PARALLEL_MAX else default_blocks(k)


def _randperm(k: KernelSpec) -> int:
    """RandpermV2: past ``PARALLEL_MAX`` positions the grid's first thread runs the swaps (one block)."""
    return 1 if k.attrs["n"] > PARALLEL_MAX else default_blocks(k)


def _matrices(k: KernelSpec) -> int:
    """One block per matrix of a batch (the linear-algebra kernels)."""
    return _prod(k.inputs[0].shape[:-2])


for _op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ArgMax", "ArgMin",
            "Conv2DBackpropFilter", "GlobalAvgPool", "BiasAddGrad"):
    set_launch(_op, _out0)
for _op in ("Softmax", "LogSoftmax"):
    set_launch(_op, _softmax_rows)
set_launch("FusedRowReduce", _fused_rows)
for _op in ("BatchNormTraining", "BatchNormGrad", "LayerNorm"):
    set_launch(_op, _out1)
for _op in ("SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogitsGrad"):
    set_launch(_op, _first_axis)
set_launch("SparseSoftmaxCrossEntropyWithLogits", _one)  # its mean over the rows is one block's sum
for _op in ("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "MatrixSolve", "Cholesky",
            "CholeskyInverse", "CholeskySolve", "MatrixTriangularSolve", "Qr", "Geqrf", "Orgqr", "Svd"):
    set_launch(_op, _matrices)
set_launch("Conv2D", _conv)
set_launch("FusedConv2D", _fused_conv)
set_launch("Conv2DBackpropInput", _conv_input_grad)
set_launch("RandomShuffle", _shuffle)
set_launch("RandpermV2", _randperm)

__all__: list[str] = []
