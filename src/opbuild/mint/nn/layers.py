"""The layers of ``mindspore.mint.nn`` with torch's constructor arguments: activations (``ReLU6``, ``Sigmoid``,
``Tanh``, ``GELU``, ``SiLU``, ``Mish``, ``SELU``, ``LogSigmoid``, ``ELU``, ``Hardtanh``, ``GLU``, ``Softmax``,
``LogSoftmax``), ``Flatten``, ``Dropout`` and the ``MSELoss``/``L1Loss`` losses, each a small Cell over
``mint.nn.functional``. Where MindSpore's ``mint.nn`` name is one of its ``nn`` classes (``ReLU``,
``Identity``, ``Hardsigmoid`` = ``HSigmoid``, ``LayerNorm`` = ``LayerNormExt``, ...), it is opbuild's class of
that name. ``inplace`` flags are accepted (the output is a new tensor, with the same values)."""

from __future__ import annotations

import inspect
import numbers
from typing import Any

from ... import nn as _nn
from ...core.tensor import Tensor
from . import functional as F

Cell = _nn.Cell


class _Activation(Cell):
    """A Cell applying one function of ``mint.nn.functional`` with fixed arguments."""

    _fn: Any = None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        self._kwargs = kwargs

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return type(self)._fn(input, **self._kwargs)

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self._kwargs.items())


def _activation(name: str, fn: Any, doc: str, params: tuple[tuple[str, Any], ...] = (),
                inplace: bool = False) -> type[Cell]:
    """A Cell class of ``fn`` whose constructor takes ``params`` (name, default) and, where MindSpore's does,
    ``inplace`` (accepted; the output is a new tensor with the same values)."""
    names = [p for p, _ in params]

    def __init__(self: Cell, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names) + inplace:
            raise TypeError(f"mint.nn.{name}() takes at most {len(names) + inplace} arguments, got {len(args)}")
        values = dict(params)
        values.update(zip(names, args))
        for k, v in kwargs.items():
            if k not in values and not (inplace and k == "inplace"):
                raise TypeError(f"mint.nn.{name}() got an unexpected argument {k!r}")
            if k != "inplace":
                values[k] = v
        _Activation.__init__(self, **values)

    sig = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    sig += [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d) for p, d in params]
    if inplace:
        sig.append(inspect.Parameter("inplace", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=False))
    __init__.__signature__ = inspect.Signature(sig)  # type: ignore[attr-defined]
    return type(name, (_Activation,), {"__init__": __init__, "_fn": staticmethod(fn), "__module__": __name__,
                                       "__doc__": doc})


ReLU6 = _activation("ReLU6", F.relu6, "``ReLU6(inplace=False)``: min(max(x, 0), 6).", inplace=True)
Sigmoid = _activation("Sigmoid", F.sigmoid, "``Sigmoid()``: 1 / (1 + exp(-x)).")
Tanh = _activation("Tanh", F.tanh, "``Tanh()``: the hyperbolic tangent.")
GELU = _activation("GELU", F.gelu, "``GELU(approximate='none')``: the erf form, or the tanh form with 'tanh'.",
                   (("approximate", "none"),))
SiLU = _activation("SiLU", F.silu, "``SiLU(inplace=False)``: x * sigmoid(x).", inplace=True)
Mish = _activation("Mish", F.mish, "``Mish()``: x * tanh(softplus(x)).")
SELU = _activation("SELU", F.selu, "``SELU()``: the scaled ELU.")
LogSigmoid = _activation("LogSigmoid", F.logsigmoid, "``LogSigmoid()``: log(sigmoid(x)).")
ELU = _activation("ELU", F.elu, "``ELU(alpha=1.0, inplace=False)``: x where positive, alpha * (exp(x) - 1) "
                  "elsewhere.", (("alpha", 1.0),), inplace=True)
Hardtanh = _activation("Hardtanh", F.hardtanh, "``Hardtanh(min_val=-1.0, max_val=1.0, inplace=False)``: x "
                       "clamped to [min_val, max_val].", (("min_val", -1.0), ("max_val", 1.0)), inplace=True)
GLU = _activation("GLU", F.glu, "``GLU(dim=-1)``: the first half of ``dim`` times the sigmoid of the second.",
                  (("dim", -1),))
Softmax = _activation("Softmax", F.softmax, "``Softmax(dim=None)``: softmax along ``dim`` (None: the last axis).",
                      (("dim", None),))
LogSoftmax = _activation("LogSoftmax", F.log_softmax, "``LogSoftmax(dim=None)``: log-softmax along ``dim`` "
                         "(None: the last axis).", (("dim", None),))
Flatten = _activation("Flatten", F.flatten, "``Flatten(start_dim=1, end_dim=-1)``: merge the axes start_dim to "
                      "end_dim.", (("start_dim", 1), ("end_dim", -1)))


class Dropout(Cell):
    """``Dropout(p=0.5, inplace=False)``: in training, elements zeroed with probability ``p`` and the rest
    scaled by 1 / (1 - p); the identity otherwise."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
            raise ValueError(f"mint.nn.Dropout: p must be a float in [0, 1], got {p!r}")
        self.p = float(p)

    def construct(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class _Loss(Cell):
    _fn: Any = None

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"mint.nn.{type(self).__name__}: reduction must be 'mean', 'sum' or 'none', got "
                             f"{reduction!r}")
        self.reduction = reduction

    def construct(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        return type(self)._fn(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """``MSELoss(reduction='mean')``: the mean (sum, or elementwise) squared error."""

    _fn = staticmethod(F.mse_loss)


class L1Loss(_Loss):
    """``L1Loss(reduction='mean')``: the mean (sum, or elementwise) absolute error."""

    _fn = staticmethod(F.l1_loss)


ReLU = _nn.ReLU
Identity = _nn.Identity
Hardsigmoid = _nn.HSigmoid
Hardswish = _nn.HSwish
Softshrink = _nn.SoftShrink
Hardshrink = _nn.HShrink
LayerNorm = _nn.LayerNormExt
CrossEntropyLoss = _nn.CrossEntropyLoss

__all__ = ["ReLU6", "Sigmoid", "Tanh", "GELU", "SiLU", "Mish", "SELU", "LogSigmoid", "ELU", "Hardtanh", "GLU",
           "Softmax", "LogSoftmax", "Flatten", "Dropout", "MSELoss", "L1Loss", "ReLU", "Identity", "Hardsigmoid",
           "Hardswish", "Softshrink", "Hardshrink", "LayerNorm", "CrossEntropyLoss"]
