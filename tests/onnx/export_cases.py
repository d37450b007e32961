"""The ONNX-export table: every registered primitive either exports (a tiny graph applying it, in ``CASES``,
run by tests/onnx/test_export_checks.py through onnxruntime and compared with opbuild's own result) or is in
``NO_EXPORT`` with the reason it has no ONNX equivalent the exporter can write (tests/onnx/test_export_coverage.py
fails for a primitive in neither).

Adding a case is one line: ``"NewOp": case(lambda x: P("NewOp")()(x), U(2, 3)),`` (float32 inputs are graph
inputs; indices and other constants live in the lambdas' closures and become initializers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import opbuild as ms
import opbuild.nn as nn
import opbuild.ops as ops
from opbuild.ops.registry import REGISTRY


@dataclass(frozen=True)
class ExportCase:
    """``fn(*Tensors)`` exported on ``inputs``; onnxruntime must reproduce opbuild's outputs."""

    fn: Callable
    inputs: tuple[np.ndarray, ...]
    rtol: float = 1e-5
    atol: float = 1e-6
    expect: Callable | None = None  # the exported model's outputs from the inputs, where they differ by design


def case(fn: Callable, *inputs, rtol: float = 1e-5, atol: float = 1e-6, expect: Callable | None = None) -> ExportCase:
    return ExportCase(fn, tuple(np.asarray(a) for a in inputs), rtol, atol, expect)


def P(name: str):  # noqa: N802 - reads as a class
    return REGISTRY[name].primitive


def U(*shape, seed=0, low=-2.0, high=2.0) -> np.ndarray:  # noqa: N802
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(np.float32)


def POS(*shape, seed=1) -> np.ndarray:  # noqa: N802
    return U(*shape, seed=seed, low=0.5, high=2.0)


def _i32(a) -> ms.Tensor:
    return ms.Tensor(np.asarray(a, np.int32))


def _i64(a) -> ms.Tensor:
    return ms.Tensor(np.asarray(a, np.int64))


def _unary(name, x=None):
    return case(lambda t: P(name)()(t), U(2, 3) if x is None else x)


def _binary(name, a=None, b=None):
    return case(lambda s, t: P(name)()(s, t), U(2, 3, seed=1) if a is None else a, U(3, seed=2) if b is None else b)


_BOOL_A = np.array([[True, False, True], [False, False, True]])
_BOOL_B = np.array([True, True, False])
_TIES = np.array([[1.0, -2.0, 3.0], [0.5, 0.5, -1.0]], np.float32)  # equal elements for the comparisons
_REM_A = np.array([[5.5, -5.5, 2.25, -7.0], [7.75, -0.5, 3.5, 0.0]], np.float32)
_REM_B = np.array([[2.0, 2.0, -0.75, -3.0], [-3.0, 0.25, 1.25, 2.0]], np.float32)
_INT_A = np.array([[7, -7, 6, -6], [0, 5, -5, 9]], np.int32)
_INT_B = np.array([[2, 2, -4, -4], [3, -2, -2, 3]], np.int32)
_ATAN_Y = np.array([[1.0, -1.0, 0.0, 2.0], [-2.0, 0.0, 3.0, -0.5]], np.float32)
_ATAN_X = np.array([[1.0, -1.0, -1.0, 0.0], [0.0, 0.0, -2.0, 0.5]], np.float32)
_IDX = np.array([[0], [2]], np.int32)
_EL_IDX = np.array([[1, 0, 3], [2, 2, 0]], np.int64)
_SEG = np.array([0, 2, 0, 1], np.int32)
_SPECIAL = np.array([[np.inf, -1.0, np.nan], [0.5, -np.inf, 2.0]], np.float32)
_GRID = np.random.default_rng(9).uniform(-0.9, 0.9, size=(1, 3, 2, 2)).astype(np.float32)
_WELL = (np.random.default_rng(5).uniform(-1, 1, size=(2, 3, 3)) + 2.5 * np.eye(3)).astype(np.float32)
_DECONV = nn.Conv2dTranspose(4, 2, 3, stride=2, pad_mode="valid")
_TS = {kind: P(f"TensorScatter{kind}") for kind in ("Add", "Mul", "Update", "Sub", "Div")}


