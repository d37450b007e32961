"""Primitive: the callable operator objects users instantiate (``ops.Square()``), :func:`apply`, the single
place where an op application is either recorded into a trace or executed eagerly, and the two ways an op is
declared in one block (:func:`defop` for a hand-written primitive class, :func:`declare` for a table row).

One declaration gives both halves of an operator: its :class:`~opbuild.ops.registry.OpDef` (normalize, infer,
reference, metadata) is registered, and its MindSpore-style primitive class is tied to it (``op_name`` set from
the OpDef, ``OpDef.primitive`` pointing back at the class), so neither can be added, renamed or dropped
without the other.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from ..core import trace
from ..core.parameter import Parameter
from ..core.tensor import Tensor, as_tensor
from .eager_specs import eager_spec
from .registry import InferFn, NormalizeFn, OpDef, RefFn, StatusFn, WorkspaceFn, get, register

# The compute dtype of the innermost Cell on the call stack that has one (``Cell.to_float``), MindSpore's
# mixed_precision_type: every op applied inside such a cell takes its float inputs and Parameters cast to that
# dtype (one Cast node each; Cast's gradient casts the cotangent back, so float32 Parameters get float32
# gradients). In-place ops (optimizers, Assign of moving statistics) are never cast: they write state.
_compute_dtype: contextvars.ContextVar[str | None] = contextvars.ContextVar("opbuild_compute_dtype", default=None)


@contextlib.contextmanager
def compute_dtype(dtype: str | None) -> Iterator[None]:
    """Within the block, ops cast their float inputs to ``dtype`` (``Cell.to_float``; None: as they are). A
    context variable, not module state: threads and nested cells each see their own innermost setting."""
    token = _compute_dtype.set(dtype)
    try:
        yield
    finally:
        _compute_dtype.reset(token)

_FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")


def _cast_floats(tensors: list, dtype: str, keep: tuple[int, ...] = ()) -> list:
    return [apply("Cast", {"dtype": dtype}, [t])
            if t._type.dtype in _FLOAT_NAMES and t._type.dtype != dtype and i not in keep else t
            for i, t in enumerate(tensors)]


def apply(op: str, attrs: dict[str, Any], inputs: Sequence[Any]) -> Any:
    """Apply primitive ``op`` to ``inputs``: inside a trace, add a graph node and return symbolic tensors;
    otherwise (PyNative, or outside any Cell) build the kernel if needed and run it now.

    Shape and dtype errors are raised here, naming the op and its inputs, before any C is involved.
    Returns one Tensor, or a tuple when the op has several outputs (or the op is ``multi_output``).
    """
    opdef = get(op)
    tensors = [as_tensor(x) for x in inputs]
    low = _compute_dtype.get()
    if low is not None and op != "Cast" and not opdef.inplace:
        tensors = _cast_floats(tensors, low, opdef.keep_dtype)
    tracer = trace.current()
    if tracer is None:
        return _run_now(opdef, attrs, tensors)
    values = [tracer.value_of(t) for t in tensors]
    spec = opdef.spec(attrs, [t._type for t in tensors])
    if opdef.inplace:
        _check_inplace(opdef, tensors, tracer)
    node = tracer.graph.add_node(op, spec.attrs, values, list(spec.outputs), spec)
    tracer.own(node.outputs)
    for o, i in opdef.inplace:
        node.outputs[o].alias_of = values[i]
        tracer.rebind(values[i], node.outputs[o])
    outs = [Tensor._symbolic(v) for v in node.outputs]
    return outs[0] if len(outs) == 1 and not opdef.multi_output else tuple(outs)


def _run_now(opdef: OpDef, attrs: dict[str, Any], tensors: list[Tensor]) -> Any:
    """:func:`apply` outside a trace: the op's kernel runs now on the tensors' data (PyNative)."""
    spec = eager_spec(opdef, attrs, tensors)
    if opdef.inplace:
        _check_inplace(opdef, tensors, None)
        # Inputs an op only reads are taken without asnumpy, which would make device copies of them stale.
        written = {i for _, i in opdef.inplace}
        arrays = [t.asnumpy() if i in written else t._read() for i, t in enumerate(tensors)]
    else:
        arrays = [t._read() for t in tensors]
    outs = [Tensor._of(a) for a in trace.engine().run_eager(spec, arrays)]
    return outs[0] if len(outs) == 1 and not opdef.multi_output else tuple(outs)


def _check_inplace(opdef: OpDef, tensors: Sequence[Tensor], tracer: trace.Tracer | None) -> None:
    """An in-place op writes Parameters (MindSpore's Ref inputs), each at most once per application. In
    PyNative a concrete Tensor is written in place too, as MindSpore's PyNative does with a Tensor passed
    for a Ref input (a Tensor owns a copy of the data it was made from); inside a trace, writing a constant
    or a graph input would change data the caller still owns, so only Parameters are accepted there."""
    targets = [i for _, i in opdef.inplace]
    for i in targets:
        t = tensors[i]
        ok = isinstance(t, Parameter) or (tracer.updates_parameter(t) if tracer is not None else
                                          t._data is not None)
        if not ok:
            raise TypeError(f"{opdef.name}: input {i} is updated in place and must be a Parameter, got "
                            f"{type(t).__name__} (wrap the state in a Parameter, as MindSpore's Ref inputs)")
    ids = [id(tensors[i]) for i in targets]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{opdef.name}: the same Parameter is passed to two in-place inputs")


class Primitive:
    """Base class of operator objects. ``op_name`` names the registered OpDef; constructor keyword arguments
    are the op's attributes. Subclasses whose calls take non-tensor arguments (an axis, a shape) override
    ``__call__`` and move those into attributes."""

    op_name: str = ""
    instance_name: str = ""

    @property
    def name(self) -> str:
        """The primitive's name: the one given to the constructor, else the op's (MindSpore's ``Prim.name``)."""
        return self.__dict__.get("_name") or self.op_name or type(self).__name__

    @name.setter
    def name(self, value: str) -> None:
        self.__dict__["_name"] = value

    def __init__(self, name: str | None = None, **attrs: Any):
        self.attrs = attrs
        if name is not None:
            self.name = name

    def __call__(self, *inputs: Any) -> Any:
        if not self.op_name:
            raise RuntimeError(f"primitive {self.name!r} has no registered operator to run: subclass Primitive "
                               "with an op_name, or declare the op with ops.primitive.defop")
        return apply(self.op_name, self.attrs, inputs)

    def __repr__(self) -> str:
        """MindSpore's form: ``Prim[Name]`` and the attributes, ``Prim[ReduceMax]<keep_dims=True>`` (the
        input/output names are left out, as there)."""
        shown = {k: v for k, v in self.attrs.items() if k not in ("input_names", "output_names")}
        args = ", ".join(f"{k}={v}" for k, v in shown.items())
        return f"Prim[{self.name}]" + (f"<{args}>" if args else "")

    # MindSpore's Primitive base API. Attributes that steer placement on a cluster
    # (``place``, ``set_stage``, ``set_device``) or memory strategy (``recompute``) are recorded, not acted on:
    # opbuild runs every op on the one CPU it builds for, and its autodiff always keeps forward values.

    def add_prim_attr(self, name: str, value: Any) -> Primitive:
        """Set attribute ``name`` to ``value``; returns the primitive."""
        self.attrs[name] = value
        return self

    def del_prim_attr(self, name: str) -> Primitive:
        """Remove attribute ``name`` (absent: nothing happens); returns the primitive."""
        self.attrs.pop(name, None)
        return self

    def init_prim_io_names(self, inputs: Sequence[str], outputs: Sequence[str]) -> None:
        """Record the names of the inputs and outputs (``input_names``/``output_names``)."""
        self.input_names = list(inputs)
        self.output_names = list(outputs)
        self.attrs["input_names"] = list(inputs)
        self.attrs["output_names"] = list(outputs)

    def set_prim_instance_name(self, instance_name: str) -> Primitive:
        """Name this instance (``instance_name``); returns the primitive."""
        self.instance_name = instance_name
        return self

    def place(self, role: str, rank_id: int) -> None:
        """Record the parameter-server role and rank (``ms_role``, ``rank_id``); recorded only."""
        if role not in ("MS_WORKER", "MS_PSERVER", "MS_SCHED"):
            raise ValueError(f"place: role must be 'MS_WORKER', 'MS_PSERVER' or 'MS_SCHED', got {role!r}")
        if not isinstance(rank_id, int) or isinstance(rank_id, bool):
            raise TypeError(f"place: rank_id must be an int, got {type(rank_id).__name__}")
        self.attrs["ms_role"] = role
        self.attrs["rank_id"] = rank_id

    def recompute(self, mode: bool = True) -> Primitive:
        """Record the ``recompute`` attribute; returns the primitive. Recorded only: opbuild's gradient
        graphs keep the forward values instead of recomputing them, which gives the same results."""
        if not isinstance(mode, bool):
            raise TypeError(f"recompute: mode must be a bool, got {type(mode).__name__}")
        self.attrs["recompute"] = mode
        return self

    def set_device(self, device_target: str) -> Primitive:
        """Record the target device (``primitive_target``); returns the primitive. Recorded only."""
        if device_target not in ("CPU", "GPU", "Ascend"):
            raise ValueError(f"set_device: device_target must be 'CPU', 'GPU' or 'Ascend', got {device_target!r}")
        self.attrs["primitive_target"] = device_target
        return self

    @property
    def primitive_target(self) -> str:
        """The device recorded by :meth:`set_device` (``"CPU"`` by default)."""
        return self.attrs.get("primitive_target", "CPU")

    def set_stage(self, stage: int) -> Primitive:
        """Record the pipeline stage (``stage``); returns the primitive. Recorded only."""
        if not isinstance(stage, int) or isinstance(stage, bool) or stage < 0:
            raise ValueError(f"set_stage: stage must be a non-negative int, got {stage!r}")
        self.attrs["stage"] = stage
        return self

    def check_elim(self, *args: Any) -> tuple[bool, Any]:
        """Whether a call with ``args`` can be replaced by a value: ``(False, None)`` unless a subclass says
        otherwise (MindSpore's hook for eliminating trivial applications)."""
        return (False, None)


def primitive_class(op_name: str, doc: str = "", call: Callable | None = None,
                    init: Callable | None = None) -> type[Primitive]:
    """Create a Primitive subclass named ``op_name`` (optionally with custom ``__call__``/``__init__``).

    It is not registered: :func:`declare` does that for an op's own class; aliases (``ops.Div``) use this alone.
    """
    ns: dict[str, Any] = {"op_name": op_name, "__doc__": doc or f"The {op_name} primitive."}
    if call is not None:
        ns["__call__"] = call
    if init is not None:
        ns["__init__"] = init
    return type(op_name, (Primitive,), ns)


P = TypeVar("P", bound=type[Primitive])


def _bind(opdef: OpDef, cls: P) -> P:
    """Register ``opdef`` with ``cls`` as its primitive class (the one place both halves meet)."""
    own = cls.__dict__.get("op_name")
    if own is not None and own != opdef.name:
        raise RuntimeError(f"primitive class {cls.__name__} names op {own!r} but is declared as {opdef.name!r}")
    register(opdef)
    cls.op_name = opdef.name
    opdef.primitive = cls
    return cls


def defop(*, infer: InferFn, reference: RefFn, normalize: NormalizeFn | None = None,
          n_inputs: int | None = None, multi_output: bool = False,
          name: str | None = None, inplace: tuple[tuple[int, int], ...] = (),
          scenario: str = "forward", view: bool = False, reuse_input: bool = False,
          workspace: WorkspaceFn | None = None, keep_dtype: tuple[int, ...] = (),
          status: StatusFn | None = None) -> Callable[[P], P]:
    """Class decorator declaring an operator in one block: the decorated Primitive subclass is the op's
    MindSpore primitive (its constructor and ``__call__`` unchanged) and the keyword arguments are its
    :class:`OpDef` (see there), registered under ``name`` (default: the class name).

    ::

        @defop(infer=_transpose_infer, normalize=_transpose_normalize, n_inputs=1,
               reference=lambda attrs, x: np.transpose(x, attrs["perm"]))
        class Transpose(Primitive):
            def __call__(self, x, perm):
                return apply("Transpose", {"perm": perm}, [x])
    """

    def attach(cls: P) -> P:
        opdef = OpDef(name or cls.__name__, infer, reference, normalize=normalize, n_inputs=n_inputs,
                      multi_output=multi_output, inplace=tuple(inplace),
                      scenario=scenario, view=view, reuse_input=reuse_input, workspace=workspace,
                      keep_dtype=tuple(keep_dtype), status=status)
        return _bind(opdef, cls)

    return attach


def declare(opdef: OpDef, doc: str = "", call: Callable | None = None,
            init: Callable | None = None) -> type[Primitive]:
    """Declare an operator from a table row: register ``opdef`` and return its primitive class, derived with
    :func:`primitive_class` (named ``opdef.name``; ``call``/``init`` customise it as there)."""
    return _bind(opdef, primitive_class(opdef.name, doc, call, init))
