"""The GPU suite's half-type and any-axes cases (suite.py's ``cases()`` appends them): float16 and bfloat16
kernels of every GPU emitter family (the elementwise rows and their backward maps, Cast to and from every
dtype, Select/ClipByValue/BroadcastTo, reductions, ArgMax/ArgMin, Softmax/LogSoftmax, fused elementwise and
fused row reductions, layout and fill kernels, MatMul/BatchMatMul), and reductions over non-adjacent axes in
every family of dtypes. A test helper, as suite.py."""

from __future__ import annotations

from opbuild.core.dtypes import ALL, LOWP
from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops import elementwise as E
from opbuild.ops.registry import get as get_op

HALF = ("float16", "bfloat16")


def _spec(op: str, attrs: dict, *types: tuple[tuple[int, ...], str]) -> KernelSpec:
    return get_op(op).spec(attrs, [TensorType(s, d) for s, d in types])


def elementwise_specs() -> list[KernelSpec]:
    """Every unary and binary row (backward maps included) in both half types, binary rows flat and
    broadcast; Select, ClipByValue, BroadcastTo, a fused map with half members and a float64 -> half Cast."""
    specs = []
    for d in HALF:
        for op, row in E.UNARY.items():
            if d in row.dtypes:
                specs.append(_spec(op, {}, ((4, 33), d)))
        for op, row in {**E.BINARY, **E.GRAD_BINARY}.items():
            if d in row.dtypes and row.out != "complex":
                specs.append(_spec(op, {}, ((4, 33), d), ((4, 33), d)))
                specs.append(_spec(op, {}, ((3, 1, 5), d), ((4, 1), d)))
        specs.append(_spec("Select", {}, ((4, 6), "bool"), ((4, 6), d), ((4, 6), d)))
        specs.append(_spec("ClipByValue", {}, ((4, 6), d), ((), d), ((), d)))
        specs.append(_spec("BroadcastTo", {"shape": (3, 4, 5)}, ((1, 5), d)))
        members = [{"op": "Mul", "attrs": {}, "args": ["i0", "i1"]}, {"op": "Exp", "attrs": {}, "args": ["t0"]},
                   {"op": "Add", "attrs": {}, "args": ["t1", "i2"]}, {"op": "Cast", "attrs": {"dtype": "float32"},
                                                                      "args": ["t2"]}]
        specs.append(_spec("FusedElementwise", {"members": members}, ((4, 33), d), ((4, 33), d), ((33,), d)))
        to_half = [{"op": "Cast", "attrs": {"dtype": d}, "args": ["i0"]}, {"op": "Sqrt", "attrs": {}, "args": ["t0"]}]
        specs.append(_spec("FusedElementwise", {"members": to_half}, ((5, 7), "float64")))
    return specs


def cast_specs() -> list[KernelSpec]:
    """Cast from and to each half type, every other dtype (storage-only formats and complex aside)."""
    others = [d.name for d in ALL if not d.is_complex and d.name not in (*HALF, *LOWP)]
    specs = []
    for h in HALF:
        for o in [*others, next(x for x in HALF if x != h)]:
            specs.append(_spec("Cast", {"dtype": o}, ((5, 7), h)))
            specs.append(_spec("Cast", {"dtype": h}, ((5, 7), o)))
    return specs


def reduction_specs() -> list[KernelSpec]:
    """Half reductions (last, first, middle axes; kept dims), ArgMax/ArgMin, Softmax/LogSoftmax on rows and
    columns; and every reduction over non-adjacent axes (gather form) for float32, float64, int32 and the
    half types."""
    specs = []
    for d in HALF:
        for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"):
            specs.append(_spec(op, {"axis": (1,), "keep_dims": False}, ((6, 300), d)))
            specs.append(_spec(op, {"axis": (0,), "keep_dims": True}, ((7, 5, 3), d)))
        specs.append(_spec("ReduceSum", {"axis": (1, 2), "keep_dims": False}, ((2, 3, 4, 5), d)))
        for op in ("ArgMax", "ArgMin"):
            specs.append(_spec(op, {"axis": 1}, ((6, 300), d)))
            specs.append(_spec(op, {"axis": 0}, ((7, 5, 3), d)))
        for op in ("Softmax", "LogSoftmax"):
            specs.append(_spec(op, {"axis": -1}, ((8, 130), d)))
            specs.append(_spec(op, {"axis": 0}, ((9, 4), d)))
    for d in ("float32", "float64", "int32", *HALF):
        for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"):
            if op == "ReduceMean" and d == "int32":
                continue
            specs.append(_spec(op, {"axis": (0, 2), "keep_dims": False}, ((6, 5, 7), d)))
        specs.append(_spec("ReduceSum", {"axis": (1, 3), "keep_dims": True}, ((3, 4, 5, 6), d)))
        specs.append(_spec("ReduceMax", {"axis": (0, 2, 3), "keep_dims": False}, ((2, 3, 1, 5, 4), d)))
    specs.append(_spec("ReduceProd", {"axis": (0, 2), "keep_dims": False}, ((3, 4, 5), "uint8")))
    specs.append(_spec("ReduceMin", {"axis": (0, 2), "keep_dims": False}, ((3, 4, 5), "int64")))
    return specs


