"""``nn.Optimizer``: the base of MindSpore's optimizers (parameters and groups, learning rate, weight decay,
loss scale), whose updates are the fused in-place kernels of ops/optim.py.

An optimizer is a Cell. ``optimizer(grads)`` inside a trace (TrainOneStepCell, ``@jit``) records the update
nodes into that graph; in PYNATIVE_MODE it runs the update kernels now; in GRAPH_MODE outside a trace it
compiles its own graph once per gradient signature. Every form writes the parameters' own arrays.

The learning rate is a float (a Parameter ``learning_rate``), a list or 1-D Tensor (the rate of step ``i`` is
``lr[i]``; after the list the last rate stays), or a :class:`~opbuild.nn.LearningRateSchedule` called with
``global_step``. ``global_step`` (an int32 Parameter of shape ``(1,)``) counts the steps when the rate
is dynamic; it is read before it is incremented, so step ``i`` uses ``lr[i]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core import config, trace
from ...core.parameter import Parameter, ParameterTuple
from ...core.tensor import Tensor
from ...ops import functional as F
from ...ops.control_prims import HyperMap, Map
from ...ops.optim import AssignAdd
from ..cell import Cell
from . import reshaped
from .init_args import opt_init_args_register  # noqa: F401  (MindSpore's path of the decorator)
from .schedule import LearningRateSchedule, _IteratorLearningRate

_GROUP_KEYS = {"params", "lr", "weight_decay", "grad_centralization"}


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def check_float(name: str, value: Any, low: float = 0.0, strict: bool = False) -> float:
    """``value`` as a float, refused (ValueError naming ``name``) unless ``value >= low`` (``>`` if strict)."""
    if not _is_number(value):
        raise TypeError(f"{name} must be a float, got {type(value).__name__}")
    value = float(value)
    if value < low or (strict and value == low) or value != value:
        raise ValueError(f"{name} must be {'>' if strict else '>='} {low}, got {value}")
    return value


def _lr_kind(lr: Any, where: str) -> tuple[str, Any]:
    """Classify a learning rate: ('static', float), ('list', float32 array) or ('schedule', cell)."""
    if isinstance(lr, LearningRateSchedule):
        return "schedule", lr
    if isinstance(lr, (Tensor, np.ndarray)):
        arr = np.asarray(lr.asnumpy() if isinstance(lr, Tensor) else lr, dtype=np.float32)
        if arr.ndim == 0:
            return "static", check_float(f"{where} learning_rate", float(arr))
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"{where} learning_rate as a Tensor must be 0-d or a non-empty 1-D list of rates")
        lr = list(arr)
    if isinstance(lr, (list, tuple)):
        if not lr:
            raise ValueError(f"{where} learning_rate list is empty")
        return "list", np.array([check_float(f"{where} learning_rate[i]", v) for v in lr], np.float32)
    if _is_number(lr):
        return "static", check_float(f"{where} learning_rate", lr)
    raise TypeError(f"{where} learning_rate must be a float, a list of floats, a Tensor or a "
                    f"LearningRateSchedule, got {type(lr).__name__}")


class _FlatUpdate(Cell):
    """The optimizer's GRAPH_MODE entry: gradients as positional inputs, so the graph is keyed by their types."""

    def __init__(self, optimizer: Optimizer):
        super().__init__(auto_prefix=False)
        self.optimizer = optimizer

    def construct(self, *gradients: Tensor) -> Any:
        return self.optimizer.construct(gradients)


