"""MindSpore's sparse ``SparseApply*`` optimizer primitives that its CPU backend runs (SparseApplyAdagrad,
SparseApplyAdagradV2, SparseApplyFtrl, SparseApplyRMSProp): the dense rows' updates (ops/optim_apply.py) applied
to the rows of the variable that ``indices`` names.

``grad`` holds one slice per index (``grad.shape == (len(indices),) + var.shape[1:]``); the state is updated in
place row by row. A row named several times is, as MindSpore 2.10's CPU kernels do it (checked against its
outputs), updated once with the sum of its gradient slices (SparseApplyAdagrad) or once per index in the
order of ``indices`` (the others; MindSpore's SparseApplyAdagradV2 applies them in an order that varies from
call to call, opbuild in the order of ``indices``). Indices are int32 or int64 in ``[0, var.shape[0])``; an
index out of range is skipped, as MindSpore 2.10's CPU kernels skip it (SparseApplyFtrl and SparseApplyAdagrad
log an error and update the other rows), with a RuntimeWarning when the call runs eagerly.

The learning rate and the other hyper-parameters MindSpore makes attributes of these primitives are constants
of the kernel (``SparseApplyAdagrad(lr=0.1)``); a change of value is a new kernel, as in MindSpore.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..core import trace
from ..core.dtypes import HALFS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from ..core.tensor import as_tensor
from .optim_apply import (
    ApplyRow,
    _normalize,  # the same attribute rules as the dense rows
    check_update_types,
    scalar_inputs,
    sgn,
)
from .primitive import Primitive, apply, declare
from .registry import OpDef, no_grad

INDEX_DTYPES = ("int32", "int64")


def _infer(row: ApplyRow) -> Callable[[dict, Sequence[TensorType]], list[TensorType]]:
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        var, grad, idx = ins[0], ins[row.index("grad")], ins[row.index("indices")]
        if len(var.shape) < 1:
            raise ShapeError(row.name, f"var must have at least one dimension, got {var}", list(ins))
        check_update_types(row, ins, var)
        if idx.dtype not in INDEX_DTYPES or len(idx.shape) != 1:
            raise ShapeError(row.name, f"indices must be a 1-D int32 or int64 tensor, got {idx}", list(ins))
        want = (idx.shape[0], *var.shape[1:])
        if grad.dtype != var.dtype or tuple(grad.shape) != want:
            raise ShapeError(row.name, f"grad must be {var.dtype} of shape {want} (one slice of var per index), "
                             f"got {grad}", list(ins))
        return [ins[row.index(n)] for n in row.state]

    return infer


def _reference(row: ApplyRow) -> Callable[..., tuple]:
    """Gather the named rows, sum the gradient slices of a repeated row, run the dense update on the gathered
    rows (in float32 for a half variable), scatter the state back."""
    def ref(attrs: dict, *arrays: np.ndarray) -> tuple:
        named = dict(zip(row.inputs, (np.asarray(a) for a in arrays), strict=True))
        var, idx = named["var"], named["indices"].astype(np.int64)
        work = np.float32 if var.dtype.name in HALFS else var.dtype
        valid = (idx >= 0) & (idx < var.shape[0])
        if row.duplicates == "sum":
            rows = np.unique(idx[valid])
            steps = [(rows, np.stack([named["grad"][idx == r].astype(work).sum(0) for r in rows]))] if rows.size \
                else []
        else:
            steps = [(idx[q:q + 1], named["grad"][q:q + 1].astype(work)) for q in np.flatnonzero(valid)]
        state = {n: named[n].copy() for n in row.state}
        for rows, grad in steps:
            ns = {n: (a.reshape(()).astype(work) if n in row.scalars else a.astype(work))
                  for n, a in named.items() if n not in ("grad", "indices") and n not in row.state}
            ns.update({n: state[n][rows].astype(work) for n in row.state}, grad=grad)
            ns.update({k: np.asarray(v, work) for k, v in attrs.items() if isinstance(v, float)})
            for name, value in zip(row.state, row.ref(attrs, SimpleNamespace(**ns)), strict=True):
                state[name][rows] = np.asarray(value).astype(var.dtype)
        return tuple(state[n] for n in row.state)

    return ref


def _primitive(row: ApplyRow) -> type[Primitive]:
    opdef = OpDef(row.name, _infer(row), _reference(row), normalize=_normalize(row), n_inputs=len(row.inputs),
                  multi_output=True, inplace=tuple((o, row.index(n)) for o, n in enumerate(row.state)),
                  scenario="update")
    params = list(row.required) + list(row.attrs)

    def init(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(params):
            raise TypeError(f"{row.name} takes at most {len(params)} arguments ({', '.join(params)})")
        attrs = dict(zip(params, args))
        attrs.update(kwargs)
        Primitive.__init__(self, **attrs)

    def call(self, *inputs: Any) -> Any:
        if len(inputs) != len(row.inputs):
            raise TypeError(f"{row.name} takes {len(row.inputs)} inputs ({', '.join(row.inputs)}), got "
                            f"{len(inputs)}")
        inputs = scalar_inputs(row, inputs)
        idx, var = as_tensor(inputs[row.index("indices")]), as_tensor(inputs[0])
        if trace.current() is None and idx._type.dtype in INDEX_DTYPES and var._type.shape:
            values = idx.asnumpy()
            bad = values[(values < 0) | (values >= var._type.shape[0])]
            if bad.size:  # skipped by the kernel, as MindSpore's CPU kernels skip them (logging an error)
                warnings.warn(f"{row.name}: indices must be in [0, {var._type.shape[0]}) (rows of var); "
                              f"{bad.tolist()} skipped", RuntimeWarning, stacklevel=2)
        return tuple(apply(row.name, self.attrs, inputs)[:row.returns])

    doc = f"``{row.name}({', '.join(params)})({', '.join(row.inputs)})``: {row.doc}"
    return declare(opdef, doc, call=call, init=init)


def _adagrad(eps: bool) -> Callable:
    def ref(a, n):
        accum = n.accum + n.grad * n.grad if a["update_slots"] else n.accum
        return n.var - a["lr"] * n.grad / np.sqrt(accum + (a["epsilon"] if eps else 0)), accum

    return ref


def _adagrad_c(eps: bool) -> Callable[[dict, str], str]:
    return lambda a, t: (("accum += grad * grad; " if a["update_slots"] else "")
                         + ("var -= lr * grad / sqrt(accum + epsilon);" if eps else "var -= lr * grad / sqrt(accum);"))


def _ftrl(a, n):
    accum = n.accum + n.grad * n.grad
    p_new, p_old = np.power(accum, -a["lr_power"]), np.power(n.accum, -a["lr_power"])
    linear = n.linear + n.grad - (p_new - p_old) / a["lr"] * n.var
    quadratic = p_new / a["lr"] + 2 * a["l2"]
    return np.where(np.abs(linear) > a["l1"], (np.sign(linear) * a["l1"] - linear) / quadratic, 0), accum, linear


def _rmsprop(a, n):
    ms = a["rho"] * n.mean_square + (1 - a["rho"]) * n.grad * n.grad
    mom = a["momentum"] * n.moment + n.lr * n.grad / np.sqrt(ms + a["epsilon"])
    return n.var - mom, ms, mom


_STATE_ONLY = {"use_locking": False}
ROWS: tuple[ApplyRow, ...] = (
    ApplyRow("SparseApplyAdagrad", ("var", "accum", "grad", "indices"), ("var", "accum"), ("grad", "indices"),
             _adagrad_c(False), _adagrad(False), attrs={"update_slots": True, "use_locking": False},
             required=("lr",), returns=2, doc="Adagrad on the rows ``indices`` names."),
    ApplyRow("SparseApplyAdagradV2", ("var", "accum", "grad", "indices"), ("var", "accum"), ("grad", "indices"),
             _adagrad_c(True), _adagrad(True), attrs={"use_locking": False, "update_slots": True},
             required=("lr", "epsilon"), returns=2, duplicates="sequential",
             doc="Adagrad on the rows ``indices`` names, ``var -= lr * grad / sqrt(accum + epsilon)`` (MindSpore's "
                 "CPU kernel; the dense ApplyAdagradV2 adds epsilon after the root)."),
    ApplyRow("SparseApplyFtrl", ("var", "accum", "linear", "grad", "indices"), ("var", "accum", "linear"),
             ("grad", "indices"),
             lambda a, t: (f"const {t} acc_new = accum + grad * grad; "
                           f"const {t} p_new = pow(acc_new, -lr_power), p_old = pow(accum, -lr_power); "
                           "linear += grad - (p_new - p_old) / lr * var; "
                           f"var = fabs(linear) > l1 ? ({sgn('linear')} * l1 - linear) / (p_new / lr + 2 * l2) "
                           f": ({t})0; "
                           "accum = acc_new;"),
             _ftrl, attrs=_STATE_ONLY, required=("lr", "l1", "l2", "lr_power"), returns=3,
             duplicates="sequential",
             doc="FTRL on the rows ``indices`` names (the documented ``sign(linear) * l1 - linear``, which "
                 "MindSpore's sparse kernel computes and its dense ApplyFtrl does not)."),
    ApplyRow("SparseApplyRMSProp", ("var", "mean_square", "moment", "lr", "grad", "indices"),
             ("var", "mean_square", "moment"), ("grad", "indices"),
             lambda a, t: ("mean_square = rho * mean_square + (1 - rho) * grad * grad; "
                           "moment = momentum * moment + lr * grad / sqrt(mean_square + epsilon); var -= moment;"),
             _rmsprop, attrs=_STATE_ONLY, required=("rho", "momentum", "epsilon"), returns=3, duplicates="sequential",
             doc="RMSProp on the rows ``indices`` names."),
)

BY_NAME: dict[str, ApplyRow] = {r.name: r for r in ROWS}
PRIMITIVES: dict[str, type[Primitive]] = {r.name: _primitive(r) for r in ROWS}
no_grad(*BY_NAME)

__all__ = ["BY_NAME", "INDEX_DTYPES", "PRIMITIVES", "ROWS"]