def _member(op: str, *args, **attrs) -> dict:
    return {"op": op, "attrs": attrs, "args": list(args)}


def fused_reduce_specs() -> list[KernelSpec]:
    """FusedRowReduce in the half types: a Softmax recipe (the float16 one rounds each step, as the unfused
    float16 Softmax) and a LayerNorm with a literal epsilon and broadcast gamma/beta."""
    softmax = [_member("ReduceMax", "i0", axis=[1], keep_dims=True), _member("Sub", "i0", "t0"),
               _member("Exp", "t1"), _member("ReduceSum", "t2", axis=[1], keep_dims=True),
               _member("RealDiv", "t2", "t3")]
    layernorm = [_member("ReduceMean", "i0", axis=[1], keep_dims=True), _member("Sub", "i0", "t0"),
                 _member("Square", "t1"), _member("ReduceMean", "t2", axis=[1], keep_dims=True),
                 _member("Add", "t3", 1e-5), _member("Rsqrt", "t4"), _member("Mul", "t1", "t5"),
                 _member("Mul", "t6", "i1"), _member("Add", "t7", "i2")]
    specs = []
    for d in HALF:
        specs.append(_spec("FusedRowReduce", {"members": softmax}, ((8, 130), d)))
        specs.append(_spec("FusedRowReduce", {"members": layernorm}, ((6, 520), d), ((520,), d), ((520,), d)))
    return specs


def layout_specs() -> list[KernelSpec]:
    """Data movement and fills of 2-byte elements."""
    specs = []
    for d in HALF:
        specs += [_spec("Reshape", {"shape": (6, 20)}, ((4, 30), d)),
                  _spec("Transpose", {"perm": (2, 0, 1)}, ((3, 4, 5), d)),
                  _spec("Concat", {"axis": 1}, ((2, 3, 4), d), ((2, 5, 4), d)),
                  _spec("Split", {"axis": 1, "output_num": 3}, ((2, 6, 5), d)),
                  _spec("Slice", {"begin": (1, 2), "size": (3, 4)}, ((5, 7), d)),
                  _spec("StridedSlice", {"begin": (0, 6), "end": (5, 0), "strides": (2, -2)}, ((5, 7), d)),
                  _spec("Gather", {"axis": 0}, ((10, 6), d), ((7,), "int32")),
                  _spec("Tile", {"multiples": (2, 1, 3)}, ((4, 5), d)),
                  _spec("Pad", {"paddings": ((1, 2), (0, 3))}, ((4, 5), d)),
                  _spec("OnesLike", {}, ((3, 4), d)),
                  _spec("ZerosLike", {}, ((3, 4), d)),
                  _spec("Fill", {"dtype": d, "shape": (2, 3), "value": -1.3})]
    return specs


def matmul_specs() -> list[KernelSpec]:
    """Half MatMul with every transpose, BatchMatMul with broadcast batches."""
    specs = []
    for d in HALF:
        for ta in (False, True):
            for tb in (False, True):
                a = (17, 33) if ta else (33, 17)
                b = (20, 17) if tb else (17, 20)
                specs.append(_spec("MatMul", {"transpose_a": ta, "transpose_b": tb}, (a, d), (b, d)))
        specs.append(_spec("BatchMatMul", {}, ((2, 1, 3, 4), d), ((5, 4, 6), d)))
    return specs


def fused_gemm_specs() -> list[KernelSpec]:
    """FusedMatMul (bias, activation, a scalar) and FusedBatchMatMul (a full-shape residual, a per-channel
    ``pre`` recipe) in float32 and the half types, as the epilogue pass writes them."""
    specs = []
    for d in ("float32", *HALF):
        bias = [_member("Add", "i0", "i1"), _member("ReLU", "t0"), _member("Mul", "t1", "i2")]
        specs.append(_spec("FusedMatMul", {"producer": {"transpose_b": True}, "views": [[20], []], "members": bias},
                           ((33, 17), d), ((20, 17), d), ((20,), d), ((), d)))
        pre = [{"inputs": [1, 2], "members": [_member("Mul", "i0", "i1")]}]
        resid = [_member("Add", "i0", "i1"), _member("Mul", "t0", "i3"), _member("GeLU", "t1")]
        specs.append(_spec("FusedBatchMatMul", {"producer": {}, "views": [[3, 5, 6], [6], [6]], "members": resid,
                                                "pre": pre},
                           ((3, 5, 4), d), ((3, 4, 6), d), ((3, 5, 6), d), ((6,), d), ((6,), d)))
    return specs


def specs() -> list[KernelSpec]:
    """Every spec of this part of the suite."""
    return (elementwise_specs() + cast_specs() + reduction_specs() + fused_reduce_specs() + layout_specs()
            + matmul_specs() + fused_gemm_specs())


__all__ = ["HALF", "cast_specs", "elementwise_specs", "fused_gemm_specs", "fused_reduce_specs", "layout_specs",
           "matmul_specs", "reduction_specs", "specs"]
