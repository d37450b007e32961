"""The GPU op suite: one kernel spec per covered op, dtype and layout (flat, broadcast, reduced axes), with
deterministic inputs. A test helper, shared by tests/targets/cuda/ (NVRTC compiles every one) and
scripts/gpu_check.py (each run on a GPU against the CPU target's result)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops import elementwise as E
from opbuild.ops.registry import get as get_op
from opbuild.targets.cuda.codegen import SUPPORTED_DTYPES

from . import suite_gpuhalf

# One float, one signed and one unsigned int per row, where the row accepts them (every dtype would multiply
# the compile time without covering another code path of the emitters).
_PICK = ("float32", "float64", "int32", "uint8", "int64", "bool")


@dataclass(frozen=True)
class Case:
    """One kernel of the suite: its spec and the seed of its inputs."""

    spec: KernelSpec
    seed: int

    @property
    def label(self) -> str:
        shapes = ", ".join(f"{t.dtype}{list(t.shape)}" for t in self.spec.inputs)
        return f"{self.spec.op}({shapes})"

    def inputs(self) -> list[np.ndarray]:
        """Deterministic inputs: normal floats, small integers, random booleans."""
        rng = np.random.default_rng(self.seed)
        out = []
        for t in self.spec.inputs:
            if t.dtype == "bool":
                out.append(rng.random(t.shape) < 0.5)
            elif np.dtype(t.dtype).kind in "iu":
                lo = 0 if np.dtype(t.dtype).kind == "u" else -9
                out.append(rng.integers(lo, 10, size=t.shape).astype(t.dtype))
            else:
                out.append(rng.standard_normal(t.shape).astype(t.dtype))
        return out


def _spec(op: str, attrs: dict, *types: tuple[tuple[int, ...], str]) -> KernelSpec:
    return get_op(op).spec(attrs, [TensorType(s, d) for s, d in types])


def _dtypes(accepted: tuple[str, ...]) -> list[str]:
    return [d for d in _PICK if d in accepted and d in SUPPORTED_DTYPES]


def elementwise_specs() -> list[KernelSpec]:
    """Every elementwise row for its picked dtypes: unary flat, binary flat and broadcast; Select, ClipByValue,
    Cast and BroadcastTo."""
    specs = []
    for op, row in E.UNARY.items():
        specs += [_spec(op, {}, ((4, 33), d)) for d in _dtypes(row.dtypes)]
    for op, row in {**E.BINARY, **E.GRAD_BINARY}.items():
        if row.out == "complex":
            continue  # Complex's output is complex: the GPU target refuses it (no complex dtype there)
        for d in _dtypes(row.dtypes):
            specs.append(_spec(op, {}, ((4, 33), d), ((4, 33), d)))
            specs.append(_spec(op, {}, ((3, 1, 5), d), ((4, 1), d)))
    specs.append(_spec("Select", {}, ((4, 6), "bool"), ((4, 6), "float32"), ((4, 6), "float32")))
    specs.append(_spec("ClipByValue", {}, ((4, 6), "float32"), ((), "float32"), ((), "float32")))
    for src, dst in (("float32", "int32"), ("float64", "uint8"), ("int32", "float32"), ("float32", "bool"),
                     ("float32", "float64"), ("int64", "int8")):
        specs.append(_spec("Cast", {"dtype": dst}, ((5, 7), src)))
    specs.append(_spec("BroadcastTo", {"shape": (3, 4, 5)}, ((1, 5), "float32")))
    members = [{"op": "Mul", "attrs": {}, "args": ["i0", "i1"]}, {"op": "ReLU", "attrs": {}, "args": ["t0"]},
               {"op": "Add", "attrs": {}, "args": ["t1", "i2"]}, {"op": "Cast", "attrs": {"dtype": "float64"},
                                                                  "args": ["t2"]}]
    specs.append(_spec("FusedElementwise", {"members": members}, ((4, 33), "float32"), ((4, 33), "float32"),
                       ((33,), "float32")))
    return specs


def reduction_specs() -> list[KernelSpec]:
    """Row reductions over the last, the first and middle axes, kept dims or not; Softmax and LogSoftmax."""
    specs = []
    for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"):
        for d in ("float32", "int32"):
            if op == "ReduceMean" and d == "int32":
                continue
            specs.append(_spec(op, {"axis": (1,), "keep_dims": False}, ((6, 300), d)))
            specs.append(_spec(op, {"axis": (0,), "keep_dims": True}, ((7, 5, 3), d)))
            specs.append(_spec(op, {"axis": (1, 2), "keep_dims": False}, ((2, 3, 4, 5), d)))
    specs.append(_spec("ReduceSum", {"axis": (), "keep_dims": False}, ((1000,), "float64")))
    for op in ("ArgMax", "ArgMin"):
        specs.append(_spec(op, {"axis": 1}, ((6, 300), "float32")))
        specs.append(_spec(op, {"axis": 0, "output_type": "int64"}, ((7, 5, 3), "int32")))
    for op in ("Softmax", "LogSoftmax"):
        specs.append(_spec(op, {"axis": -1}, ((8, 130), "float32")))
        specs.append(_spec(op, {"axis": 0}, ((9, 4), "float64")))
    return specs


def _keep(op: str, arg: str, axis: list[int], keep: bool = True) -> dict:
    return {"op": op, "attrs": {"axis": axis, "keep_dims": keep}, "args": [arg]}


def fused_reduce_specs() -> list[KernelSpec]:
    """FusedRowReduce recipes as the reduction-fusion pass writes them: Softmax, a variance (a reduction
    without keep_dims last), and a LayerNorm with a literal epsilon and broadcast gamma/beta (a full value used
    two loops later)."""
    softmax = [_keep("ReduceMax", "i0", [1]), {"op": "Sub", "attrs": {}, "args": ["i0", "t0"]},
               {"op": "Exp", "attrs": {}, "args": ["t1"]}, _keep("ReduceSum", "t2", [1]),
               {"op": "RealDiv", "attrs": {}, "args": ["t2", "t3"]}]
    variance = [_keep("ReduceMean", "i0", [2]), {"op": "Sub", "attrs": {}, "args": ["i0", "t0"]},
                {"op": "Mul", "attrs": {}, "args": ["t1", "t1"]}, _keep("ReduceMean", "t2", [2], keep=False)]
    layernorm = [_keep("ReduceMean", "i0", [1]), {"op": "Sub", "attrs": {}, "args": ["i0", "t0"]},
                 {"op": "Square", "attrs": {}, "args": ["t1"]}, _keep("ReduceMean", "t2", [1]),
                 {"op": "Add", "attrs": {}, "args": ["t3", 1e-5]}, {"op": "Rsqrt", "attrs": {}, "args": ["t4"]},
                 {"op": "Mul", "attrs": {}, "args": ["t1", "t5"]}, {"op": "Mul", "attrs": {}, "args": ["t6", "i1"]},
                 {"op": "Add", "attrs": {}, "args": ["t7", "i2"]}]
    return [_spec("FusedRowReduce", {"members": softmax}, ((8, 130), "float32")),
            _spec("FusedRowReduce", {"members": variance}, ((3, 4, 300), "float64")),
            _spec("FusedRowReduce", {"members": layernorm}, ((6, 520), "float32"), ((520,), "float32"),
                  ((520,), "float32"))]


def layout_specs() -> list[KernelSpec]:
    """Data movement: shape-only copies, Transpose, Concat, Split, Slice, StridedSlice (negative steps too),
    Gather (an int32 and an int64 index tensor); the fill family (Tile, Pad, OnesLike, ZerosLike, Fill)."""
    f32 = "float32"
    return [_spec("Reshape", {"shape": (6, 20)}, ((4, 30), f32)),
            _spec("ExpandDims", {"axis": 1}, ((4, 5), "int64")),
            _spec("Squeeze", {"axis": (1,)}, ((4, 1, 5), f32)),
            _spec("Flatten", {}, ((2, 3, 4), "float64")),
            _spec("Transpose", {"perm": (2, 0, 1)}, ((3, 4, 5), f32)),
            _spec("Transpose", {"perm": (1, 0)}, ((33, 65), "int32")),
            _spec("Concat", {"axis": 1}, ((2, 3, 4), f32), ((2, 5, 4), f32), ((2, 1, 4), f32)),
            _spec("Split", {"axis": 1, "output_num": 3}, ((2, 6, 5), f32)),
            _spec("Slice", {"begin": (1, 2), "size": (3, 4)}, ((5, 7), f32)),
            _spec("StridedSlice", {"begin": (0, 6), "end": (5, 0), "strides": (2, -2)}, ((5, 7), f32)),
            _spec("Gather", {"axis": 0}, ((10, 6), f32), ((7,), "int32")),
            _spec("Gather", {"axis": 1}, ((3, 10, 4), "float64"), ((2, 3), "int64")),
            _spec("Gather", {"axis": 0, "bounds": "raise"}, ((10, 6), f32), ((7,), "int32")),
            _spec("GatherNd", {}, ((10, 12, 3), f32), ((4, 2), "int32")),
            _spec("Tile", {"multiples": (2, 1, 3)}, ((4, 5), f32)),
            _spec("Pad", {"paddings": ((1, 2), (0, 3))}, ((4, 5), "int32")),
            _spec("OnesLike", {}, ((3, 4), "uint8")),
            _spec("ZerosLike", {}, ((3, 4), "float64")),
            _spec("Fill", {"dtype": "float32", "shape": (2, 3), "value": -1.5}),
            _spec("Fill", {"dtype": "int64", "shape": (5,), "value": -(2 ** 40)}),
            _spec("Fill", {"dtype": "bool", "shape": (4,), "value": True})]


def matmul_specs() -> list[KernelSpec]:
    """MatMul with every transpose, integer MatMul, BatchMatMul with broadcast batches and 1-D operands."""
    specs = []
    for ta in (False, True):
        for tb in (False, True):
            a = (17, 33) if ta else (33, 17)
            b = (20, 17) if tb else (17, 20)
            specs.append(_spec("MatMul", {"transpose_a": ta, "transpose_b": tb}, (a, "float32"), (b, "float32")))
    specs.append(_spec("MatMul", {}, ((5, 7), "int32"), ((7, 3), "int32")))
    specs.append(_spec("MatMul", {}, ((6, 9), "float64"), ((9, 4), "float64")))
    specs.append(_spec("BatchMatMul", {}, ((2, 1, 3, 4), "float32"), ((5, 4, 6), "float32")))
    specs.append(_spec("BatchMatMul", {"transpose_b": True}, ((4, 3, 8), "float32"), ((4, 5, 8), "float32")))
    specs.append(_spec("BatchMatMul", {}, ((8,), "float32"), ((3, 8, 2), "float32")))
    specs.append(_spec("BatchMatMul", {}, ((3, 2, 8), "float32"), ((8,), "float32")))
    return specs


def cases() -> list[Case]:
    """The whole suite, each spec once."""
    seen: dict = {}
    for spec in (elementwise_specs() + reduction_specs() + fused_reduce_specs() + layout_specs()
                 + matmul_specs()):
        seen.setdefault(spec.memo_key(), spec)
    seen.update((s.memo_key(), s) for s in suite_gpuhalf.specs() if s.memo_key() not in seen)  # gpuhalf's part
    out = [Case(spec, i) for i, spec in enumerate(seen.values())]
    # Imported here: the families' suites import Case from this module.
    from .suite_gpugemm import cases as gpugemm_cases
    from .suite_gpuhalf2 import cases as gpuhalf2_cases
    from .suite_gpumath import cases as gpumath_cases
    from .suite_gpunn import cases as gpunn_cases
    from .suite_gputrain import train_cases

    out += gpunn_cases(len(seen))  # gpunn: convolutions, pooling, BatchNorm, LayerNorm, bias, GridSample
    out += train_cases()  # gputrain: optimizers, losses, fused GEMM, scatters, scans, TopK, random ops
    out += gpumath_cases(len(out))  # gpumath: special functions, linear algebra, random sampling
    out += gpugemm_cases(len(out))  # gpugemm: the tiled GEMMs (tails, transposes, batches, fused epilogues)
    out += gpuhalf2_cases(len(out))  # gpuhalf2: half types of the nn, training and math families
    return out


__all__ = ["Case", "cases", "elementwise_specs", "fused_reduce_specs", "layout_specs", "matmul_specs",
           "reduction_specs"]
