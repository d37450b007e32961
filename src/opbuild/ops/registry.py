"""The operator registry: each primitive is registered exactly once with everything it needs.

An :class:`OpDef` bundles, for one primitive:
  * ``infer``: attrs + input types -> output types (raises ShapeError naming the op and inputs),
  * ``emit``: a :class:`KernelSpec` -> the body of a C kernel (see targets/cpu/codegen.py for the ABI),
  * ``reference``: the NumPy implementation tests compare against,
  * ``normalize`` (optional): canonicalise attrs (negative axes, defaults) so equal kernels share one key.

Adding an operator touches one file of this package (its family) and its test: the op is declared in one
block there (ops/primitive.py: ``defop`` decorates its primitive class, ``declare`` derives one from a table row),
which registers its OpDef here.

:meth:`OpDef.codegen_hash` hashes the files that shape the op's generated C (ops/sources.py: the emitter's
module, every helper of ours it reaches, targets/cpu/codegen.py and dtypes.py); :func:`codegen_files` lists them for the
graph manifests (cache/manifest.py), so the per-kernel key and the manifest fingerprint share one definition.
Helpers of ``normalize`` and ``infer`` may live anywhere: their effect is in the descriptor's attributes and
types.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..cache.identity import codegen_hash
from ..core.errors import ShapeError
from ..core.ir import KernelSpec, TensorType
from .sources import generator_files


@functools.cache
def _source_digest(path: str) -> str:
    """sha256 (hex) of a generator source file, read once per process (every op of a family shares it)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


InferFn = Callable[[dict, Sequence[TensorType]], list[TensorType]]
EmitFn = Callable[[KernelSpec], str]
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


def _no_gradient(attrs: dict, inputs: Sequence[Any], outputs: Sequence[Any], douts: Sequence[Any]) -> list:
    """The rule of ops that are not differentiable (comparisons, ArgMax, Floor, ...): no input gets a
    cotangent, which autodiff treats as a zero gradient (as MindSpore's bprops return zeros for them)."""
    return [None] * len(inputs)


NO_GRADIENT: GradFn = _no_gradient

# The parts of a train step a kernel can serve (OpDef.scenario), in the order the CLI lists them.
SCENARIOS = ("forward", "backward", "update")


# Op families whose kernels only move data (OpDef.opt_class "copy").
COPY_FAMILIES = frozenset({"opbuild.ops.layout", "opbuild.ops.slicing", "opbuild.ops.indexing"})


@dataclass
class OpDef:
    """One registered primitive. ``n_inputs`` None means variadic. ``needs_blas`` links OpenBLAS.
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
    PyNative allocates it per call (:meth:`workspace_bytes`)."""

    name: str
    infer: InferFn
    emit: EmitFn
    reference: RefFn
    normalize: NormalizeFn | None = None
    n_inputs: int | None = None
    needs_blas: bool = False
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
    _codegen_hash: str | None = field(default=None, repr=False)
    _codegen_files: tuple[str, ...] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.scenario not in SCENARIOS:
            raise ValueError(f"operator {self.name}: scenario must be one of {SCENARIOS}, got {self.scenario!r}")

    def workspace_bytes(self, attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> int:
        """Scratch bytes a kernel of this op needs for these normalized attrs and types (0: no workspace
        pointer is passed)."""
        return int(self.workspace(attrs, ins, outs)) if self.workspace is not None else 0

    def codegen_files(self) -> tuple[str, ...]:
        """The source files whose code shapes this op's generated C (ops/sources.py); derived once per op."""
        if self._codegen_files is None:
            self._codegen_files = generator_files(self.emit)
        return self._codegen_files

    def codegen_hash(self, file_digest: Callable[[str], str] | None = None) -> str:
        """sha256 of the code that generates this op's C: every file of :meth:`codegen_files`, and the op's name.

        Hashing whole source files is deliberately conservative: any edit to a file that shapes an op's C
        yields new keys for the ops it shapes, so a stale binary is never reused. ``file_digest`` (hex sha256
        of a file) may serve memoised digests (cache/statmemo.py); computed once per process and op.
        """
        if self._codegen_hash is None:
            self._codegen_hash = codegen_digest(self, file_digest or _source_digest)
        return self._codegen_hash

    def opt_class(self, spec: KernelSpec) -> str:
        """The kernel's optimisation class, part of its descriptor (cache/key.py); the target maps each class
        to flags recorded in the compiler identity (targets/cpu/codegen.py ``CLASS_OPT``). ``glue``: a float
        GEMM kernel whose own loops only arrange the operands of and copy around one BLAS call (MatMul,
        BatchMatMul, and forward convolutions whose ``algo`` is ``gemm`` or ``im2col``); ``copy``: data movement with no
        arithmetic (the layout, slicing and indexing families); ``compute``: everything else."""
        if self.needs_blas:
            floats = all(t.dtype in ("float32", "float64") for t in (*spec.inputs, *spec.outputs))
            attrs = spec.attrs if isinstance(spec.attrs, dict) else {}
            # A GEMM with a fused epilogue (ops/fused_gemm.py) takes its producer's class: -O3 makes the im2col
            # copies slower (docs/benchmarks.md has the figures); the epilogue loop carries `#pragma omp simd`,
            # which vectorises it at -O1 too.
            producer = attrs.get("producer")
            algo = (producer if isinstance(producer, dict) else attrs).get("algo")
            glue = algo is None or (algo in ("gemm", "im2col") and self.scenario == "forward")
            return "glue" if floats and glue else "compute"
        return "copy" if getattr(self.emit, "__module__", "") in COPY_FAMILIES else "compute"

    def check_arity(self, in_types: Sequence[TensorType]) -> None:
        if self.n_inputs is not None and len(in_types) != self.n_inputs:
            raise ShapeError(self.name, f"expects {self.n_inputs} inputs, got {len(in_types)}", list(in_types))

    def spec(self, attrs: dict, in_types: Sequence[TensorType]) -> KernelSpec:
        """Validate inputs and build the kernel spec (canonical attrs + inferred outputs)."""
        self.check_arity(in_types)
        attrs = self.normalize(dict(attrs), in_types) if self.normalize else dict(attrs)
        outs = self.infer(attrs, in_types)
        return KernelSpec(self.name, attrs, tuple(in_types), tuple(outs))

    def run_reference(self, spec: KernelSpec, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the NumPy reference; always returns a list of arrays with the inferred dtypes."""
        out = self.reference(spec.attrs, *arrays)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        return [np.asarray(o).astype(t.dtype, copy=False).reshape(t.shape) for o, t in zip(outs, spec.outputs)]


REGISTRY: dict[str, OpDef] = {}


def codegen_digest(opdef: OpDef, file_digest: Callable[[str], str]) -> str:
    """The code generator hash of ``opdef`` with ``file_digest`` reading each file (not memoised: see
    :meth:`OpDef.codegen_hash`). Files are hashed in sorted order, each by its digest alone."""
    return codegen_hash(opdef.name, (file_digest(str(f)) for f in opdef.codegen_files()))


def codegen_files(ops: Iterable[str] | None = None) -> list[str]:
    """The union of :meth:`OpDef.codegen_files` over ``ops`` (names; default every registered op), sorted:
    what the graph manifests' fingerprint stats. An unknown name contributes nothing (its build fails anyway)."""
    names = REGISTRY if ops is None else ops
    files: set[str] = set()
    for name in names:
        opdef = REGISTRY.get(name)
        if opdef is not None:
            files.update(opdef.codegen_files())  # derived once per op and process
    return sorted(files)


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