CASES: dict[str, ExportCase | tuple[ExportCase, ...]] = {
    **{op: _unary(op) for op in ("Abs", "Asinh", "Atan", "Ceil", "Cos", "Cosh", "Erf", "Exp", "Expm1", "Floor",
                                 "Neg", "ReLU", "Round", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Square",
                                 "Tanh", "GeLU", "Trunc", "OnesLike", "ZerosLike")},
    "Sinc": _unary("Sinc", np.array([[0.0, 0.3, -1.7], [2.5, -0.2, 1e-4]], np.float32)),
    **{op: _unary(op, U(2, 3, low=-0.9, high=0.9)) for op in ("ACos", "Asin", "Atanh", "Tan")},
    **{op: _unary(op, POS(2, 3)) for op in ("Log", "Log1p", "Reciprocal", "Rsqrt", "Sqrt")},
    "Acosh": _unary("Acosh", U(2, 3, low=1.2, high=3.0)),
    "ReLU6": _unary("ReLU6", np.array([[-1.0, 0.5, 3.0], [5.5, 7.0, 2.0]], np.float32)),
    **{op: _unary(op, _SPECIAL) for op in ("IsInf", "IsNan", "IsFinite")},
    "LogicalNot": _unary("LogicalNot", _BOOL_A),
    "Invert": (_unary("Invert", _INT_A), _unary("Invert", np.array([0, 7, 255, 128], np.uint8)),
               _unary("Invert", np.array([[-128, 127, 0, -1]], np.int8))),
    **{op: _binary(op) for op in ("Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum")},
    "Pow": _binary("Pow", POS(2, 3), U(3, seed=2)),
    **{op: _binary(op, _TIES, _TIES[0]) for op in ("Equal", "NotEqual", "Greater", "GreaterEqual", "Less",
                                                   "LessEqual")},
    **{op: _binary(op, _BOOL_A, _BOOL_B) for op in ("LogicalAnd", "LogicalOr")},
    "Atan2": _binary("Atan2", _ATAN_Y, _ATAN_X),
    **{op: (_binary(op, _REM_A, _REM_B), _binary(op, _INT_A, _INT_B)) for op in ("FloorMod", "Mod", "FloorDiv")},
    "Select": case(lambda c, a, b: P("Select")()(c, a, b), _BOOL_A, U(2, 3, seed=1), U(2, 3, seed=2)),
    "ClipByValue": case(lambda x: ops.clip_by_value(x, -0.5, 0.7), U(2, 3)),
    "Cast": case(lambda x: P("Cast")()(x, ms.int32), U(2, 3, low=-5, high=5)),
    "Fill": case(lambda x: x + P("Fill")()(ms.float32, (2, 3), 1.5), U(2, 3)),
    # an exported model is for inference: Dropout is the identity there (MindSpore's export writes it so too)
    "Dropout": case(lambda x: P("Dropout")(0.5)(x, _i64([1, 2]))[0], U(2, 3), expect=lambda x: [x]),
    # reductions, scans, sorting
    **{op: case(lambda x, _op=op: P(_op)(keep_dims=False)(x, (1,)), POS(2, 3, 4)) for op in (
        "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd")},
    "ArgMax": case(lambda x: P("ArgMax")(axis=1)(x), U(3, 4)),
    "ArgMin": case(lambda x: P("ArgMin")(axis=0)(x), U(3, 4)),
    "CumSum": case(lambda x: P("CumSum")(True, True)(x, 1), U(2, 4)),
    "TopK": case(lambda x: P("TopK")()(x, 2), U(3, 5)),
    # layout, slicing, indexing
    "Reshape": case(lambda x: P("Reshape")()(x, (3, 4)), U(2, 6)),
    "ExpandDims": case(lambda x: P("ExpandDims")()(x, 1), U(2, 3)),
    "Squeeze": case(lambda x: P("Squeeze")(1)(x), U(2, 1, 3)),
    "Flatten": case(lambda x: P("Flatten")()(x), U(2, 3, 2)),
    "Transpose": case(lambda x: P("Transpose")()(x, (2, 0, 1)), U(2, 3, 4)),
    "Slice": case(lambda x: P("Slice")()(x, (1, 0, 1), (1, 2, 2)), U(2, 3, 4)),
    "StridedSlice": case(lambda x: P("StridedSlice")()(x, (0, 3, 0), (2, 0, 4), (1, -2, 3)), U(2, 4, 4)),
    "Split": case(lambda x: P("Split")(1, 2)(x), U(2, 4)),
    "Concat": case(lambda a, b: P("Concat")(1)((a, b, a)), U(2, 3, seed=1), U(2, 2, seed=2)),
    "Tile": (case(lambda x: P("Tile")()(x, (2, 1, 3)), U(2, 2)), case(lambda x: P("Tile")()(x, (2, 3)), U(2, 2))),
    "BroadcastTo": case(lambda x: P("BroadcastTo")((3, 2, 4))(x), U(2, 1)),
    "Pad": case(lambda x: P("Pad")(((1, 0), (0, 2)))(x), U(2, 3)),
    "Gather": case(lambda p: P("Gather")()(p, _i32([[2, 0], [2, 1]]), 1), U(3, 4)),
    "GatherD": case(lambda x: P("GatherD")()(x, 1, _i64([[1, 0, 2], [0, 2, 1]])), U(2, 3)),
    "GatherNd": case(lambda x: P("GatherNd")()(x, _i32([[2, 1], [0, 3]])), U(3, 4, 2)),
    "UnsortedSegmentSum": case(lambda x: P("UnsortedSegmentSum")()(x, _i32(_SEG), 3), U(4, 2)),
    **{f"TensorScatter{k}": case(lambda x, u, _k=k: _TS[_k]()(x, _i32(_IDX), u), U(3, 2), U(2, 2, seed=2))
       for k in _TS},
    "TensorScatterElements": case(lambda x, u: P("TensorScatterElements")(axis=1, reduction="add")(
        x, _i64(_EL_IDX), u), U(3, 4), U(2, 3, seed=2)),
    # nn
    "MatMul": case(lambda a, b: P("MatMul")(False, True)(a, b), U(3, 4, seed=1), U(5, 4, seed=2)),
    "BatchMatMul": case(lambda a, b: P("BatchMatMul")(True, False)(a, b), U(2, 4, 3, seed=1), U(2, 4, 5, seed=2)),
    "BiasAdd": case(lambda x, b: P("BiasAdd")()(x, b), U(2, 3, 2, 2, seed=1), U(3, seed=2)),
    "Conv2D": case(lambda x, w: P("Conv2D")(4, 3, pad_mode="pad", pad=1, stride=2)(x, w), U(1, 2, 5, 5, seed=1),
                   U(4, 2, 3, 3, seed=2), atol=1e-5),
    "Conv2DBackpropInput": case(lambda x: _DECONV(x), U(1, 4, 3, 3, seed=1), atol=1e-5),
    "MaxPool": case(lambda x: P("MaxPool")(kernel_size=3, strides=2, pad_mode="same")(x), U(1, 2, 5, 5)),
    "AvgPool": case(lambda x: P("AvgPool")(kernel_size=2, strides=2)(x), U(1, 2, 4, 4)),
    "GlobalAvgPool": case(lambda x: P("GlobalAvgPool")()(x), U(2, 3, 2, 3)),
    "BatchNorm": case(lambda x, g, b: P("BatchNorm")(epsilon=1e-3)(x, g, b, ms.Tensor(U(3, seed=4)),
                                                                   ms.Tensor(POS(3, seed=5)))[0],
                      U(2, 3, 2, 2, seed=1), U(3, seed=2), U(3, seed=3)),
    "LayerNorm": case(lambda x, g, b: P("LayerNorm")(1, 1, 1e-5)(x, g, b)[0], U(2, 3, 4, seed=1), U(3, 4, seed=2),
                      U(3, 4, seed=3)),
    "Softmax": case(lambda x: P("Softmax")(1)(x), U(3, 4)),
    "LogSoftmax": case(lambda x: P("LogSoftmax")(-1)(x), U(3, 4)),
    "GridSample": case(lambda x, g: ops.grid_sample(x, g, align_corners=False), U(1, 2, 3, 4), _GRID),
    "SoftmaxCrossEntropyWithLogits": case(lambda x, y: P("SoftmaxCrossEntropyWithLogits")()(x, ops.Softmax()(y)),
                                          U(3, 4, seed=1), U(3, 4, seed=2)),
    "SparseSoftmaxCrossEntropyWithLogits": case(
        lambda x: P("SparseSoftmaxCrossEntropyWithLogits")()(x, _i32([1, 0, 3])), U(3, 4)),
    # linear algebra
    "MatrixDeterminant": case(lambda a: P("MatrixDeterminant")()(a), _WELL, rtol=1e-4),
    "LogMatrixDeterminant": case(lambda a: P("LogMatrixDeterminant")()(a), _WELL, rtol=1e-4),
}