class Optimizer(Cell):
    """Base class of optimizers: ``Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)``.

    ``parameters``: Parameters, or groups: dicts with ``'params'`` and optionally ``'lr'`` and
    ``'weight_decay'`` (the optimizer's values otherwise), plus at most one ``{'order_params': [...]}`` giving
    the order of ``self.parameters`` (and so of the gradients). Without groups, weight decay skips
    parameters whose name contains ``beta`` or ``gamma`` (normalisation offsets and scales), as MindSpore's.
    Subclasses implement ``construct(gradients)`` with :meth:`decay_weight`, :meth:`scale_grad`,
    :meth:`get_lr` and their update primitive.
    """

    def __init__(self, learning_rate: Any, parameters: Any, weight_decay: float = 0.0, loss_scale: float = 1.0):
        super().__init__(auto_prefix=False)
        if parameters is None:
            raise ValueError("Optimizer: parameters must not be None")
        items = list(parameters)
        if not items:
            raise ValueError("Optimizer got an empty parameter list")
        self.loss_scale = check_float("loss_scale", loss_scale, 0.0, strict=True)
        weight_decay = check_float("weight_decay", weight_decay)
        self._weight_decay = weight_decay
        self.is_group = isinstance(items[0], dict)
        groups = self._groups(items, learning_rate, weight_decay)
        params = [p for g in groups for p in g[0]]
        ordered = ParameterTuple(self._order(items, params))
        group_of = {id(p): k for k, g in enumerate(groups) for p in g[0]}
        self.is_group_lr = self.is_group and any("lr" in d for d in items if "params" in d)
        # Registered in MindSpore's order (parameters_and_names, checkpoints): the step, the learning rates, the
        # parameters (a ParameterTuple attribute registers each under its own name), then the subclass's state.
        self.global_step = Parameter(np.zeros((1,), np.int32), name="global_step")
        self._lr_sources = self._learning_rates(items, groups, ordered, group_of, learning_rate)
        self.dynamic_lr = any(kind != "static" for kind, _ in self._lr_sources)
        self._parameters = ordered
        self.parameters = self._parameters
        self._lr_index = tuple(group_of[id(p)] if self.is_group_lr else 0 for p in self._parameters)
        # Weight decay of each parameter (0: none). MindSpore multiplies it by loss_scale because decay_weight
        # runs before scale_grad divides the gradients by it: the effective decay is weight_decay.
        if self.is_group:
            decay = [groups[group_of[id(p)]][2] for p in self._parameters]
        else:
            decay = [weight_decay if "beta" not in p.name and "gamma" not in p.name else 0.0
                     for p in self._parameters]
        self.group_weight_decay = tuple(decay)
        # MindSpore's per-group 'grad_centralization' flag, one per parameter (False without groups)
        flags = {id(p): bool(d.get("grad_centralization", False)) for d in items if isinstance(d, dict)
                 and "params" in d for p in d["params"]}
        self.grad_centralization_flags = tuple(flags.get(id(p), False) for p in self._parameters)
        self._unique = True
        self.exec_weight_decay = any(d > 0 for d in decay)
        self._assign_add = AssignAdd()
        self._custom_optimizer_fields(decay)
        object.__setattr__(self, "_flat", None)
        object.__setattr__(self, "_shapes", reshaped.snapshot(self._parameters))

    def _custom_optimizer_fields(self, decay: list[float]) -> None:
        """The attributes MindSpore's base class gives its subclasses and that optimizers written outside it
        (mindcv's AdamW, Lion, NAdam, Adan) read: ``weight_decay`` (times loss_scale: a float32 Tensor, or one
        per parameter with groups), ``decay_flags``, the step counter's ``assignadd`` and increment, and the
        distributed-optimizer flags (``use_parallel`` False: every rank updates every parameter)."""
        self.dynamic_weight_decay = False
        if self.is_group:
            self.decay_flags = tuple(d > 0 for d in decay)
        else:
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in self._parameters)
        self.weight_decay = self.get_weight_decay()
        self.assignadd = self._assign_add
        self.global_step_increase_tensor = Tensor(np.ones((1,), np.int32))
        self.reciprocal_scale = Tensor(np.float32(1.0 / self.loss_scale))
        self.need_scale = self.loss_scale != 1.0
        self.param_length = len(self._parameters)
        self.use_parallel = False
        self.optim_filter = (True,) * self.param_length
        self.map_, self.hyper_map = Map(), HyperMap()
        self.map_reverse, self.hyper_map_reverse = Map(None, True), HyperMap(None, True)

    def _is_dynamic_lr_or_weight_decay(self) -> bool:
        """Whether the rate (or the weight decay) changes per step, so ``global_step`` must be counted."""
        return bool(self.dynamic_lr or self.dynamic_weight_decay)

    def flatten_gradients(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """The gradients as given (parameters are never flattened into one buffer here)."""
        return tuple(gradients)

    def _grad_sparse_indices_deduplicate(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """The gradients as given: the update runs on the CPU, where MindSpore does not deduplicate either."""
        return tuple(gradients)

    def _set_base_target(self, value: str) -> None:
        self.target = value

    # ---- construction helpers ------------------------------------------------------------------
    def _learning_rates(self, items: list, groups: list, ordered: Sequence[Parameter], group_of: dict[int, int],
                        learning_rate: Any) -> list[tuple[str, Any]]:
        """The learning-rate source (static, list or schedule) of each group, registered as MindSpore names
        and orders them: ``learning_rate`` for the optimizer's rate (shared by the groups without ``'lr'``),
        ``learning_rate_group_<i>`` for group dict ``i`` (its position in ``parameters``) with its own, in the
        order the parameters first use them."""
        if not self.is_group_lr:
            return [self._lr_source("learning_rate", learning_rate, "Optimizer")]
        positions = [i for i, d in enumerate(items) if "params" in d]  # groups[k] is items[positions[k]]
        by_name: dict[str, tuple[str, Any]] = {}
        sources: dict[int, tuple[str, Any]] = {}
        for k in dict.fromkeys(group_of[id(p)] for p in ordered):
            own = "lr" in items[positions[k]]
            name = f"learning_rate_group_{positions[k]}" if own else "learning_rate"
            if name not in by_name:
                by_name[name] = self._lr_source(name, groups[k][1] if own else learning_rate,
                                                f"group {positions[k]}" if own else "Optimizer")
            sources[k] = by_name[name]
        return [sources[k] for k in range(len(groups))]

    def _lr_source(self, name: str, lr: Any, where: str) -> tuple[str, Any]:
        """One learning rate, validated, set as attribute ``name`` (a Parameter, or the schedule cell)."""
        kind, obj = _lr_kind(lr, where)
        if kind == "list":  # MindSpore's form: a schedule cell holding the Parameter ``name``
            obj = _IteratorLearningRate(obj, name)
        setattr(self, name, obj if kind != "static" else Parameter(np.asarray(obj, np.float32), name=name))
        return kind, getattr(self, name)

    @staticmethod
    def _groups(items: list, learning_rate: Any, weight_decay: float) -> list[tuple[list[Parameter], Any, float]]:
        """[(params, lr, weight_decay)] per group (one group without dicts); validates everything."""
        if not isinstance(items[0], dict):
            for p in items:
                if not isinstance(p, Parameter):
                    raise TypeError(f"Optimizer: parameters must be Parameters or dicts (groups), got "
                                    f"{type(p).__name__}")
            return [(items, learning_rate, weight_decay)]
        groups, seen = [], set()
        for d in items:
            if not isinstance(d, dict):
                raise TypeError("Optimizer: with parameter groups, every element must be a dict")
            if "order_params" in d:
                if len(d) != 1:
                    raise ValueError("Optimizer: the 'order_params' dict must have no other key")
                continue
            unknown = set(d) - _GROUP_KEYS
            if "params" not in d or unknown:
                raise ValueError(f"Optimizer: a group needs 'params' and may have 'lr', 'weight_decay', "
                                 f"'grad_centralization'; got keys {sorted(d)}")
            if not isinstance(d.get("grad_centralization", False), bool):
                raise TypeError(f"Optimizer: a group's 'grad_centralization' must be a bool, got "
                                f"{d['grad_centralization']!r}")
            ps = list(d["params"])
            if not ps or not all(isinstance(p, Parameter) for p in ps):
                raise TypeError("Optimizer: a group's 'params' must be a non-empty list of Parameters")
            for p in ps:
                if id(p) in seen:
                    raise ValueError(f"Optimizer: parameter {p.name} is in two groups")
                seen.add(id(p))
            wd = check_float("group weight_decay", d["weight_decay"]) if "weight_decay" in d else weight_decay
            groups.append((ps, d.get("lr", learning_rate), wd))
        if not groups:
            raise ValueError("Optimizer: parameter groups contain no 'params'")
        return groups

    @staticmethod
    def _order(items: list, params: list[Parameter]) -> list[Parameter]:
        """The groups' parameters in 'order_params' order when given (it must list exactly them)."""
        orders = [d["order_params"] for d in items if isinstance(d, dict) and "order_params" in d]
        if not orders:
            return params
        if len(orders) > 1:
            raise ValueError("Optimizer: 'order_params' given twice")
        order = list(orders[0])
        if {id(p) for p in order} != {id(p) for p in params} or len(order) != len(params):
            raise ValueError("Optimizer: 'order_params' must list exactly the parameters of the groups")
        return order

    def clone_state(self, prefix: str, init: str | float = "zeros") -> ParameterTuple:
        """One state Parameter per parameter, named ``prefix.<name>`` (MindSpore's ``moment1.conv1.weight``),
        initialised to zeros, ones or a constant; registered on this cell (checkpoints see them)."""
        fill = {"zeros": 0.0, "ones": 1.0}.get(init, init) if isinstance(init, str) else init
        if not _is_number(fill):
            raise ValueError(f"clone_state: init must be 'zeros', 'ones' or a number, got {init!r}")
        out = ParameterTuple(Parameter(np.full(p.shape, fill, p.asnumpy().dtype), name=f"{prefix}.{p.name}",
                                       requires_grad=p.requires_grad) for p in self._parameters)
        for p in out:
            self._params[p.name] = p
        return out

    # ---- pieces of an update (traced or eager) -------------------------------------------------------
    def _check_grads(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        gradients = tuple(gradients)
        if len(gradients) != len(self._parameters):
            raise ValueError(f"{type(self).__name__}: got {len(gradients)} gradients for "
                             f"{len(self._parameters)} parameters")
        for g, p in zip(gradients, self._parameters):
            if tuple(g.shape) != tuple(p.shape):
                raise ValueError(f"{type(self).__name__}: the gradient of {p.name} has shape {tuple(g.shape)}, "
                                 f"expected {tuple(p.shape)}")
        return gradients

    def decay_weight(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """``g + weight_decay * param`` for the parameters with weight decay (L2 in the gradient)."""
        if not self.exec_weight_decay:
            return tuple(gradients)
        return tuple(g + p * (wd * self.loss_scale) if wd > 0 else g
                     for g, p, wd in zip(gradients, self._parameters, self.group_weight_decay))

    def gradients_centralization(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """The gradients of the parameters whose group set ``grad_centralization`` minus their mean over every
        axis but the first, when they have more than one axis and axis 1 is a multiple of 16 (MindSpore's
        rule); the others unchanged. The built-in optimizers call it between :meth:`decay_weight` and
        :meth:`scale_grad`, as MindSpore's do."""
        out = []
        for g, flag in zip(gradients, self.grad_centralization_flags):
            if flag and g.ndim > 1 and g.shape[1] % 16 == 0:
                g = g - F.mean(g, tuple(range(1, g.ndim)), True)
            out.append(g)
        return tuple(out)

    def get_weight_decay(self) -> Tensor | tuple[Tensor, ...]:
        """The weight decay of this step times ``loss_scale`` (MindSpore's stored form, which ``decay_weight``
        applies before ``scale_grad``): a float32 Tensor, or with groups one per parameter."""
        if self.is_group:
            return tuple(Tensor(np.float32(d * self.loss_scale)) for d in self.group_weight_decay)
        return Tensor(np.float32(self._weight_decay * self.loss_scale))

    @property
    def target(self) -> str:
        """Where the parameters are updated: always ``'CPU'`` here (MindSpore's device target)."""
        return "CPU"

    @target.setter
    def target(self, value: str) -> None:
        if value != "CPU":
            raise ValueError(f"Optimizer.target: opbuild updates parameters on the CPU only, got {value!r}")

    @property
    def unique(self) -> bool:
        """Whether sparse gradients are made unique before the update (MindSpore's flag; default True)."""
        return self._unique

    @unique.setter
    def unique(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"Optimizer.unique must be a bool, got {type(value).__name__}")
        self._unique = value

    def scale_grad(self, gradients: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """The gradients divided by ``loss_scale`` (unchanged when it is 1)."""
        if self.loss_scale == 1.0:
            return tuple(gradients)
        return tuple(g * (1.0 / self.loss_scale) for g in gradients)

    def _rate(self, kind: str, source: Any) -> Tensor:
        if kind == "static":
            return source
        return source(self.global_step)

    def get_lr(self) -> Any:
        """The learning rate of this step (one Tensor, or a tuple with each parameter's with group rates);
        increments ``global_step`` after reading it when the rate is dynamic."""
        rates = [self._rate(kind, src) for kind, src in self._lr_sources]
        if self.dynamic_lr:
            self._assign_add(self.global_step, Tensor(np.ones((1,), np.int32)))
        if self.is_group_lr:
            return tuple(rates[k] for k in self._lr_index)
        return rates[0]

    @staticmethod
    def scalar_like(x: Any, param: Parameter) -> Tensor:
        """``x`` (a Tensor of one element, or a number) as the update kernels take it: param's dtype."""
        if not isinstance(x, Tensor):
            return Tensor(np.asarray(x, dtype=param.asnumpy().dtype))
        return x if x._type.dtype == param._type.dtype else F.cast(x, param._type.dtype)

    def lr_of(self, lr: Any, i: int) -> Tensor:
        """Parameter ``i``'s learning rate, from what :meth:`get_lr` returned, in that parameter's dtype."""
        rate = lr[i] if self.is_group_lr else lr
        return self.scalar_like(rate, self._parameters[i])

    # ---- calling -------------------------------------------------------------------------------------
    def __call__(self, gradients: Sequence[Tensor]) -> Any:
        """Update the parameters with ``gradients`` (one per parameter, in ``self.parameters`` order)."""
        gradients = tuple(gradients)
        taken = self.__dict__.get("_shapes")  # None in a subclass that skipped Optimizer.__init__
        if taken is not None:
            object.__setattr__(self, "_shapes", reshaped.check(self, taken))
        if trace.current() is not None or config.get_context("mode") == config.PYNATIVE_MODE:
            return self.construct(gradients)
        if self._flat is None:
            object.__setattr__(self, "_flat", _FlatUpdate(self))
        return self._flat(*gradients)

    def construct(self, gradients: Sequence[Tensor]) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define construct(gradients)")
