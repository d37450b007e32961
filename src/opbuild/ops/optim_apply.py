"""MindSpore's ``Apply*`` optimizer primitives (``ops.ApplyAdagrad``, ``ops.ApplyFtrl``, ...), one table row each.

A row names the primitive's inputs in MindSpore's order, which of them are state updated in place (MindSpore's
Ref inputs, ``OpDef.inplace``: the variable first), which are full tensors of the variable's shape (the
gradient), and which are scalars (one-element tensors, or Python numbers the primitive turns into tensors of the
variable's dtype). It gives the per-element update once as a C statement over locals named like the inputs and
attributes (the CPU emitter of targets/cpu/kernels/optim_apply.py runs it over every element, or over the rows
``indices`` names for the sparse rows of ops/optim_sparse.py) and once as NumPy (the reference).

What ``__call__`` returns follows MindSpore 2.10 (checked against its outputs, tests/compat/test_optim_apply.py):
the updated variable alone for some primitives, a tuple of the variable and some of its state for others.
The IR lists every buffer written as an output, as ops/optim.py does.

Where MindSpore 2.10's CPU kernels depart from the formulas its documentation gives, opbuild follows the
kernels (the results a MindSpore user gets; docs/optimizers.md lists them): ``ApplyAdagrad`` updates ``accum``
even with ``update_slots=False``; ``ApplyAdagradDA`` with ``l1 > 0`` shrinks a negative accumulator away from
zero (``min(accumulator - l1 * global_step, 0)``, not towards it); ``ApplyFtrl`` computes ``var = (l1 - linear)
/ quadratic`` for either sign of ``linear`` (not ``sign(linear) * l1 - linear``). ``ApplyRMSProp`` and
``ApplyCenteredRMSProp`` return the updated variable (MindSpore's CPU leaves the returned tensor unwritten; the
Parameters hold the update in both).

State updates are not differentiated through (MindSpore's have no bprop either). Half variables compute in
float32 and round each buffer once, as the updates of ops/optim.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..core.dtypes import ALL_FLOATS, HALFS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import Tensor, as_tensor
from .optim import _check_attrs, _half_in_float32
from .primitive import Primitive, apply, declare
from .registry import OpDef, no_grad

INT_SCALARS = ("int32", "int64")


def sgn(x: str) -> str:
    """C expression: the sign of ``x`` (-1, 0 or 1) as an int."""
    return f"(({x} > 0) - ({x} < 0))"


@dataclass(frozen=True)
class ApplyRow:
    """One in-place optimizer primitive.

    ``stmt(attrs, t)`` is the C statement of one element's update, ``t`` the compute type: it reads and assigns
    the locals named like the inputs (state and tensors loaded per element, scalars once) and the numeric
    attributes (constants). ``ref(attrs, ns)`` is the NumPy update over the same names (``ns`` holds the
    input arrays) and returns the new state in ``state`` order. ``returns``: how many of the state outputs the
    primitive's call returns (1: the variable alone, not a tuple). ``int_scalars``: scalars that take an
    integer tensor (AdagradDA's ``global_step``)."""

    name: str
    inputs: tuple[str, ...]
    state: tuple[str, ...]
    tensors: tuple[str, ...]
    stmt: Callable[[Mapping[str, Any], str], str]
    ref: Callable[[Mapping[str, Any], SimpleNamespace], tuple]
    attrs: Mapping[str, Any] = field(default_factory=lambda: {"use_locking": False})
    required: tuple[str, ...] = ()
    returns: int = 1
    int_scalars: tuple[str, ...] = ()
    doc: str = ""
    duplicates: str = "sum"  # sparse rows: a repeated index is one update with the summed slices, or "sequential"

    @property
    def scalars(self) -> tuple[str, ...]:
        return tuple(n for n in self.inputs if n not in self.state and n not in self.tensors)

    def index(self, name: str) -> int:
        return self.inputs.index(name)


def _normalize(row: ApplyRow) -> Callable[[dict, Sequence[TensorType]], dict]:
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        missing = [k for k in row.required if k not in attrs]
        if missing:
            raise ShapeError(row.name, f"missing attribute(s) {missing}", list(ins))
        a = _check_attrs(row.name, attrs, {**row.attrs, **{k: 0.0 for k in row.required}}, ins)
        a.pop("use_locking", None)  # does not change the kernel
        return a

    return normalize


def check_update_types(row: ApplyRow, ins: Sequence[TensorType], var: TensorType) -> None:
    """The rules every update shares: a float variable, the tensors of its type, one-element scalars of its
    dtype (or float32 for a half variable; an int32/int64 for ``int_scalars``)."""
    if var.dtype not in ALL_FLOATS:
        raise ShapeError(row.name, f"dtype {var.dtype} is not supported (supported: {', '.join(ALL_FLOATS)})",
                         list(ins))
    for name in row.state:
        if ins[row.index(name)] != var:
            raise ShapeError(row.name, f"{name} must have var's type {var}, got {ins[row.index(name)]}", list(ins))
    floats = (var.dtype, "float32") if var.dtype in HALFS else (var.dtype,)
    for name in row.scalars:
        t = ins[row.index(name)]
        allowed = INT_SCALARS if name in row.int_scalars else floats
        if t.size != 1 or t.dtype not in allowed:
            raise ShapeError(row.name, f"{name} must be a one-element {' or '.join(allowed)} tensor (a scalar), "
                             f"got {t}", list(ins))


def _infer(row: ApplyRow) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        check_update_types(row, ins, ins[0])
        for name in row.tensors:
            if ins[row.index(name)] != ins[0]:
                raise ShapeError(row.name, f"{name} must have var's type {ins[0]}, got {ins[row.index(name)]}",
                                 list(ins))
        return [ins[row.index(n)] for n in row.state]

    return infer


def _reference(row: ApplyRow) -> Callable[..., tuple]:
    def ref(attrs: dict, *arrays: np.ndarray) -> tuple:
        ns = SimpleNamespace(**{n: (np.asarray(a).reshape(()) if n in row.scalars else np.asarray(a))
                                for n, a in zip(row.inputs, arrays, strict=True)})
        return tuple(np.asarray(o, dtype=np.asarray(arrays[0]).dtype) for o in row.ref(attrs, ns))

    return _half_in_float32(ref)


def scalar_inputs(row: ApplyRow, inputs: Sequence[Any]) -> list[Any]:
    """The call's inputs with Python numbers at scalar positions turned into one-element tensors of the
    variable's dtype (int64 for ``int_scalars``), as MindSpore accepts numbers there."""
    var_dtype = as_tensor(inputs[0])._type.dtype
    out = list(inputs)
    for name in row.scalars:
        i = row.index(name)
        if not isinstance(out[i], Tensor):
            if isinstance(out[i], bool) or not isinstance(out[i], (int, float, np.integer, np.floating)):
                raise TypeError(f"{row.name}: {name} must be a Tensor or a number, got {type(out[i]).__name__}")
            dt = "int64" if name in row.int_scalars else (var_dtype if var_dtype != "bfloat16" else "float32")
            out[i] = Tensor(np.asarray(out[i], dtype=dt))
    return out


def _primitive(row: ApplyRow) -> type[Primitive]:
    opdef = OpDef(row.name, _infer(row), _reference(row), normalize=_normalize(row), n_inputs=len(row.inputs),
                  multi_output=True, inplace=tuple((o, row.index(n)) for o, n in enumerate(row.state)),
                  scenario="update")
    params = list(row.required) + [k for k in row.attrs]

    def init(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(params):
            raise TypeError(f"{row.name} takes at most {len(params)} arguments ({', '.join(params)})")
        attrs = dict(zip(params, args))
        dup = set(attrs) & set(kwargs)
        if dup:
            raise TypeError(f"{row.name}: {sorted(dup)} given twice")
        attrs.update(kwargs)
        Primitive.__init__(self, **attrs)

    def call(self, *inputs: Any) -> Any:
        if len(inputs) != len(row.inputs):
            raise TypeError(f"{row.name} takes {len(row.inputs)} inputs ({', '.join(row.inputs)}), got "
                            f"{len(inputs)}")
        outs = apply(row.name, self.attrs, scalar_inputs(row, inputs))
        return outs[0] if row.returns == 1 else tuple(outs[:row.returns])

    doc = f"``{row.name}({', '.join(params)})({', '.join(row.inputs)})``: {row.doc}"
    return declare(opdef, doc, call=call, init=init)


def _prox(v, lr, l1, l2):
    """Proximal step: shrink by ``lr * l1`` towards zero, scale by ``1 / (1 + lr * l2)``."""
    return np.sign(v) * np.maximum(np.abs(v) - lr * l1, 0) / (1 + lr * l2)


def _c_prox(t: str, v: str, lr: str, l1: str, l2: str) -> str:
    return f"{sgn(v)} * fmax(fabs({v}) - {lr} * {l1}, ({t})0) / (1 + {lr} * {l2})"


# ---- the rows (formulas: docs/optimizers.md) -------------------------------------------------------------

def _adamax(a, n):
    m = n.beta1 * n.m + (1 - n.beta1) * n.grad
    v = np.maximum(n.beta2 * n.v, np.abs(n.grad))
    return n.var - n.lr / (1 - n.beta1_power) * m / (v + n.epsilon), m, v


def _adadelta(a, n):
    accum = n.rho * n.accum + (1 - n.rho) * n.grad * n.grad
    upd = np.sqrt(n.accum_update + n.epsilon) / np.sqrt(accum + n.epsilon) * n.grad
    au = n.rho * n.accum_update + (1 - n.rho) * upd * upd
    return n.var - n.lr * upd, accum, au


def _adagrad(a, n):
    accum = n.accum + n.grad * n.grad  # MindSpore's CPU kernel updates accum whatever update_slots says
    return n.var - n.lr * n.grad / np.sqrt(accum), accum


def _adagrad_v2(a, n):
    accum = n.accum + n.grad * n.grad if a["update_slots"] else n.accum
    return n.var - n.lr * n.grad / (np.sqrt(accum) + a["epsilon"]), accum


def _adagrad_da(a, n):
    ga = n.gradient_accumulator + n.grad
    gs = n.gradient_squared_accumulator + n.grad * n.grad
    step = n.global_step.astype(ga.dtype)
    shrunk = ga - n.l1 * step  # MindSpore's CPU shrinks both signs the same way (module docstring)
    tmp = np.where(ga > 0, np.maximum(shrunk, 0), np.minimum(shrunk, 0)) if n.l1 > 0 else ga
    return -n.lr * tmp / (n.l2 * step * n.lr + np.sqrt(gs)), ga, gs


def _add_sign(a, n):
    m = n.beta * n.m + (1 - n.beta) * n.grad
    return n.var - n.lr * (n.alpha + n.sign_decay * np.sign(n.grad) * np.sign(m)) * n.grad, m


def _power_sign(a, n):
    m = n.beta * n.m + (1 - n.beta) * n.grad
    return n.var - n.lr * np.exp(n.logbase * n.sign_decay * np.sign(n.grad) * np.sign(m)) * n.grad, m


def _centered_rmsprop(a, n):
    mg = n.decay * n.mean_gradient + (1 - n.decay) * n.grad
    ms = n.decay * n.mean_square + (1 - n.decay) * n.grad * n.grad
    mom = n.momentum * n.moment + n.learning_rate * n.grad / np.sqrt(ms - mg * mg + n.epsilon)
    return n.var - mom, mg, ms, mom


def _rmsprop(a, n):
    ms = n.decay * n.mean_square + (1 - n.decay) * n.grad * n.grad
    mom = n.momentum * n.moment + n.learning_rate * n.grad / np.sqrt(ms + n.epsilon)
    return n.var - mom, ms, mom


def _ftrl(a, n):
    accum = n.accum + n.grad * n.grad
    p_new, p_old = np.power(accum, -n.lr_power), np.power(n.accum, -n.lr_power)
    linear = n.linear + n.grad - (p_new - p_old) / n.lr * n.var
    quadratic = p_new / n.lr + 2 * n.l2
    var = np.where(np.abs(linear) > n.l1, (n.l1 - linear) / quadratic, 0)  # MindSpore's CPU: l1, not sign * l1
    return var, accum, linear


def _keras_momentum(a, n):
    accum = n.accum * n.momentum - n.lr * n.grad
    var = n.var + accum * n.momentum - n.lr * n.grad if a["use_nesterov"] else n.var + accum
    return var, accum


def _proximal_adagrad(a, n):
    accum = n.accum + n.grad * n.grad
    rate = n.lr / np.sqrt(accum)  # the adapted rate drives the proximal step too
    return _prox(n.var - rate * n.grad, rate, n.l1, n.l2), accum


def _amsgrad(b1, b2, eps):
    def ref(a, n):
        m = b1 * n.m + (1 - b1) * n.grad
        v = b2 * n.v + (1 - b2) * n.grad * n.grad
        vhat = np.maximum(n.vhat, v)
        lr_t = n.lr * np.sqrt(1 - n.beta2_power) / (1 - n.beta1_power)
        return n.var - lr_t * m / (np.sqrt(vhat) + eps), m, v, vhat

    return ref


def _amsgrad_v1(a, n):
    return _amsgrad(a["beta1"], a["beta2"], a["epsilon"])(a, n)


def _amsgrad_v2(a, n):
    return _amsgrad(n.beta1, n.beta2, n.epsilon)(a, n)


_AMSGRAD_C = ("m = beta1 * m + (1 - beta1) * grad; v = beta2 * v + (1 - beta2) * grad * grad; "
              "vhat = fmax(vhat, v); var -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / "
              "(sqrt(vhat) + epsilon);")

ROWS: tuple[ApplyRow, ...] = (
    ApplyRow("ApplyAdaMax", ("var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"),
             ("var", "m", "v"), ("grad",),
             lambda a, t: ("m = beta1 * m + (1 - beta1) * grad; v = fmax(beta2 * v, fabs(grad)); "
                           "var -= lr / (1 - beta1_power) * m / (v + epsilon);"),
             _adamax, attrs={}, returns=3, doc="AdaMax (Adam with the infinity norm)."),
    ApplyRow("ApplyAdadelta", ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"),
             ("var", "accum", "accum_update"), ("grad",),
             lambda a, t: ("accum = rho * accum + (1 - rho) * grad * grad; "
                           f"const {t} upd = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad; "
                           "accum_update = rho * accum_update + (1 - rho) * upd * upd; var -= lr * upd;"),
             _adadelta, returns=3, doc="Adadelta."),
    ApplyRow("ApplyAdagrad", ("var", "accum", "lr", "grad"), ("var", "accum"), ("grad",),
             lambda a, t: "accum += grad * grad; var -= lr * grad / sqrt(accum);",
             _adagrad, attrs={"update_slots": True}, returns=2, doc="Adagrad."),
    ApplyRow("ApplyAdagradV2", ("var", "accum", "lr", "grad"), ("var", "accum"), ("grad",),
             lambda a, t: ("accum += grad * grad; " if a["update_slots"] else "")
             + "var -= lr * grad / (sqrt(accum) + epsilon);",
             _adagrad_v2, attrs={"update_slots": True}, required=("epsilon",), returns=2,
             doc="Adagrad with ``epsilon`` added to the root."),
    ApplyRow("ApplyAdagradDA", ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "lr", "l1",
                                "l2", "global_step"),
             ("var", "gradient_accumulator", "gradient_squared_accumulator"), ("grad",),
             lambda a, t: ("gradient_accumulator += grad; gradient_squared_accumulator += grad * grad; "
                           f"const {t} shrunk = gradient_accumulator - l1 * global_step; "
                           f"const {t} tmp = !(l1 > 0) ? gradient_accumulator : gradient_accumulator > 0 ? "
                           f"fmax(shrunk, ({t})0) : fmin(shrunk, ({t})0); "
                           "var = -lr * tmp / (l2 * global_step * lr + sqrt(gradient_squared_accumulator));"),
             _adagrad_da, int_scalars=("global_step",), doc="Adagrad dual averaging."),
    ApplyRow("ApplyAddSign", ("var", "m", "lr", "alpha", "sign_decay", "beta", "grad"), ("var", "m"), ("grad",),
             lambda a, t: ("m = beta * m + (1 - beta) * grad; "
                           f"var -= lr * (alpha + sign_decay * {sgn('grad')} * {sgn('m')}) * grad;"),
             _add_sign, attrs={}, returns=2, doc="AddSign."),
    ApplyRow("ApplyPowerSign", ("var", "m", "lr", "logbase", "sign_decay", "beta", "grad"), ("var", "m"),
             ("grad",),
             lambda a, t: ("m = beta * m + (1 - beta) * grad; "
                           f"var -= lr * exp(logbase * sign_decay * {sgn('grad')} * {sgn('m')}) * grad;"),
             _power_sign, attrs={}, returns=2, doc="PowerSign."),
    ApplyRow("ApplyCenteredRMSProp", ("var", "mean_gradient", "mean_square", "moment", "grad", "learning_rate",
                                      "decay", "momentum", "epsilon"),
             ("var", "mean_gradient", "mean_square", "moment"), ("grad",),
             lambda a, t: ("mean_gradient = decay * mean_gradient + (1 - decay) * grad; "
                           "mean_square = decay * mean_square + (1 - decay) * grad * grad; "
                           "moment = momentum * moment + learning_rate * grad / "
                           "sqrt(mean_square - mean_gradient * mean_gradient + epsilon); var -= moment;"),
             _centered_rmsprop, doc="centered RMSProp."),
    ApplyRow("ApplyRMSProp", ("var", "mean_square", "moment", "learning_rate", "grad", "decay", "momentum",
                              "epsilon"),
             ("var", "mean_square", "moment"), ("grad",),
             lambda a, t: ("mean_square = decay * mean_square + (1 - decay) * grad * grad; "
                           "moment = momentum * moment + learning_rate * grad / sqrt(mean_square + epsilon); "
                           "var -= moment;"),
             _rmsprop, doc="RMSProp."),
    ApplyRow("ApplyFtrl", ("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"),
             ("var", "accum", "linear"), ("grad",),
             lambda a, t: (f"const {t} acc_new = accum + grad * grad; "
                           f"const {t} p_new = pow(acc_new, -lr_power), p_old = pow(accum, -lr_power); "
                           "linear += grad - (p_new - p_old) / lr * var; "
                           f"var = fabs(linear) > l1 ? (l1 - linear) / (p_new / lr + 2 * l2) "
                           f": ({t})0; accum = acc_new;"),
             _ftrl, doc="FTRL-proximal."),
    ApplyRow("ApplyGradientDescent", ("var", "alpha", "delta"), ("var",), ("delta",),
             lambda a, t: "var -= alpha * delta;",
             lambda a, n: (n.var - n.alpha * n.delta,), attrs={}, doc="``var -= alpha * delta``."),
    ApplyRow("ApplyKerasMomentum", ("var", "accum", "lr", "grad", "momentum"), ("var", "accum"), ("grad",),
             lambda a, t: "accum = accum * momentum - lr * grad; "
             + ("var += accum * momentum - lr * grad;" if a["use_nesterov"] else "var += accum;"),
             _keras_momentum, attrs={"use_locking": False, "use_nesterov": False}, returns=2,
             doc="Keras' momentum."),
    ApplyRow("ApplyProximalAdagrad", ("var", "accum", "lr", "l1", "l2", "grad"), ("var", "accum"), ("grad",),
             lambda a, t: (f"accum += grad * grad; const {t} rate = lr / sqrt(accum), pv = var - rate * grad; "
                           f"var = {_c_prox(t, 'pv', 'rate', 'l1', 'l2')};"),
             _proximal_adagrad, returns=2, doc="proximal Adagrad."),
    ApplyRow("ApplyProximalGradientDescent", ("var", "alpha", "l1", "l2", "delta"), ("var",), ("delta",),
             lambda a, t: (f"const {t} pv = var - alpha * delta; var = {_c_prox(t, 'pv', 'alpha', 'l1', 'l2')};"),
             lambda a, n: (_prox(n.var - n.alpha * n.delta, n.alpha, n.l1, n.l2),), attrs={},
             doc="proximal gradient descent."),
    ApplyRow("ApplyAdamWithAmsgrad", ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr", "grad"),
             ("var", "m", "v", "vhat"), ("grad",), lambda a, t: _AMSGRAD_C, _amsgrad_v1,
             attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "use_locking": False}, returns=4,
             doc="Adam with AMSGrad's running maximum of ``v``."),
    ApplyRow("ApplyAdamWithAmsgradV2", ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr", "beta1",
                                        "beta2", "epsilon", "grad"),
             ("var", "m", "v", "vhat"), ("grad",), lambda a, t: _AMSGRAD_C, _amsgrad_v2, returns=4,
             doc="ApplyAdamWithAmsgrad with the betas and epsilon as inputs."),
)

BY_NAME: dict[str, ApplyRow] = {r.name: r for r in ROWS}
PRIMITIVES: dict[str, type[Primitive]] = {r.name: _primitive(r) for r in ROWS}
no_grad(*BY_NAME)

__all__ = ["ApplyRow", "BY_NAME", "PRIMITIVES", "ROWS", "check_update_types", "scalar_inputs", "sgn"]
