"""MindSpore's ``ops`` names of its in-place and ``*_ext`` functions that its CPU backend has no kernel for
(ops/api/inplace_ext.py): checked against PyTorch and NumPy, and for the in-place ones that the argument itself
changes and is returned."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import ops

A = np.array([[1.5, -2.0], [3.0, 0.5]], np.float32)


def _t() -> ms.Tensor:
    return ms.Tensor(A.copy())


@pytest.mark.parametrize(("name", "ref"), [
    ("tanh_", np.tanh), ("inplace_sigmoid", lambda v: 1 / (1 + np.exp(-v))), ("zero_", np.zeros_like),
    ("erfinv_", None)])
def test_unary_in_place(name, ref, pynative_mode):
    x = ms.Tensor(A / 4) if name == "erfinv_" else _t()
    before = x.asnumpy().copy()
    out = getattr(ops, name)(x)
    assert out is x
    if ref is None:
        torch = pytest.importorskip("torch", reason="torch (CPU) is the reference of erfinv")
        want = torch.special.erfinv(torch.from_numpy(before)).numpy()
    else:
        want = ref(before)
    np.testing.assert_allclose(x.asnumpy(), want, rtol=1e-6, atol=1e-7)


def test_clamp_and_put_in_place(pynative_mode):
    torch = pytest.importorskip("torch", reason="torch (CPU) is the reference of put_")
    x = _t()
    assert ops.clamp_(x, 0.0, 1.0) is x and x.asnumpy().tolist() == [[1.0, 0.0], [1.0, 0.5]]
    with pytest.raises(ValueError, match="give min, max or both"):
        ops.clamp_(x)
    idx, src = np.array([0, 3, -1, 0]), np.array([9.0, 8.0, 1.0, 2.0], np.float32)
    for accumulate in (False, True):
        x = _t()
        ops.put_(x, ms.Tensor(idx), ms.Tensor(src), accumulate)
        want = torch.from_numpy(A.copy())
        if accumulate:
            want.put_(torch.from_numpy(idx), torch.from_numpy(src), accumulate=True)
        else:  # torch leaves repeated positions undefined without accumulate; the last write wins here
            want.view(-1)[torch.from_numpy(idx)] = torch.from_numpy(src)
        np.testing.assert_array_equal(x.asnumpy(), want.numpy())
    with pytest.raises(IndexError, match="out of range"):
        ops.put_(_t(), ms.Tensor([4]), ms.Tensor([1.0]))
    with pytest.raises(ValueError, match="index has 2 elements but source has 1"):
        ops.put_(_t(), ms.Tensor([0, 1]), ms.Tensor([1.0]))


def test_random_fills_follow_their_generator(pynative_mode):
    big = ms.Tensor(np.zeros((200, 100), np.float32))
    ops.normal_(big, 2.0, 0.5)
    assert abs(big.asnumpy().mean() - 2.0) < 0.02 and abs(big.asnumpy().std() - 0.5) < 0.02
    ops.exponential_(big, 4.0)
    assert big.asnumpy().min() >= 0 and abs(big.asnumpy().mean() - 0.25) < 0.01
    ops.bernoulli_(big, 0.3)
    assert set(np.unique(big.asnumpy())) <= {0.0, 1.0} and abs(big.asnumpy().mean() - 0.3) < 0.02
    draws = []
    for _ in range(2):
        ms.manual_seed(5)
        draws.append(ops.normal_(ms.Tensor(np.zeros(8, np.float32))).asnumpy())
    np.testing.assert_array_equal(*draws)
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]"):
        ops.bernoulli_(big, 1.5)
    with pytest.raises(TypeError, match="float tensor"):
        ops.normal_(ms.Tensor([1, 2]))
    probs = ms.Tensor(np.array([0.0, 1.0, 1.0, 0.0], np.float32))
    assert ops.bernoulli_ext(probs).asnumpy().tolist() == [0.0, 1.0, 1.0, 0.0]


def test_swiglu_and_rms_norm_match_their_definitions(pynative_mode):
    torch = pytest.importorskip("torch", reason="torch (CPU) is the reference of silu")
    x = np.random.default_rng(0).standard_normal((3, 4, 6)).astype(np.float32)
    for dim in (-1, 1):
        a, b = torch.from_numpy(x).chunk(2, dim=dim)
        np.testing.assert_allclose(ops.swiglu(ms.Tensor(x), dim).asnumpy(), (torch.nn.functional.silu(a) * b).numpy(),
                                   rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="must split into two halves"):
        ops.swiglu(ms.Tensor(x), 0)  # axis 0 has 3 elements
    gamma = np.linspace(0.5, 2.0, 6).astype(np.float32)
    y, rstd = ops.rms_norm(ms.Tensor(x), ms.Tensor(gamma), 1e-5)
    want_rstd = 1 / np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-5)
    assert rstd.shape == (3, 4, 1) and rstd.dtype == ms.float32
    np.testing.assert_allclose(rstd.asnumpy(), want_rstd, rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), x * want_rstd * gamma, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="trailing axes"):
        ops.rms_norm(ms.Tensor(x), ms.Tensor(gamma[:4]))


def test_ext_names_equal_the_functions_they_name(pynative_mode):
    x, y = ms.Tensor(A), ms.Tensor(A[::-1].copy())
    b1 = ms.Tensor(np.stack([A, A.T]))
    assert ops.type_as(x, ms.Tensor([1])).dtype == ms.int64
    np.testing.assert_array_equal(ops.mse_loss_ext(x, y).asnumpy(), ops.mse_loss(x, y).asnumpy())
    img = ms.Tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4))
    np.testing.assert_array_equal(ops.adaptive_avg_pool2d_ext(img, (2, 2)).asnumpy(),
                                  ops.adaptive_avg_pool2d(img, (2, 2)).asnumpy())
    np.testing.assert_array_equal(ops.baddbmm_ext(b1, b1, b1, beta=0.5, alpha=2).asnumpy(),
                                  ops.baddbmm(b1, b1, b1, beta=0.5, alpha=2).asnumpy())
    np.testing.assert_allclose(ops.einsum_ext("ij,jk->ik", x, y).asnumpy(), A @ A[::-1], rtol=1e-6)
    np.testing.assert_array_equal(ops.tensor_muls(x, 2.5).asnumpy(), A * 2.5)
    with pytest.raises(TypeError, match="Python number"):
        ops.tensor_muls(x, y)
    assert ops.scalar_to_array(3.5).dtype == ms.float32 and ops.scalar_to_array(3).dtype == ms.int64
    assert ops.array_to_scalar(ms.Tensor([[2.5]])) == 2.5
    moved = ops.move_to([1, 2, 3])
    assert moved.asnumpy().tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="CPU only"):
        ops.move_to(x, "Ascend")
