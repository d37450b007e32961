#!/usr/bin/env python3
"""Classify the primitive classes MindSpore 2.10 exports from ``mindspore.ops`` that opbuild lacked, and record
small cases of the ones MindSpore's CPU runs into tests/fixtures/mindspore/prims_more.json.

    /path/to/ms-venv/bin/python scripts/record_prims_more.py [OUT.json]

Each case is ``(primitive, constructor kwargs, inputs, kind)``; inputs are encoded as JSON (a tensor is
``{"t": values, "dtype": name}``, a Parameter ``{"param": ...}``, a tuple ``{"tuple": [...]}``, a dtype object
``{"dtype_obj": name}``). ``kind`` is ``"value"`` (outputs compared), ``"shape"`` (random ops: shapes and dtypes
only); :data:`REFUSE` holds inputs the docs reject (kind ``"refuse"``: MindSpore's exception type is
recorded). A name is recorded as running on the CPU when one of its cases ran there; the names in
:data:`NOT_RUN` are not run (with the reason). Each name runs in a fresh process. tests/compat/test_prims_more.py
reads only the fixture.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from ms_case_recorder import REPO

OUT = REPO / "tests" / "fixtures" / "mindspore" / "prims_more.json"
F32, I32, I64, B = "float32", "int32", "int64", "bool"


def t(values, dtype=F32) -> dict:
    return {"t": np.asarray(values).tolist(), "dtype": dtype}


def tup(*xs) -> dict:
    return {"tuple": list(xs)}


def dt(name: str) -> dict:
    return {"dtype_obj": name}


X23 = t([[-1.5, 0.0, 2.0], [0.5, -3.0, 1.0]])
X3 = t([-1.0, 0.25, 2.0])
SQ = t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
ARANGE = t(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
NEG_ARANGE = t(-np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
SEG_X = t([[1.0, 2.0], [3.0, -4.0], [5.0, 6.0], [-7.0, 8.0]])
SEG_ID = t([0, 0, 2, 2], I32)

# name -> list of (constructor kwargs, inputs, kind)
CASES: dict[str, list[tuple[dict, list, str]]] = {
    "TensorAdd": [({}, [X3, t([1.0, 2.0, 3.0])], "value")],
    "Elu": [({}, [X23], "value"), ({"alpha": 1.0}, [X3], "value")],
    "Zeros": [({}, [tup(2, 3), dt(F32)], "value"), ({}, [tup(2,), dt(I32)], "value")],
    "Ones": [({}, [tup(2, 3), dt(F32)], "value"), ({}, [3, dt(I64)], "value")],
    "Range": [({}, [t(0, I32), t(10, I32), t(3, I32)], "value"), ({}, [t(1.0), t(2.0), t(0.25)], "value")],
    "Roll": [({"shifts": 1, "dims": 0}, [X3], "value"), ({"shifts": (1, -1), "dims": (0, 1)}, [SQ], "value")],
    "Diag": [({}, [X3], "value"), ({}, [t([[1, 2], [3, 4]], I32)], "value")],
    "DiagPart": [({}, [SQ], "value"), ({}, [t(np.arange(16).reshape(2, 2, 2, 2), F32)], "value")],
    "Trace": [({}, [SQ], "value"), ({}, [t([[1, 2, 3], [4, 5, 6]], I32)], "value")],
    "Triu": [({}, [SQ], "value"), ({"diagonal": 1}, [SQ], "value"), ({"diagonal": -1}, [SQ], "value")],
    "MaskedFill": [({}, [X23, t([[True, False, True], [False, False, True]], B), t(9.0)], "value")],
    "MaskedSelect": [({}, [X23, t([[True, False, True], [False, False, True]], B)], "value"),
                     ({}, [SQ, t([True, False, True], B)], "value")],
    "Lerp": [({}, [X3, t([1.0, 1.0, 1.0]), t([0.5, 0.1, 1.0])], "value"), ({}, [X3, t([2.0, 2.0, 2.0]), 0.25],
                                                                           "value")],
    "PReLU": [({}, [t(np.linspace(-2, 2, 12).reshape(1, 3, 2, 2)), t([0.1, 0.2, 0.3])], "value")],
    "Cdist": [({}, [t([[[0.0, 0.0], [1.0, 1.0]]]), t([[[1.0, 0.0], [2.0, 2.0], [0.0, 3.0]]])], "value"),
              ({"p": 1.0}, [t([[0.0, 0.0], [1.0, 1.0]]), t([[1.0, 0.0], [2.0, 2.0]])], "value")],
    "HSigmoid": [({}, [t([-4.0, -1.0, 0.0, 1.5, 4.0])], "value")],
    "HSwish": [({}, [t([-4.0, -1.0, 0.0, 1.5, 4.0])], "value")],
    "HShrink": [({}, [t([-1.0, -0.5, 0.2, 0.6])], "value"), ({"lambd": 0.1}, [t([-1.0, -0.05, 0.2])], "value")],
    "SoftShrink": [({}, [t([-1.0, -0.5, 0.2, 0.6])], "value"), ({"lambd": 0.1}, [t([-1.0, -0.05, 0.2])],
                                                                 "value")],
    "CeLU": [({}, [X23], "value"), ({"alpha": 2.0}, [X3], "value")],
    "Erfc": [({}, [t([-1.0, 0.0, 0.5, 2.0])], "value")],
    "Fmin": [({}, [t([1.0, np.nan, 3.0]), t([2.0, 1.0, np.nan])], "value")],
    "NanToNum": [({}, [t([np.nan, np.inf, -np.inf, 1.5])], "value"),
                 ({"nan": 1.0, "posinf": 5.0, "neginf": -5.0}, [t([np.nan, np.inf, -np.inf, 1.5])], "value")],
    "SmoothL1Loss": [({}, [X3, t([0.0, 0.0, 0.0])], "value"),
                     ({"beta": 0.5, "reduction": "mean"}, [X3, t([0.0, 1.0, 0.0])], "value"),
                     ({"beta": 0.5, "reduction": "sum"}, [X3, t([0.0, 1.0, 0.0])], "value")],
    "SoftMarginLoss": [({}, [X3, t([1.0, -1.0, 1.0])], "value"),
                       ({"reduction": "none"}, [X3, t([1.0, -1.0, 1.0])], "value")],
    "Pack": [({}, [tup(X3, X3)], "value"), ({"axis": 1}, [tup(X3, t([4.0, 5.0, 6.0]))], "value")],
    "Unpack": [({}, [X23], "value"), ({"axis": 1}, [X23], "value")],
    "ReverseV2": [({"axis": (0,)}, [X23], "value"), ({"axis": (0, 1)}, [X23], "value")],
    "SplitV": [({"size_splits": (1, 2), "split_dim": 1, "num_split": 2}, [X23], "value"),
               ({"size_splits": (1, -1), "split_dim": 0, "num_split": 2}, [SQ], "value")],
    "GatherV2": [({}, [SQ, t([2, 0], I32), 0, 0], "value"), ({}, [SQ, t([1], I32), 1, 0], "value")],
    "Identity": [({}, [X23], "value")],
    "Expand": [({}, [t([[1.0], [2.0]]), t([2, 3], I32)], "value")],
    "Fills": [({}, [X23, 2.5], "value"), ({}, [t([1, 2], I32), t(7.0)], "value")],
    "Bucketize": [({"boundaries": [0.0, 1.0, 2.5]}, [t([-1.0, 0.0, 0.5, 2.5, 3.0])], "value"),
                  ({"boundaries": [1.0]}, [t([0, 1, 2], I32)], "value")],
    "Histogram": [({"bins": 4, "min": 0.0, "max": 4.0}, [t([0.5, 1.0, 1.5, 3.9, 5.0])], "value"),
                  ({"bins": 3}, [t([1.0, 2.0, 2.0, 3.0])], "value")],
    "HistogramFixedWidth": [({"nbins": 5}, [t([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]), t([0.0, 5.0])], "value")],
    "SegmentSum": [({}, [SEG_X, SEG_ID], "value")],
    "SegmentMax": [({}, [SEG_X, SEG_ID], "value")],
    "SegmentMin": [({}, [SEG_X, SEG_ID], "value")],
    "SegmentMean": [({}, [SEG_X, SEG_ID], "value")],
    "SegmentProd": [({}, [SEG_X, SEG_ID], "value")],
    "SpaceToBatch": [({"block_size": 2, "paddings": [[0, 0], [0, 0]]}, [ARANGE], "value"),
                     ({"block_size": 2, "paddings": [[1, 1], [0, 2]]}, [ARANGE], "value")],
    "BatchToSpace": [({"block_size": 2, "crops": [[0, 0], [0, 0]]}, [t(np.arange(16).reshape(4, 1, 2, 2), F32)],
                      "value"),
                     ({"block_size": 2, "crops": [[0, 1], [1, 0]]}, [t(np.arange(16).reshape(4, 1, 2, 2), F32)],
                      "value")],
    "MatrixExp": [({}, [t([[0.0, 1.0], [-1.0, 0.0]])], "value"), ({}, [t([[[1.0, 2.0], [0.0, 1.0]]])], "value")],
    "MatrixPower": [({"n": 2}, [t([[[1.0, 2.0], [3.0, 4.0]]])], "value"),
                    ({"n": -1}, [t([[[2.0, 0.0], [0.0, 4.0]]])], "value"),
                    ({"n": 0}, [t([[[2.0, 1.0], [0.0, 4.0]]])], "value")],
    "Lstsq": [({}, [t([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]]), t([[1.0], [2.0], [2.0]])], "value")],
    "LuSolve": [({}, [t([[1.0], [2.0]]), t([[2.0, 1.0], [0.5, 1.5]]), t([1, 2], I32)], "value")],
    "Quantile": [({}, [t([1.0, 3.0, 2.0, 4.0]), t([0.25, 0.5])], "value"),
                 ({"dim": 1, "keep_dims": True}, [X23, t([0.5])], "value")],
    "Randperm": [({"max_length": 5}, [t([3], I32)], "shape"), ({"max_length": 4, "pad": -1}, [t([4], I32)],
                                                                "shape")],
    "Gamma": [({}, [tup(3, 2), t([1.0, 2.0]), t([1.0, 3.0])], "shape")],
    "Poisson": [({}, [tup(3, 2), t([2.0, 5.0])], "shape")],
    "TruncatedNormal": [({}, [t([2, 3], I32)], "shape"), ({"dtype": dt("float64"), "seed": 1}, [t([4, 2], I32)],
                                                          "shape")],
    "Cauchy": [({"size": [2, 3]}, [], "shape")],
    "ScatterAddWithAxis": [({"axis": 1}, [{"param": t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])}, t([[0], [2]], I32),
                                          t([[10.0], [20.0]])], "value")],
    "UnravelIndex": [({}, [t([5, 7], I32), t([3, 4], I32)], "value")],
    "CountNonZero": [({}, [t([[0, 1, 2], [0, 0, 3]], I32)], "value"), ({"dims": [1]}, [X23], "value"),
                     ({}, [t([[0, 1, 2], [0, 0, 3]], I32), None], "value")],
    "CumulativeLogsumexp": [({}, [t([1.0, 2.0, 3.0]), t(0, I32)], "value"),
                            ({"exclusive": True, "reverse": True}, [t([1.0, 2.0, 3.0]), t(0, I32)], "value")],
    "ConfusionMatrix": [({"num_classes": 3}, [t([0, 1, 2, 2], I32), t([0, 2, 2, 1], I32)], "value"),
                        ({"num_classes": 3}, [t([0, 1, 1], I32), t([0, 1, 0], I32), t([1.0, 2.0, 0.5])], "value")],
    "MaxPoolWithArgmax": [({"kernel_size": 2, "strides": 2}, [ARANGE], "value"),
                          ({"kernel_size": 3, "strides": 1, "pad_mode": "same"}, [ARANGE], "value"),
                          ({"kernel_size": 2, "strides": 1, "pad_mode": "same"}, [NEG_ARANGE], "value")],
    "PadV3": [({}, [X23, t([1, 1], I32), t(0.5)], "value"),
              ({"mode": "reflect"}, [t(np.arange(6).reshape(1, 2, 3), F32), t([1, 1], I32)], "value")],
    "EuclideanNorm": [({}, [X23, t([1], I32)], "value"), ({"keep_dims": True}, [X23, t([0, 1], I32)], "value")],
    "Gelu": [({}, [X3], "value")],
    "FastGelu": [({}, [X3], "value")],
    "FastGeLU": [({}, [X3], "value")],
    "AssignSub": [({}, [{"param": t([5.0, 6.0])}, t([1.0, 2.5])], "value")],
    "AccumulateNV2": [({}, [tup(X3, X3, t([1.0, 1.0, 1.0]))], "value")],
    "ConjugateTranspose": [({}, [X23, tup(1, 0)], "value")],
    "Dense": [({}, [X23, t([[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]]), t([0.1, 0.2])], "value")],
    "LogSoftmaxExt": [({}, [X23, 1], "value")],
    "LerpScalar": [({}, [X3, t([1.0, 1.0, 1.0]), 0.5], "value")],
    "MaskedScatter": [({}, [X3, t([True, False, True], B), t([7.0, 8.0, 9.0])], "value")],
    "IdentityN": [({}, [[X3, t([1, 2], I32)]], "value")],
    "FillDiagonal": [({"fill_value": 5.0}, [SQ], "value"), ({"fill_value": -1.0, "wrap": True},
                                                           [t(np.zeros((5, 2)), F32)], "value")],
    "CheckNumerics": [({}, [X3], "value")],
    "NuclearNorm": [({}, [SQ], "value"), ({"dim": [0, 1], "keepdim": True}, [X23], "value")],
    "NthElement": [({}, [t([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]), t(1, I32)], "value"),
                   ({"reverse": True}, [t([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]), t(0, I32)], "value")],
    "TripletMarginLoss": [({}, [X23, t([[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]), t([[1.0, 0.0, 0.0], [0.0, 2.0, 1.0]]),
                                t(1.0)], "value")],
    "MultilabelMarginLoss": [({}, [t([[0.1, 0.2, 0.4, 0.8]]), t([[3, 0, -1, 1]], I32)], "value")],
    "ListDiff": [({}, [t([1, 2, 3, 4, 5], I32), t([2, 4], I32)], "value")],
    "UniqueWithPad": [({}, [t([1, 1, 2, 4, 4, 4, 7, 8], I32), t(99, I32)], "value")],
    "DataFormatVecPermute": [({}, [t([1, 2, 3, 4], I32)], "value")],
    "TridiagonalMatMul": [({}, [t([[0.0, 1.0, 2.0]]), t([[1.0, 1.0, 1.0]]), t([[3.0, 4.0, 0.0]]),
                                t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])], "value")],
    "CompareAndBitpack": [({}, [t(np.arange(8), F32), t(3.0)], "value")],
    "MatrixSolveLs": [({}, [t([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]]), t([[1.0], [2.0], [2.0]]),
                            t(0.0, "float64")], "value")],
    "ExtractVolumePatches": [({"kernel_size": (1, 1, 2, 2, 2), "strides": (1, 1, 1, 1, 1), "padding": "VALID"},
                              [t(np.arange(16).reshape(1, 1, 2, 2, 4), F32)], "value"),
                             ({"kernel_size": (1, 1, 1, 2, 3), "strides": (1, 1, 1, 2, 2), "padding": "SAME"},
                              [t(np.arange(30).reshape(1, 2, 1, 3, 5), F32)], "value")],
    "ExtractImagePatches": [({"ksizes": (1, 1, 2, 2), "strides": (1, 1, 2, 2), "rates": (1, 1, 1, 1)}, [ARANGE],
                             "value")],
    "DepthwiseConv2dNative": [({"channel_multiplier": 1, "kernel_size": 2}, [ARANGE, t(np.ones((1, 1, 2, 2)))],
                               "value")],
    "Dilation2D": [({"stride": 1, "dilation": 1}, [ARANGE, t(np.zeros((1, 2, 2)))], "value")],
    "NonMaxSuppressionV3": [({}, [t([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]), t([0.9, 0.8, 0.7]),
                                  t(3, I32), t(0.5), t(0.0)], "value")],
    "Ormqr": [({}, [t([[1.0, 0.5], [0.3, 1.0], [0.2, 0.1]]), t([1.2, 1.5]), t(np.eye(3), F32)], "value")],
    "ScalarToArray": [({}, [2.5], "value")],
    "ScatterNonAliasingAdd": [({}, [{"param": t([1.0, 2.0, 3.0])}, t([[0], [2]], I32), t([5.0, 6.0])], "value")],
    "SparseGatherV2": [({}, [SQ, t([2, 0], I32), 0], "value")],
    "DynamicShape": [({}, [X23], "value")],
    "Coalesce": [({}, [t([[0, 0, 1], [1, 1, 2]], I64), t([1.0, 2.0, 3.0]), t([2, 3], I64)], "value")],
    "RaggedRange": [({"Tsplits": dt(I64)}, [t([0, 5], I32), t([3, 7], I32), t([1, 1], I32)], "value")],
    "LogNormalReverse": [({}, [X23], "shape")],
    "NonDeterministicInts": [({}, [t([2, 3], I32)], "shape")],
    "ParameterizedTruncatedNormal": [({}, [t([2, 3], I32), t([0.0, 1.0]), t([1.0, 1.0]), t([-1.0, -1.0]),
                                           t([1.0, 1.0])], "shape")],
    "RNNTLoss": [({}, [t(np.zeros((1, 2, 3, 3))), t([[1, 2]], I32), t([2], I32), t([2], I32)], "value")],
    "TransposeView": [({}, [X23, tup(1, 0)], "value")],
    "TransposeExtView": [({}, [X23, 0, 1], "value")],
    "Assert": [({}, [True, [X3]], "value")],
}

# Documented bad inputs: the exception type MindSpore raises.
REFUSE: dict[str, list[tuple[dict, list]]] = {
    "SplitV": [({"size_splits": (1, 1), "split_dim": 1, "num_split": 2}, [X23])],
    "Diag": [({}, [t(5.0)])],
}

# The classes with no case (not run here), by why: with CASES, every primitive class MindSpore 2.10 exports from
# mindspore.ops that opbuild lacked when this was recorded.
NOT_RUN: dict[str, tuple[str, ...]] = {
    "distributed communication (needs an initialised collective group)": (
        "AllGatherV", "AlltoAll", "AlltoAllV", "AlltoAllVC", "Barrier", "BatchISendIRecv", "CollectiveGather",
        "CollectiveScatter", "NeighborExchange", "NeighborExchangeV2", "Receive", "Send", "Reduce", "ReduceScatter",
        "ReduceScatterV", "_AllSwap", "P2POp", "Reshard"),
    "graph-internal or framework-internal primitive (not a user-level operator)": (
        "UpdateState", "GeSwitch", "Merge", "PyExecute", "J", "SliceGetItem", "_Grad", "_Vmap", "DtypeToEnum",
        "TensorToTuple", "MoveTo", "Reusing", "CopyWithSlice", "SelectView", "DumpGradient", "TensorDump", "GetNext",
        "PyFunc", "Pull", "Push", "MapCacheIdx", "MapUniform", "SubAndFilter"),
    "Ascend NPU float-status register": ("NPUAllocFloatStatus", "NPUClearFloatStatus", "NPUGetFloatStatus",
                                         "FloatStatus"),
    "not an operator: a registration helper, a store or a module": (
        "AkgAscendRegOp", "AkgGpuRegOp", "CpuRegOp", "CustomOpBuilder", "TCPStore", "P"),
    "not run here: no case recorded (an Ascend/GPU-oriented kernel: fused optimizer, RNN cell, attention)": (
        "AdamNoUpdateParam", "ApplyRotaryPosEmb", "BasicLSTMCell", "BatchToSpaceNDV2", "CombinedNonMaxSuppression",
        "ComputeAccidentalHits", "DeformableOffsets", "DropoutDoMask", "DropoutGenMask", "DynamicGRUV2",
        "DynamicRNN", "ExtractGlimpse", "FusedAdaFactor", "FusedAdaFactorWithGlobalNorm", "FusedCastAdamWeightDecay",
        "FusedSparseAdam", "FusedSparseFtrl", "FusedSparseLazyAdam", "FusedSparseProximalAdagrad",
        "FusedWeightScaleApplyMomentum", "GroupTopk", "LARSUpdate", "MatrixLogarithm",
        "NonMaxSuppressionWithOverlaps", "PagedAttention", "PagedAttentionMask", "ReshapeAndCache", "RmsNorm",
        "SampleDistortedBoundingBoxV2", "ScaleAndTranslate", "SparseApplyAdadelta", "SparseApplyFtrlV2",
        "SparseApplyProximalAdagrad", "SparseSlice"),
}


def _reason(name: str) -> str:
    return next(why for why, names in NOT_RUN.items() if name in names)


def _enc_in(v, ms):
    if isinstance(v, dict):
        if "t" in v:
            return ms.Tensor(np.asarray(v["t"], dtype=v["dtype"]))
        if "param" in v:
            return ms.Parameter(_enc_in(v["param"], ms), name="p")
        if "tuple" in v:
            return tuple(_enc_in(x, ms) for x in v["tuple"])
        if "dtype_obj" in v:
            return getattr(ms, v["dtype_obj"])
    if isinstance(v, list):
        return [_enc_in(x, ms) for x in v]
    return v


def _first_line(e: Exception) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip() and not ln.startswith("-")]
    return lines[0][:300] if lines else ""


def _out(r) -> list:
    import mindspore as ms
    if isinstance(r, (tuple, list)):
        return [o for x in r for o in _out(x)]
    if isinstance(r, ms.Tensor):
        a = r.asnumpy()
        vals = a.tolist() if not np.iscomplexobj(a) else {"re": a.real.tolist(), "im": a.imag.tolist()}
        return [{"t": vals, "dtype": str(a.dtype), "shape": list(a.shape)}]
    return [{"py": r if isinstance(r, (int, float, bool)) else str(r), "type": type(r).__name__}]


def _nan_safe(o):
    if isinstance(o, float) and not np.isfinite(o):
        return {"float": repr(o)}
    if isinstance(o, list):
        return [_nan_safe(x) for x in o]
    if isinstance(o, dict):
        return {k: _nan_safe(v) for k, v in o.items()}
    if isinstance(o, tuple):
        return [_nan_safe(x) for x in o]
    return o


def _record_one(name: str) -> list[dict]:
    """The records of ``name``'s cases, run in this process (a fresh one per name: after a failed kernel
    MindSpore 2.10's PyNative executor reports that failure again on later unrelated calls)."""
    import mindspore as ms
    from mindspore import ops

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    ms.set_seed(0)
    records = []
    for kwargs, inputs, kind in CASES[name]:
        rec = {"prim": name, "kwargs": kwargs, "inputs": inputs, "kind": kind}
        try:
            prim = getattr(ops, name)(**{k: _enc_in(v, ms) for k, v in kwargs.items()})
            rec["out"] = _out(prim(*[_enc_in(v, ms) for v in inputs]))
        except Exception as e:  # a case the CPU does not run: the name's classification says so
            rec["cpu_error"] = f"{type(e).__name__}: {_first_line(e)}"
        records.append(rec)
    for kwargs, inputs in REFUSE.get(name, []):
        rec = {"prim": name, "kwargs": kwargs, "inputs": inputs, "kind": "refuse"}
        try:
            getattr(ops, name)(**kwargs)(*[_enc_in(v, ms) for v in inputs])
            rec["error"] = None
        except Exception as e:
            rec["error"] = type(e).__name__
        records.append(rec)
    return records


def _run_isolated(name: str) -> list[dict]:
    proc = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        print(json.dumps(_nan_safe(_record_one(argv[1]))))
        return 0
    import mindspore as ms

    names = sorted({*CASES, *(n for group in NOT_RUN.values() for n in group)})
    with ThreadPoolExecutor(3) as pool:
        records = [r for recs in pool.map(_run_isolated, sorted(CASES)) for r in recs]
    for r in records:
        if "cpu_error" in r:
            print(f"{r['prim']}{r['kwargs']}: {r['cpu_error']}")
    runs = {r["prim"] for r in records if "out" in r}
    not_cpu = {n: (_reason(n) if n not in CASES else "MindSpore 2.10's CPU refuses it: " +
                   next(r["cpu_error"] for r in records if r["prim"] == n and "cpu_error" in r))
               for n in names if n not in runs}
    out = {"mindspore": ms.__version__, "runs_on_cpu": sorted(runs), "not_on_cpu": not_cpu, "cases": records}
    path = REPO.joinpath(argv[0]) if argv else OUT
    path.write_text(json.dumps(_nan_safe(out), indent=1, sort_keys=True) + "\n")
    print(f"{len(runs)} run on the CPU, {len(not_cpu)} do not -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
