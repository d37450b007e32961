"""The operator registry: each primitive is registered exactly once with everything it needs.

An :class:`OpDef` bundles, for one primitive:
  * ``infer``: attrs + input types -> output types (raises ShapeError naming the op and inputs),
  * ``reference``: the NumPy implementation tests compare against,
  * ``normalize`` (optional): canonicalise attrs (negative axes, defaults) so equal kernels share one key.

Operators describe, targets emit: an OpDef says what an operator is (and its gradient rule, its view,
in-place and workspace metadata); how a target computes it is the target's business (the CPU's C emitters are
registered by op name in targets/cpu/kernels/, which also hashes them into each kernel's key). This package
imports no target.

Adding an operator touches one file of this package (its family), its emitter in targets/cpu/kernels/ (none
for a composition of other ops) and its tests: the op is declared in one block in its family file
(ops/primitive.py: ``defop`` decorates its primitive class, ``declare`` derives one from a table row), which
registers its OpDef here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import KernelInputError, OpbuildError, ShapeError
from ..core.ir import KernelSpec, TensorType

InferFn = Callable[[dict, Sequence[TensorType]], list[TensorType]]
RefFn = Callable[..., Any]
NormalizeFn = Callable[[dict, Sequence[TensorType]], dict]
# A gradient rule (a VJP): (attrs, inputs, outputs, output cotangents) -> one cotangent per input, or None
# where an input gets none. Inputs, outputs and cotangents are symbolic Tensors of the graph being
# differentiated (a cotangent is None for an output nothing downstream depends on); the rule builds the
# backward computation by applying primitives, so backward nodes are ordinary graph nodes and kernels.
GradFn = Callable[[dict, Sequence[Any], Sequence[Any], Sequence[Any]], Sequence[Any]]
# A host operation (collectives): (attrs, input arrays, output arrays) -> None, writing the outputs. The runtime
# calls it between kernels in place of a kernel (the arrays are the node's own buffers in the arena).
HostFn = Callable[[dict, Sequence[np.ndarray], Sequence[np.ndarray]], None]
# Bytes of scratch memory a kernel of these (normalized) attrs and input/output types needs (OpDef.workspace).
WorkspaceFn = Callable[[dict, Sequence[TensorType], Sequence[TensorType]], int]
# What a kernel's status report means (OpDef.status): (attrs, input types, value, position) -> the message of
# the error raised for it, e.g. "input_indices[3] = 7 is out of range [-5, 5) ..." (a KernelInputError), or
# the error itself (a KernelMemoryError for scratch memory a kernel could not allocate).
StatusFn = Callable[[dict, Sequence[TensorType], int, int], str | OpbuildError]
#: int64 words of a kernel's status: flag (0: nothing to report), value, position.
STATUS_WORDS = 3


def _no_gradient(attrs: dict, inputs: Sequence[Any], outputs: Sequence[Any], douts: Sequence[Any]) -> list:
    """The rule of ops that are not differentiable (comparisons, ArgMax, Floor, ...): no input gets a
    cotangent, which autodiff treats as a zero gradient (as MindSpore's bprops return zeros for them)."""
    return [None] * len(inputs)


NO_GRADIENT: GradFn = _no_gradient

# The parts of a train step a kernel can serve (OpDef.scenario), in the order the CLI lists them.
SCENARIOS = ("forward", "backward", "update")


@dataclass
class OpDef:
    """One registered primitive. ``n_inputs`` None means variadic.
    ``multi_output`` makes the op return a tuple even when it has one output (Split). ``primitive`` is the
    user-facing class declared with it (ops/primitive.py: ``defop``/``declare``), set when it is registered.
    ``grad`` is its gradient rule (:data:`GradFn`; :data:`NO_GRADIENT` for ops that have none), attached by
    :func:`grad_rule` in the op's family file; None means nobody wrote one yet (autodiff then refuses to
    differentiate through the op rather than silently returning a wrong gradient).
    ``keep_dtype``: indices of inputs that keep their dtype inside a cell with a compute dtype
    (``Cell.to_float``, mixed precision), where every other float input is cast to it: BatchNorm's scale,
    bias and moving statistics stay float32 beside a float16 x, as MindSpore's float16 BatchNorm takes them
    (the moving statistics are Parameters updated in place, which a cast copy would cut off).
    ``inplace`` pairs ``(output index, input index)``: that output is written into that input's buffer, which
    must be a Parameter (MindSpore's Ref inputs: ApplyMomentum's variable and accumulation). The kernel is
    called with both pointers equal; its body writes the output and reads the old value through it.
    ``scenario`` says which part of a train step the op's kernels serve (:data:`SCENARIOS`: ``forward``,
    ``backward`` for ops only gradient rules apply, ``update`` for optimizer updates); set by the declaration,
    it is what ``opbuild cache ls``/``stats`` show per entry (it never enters the key: it follows from the op).

    Memory planning (passes/memplan.py) reads two declarations. ``view``: the output is the input's bytes in
    a new shape (Reshape, Flatten, ...), so it may alias the input's buffer and the node runs no kernel.
    ``reuse_input``: an elementwise map whose kernel computes ``out0[o]`` from the inputs' elements at ``o``
    (under broadcasting) alone, reading them before storing, so ``out0`` may share the buffer of an input of
    the same type that nothing reads afterwards.

    ``host``: the op runs no kernel but this :data:`HostFn`, called by the executor between kernels (and by
    PyNative directly): collectives (ops/collective.py), whose result depends on the other ranks. Nothing is
    built for such a node, and constant folding leaves it alone.

    ``workspace``: the scratch bytes a kernel needs (:data:`WorkspaceFn`), 0 for none. A kernel with a
    workspace takes its address as one more pointer after the outputs (the kernel ABI, targets/cpu/codegen.py):
    the executor hands it a region of the graph's arena, live during that node only (passes/memplan.py), and
    PyNative allocates it per call (:meth:`workspace_bytes`).

    ``status``: the op's kernels can meet input they cannot compute (an index out of range) and report the first
    such element in :data:`STATUS_WORDS` int64 words (flag, value, position), one more pointer after the
    workspace (the CPU target's kernel ABI 3). The caller clears them before the call and, when the flag is set
    after it, raises :meth:`status_error` (this function says what the value and position mean). An op may
    declare a status for attrs whose kernels never report (Gather's ``bounds="zero"``): the ABI depends on the
    op alone."""

    name: str
    infer: InferFn
    reference: RefFn
    normalize: NormalizeFn | None = None
    n_inputs: int | None = None
    multi_output: bool = False
    scenario: str = "forward"
    view: bool = False
    reuse_input: bool = False
    primitive: type | None = field(default=None, repr=False, compare=False)
    grad: GradFn | None = field(default=None, repr=False, compare=False)
    inplace: tuple[tuple[int, int], ...] = ()
    host: HostFn | None = field(default=None, repr=False, compare=False)
    workspace: WorkspaceFn | None = field(default=None, repr=False, compare=False)
    keep_dtype: tuple[int, ...] = ()
    status: StatusFn | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.scenario not in SCENARIOS:
            raise ValueError(f"operator {self.name}: scenario must be one of {SCENARIOS}, got {self.scenario!r}")

    def workspace_bytes(self, attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> int:
        """Scratch bytes a kernel of this op needs for these normalized attrs and types (0: no workspace
        pointer is passed)."""
        return int(self.workspace(attrs, ins, outs)) if self.workspace is not None else 0

    def status_error(self, attrs: dict, ins: Sequence[TensorType], words: Sequence[int]) -> OpbuildError:
        """The error a kernel's status report ``words`` (flag, value, position) stands for."""
        value, position = int(words[1]), int(words[2])
        message = self.status(attrs, ins, value, position) if self.status is not None else \
            f"the kernel reported value {value} at position {position}"
        if isinstance(message, OpbuildError):
            return message
        return KernelInputError(self.name, message, value, position)

    def check_arity(self, in_types: Sequence[TensorType]) -> None:
        if self.n_inputs is not None and len(in_types) != self.n_inputs:
            raise ShapeError(self.name, f"expects {self.n_inputs} inputs, got {len(in_types)}", list(in_types))

    def spec(self, attrs: dict, in_types: Sequence[TensorType]) -> KernelSpec:
        """Validate inputs and build the kernel spec (canonical attrs + inferred outputs)."""
        self.check_arity(in_types)
        _refuse_complex(self.name, in_types)
        attrs = self.normalize(dict(attrs), in_types) if self.normalize else dict(attrs)
        outs = self.infer(attrs, in_types)
        _refuse_complex(self.name, outs, in_types)
        _refuse_unaddressable(self.name, outs, in_types)
        return KernelSpec(self.name, attrs, tuple(in_types), tuple(outs))

    def run_reference(self, spec: KernelSpec, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the NumPy reference; always returns a list of arrays with the inferred dtypes."""
        out = self.reference(spec.attrs, *arrays)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        return [np.asarray(o).astype(t.dtype, copy=False).reshape(t.shape) for o, t in zip(outs, spec.outputs)]


REGISTRY: dict[str, OpDef] = {}

# The ops whose kernels compute complex64/complex128 (their family files call :func:`allow_complex`). Every
# other op refuses a complex input or output here, naming itself and the dtype, whatever its own dtype check
# says: a kernel written for real numbers would read a complex buffer's parts as separate values.
COMPLEX_OPS: set[str] = set()
_COMPLEX_NAMES = ("complex64", "complex128")


def allow_complex(*names: str) -> None:
    """Declare that the registered ops ``names`` accept complex tensors (their kernels handle them)."""
    for name in names:
        get(name)
    COMPLEX_OPS.update(names)


def _refuse_complex(op: str, types: Sequence[TensorType], ins: Sequence[TensorType] | None = None) -> None:
    if op in COMPLEX_OPS:
        return
    for t in types:
        if t.dtype in _COMPLEX_NAMES:
            raise ShapeError(op, f"dtype {t.dtype} is not supported by {op} (complex tensors are accepted by the "
                             "ops docs/fft.md lists; take ops.real/ops.imag first)", list(ins or types))


#: Elements no output may reach: 2**60 elements of 8 bytes fill a 64-bit address space. Such a shape comes from
#: a damaged or hostile model (an ONNX Tile by 2**62) or a typo; refusing it here costs no compile of a kernel
#: that no allocation could ever serve.
MAX_ELEMENTS = 1 << 60


def _refuse_unaddressable(op: str, outs: Sequence[TensorType], ins: Sequence[TensorType]) -> None:
    for t in outs:
        if t.size >= MAX_ELEMENTS:
            raise ShapeError(op, f"output shape {list(t.shape)} holds {t.size} elements, more than any memory can "
                             "hold (a shape from a damaged model or a mistyped size?)", list(ins))


def register(opdef: OpDef) -> OpDef:
    """Add an op to the registry; registering a name twice is a programming error."""
    if opdef.name in REGISTRY:
        raise RuntimeError(f"operator {opdef.name} registered twice")
    REGISTRY[opdef.name] = opdef
    return opdef


def scenario_of(name: str) -> str:
    """The scenario of registered op ``name`` (``OpDef.scenario``), or ``"unknown"`` for a name this
    process does not register (an entry left by another opbuild version)."""
    opdef = REGISTRY.get(name)
    return opdef.scenario if opdef is not None else "unknown"


def get(name: str) -> OpDef:
    """Look up a registered op by name (KeyError with the list of known ops if absent)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown operator {name!r}; registered: {', '.join(sorted(REGISTRY))}") from None


def grad_rule(*names: str) -> Callable[[GradFn], GradFn]:
    """Decorator attaching a gradient rule to the registered op(s) ``names`` (declared earlier in the same
    family file, so an op and its derivative are read and changed together). Attaching two rules to one op
    is a programming error, as registering it twice is."""

    def attach(fn: GradFn) -> GradFn:
        for name in names:
            opdef = get(name)
            if opdef.grad is not None:
                raise RuntimeError(f"operator {name} has two gradient rules")
            opdef.grad = fn
        return fn

    return attach


def no_grad(*names: str) -> None:
    """Mark ops as not differentiable (their outputs are piecewise constant or not real numbers)."""
    grad_rule(*names)(NO_GRADIENT)


# ---- helpers shared by op families ------------------------------------------------------------------

def broadcast_shapes(op: str, types: Sequence[TensorType]) -> tuple[int, ...]:
    """NumPy broadcasting of the input shapes, or ShapeError naming the op and the shapes.

    Written out instead of ``np.broadcast_shapes`` (which builds a zero-strided array per call):
    every elementwise node's type inference runs it, many times per fused node while the fusion passes try
    chains, on every first call of a graph."""
    rank = max((len(t.shape) for t in types), default=0)
    out = [1] * rank
    for t in types:
        shape = t.shape
        off = rank - len(shape)
        for i, d in enumerate(shape):
            cur = out[off + i]
            if d != cur:
                if cur == 1:
                    out[off + i] = int(d)
                elif d != 1:
                    raise ShapeError(op, "shapes cannot be broadcast together", list(types))
    return tuple(out)


def same_dtype(op: str, types: Sequence[TensorType], allowed: Sequence[str]) -> str:
    """The common dtype of the inputs; ShapeError if they differ or it is not in ``allowed``."""
    dtypes = {t.dtype for t in types}
    if len(dtypes) != 1:
        raise ShapeError(op, "inputs must have the same dtype (cast one with ops.Cast)", list(types))
    (dt,) = dtypes
    if dt not in allowed:
        raise ShapeError(op, f"dtype {dt} is not supported (supported: {', '.join(allowed)})", list(types))
    return dt


def norm_axis(op: str, axis: int, rank: int, types: Sequence[TensorType] = ()) -> int:
    """Map a possibly negative axis into [0, rank); ShapeError if out of range."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise ShapeError(op, f"axis must be an int, got {axis!r}", list(types))
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(op, f"axis {axis} is out of range for rank {rank}", list(types))
    return int(axis) % max(rank, 1)