_STATE = "an optimizer update, assignment or in-place scatter into a Parameter: ONNX graphs hold no mutable state"


def _reason_table() -> dict[str, str]:
    opset18 = "ONNX has it from opset 18 on; the exporter writes opset 17 (the converter refuses it by name)"
    no_onnx = "ONNX (default domain) has no such operator, nor a short composition of its operators"
    complex_ = "complex tensors: onnxruntime's default domain computes no complex dtype"
    table = {
        **dict.fromkeys(("TensorScatterMax", "TensorScatterMin"), opset18),
        **dict.fromkeys(("BitwiseAnd", "BitwiseOr", "BitwiseXor"),
                        "ONNX has BitwiseAnd/Or/Xor from opset 18 on; the exporter writes opset 17"),
        "CumProd": "ONNX has CumProd from opset 26 on; the exporter writes opset 17",
        **dict.fromkeys(("LeftShift", "RightShift"), "ONNX's BitShift takes unsigned integers only; MindSpore's "
                        "shifts are of signed ones (arithmetic right shift)"),
        **dict.fromkeys(("Angle", "Complex", "ComplexAbs", "Conj", "Real", "Imag", "FFTN"), complex_),
        **dict.fromkeys(("BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1", "BesselK0",
                         "BesselK0e", "BesselK1", "BesselK1e", "BesselY0", "BesselY1", "Digamma", "Lgamma",
                         "Polygamma", "Zeta", "Erfinv", "Cummax", "Cummin"), no_onnx),
        **dict.fromkeys(("Cholesky", "CholeskyInverse", "CholeskySolve", "Geqrf", "Orgqr", "MatrixInverse",
                         "MatrixSolve", "MatrixTriangularSolve", "Qr", "Svd"),
                        "ONNX's default domain has no matrix factorisation or solver (only Det)"),
        **dict.fromkeys(("StandardNormal", "UniformReal", "StandardLaplace", "UniformInt", "Multinomial",
                         "RandomShuffle", "RandpermV2", "MsStandardNormal", "MsUniformReal", "MsUniformInt",
                         "MsShufflePerm", "PhiloxFill"),
                        "random: ONNX's RandomNormal/RandomUniform/Multinomial draw another bit stream, so an "
                        "exported model could not reproduce opbuild's values (and Laplace, shuffles and "
                        "permutations have no ONNX operator)"),
        **dict.fromkeys(("AllReduce", "AllGather", "Broadcast"), "a collective across ranks: ONNX graphs run on "
                        "one device"),
        **dict.fromkeys(("Adam", "AdamWeightDecay", "SGD", "ApplyMomentum", "Assign", "AssignAdd"),
                        _STATE),
        "BatchNormTraining": "export traces the network in inference mode, where BatchNorm uses its moving "
                             "statistics (the BatchNorm primitive, exported as BatchNormalization)",
        **dict.fromkeys(("FusedElementwise", "FusedMatMul", "FusedBatchMatMul", "FusedConv2D", "FusedRowReduce"),
                        "made by opbuild's fusion passes after tracing; an exported graph is the traced one"),
    }
    for name, d in REGISTRY.items():  # families by declaration rather than by name
        if name.startswith(("Apply", "SparseApply")) or name.startswith("ScatterNd") and name.endswith("Inplace"):
            table[name] = _STATE
        elif (d.scenario == "backward" or name.endswith("Grad")) and name not in CASES:
            table[name] = "a backward op (only gradient rules apply it): export writes inference graphs"
    return table


