"""Part 2 of #18: MindSpore 2.x's lower-case ops functions against NumPy, in both modes."""

from __future__ import annotations

import math

import numpy as np
import pytest

import opbuild.ops as ops

from ._util import close, run

pytestmark = pytest.mark.slow

R = np.random.default_rng(0)
X = R.standard_normal((3, 4)).astype(np.float32)
Y = R.standard_normal((3, 4)).astype(np.float32)
P = np.abs(X) + 0.5
_erf = np.vectorize(math.erf)

UNARY = [
    ("abs", ops.abs, X, np.abs), ("exp", ops.exp, X, np.exp), ("log", ops.log, P, np.log),
    ("sqrt", ops.sqrt, P, np.sqrt), ("rsqrt", ops.rsqrt, P, lambda a: 1 / np.sqrt(a)),
    ("sin", ops.sin, X, np.sin), ("cos", ops.cos, X, np.cos), ("tanh", ops.tanh, X, np.tanh),
    ("sigmoid", ops.sigmoid, X, lambda a: 1 / (1 + np.exp(-a))), ("relu", ops.relu, X, lambda a: np.maximum(a, 0)),
    ("relu6", ops.relu6, X * 5, lambda a: np.clip(a, 0, 6)),
    ("gelu", ops.gelu, X, lambda a: 0.5 * a * (1 + _erf(a / np.sqrt(2)))),
    ("gelu_tanh", lambda t: ops.gelu(t, approximate="tanh"), X,
     lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3)))),
    ("silu", ops.silu, X, lambda a: a / (1 + np.exp(-a))),
    ("softplus", lambda t: ops.softplus(t, beta=2, threshold=1), X,
     lambda a: np.where(2 * a > 1, a, np.log1p(np.exp(2 * a)) / 2)),
    ("erf", ops.erf, X, _erf), ("floor", ops.floor, X * 3, np.floor), ("ceil", ops.ceil, X * 3, np.ceil),
    ("round", ops.round, X * 3, np.round), ("neg", ops.neg, X, np.negative), ("square", ops.square, X, np.square),
    ("reciprocal", ops.reciprocal, P, np.reciprocal), ("logical_not", ops.logical_not, X > 0, np.logical_not),
    ("sum", ops.sum, X, np.sum), ("sum_dim", lambda t: ops.sum(t, dim=1, keepdim=True), X,
                                  lambda a: a.sum(1, keepdims=True)),
    ("mean", lambda t: ops.mean(t, axis=(0, 1)), X, np.mean),
    ("mean_keep", lambda t: ops.mean(t, axis=0, keep_dims=True), X, lambda a: a.mean(0, keepdims=True)),
    ("prod", lambda t: ops.prod(t, 1), X, lambda a: a.prod(1)),
    ("argmax", lambda t: ops.argmax(t, dim=1), X, lambda a: a.argmax(1)),
    ("argmax_all", ops.argmax, X, np.argmax),
    ("argmin", lambda t: ops.argmin(t, axis=0, keepdims=True), X, lambda a: a.argmin(0)[None]),
    ("softmax", lambda t: ops.softmax(t, axis=0), X, lambda a: np.exp(a) / np.exp(a).sum(0)),
    ("log_softmax", ops.log_softmax, X, lambda a: a - np.log(np.exp(a).sum(-1, keepdims=True))),
    ("clamp", lambda t: ops.clamp(t, -0.5, 0.5), X, lambda a: np.clip(a, -0.5, 0.5)),
    ("clip_min", lambda t: ops.clip(t, min=0.1), X, lambda a: np.maximum(a, 0.1)),
    ("reshape", lambda t: ops.reshape(t, (2, -1)), X, lambda a: a.reshape(2, 6)),
    ("transpose", lambda t: ops.transpose(t, (1, 0)), X, lambda a: a.T),
    ("permute", lambda t: ops.permute(t[None], (2, 0, 1)), X, lambda a: a[None].transpose(2, 0, 1)),
    ("unsqueeze", lambda t: ops.unsqueeze(t, -1), X, lambda a: a[..., None]),
    ("expand_dims", lambda t: ops.expand_dims(t, 0), X, lambda a: a[None]),
    ("squeeze", lambda t: ops.squeeze(ops.expand_dims(t, 1)), X, lambda a: a),
    ("flatten", ops.flatten, X[None], lambda a: a.reshape(1, -1)),
    ("ones_like", ops.ones_like, X, np.ones_like), ("zeros_like", ops.zeros_like, X, np.zeros_like),
    ("gather", lambda t: ops.gather(t, ops.full((2,), 2, dtype="int32"), 1), X, lambda a: a[:, [2, 2]]),
    ("pad", lambda t: ops.pad(t, (1, 2, 0, 1), value=3.0), X,
     lambda a: np.pad(a, ((0, 1), (1, 2)), constant_values=3.0)),
    ("dropout_eval", lambda t: ops.dropout(t, p=0.3, training=False), X, lambda a: a),
    ("layer_norm", lambda t: ops.layer_norm(t, (4,), eps=1e-5), X,
     lambda a: (a - a.mean(-1, keepdims=True)) / np.sqrt(a.var(-1, keepdims=True) + 1e-5)),
    ("matmul_vec", lambda t: ops.matmul(t, t[0]), X, lambda a: a @ a[0]),
]


