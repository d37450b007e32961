"""Loss primitives whose gradient the forward kernel computes, as MindSpore's do:
``SoftmaxCrossEntropyWithLogits(logits, labels) -> (loss, backprop)`` (dense labels; ``backprop`` is
``softmax(logits) - labels``, the gradient of the per-sample loss) and
``SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)`` (class indices; the mean loss, or with
``is_grad=True`` its gradient, which is the internal backward op ``SparseSoftmaxCrossEntropyWithLogitsGrad``
with a kernel of its own).

Rows are ``(N, C)`` and contiguous: each is reduced in one pass for its maximum and one for the sum of
exponentials (accumulated in double, so float32 losses of wide rows keep their precision); log-softmax is
``x - max - log(sum)``. A label index outside ``[0, C)`` cannot raise inside a kernel: its row's loss and
gradient are NaN, so a bad label is visible in the loss rather than silently ignored.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.dtypes import FLOATS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from . import gradlib as G
from .primitive import Primitive, apply, defop
from .registry import grad_rule, same_dtype

_INDEX = ("int32", "int64")


def _no_attrs(op: str):
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        if attrs:
            raise ShapeError(op, f"takes no attributes, got {sorted(attrs)}", list(ins))
        return {}

    return normalize


def _logits(op: str, ins: Sequence[TensorType]) -> tuple[int, int]:
    x = ins[0]
    if x.rank != 2:
        raise ShapeError(op, f"logits must have rank 2 (N, C), got rank {x.rank}", list(ins))
    if x.dtype not in FLOATS:
        raise ShapeError(op, f"logits must be float, got {x.dtype}", list(ins))
    return x.shape


# ---- SoftmaxCrossEntropyWithLogits (dense labels) ----------------------------------------------------

def _sce_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    n, c = _logits("SoftmaxCrossEntropyWithLogits", ins)
    dt = same_dtype("SoftmaxCrossEntropyWithLogits", ins, FLOATS)
    if ins[1].shape != ins[0].shape:
        raise ShapeError("SoftmaxCrossEntropyWithLogits", "labels must have the shape of logits", list(ins))
    return [TensorType((n,), dt), TensorType((n, c), dt)]


def _log_softmax(x: np.ndarray) -> np.ndarray:
    z = x - np.max(x, axis=-1, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))


def _sce_ref(attrs: dict, logits: np.ndarray, labels: np.ndarray):
    lp = _log_softmax(logits.astype(np.float64))
    return -(labels * lp).sum(-1), np.exp(lp) - labels


@defop(infer=_sce_infer, reference=_sce_ref, normalize=_no_attrs("SoftmaxCrossEntropyWithLogits"),
       n_inputs=2, multi_output=True)
class SoftmaxCrossEntropyWithLogits(Primitive):
    """``SoftmaxCrossEntropyWithLogits()(logits, labels) -> (loss, backprop)``: logits and labels (a
    probability per class) of shape (N, C); ``loss[n] = -sum_c labels[n, c] * log_softmax(logits)[n, c]``
    of shape (N,) and ``backprop = softmax(logits) - labels``, the gradient the backward scales by the
    loss's cotangent (MindSpore computes it in the forward too)."""


@grad_rule("SoftmaxCrossEntropyWithLogits")
def _sce_grad(attrs, ins, outs, douts):
    # MindSpore's bprop: dlogits = backprop * dloss[:, None]; the labels get no gradient (its bprop returns
    # zeros for them), and the backprop output is not differentiated through.
    dloss = douts[0]
    if dloss is None:
        return [None, None]
    n = ins[0].shape[0]
    return [G.mul(outs[1], G.reshape(dloss, (n, 1))), None]


# ---- SparseSoftmaxCrossEntropyWithLogits (class indices) -------------------------------------------------

def _sparse_infer(grad: bool):
    op = "SparseSoftmaxCrossEntropyWithLogits" + ("Grad" if grad else "")

    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        n, c = _logits(op, ins)
        if ins[1].dtype not in _INDEX or ins[1].shape != (n,):
            raise ShapeError(op, f"labels must be int32 or int64 class indices of shape ({n},)", list(ins))
        return [TensorType((n, c) if grad else (), ins[0].dtype)]

    return infer


def _sparse_ref(grad: bool):
    def ref(attrs: dict, logits: np.ndarray, labels: np.ndarray):
        n, c = logits.shape
        lp = _log_softmax(logits.astype(np.float64))
        onehot = np.eye(c)[labels]
        return (np.exp(lp) - onehot) / n if grad else -(lp * onehot).sum() / n

    return ref


@defop(infer=_sparse_infer(True), reference=_sparse_ref(True),
       normalize=_no_attrs("SparseSoftmaxCrossEntropyWithLogitsGrad"), n_inputs=2, scenario="backward")
class SparseSoftmaxCrossEntropyWithLogitsGrad(Primitive):
    """Internal backward op: ``(softmax(logits) - onehot(labels)) / N``, the gradient of the mean sparse
    softmax cross entropy (what MindSpore's primitive returns with ``is_grad=True``)."""


def _sparse_init(self, is_grad: bool = False) -> None:
    if not isinstance(is_grad, bool):
        raise TypeError(f"SparseSoftmaxCrossEntropyWithLogits: is_grad must be a bool, got {is_grad!r}")
    Primitive.__init__(self, is_grad=is_grad)


def _sparse_call(self, logits, labels):
    op = "SparseSoftmaxCrossEntropyWithLogits" + ("Grad" if self.attrs["is_grad"] else "")
    return apply(op, {}, [logits, labels])


@defop(infer=_sparse_infer(False), reference=_sparse_ref(False),
       normalize=_no_attrs("SparseSoftmaxCrossEntropyWithLogits"), n_inputs=2)
class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """``SparseSoftmaxCrossEntropyWithLogits(is_grad=False)(logits, labels)``: logits (N, C), labels (N,) int32
    or int64 class indices; the mean over the batch of ``-log_softmax(logits)[n, labels[n]]`` (a scalar), or
    with ``is_grad=True`` its gradient with respect to the logits, (N, C)."""

    __init__ = _sparse_init
    __call__ = _sparse_call


@grad_rule("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_grad(attrs, ins, outs, douts):
    # MindSpore's bprop: the is_grad=True kernel times the scalar cotangent; labels are indices (no gradient).
    if douts[0] is None:
        return [None, None]
    g = apply("SparseSoftmaxCrossEntropyWithLogitsGrad", {}, [ins[0], ins[1]])
    return [G.mul(g, douts[0]), None]


# SparseSoftmaxCrossEntropyWithLogitsGrad's rule (second-order derivatives): ops/backward_grads.py.

PRIMITIVES: dict[str, type[Primitive]] = {
    "SoftmaxCrossEntropyWithLogits": SoftmaxCrossEntropyWithLogits,
    "SparseSoftmaxCrossEntropyWithLogits": SparseSoftmaxCrossEntropyWithLogits}
