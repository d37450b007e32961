"""In-place state updates: Assign, AssignAdd and the fused optimizer updates ApplyMomentum, SGD, Adam and
AdamWeightDecay (MindSpore's primitives, same inputs in the same order, same attributes).

Each op writes Parameters in place (``OpDef.inplace``; MindSpore's Ref inputs): the updated variable and its
state (moments, accumulation, SGD's ``stat``) are outputs bound to the input Parameters' own buffers, so a
kernel call is the whole update of one parameter, one pass over its elements. MindSpore's primitives return
only the updated variable; the IR lists every buffer written as an output (the executor and the trace need
to know each write), and the primitive's ``__call__`` returns the first one, as MindSpore's does.

Scalar inputs (learning rate, momentum, betas, epsilon, decay) are tensors with one element (shape ``()`` or
``(1,)``) of the variable's dtype: a learning-rate schedule changes their value, never the kernel.

Kernels (the CPU's: targets/cpu/kernels/optim.py) are called with an in-place output and its input at the
same address when the graph runs (the executor binds them); in PyNative the session passes the input array
as the output too.

Half types (float16, bfloat16; MindSpore's optimizers take float16 parameters): per element every state
buffer and the gradient are loaded into float, the update is computed in float32 and each buffer is rounded
once when stored back (docs/dtypes.md). The scalars of a half variable may be in its type or in float32 (an
Adam ``beta2`` of 0.999 is 0.99902 in float16); a float32 scalar is a different input type, so a different
kernel and cache entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core.dtypes import ALL_FLOATS, ALL_NUMERIC, HALFS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from .primitive import Primitive, apply, defop
from .registry import no_grad


def _check_attrs(op: str, attrs: dict, allowed: dict, ins: Sequence[TensorType]) -> dict:
    """Canonical attrs: every allowed key present (defaults filled), unknown keys refused, types checked."""
    unknown = set(attrs) - set(allowed)
    if unknown:
        raise ShapeError(op, f"unknown attribute(s) {sorted(unknown)} (expected {', '.join(sorted(allowed))})",
                         list(ins))
    out = {}
    for key, default in allowed.items():
        v = attrs.get(key, default)
        if isinstance(default, bool):
            if not isinstance(v, (bool, np.bool_)):
                raise ShapeError(op, f"{key} must be a bool, got {v!r}", list(ins))
            out[key] = bool(v)
        else:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise ShapeError(op, f"{key} must be a float, got {v!r}", list(ins))
            out[key] = float(v)
    return out


def _update_infer(op: str, tensors: Sequence[int], scalars: Sequence[int], state: Sequence[int],
                  dtypes: Sequence[str] = ALL_FLOATS) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    """Infer for an update op: inputs at ``tensors`` share the variable's (input 0's) shape and dtype, inputs at
    ``scalars`` hold one element of that dtype (or of float32 for a half variable); the outputs are the inputs
    at ``state`` (updated in place)."""

    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        var = ins[0]
        if var.dtype not in dtypes:
            raise ShapeError(op, f"dtype {var.dtype} is not supported (supported: {', '.join(dtypes)})", list(ins))
        for i in tensors:
            if ins[i] != var:
                raise ShapeError(op, f"input {i} must have the variable's type {var}, got {ins[i]}", list(ins))
        scalar_dtypes = (var.dtype, "float32") if var.dtype in HALFS else (var.dtype,)
        for i in scalars:
            if ins[i].size != 1 or ins[i].dtype not in scalar_dtypes:
                raise ShapeError(op, f"input {i} must be a one-element {' or '.join(scalar_dtypes)} tensor (a "
                                 f"scalar), got {ins[i]}", list(ins))
        return [ins[i] for i in state]

    return infer


def _scalar(a: np.ndarray) -> np.ndarray:
    return np.asarray(a).reshape(())


def _half_in_float32(ref: Callable[..., tuple]) -> Callable[..., tuple]:
    """The reference of an update of a half variable: every input in float32, each result rounded once to its
    buffer's type (the kernels' rule); other dtypes run ``ref`` as it is."""
    def wrapped(attrs: dict, *arrays: np.ndarray) -> tuple:
        var = np.asarray(arrays[0])
        if var.dtype.name not in HALFS:
            return ref(attrs, *arrays)
        outs = ref(attrs, *(np.asarray(a).astype(np.float32) for a in arrays))
        return tuple(np.asarray(o).astype(var.dtype) for o in outs)

    return wrapped


# ---- Assign / AssignAdd --------------------------------------------------------------------------------

def _assign_normalize(op: str) -> Callable[[dict, Sequence[TensorType]], dict]:
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        _check_attrs(op, attrs, {"use_locking": False}, ins)
        return {}  # use_locking does not change the kernel

    return normalize


def _assign_infer(op: str) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        var, value = ins
        if var.dtype not in ALL_NUMERIC:
            raise ShapeError(op, f"dtype {var.dtype} is not supported", list(ins))
        if value.dtype != var.dtype or value.shape != var.shape:
            raise ShapeError(op, f"value must have the variable's type {var}, got {value}", list(ins))
        return [var]

    return infer


@defop(infer=_assign_infer("Assign"), normalize=_assign_normalize("Assign"), n_inputs=2,
       reference=lambda attrs, var, value: value.copy(), inplace=((0, 0),), scenario="update")
class Assign(Primitive):
    """``Assign()(variable, value)``: writes ``value`` into the Parameter ``variable``; returns it."""

    def __init__(self, use_locking: bool = False):
        super().__init__()


@defop(infer=_assign_infer("AssignAdd"), normalize=_assign_normalize("AssignAdd"),
       n_inputs=2, reference=lambda attrs, var, value: var + value, inplace=((0, 0),), scenario="update")
class AssignAdd(Primitive):
    """``AssignAdd()(variable, value)``: ``variable += value`` in place (a Parameter); returns it."""

    def __init__(self, use_locking: bool = False):
        super().__init__()


# ---- ApplyMomentum -------------------------------------------------------------------------------------
# accumulation = accumulation * momentum + gradient * gradient_scale
# variable -= lr * (gradient * gradient_scale + accumulation * momentum)   if use_nesterov
# variable -= lr * accumulation                                            otherwise

def _momentum_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    a = _check_attrs("ApplyMomentum", attrs, {"use_locking": False, "use_nesterov": False,
                                              "gradient_scale": 1.0}, ins)
    return {"use_nesterov": a["use_nesterov"], "gradient_scale": a["gradient_scale"]}


def _momentum_ref(attrs: dict, var, accum, lr, grad, momentum):
    lr, momentum = _scalar(lr), _scalar(momentum)
    g = grad * attrs["gradient_scale"]
    accum = accum * momentum + g
    var = var - lr * (g + accum * momentum) if attrs["use_nesterov"] else var - lr * accum
    return var, accum


@defop(infer=_update_infer("ApplyMomentum", tensors=(1, 3), scalars=(2, 4), state=(0, 1)),
       normalize=_momentum_normalize, n_inputs=5, reference=_half_in_float32(_momentum_ref),
       inplace=((0, 0), (1, 1)), scenario="update")
class ApplyMomentum(Primitive):
    """``ApplyMomentum(use_locking=False, use_nesterov=False, gradient_scale=1.0)(variable, accumulation,
    learning_rate, gradient, momentum)``: the momentum update of the Parameters ``variable`` and
    ``accumulation`` in place; returns the updated variable."""

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False, gradient_scale: float = 1.0):
        super().__init__(use_locking=use_locking, use_nesterov=use_nesterov, gradient_scale=gradient_scale)

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        return apply("ApplyMomentum", self.attrs, [variable, accumulation, learning_rate, gradient, momentum])[0]


# ---- SGD -----------------------------------------------------------------------------------------------
# g = gradient + weight_decay * parameters
# if momentum > 0: accum = g if stat > 0 (the first step; stat is then cleared) else
#                          accum * momentum + (1 - dampening) * g;  g = g + momentum * accum if nesterov else accum
# parameters -= lr * g

def _sgd_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    a = _check_attrs("SGD", attrs, {"dampening": 0.0, "weight_decay": 0.0, "nesterov": False}, ins)
    if a["nesterov"] and a["dampening"] != 0.0:
        raise ShapeError("SGD", "nesterov needs dampening == 0", list(ins))
    return a


def _sgd_ref(attrs: dict, param, grad, lr, accum, momentum, stat):
    lr, momentum = _scalar(lr), _scalar(momentum)
    g = grad + attrs["weight_decay"] * param
    accum, stat = accum.copy(), stat.copy()
    if momentum > 0:
        first = stat > 0
        accum = np.where(first, g, accum * momentum + (1 - attrs["dampening"]) * g)
        stat = np.where(first, 0, stat)
        g = g + momentum * accum if attrs["nesterov"] else accum
    return param - lr * g, accum, stat


@defop(infer=_update_infer("SGD", tensors=(1, 3, 5), scalars=(2, 4), state=(0, 3, 5)),
       normalize=_sgd_normalize, n_inputs=6, reference=_half_in_float32(_sgd_ref),
       inplace=((0, 0), (1, 3), (2, 5)), scenario="update")
class SGD(Primitive):
    """``SGD(dampening=0.0, weight_decay=0.0, nesterov=False)(parameters, gradient, learning_rate, accum,
    momentum, stat)``: stochastic gradient descent with momentum (PyTorch's formula, as MindSpore's), updating
    the Parameters ``parameters``, ``accum`` and ``stat`` (ones before the first step) in place."""

    def __init__(self, dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False):
        super().__init__(dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)

    def __call__(self, parameters, gradient, learning_rate, accum, momentum, stat):
        return apply("SGD", self.attrs, [parameters, gradient, learning_rate, accum, momentum, stat])[0]


# ---- Adam ----------------------------------------------------------------------------------------------
# lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
# m += (g - m) * (1 - beta1);  v += (g * g - v) * (1 - beta2)
# var -= lr_t * (m * beta1 + (1 - beta1) * g) / (epsilon + sqrt(v))   if use_nesterov
# var -= lr_t * m / (epsilon + sqrt(v))                               otherwise

def _adam_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    a = _check_attrs("Adam", attrs, {"use_locking": False, "use_nesterov": False}, ins)
    return {"use_nesterov": a["use_nesterov"]}


def _adam_ref(attrs: dict, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    b1p, b2p, lr, b1, b2, eps = (_scalar(x) for x in (beta1_power, beta2_power, lr, beta1, beta2, epsilon))
    lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
    m = m + (grad - m) * (1 - b1)
    v = v + (grad * grad - v) * (1 - b2)
    num = m * b1 + (1 - b1) * grad if attrs["use_nesterov"] else m
    return var - lr_t * num / (eps + np.sqrt(v)), m, v


@defop(infer=_update_infer("Adam", tensors=(1, 2, 9), scalars=(3, 4, 5, 6, 7, 8), state=(0, 1, 2)),
       normalize=_adam_normalize, n_inputs=10, reference=_half_in_float32(_adam_ref),
       inplace=((0, 0), (1, 1), (2, 2)), scenario="update")
class Adam(Primitive):
    """``Adam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr, beta1, beta2,
    epsilon, gradient)``: the Adam update (bias correction folded into ``lr_t``) of the Parameters ``var``,
    ``m`` and ``v`` in place; returns the updated ``var``."""

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False):
        super().__init__(use_locking=use_locking, use_nesterov=use_nesterov)

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
        return apply("Adam", self.attrs, [var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                                          gradient])[0]


# ---- AdamWeightDecay -----------------------------------------------------------------------------------
# m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
# var -= lr * (m / (sqrt(v) + epsilon) + decay * var)          (no bias correction, decoupled decay)

def _adamw_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    _check_attrs("AdamWeightDecay", attrs, {"use_locking": False}, ins)
    return {}


def _adamw_ref(attrs: dict, var, m, v, lr, beta1, beta2, epsilon, decay, grad):
    lr, b1, b2, eps, decay = (_scalar(x) for x in (lr, beta1, beta2, epsilon, decay))
    m = b1 * m + (1 - b1) * grad
    v = b2 * v + (1 - b2) * grad * grad
    return var - lr * (m / (np.sqrt(v) + eps) + decay * var), m, v


@defop(infer=_update_infer("AdamWeightDecay", tensors=(1, 2, 8), scalars=(3, 4, 5, 6, 7), state=(0, 1, 2)),
       normalize=_adamw_normalize, n_inputs=9, reference=_half_in_float32(_adamw_ref),
       inplace=((0, 0), (1, 1), (2, 2)), scenario="update")
class AdamWeightDecay(Primitive):
    """``AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay, gradient)``: Adam
    without bias correction and with decoupled weight decay, updating ``var``, ``m`` and ``v`` in place;
    returns the updated ``var``."""

    def __init__(self, use_locking: bool = False):
        super().__init__(use_locking=use_locking)

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
        return apply("AdamWeightDecay", self.attrs, [var, m, v, lr, beta1, beta2, epsilon, decay, gradient])[0]


# State updates are not differentiated through (MindSpore's have no bprop either).
no_grad("Assign", "AssignAdd", "ApplyMomentum", "SGD", "Adam", "AdamWeightDecay")

PRIMITIVES: dict[str, type[Primitive]] = {
    "Assign": Assign, "AssignAdd": AssignAdd, "ApplyMomentum": ApplyMomentum, "SGD": SGD, "Adam": Adam,
    "AdamWeightDecay": AdamWeightDecay,
}