@pytest.mark.parametrize("name, fn, x, ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary_functions(mode, name, fn, x, ref):
    out = run(mode, fn, x)
    close(out, ref(x), rtol=1e-4, atol=1e-5)


BINARY = [
    ("add", ops.add, np.add), ("sub", ops.sub, np.subtract), ("mul", ops.mul, np.multiply),
    ("div", ops.div, np.divide), ("div_floor", lambda a, b: ops.div(a, b, rounding_mode="floor"), np.floor_divide),
    ("div_trunc", lambda a, b: ops.div(a, b, rounding_mode="trunc"), lambda a, b: np.trunc(a / b)),
    ("pow", lambda a, b: ops.pow(ops.abs(a), b), lambda a, b: np.abs(a) ** b),
    ("maximum", ops.maximum, np.maximum), ("minimum", ops.minimum, np.minimum),
    ("equal", ops.equal, np.equal), ("ne", ops.ne, np.not_equal), ("greater", ops.greater, np.greater),
    ("ge", ops.ge, np.greater_equal), ("less", ops.less, np.less), ("le", ops.le, np.less_equal),
    ("logical_and", lambda a, b: ops.logical_and(a > 0, b > 0), lambda a, b: (a > 0) & (b > 0)),
    ("logical_or", lambda a, b: ops.logical_or(a > 0, b > 0), lambda a, b: (a > 0) | (b > 0)),
    ("logical_xor", lambda a, b: ops.logical_xor(a > 0, b > 0), lambda a, b: (a > 0) ^ (b > 0)),
    ("where", lambda a, b: ops.where(a > b, a, b), lambda a, b: np.where(a > b, a, b)),
    ("matmul", lambda a, b: ops.matmul(a, ops.transpose(b, (1, 0))), lambda a, b: a @ b.T),
    ("bmm", lambda a, b: ops.bmm(a[None], ops.transpose(b, (1, 0))[None]), lambda a, b: (a @ b.T)[None]),
    ("cat", lambda a, b: ops.cat((a, b), axis=1), lambda a, b: np.concatenate((a, b), 1)),
    ("concat", lambda a, b: ops.concat([a, b]), lambda a, b: np.concatenate((a, b))),
    ("stack", lambda a, b: ops.stack([a, b], axis=-1), lambda a, b: np.stack([a, b], -1)),
    ("mse_loss", ops.mse_loss, lambda a, b: ((a - b) ** 2).mean()),
    ("mse_loss_none", lambda a, b: ops.mse_loss(a, b, reduction="none"), lambda a, b: (a - b) ** 2),
]


@pytest.mark.parametrize("name, fn, ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_functions(mode, name, fn, ref):
    close(run(mode, fn, X, Y), ref(X, Y), rtol=1e-4, atol=1e-5)


def test_scalar_operands_take_the_tensor_dtype(mode):
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = run(mode, lambda t: ops.add(ops.mul(t, 2), 1), i)
    assert out.dtype == np.int32 and (out == i * 2 + 1).all()


def test_max_min_return_values_and_indices(mode):
    v, i = run(mode, lambda t: ops.max(t, axis=1, keepdims=True), X)
    close(v, X.max(1, keepdims=True)), close(i, X.argmax(1)[:, None])
    assert i.dtype == np.int64  # MindSpore 2.10's index dtype (tests/fixtures/mindspore/surface.json)
    v, i = run(mode, lambda t: ops.min(t, 0), X)
    close(v, X.min(0)), close(i, X.argmin(0))
    v, i = run(mode, ops.max, X)
    close(v, X.max()), close(i, 0)  # axis None: index 0, MindSpore's documented rule


def test_split(mode):
    a = np.arange(20, dtype=np.float32).reshape(5, 4)
    for arg, ref in [(2, np.split(a, [2, 4])), ([1, 4], np.split(a, [1])), (5, [a])]:
        outs = run(mode, lambda t, arg=arg: ops.split(t, arg), a)
        assert len(outs) == len(ref) and all(np.array_equal(o, r) for o, r in zip(outs, ref))
    outs = run(mode, lambda t: ops.split(t, 2, axis=1), a)
    assert all(np.array_equal(o, r) for o, r in zip(outs, np.split(a, 2, 1)))


def test_creation(mode):
    out = run(mode, lambda t: (ops.ones((2, 3)), ops.zeros(4, "int32"), ops.full((2,), 1.5, dtype="float32"),
                               ops.full((1,), 3), ops.ones_like(t, dtype="int64")), X)
    assert out[0].dtype == np.float32 and (out[0] == 1).all() and out[0].shape == (2, 3)
    assert out[1].dtype == np.int32 and (out[1] == 0).all()
    assert (out[2] == 1.5).all() and out[3].dtype == np.int64 and out[4].dtype == np.int64


def test_one_hot(mode):
    ids = np.array([[0, 2], [3, 1]], np.int32)
    out = run(mode, lambda t: ops.one_hot(t, 3), ids)
    assert out.dtype == np.int64  # the Python int defaults on_value=1, off_value=0 give int64, as MindSpore's
    close(out, (ids[..., None] == np.arange(3)).astype(np.int64))  # id 3 is out of range: a zero row
    out = run(mode, lambda t: ops.one_hot(t, 3, 5.0, -1.0, axis=0), ids)
    close(out, np.where(np.arange(3)[:, None, None] == ids[None], 5.0, -1.0))


def _np_ce(x, t, w=None, ignore=-100, smooth=0.0):
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    c = x.shape[1]
    w = np.ones(c) if w is None else w
    valid = t != ignore
    tt = np.where(valid, t, 0)
    nll = -logp[np.arange(len(t)), tt] * w[tt] * valid
    smooth_l = -(logp * w).sum(1) * valid
    loss = (1 - smooth) * nll + smooth / c * smooth_l
    return loss.sum() / (w[tt] * valid).sum()


def test_cross_entropy(mode):
    x = R.standard_normal((6, 4)).astype(np.float32)
    t = np.array([0, 3, 1, -100, 2, 3], np.int32)
    w = np.array([1.0, 2.0, 0.5, 1.5], np.float32)
    close(run(mode, lambda a, b: ops.cross_entropy(a, b), x, t), _np_ce(x, t), rtol=1e-5)
    close(run(mode, lambda a, b, c: ops.cross_entropy(a, b, c, label_smoothing=0.1), x, t, w),
          _np_ce(x, t, w, smooth=0.1), rtol=1e-5)
    probs = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    close(run(mode, lambda a, b: ops.cross_entropy(a, b, reduction="sum"), x, probs), -(probs * logp).sum(),
          rtol=1e-5)


def test_conv_and_pooling(mode):
    x = R.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = R.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = R.standard_normal(4).astype(np.float32)
    out = run(mode, lambda a, k, c: ops.conv2d(a, k, c, pad_mode="pad", padding=1), x, w, b)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    close(out, np.einsum("nchwij,ocij->nohw", win, w) + b[:, None, None], rtol=1e-4, atol=1e-4)
    mp = run(mode, lambda a: ops.max_pool2d(a, 2), x)
    close(mp, x.reshape(2, 3, 3, 2, 3, 2).max(axis=(3, 5)))
    ap = run(mode, lambda a: ops.avg_pool2d(a, 2, 2), x)
    close(ap, x.reshape(2, 3, 3, 2, 3, 2).mean(axis=(3, 5)))
    ap = run(mode, lambda a: ops.avg_pool2d(a, 2, 2, divisor_override=1), x)
    close(ap, x.reshape(2, 3, 3, 2, 3, 2).sum(axis=(3, 5)), rtol=1e-5)


def test_dropout_in_training(mode):
    """Kept elements are scaled by 1 / (1 - p), about p of them are dropped, a compiled graph draws a new mask
    at every call, and a given seed makes the masks repeatable; p=1 zeroes everything."""
    import opbuild as ms
    from opbuild.nn import Cell

    class Drop(Cell):
        def construct(self, x):
            return ops.dropout(x, p=0.25, seed=1234)

    x = np.ones((64, 64), np.float32)
    net = Drop()
    first, second = net(ms.Tensor(x)).asnumpy(), net(ms.Tensor(x)).asnumpy()
    for y in (first, second):
        assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
        assert 0.2 < float(np.mean(y == 0)) < 0.3
    assert not np.array_equal(first, second)
    close(run(mode, lambda a: ops.dropout(a, p=1.0), x), np.zeros_like(x))
    with pytest.raises(ValueError, match="p must be in"):
        ops.dropout(ops.ones((2,)), p=1.5)
