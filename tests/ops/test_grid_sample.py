"""GridSample (ops.grid_sample, GridSampler2D/3D) against torch.nn.functional.grid_sample, whose rules
MindSpore documents, for every mode, padding and align_corners, in both modes; the C kernel against its
NumPy reference (including ONNX's clamped-bicubic variant); errors; gradients against torch's autograd."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops
from opbuild.core.errors import ShapeError
from opbuild.ops.grid_sampling import grid_sample_reference
from opbuild.ops.primitive import apply
from tests.helpers import run_op

pytestmark = pytest.mark.slow  # a few hundred kernels built in both modes

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
GRID = RNG.uniform(-1.4, 1.4, (2, 4, 7, 2)).astype(np.float32)  # some points outside [-1, 1]


@pytest.mark.parametrize("run_mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_2d_matches_torch(run_mode, mode, padding, align) -> None:
    got = run_op(lambda x, g: ops.grid_sample(x, g, mode, padding, align), X, GRID, mode=run_mode)
    want = torch.nn.functional.grid_sample(torch.from_numpy(X), torch.from_numpy(GRID), mode, padding,
                                           align).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_3d_matches_torch(mode, padding) -> None:
    x = RNG.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    g = RNG.uniform(-1.2, 1.2, (1, 2, 3, 4, 3)).astype(np.float32)
    got = ops.GridSampler3D(mode, padding, True)(ms.Tensor(x), ms.Tensor(g)).asnumpy()
    want = torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(g), mode, padding, True).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_kernel_matches_reference_with_onnx_clamped_bicubic(dtype) -> None:
    attrs = {"mode": "bicubic", "padding_mode": "border", "align_corners": False, "clamp_cubic": True}
    x, g = X.astype(dtype), GRID.astype(dtype)
    got = apply("GridSample", attrs, [ms.Tensor(x), ms.Tensor(g)]).asnumpy()
    want = grid_sample_reference(attrs, x, g)
    np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == "float16" else 1e-6, atol=1e-3)


def test_grid_sample_errors() -> None:
    with pytest.raises(ShapeError, match="padding_mode must be one of"):
        ops.grid_sample(ms.Tensor(X), ms.Tensor(GRID), padding_mode="wrap")
    with pytest.raises(ValueError, match="'bicubic' needs a 4-D input"):
        ops.grid_sample(ms.Tensor(X[:, :, None]), ms.Tensor(GRID[:, None].repeat(3, -1)[..., :3]), "bicubic")


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_gradients_match_torch(graph_mode, mode, padding) -> None:
    """d input and d grid of sum(grid_sample(x, g) * w) against torch's autograd (grid points kept away from
    tap boundaries, where the function has kinks)."""
    x = RNG.standard_normal((1, 2, 4, 5))
    g = RNG.uniform(-1.3, 1.3, (1, 3, 2, 2))
    w = RNG.standard_normal((1, 2, 3, 2))

    def loss(a, b):
        return (ops.grid_sample(a, b, mode, padding, False) * ms.Tensor(w)).sum()

    gx, gg = ms.grad(loss, (0, 1))(ms.Tensor(x), ms.Tensor(g))
    tx, tg = torch.from_numpy(x).requires_grad_(), torch.from_numpy(g).requires_grad_()
    (torch.nn.functional.grid_sample(tx, tg, mode, padding, False) * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gg.asnumpy(), tg.grad.numpy(), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize(("theta_shape", "size"), [((2, 2, 3), (2, 3, 4, 5)), ((1, 3, 4), (1, 2, 3, 4, 2))])
def test_affine_grid_matches_torch(align, theta_shape, size) -> None:
    theta = RNG.standard_normal(theta_shape).astype(np.float32)
    got = ops.affine_grid(ms.Tensor(theta), size, align).asnumpy()
    want = torch.nn.functional.affine_grid(torch.from_numpy(theta), size, align).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_grid_sample_3d_gradients_match_torch(graph_mode) -> None:
    x = RNG.standard_normal((1, 2, 3, 4, 3))
    g = RNG.uniform(-1.2, 1.2, (1, 2, 2, 2, 3))
    w = RNG.standard_normal((1, 2, 2, 2, 2))

    def loss(a, b):
        return (ops.grid_sample(a, b, "bilinear", "border", True) * ms.Tensor(w)).sum()

    gx, gg = ms.grad(loss, (0, 1))(ms.Tensor(x), ms.Tensor(g))
    tx, tg = torch.from_numpy(x).requires_grad_(), torch.from_numpy(g).requires_grad_()
    (torch.nn.functional.grid_sample(tx, tg, "bilinear", "border", True) * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gg.asnumpy(), tg.grad.numpy(), rtol=1e-3, atol=1e-4)