NO_EXPORT: dict[str, str] = _reason_table()


# ---- entries for ops this round's other branches bring (join once their op is registered) ------------------

class _WithBprop(nn.Cell):
    """A Cell with its own bprop (traced as a CustomGradient junction where the functional branch is merged)."""

    def construct(self, x):
        return x * 2.0

    def bprop(self, x, out, dout):
        return (dout * 3.0,)


_BPROP = _WithBprop()

AWAITING_CASES: dict[str, ExportCase] = {
    "StopGradient": case(lambda x: ops.stop_gradient(x * 2.0) + x, U(2, 3)),
    "CustomGradient": case(lambda x: _BPROP(x) + 1.0, U(2, 3)),
}
AWAITING_NO_EXPORT: dict[str, str] = {
    **dict.fromkeys(("Igamma", "Igammac", "IgammaGradA", "Betainc", "NextAfter", "Eig"),
                    "ONNX (default domain) has no such operator, nor a short composition of its operators"),
    "PyCall": "runs a Python callback on the host: an ONNX graph cannot call back into the exporting process",
}
for _op, _case in AWAITING_CASES.items():
    if _op in REGISTRY:
        CASES.setdefault(_op, _case)
for _op, _reason in AWAITING_NO_EXPORT.items():
    if _op in REGISTRY:
        NO_EXPORT.setdefault(_op, _reason)
