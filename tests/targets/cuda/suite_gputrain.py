"""The training family's cases of the GPU op suite (suite.py appends them): optimizer updates, losses, the fused
GEMM, segment sums, scatters, cumulative ops, TopK. A test helper, shared by test_train_kernels.py (host
emulation against the CPU target) and scripts/gpu_check.py (on a GPU, through suite.py's ``cases()``).

Their inputs are drawn per input name where the op needs a domain (class labels and indices in range, with one
out of range where the op defines what that does; positive accumulators under a root; betas and decays in
(0, 1)); the rest as suite.py draws them. Few cases per op: NVRTC's compile time grows with each one."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops import optim_apply, optim_sparse
from opbuild.ops.registry import get as get_op

from .suite import Case

F32, F64 = "float32", "float64"

# Input names of the update ops whose values must lie in a domain (the rest are standard normal).
_POSITIVE = {"accum", "v", "vhat", "mean_square", "accum_update", "gradient_squared_accumulator", "lr",
             "learning_rate", "alpha", "epsilon", "l1", "l2", "logbase", "sign_decay", "eps"}
_UNIT = {"beta1", "beta2", "beta", "beta1_power", "beta2_power", "rho", "decay", "momentum", "b1", "b2", "b1p",
         "b2p", "mom"}


@dataclass(frozen=True)
class TrainCase(Case):
    """A case whose inputs are drawn per name (``names``, one per input; "" for suite.py's default draw)."""

    names: tuple[str, ...] = ()
    hi: int = 0  # the exclusive bound of "index"/"label" inputs (one more value, -1 or hi, is out of range)

    def inputs(self) -> list[np.ndarray]:
        arrays = super().inputs()
        rng = np.random.default_rng(self.seed + 1000)
        for i, (name, t) in enumerate(zip(self.names, self.spec.inputs, strict=False)):
            if name in _POSITIVE:
                arrays[i] = (np.abs(arrays[i]) * 0.1 + 0.05).astype(t.dtype)
            elif name == "mean_gradient":  # centered RMSProp: mean_square - mean_gradient**2 stays positive
                arrays[i] = (arrays[i] * 0.01).astype(t.dtype)
            elif name in _UNIT:
                arrays[i] = rng.uniform(0.5, 0.95, t.shape).astype(t.dtype)
            elif name == "global_step":
                arrays[i] = np.full(t.shape, 3, t.dtype)
            elif name == "lr_power":
                arrays[i] = np.full(t.shape, -0.5, t.dtype)
            elif name == "stat":  # SGD: the first step on some elements, a later one on the others
                arrays[i] = (rng.random(t.shape) < 0.5).astype(t.dtype)
            elif name in ("signed_index", "valid_index"):  # in [-hi, hi) (negative counts from the end), and
                a = rng.integers(-self.hi, self.hi, size=t.shape)  # for signed_index one out of range
                if a.size and name == "signed_index":
                    a.flat[0] = self.hi + 1
                arrays[i] = a.astype(t.dtype)
            elif name == "with_nan":  # ties and NaN: small integers as floats, NaNs
                a = rng.integers(-3, 4, size=t.shape).astype(t.dtype)
                if a.size > 4:
                    a.flat[1] = a.flat[2] = a.flat[4] = a.flat[-2] = np.nan  # some in one lane
                arrays[i] = a
            elif name == "ties":
                arrays[i] = rng.integers(-2, 3, size=t.shape).astype(t.dtype)
            elif name == "mask":
                arrays[i] = (rng.random(t.shape) < 0.6).astype(t.dtype)
            elif name == "state":  # the random ops' [seed, counter]
                arrays[i] = np.array([1234567, 42], t.dtype)
            elif name in ("lo", "hi"):  # UniformInt's bounds
                arrays[i] = np.array(-5 if name == "lo" else 7, t.dtype)
            elif name == "weights":  # Multinomial: positive weights, one zero and one negative (never drawn)
                a = np.abs(arrays[i]) + 0.1
                if a.size > 2:
                    a.flat[1], a.flat[-1] = 0.0, -1.0
                arrays[i] = a.astype(t.dtype)
            elif name in ("index", "label", "bad_label"):  # in range and repeated; an index or bad_label has
                a = rng.integers(0, self.hi, size=t.shape)       # one value out of range
                if a.size > 2:
                    a.flat[-1] = a.flat[0]
                    if name != "label":
                        a.flat[1] = -1 if name == "bad_label" else self.hi + 2
                arrays[i] = a.astype(t.dtype)
        # NumPy answers a 0-d array's arithmetic with a scalar: every input back to an array of its type.
        return [np.asarray(a, dtype=t.dtype).reshape(t.shape) for a, t in zip(arrays, self.spec.inputs, strict=True)]


def _spec(op: str, attrs: dict, *types: tuple[tuple[int, ...], str]) -> KernelSpec:
    return get_op(op).spec(attrs, [TensorType(s, d) for s, d in types])


def _update_case(op: str, attrs: dict, names: tuple[str, ...], shapes: dict[str, tuple], dt: str,
                 hi: int = 0) -> tuple[KernelSpec, tuple[str, ...], int]:
    """An update op's spec: each input of ``names`` with its shape from ``shapes`` (default the variable's),
    scalars ``()``; index inputs int32."""
    var = shapes.get("var", (5, 7))
    types = []
    for n in names:
        if n == "indices":
            types.append((shapes["indices"], "int32"))
        elif n == "global_step":
            types.append(((), "int64"))
        else:
            types.append((shapes.get(n, var), dt))
    return _spec(op, attrs, *types), tuple("index" if n == "indices" else n for n in names), hi


_SCALAR = ()


def optimizer_specs() -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """Every update op in float32 (and the common ones in float64); Assign/AssignAdd in integers too."""
    out = []
    for dt in (F32, F64):
        out.append(_update_case("ApplyMomentum", {"use_nesterov": dt == F64, "gradient_scale": 0.5},
                                ("var", "accum", "lr", "grad", "mom"), {"lr": _SCALAR, "mom": _SCALAR}, dt))
        out.append(_update_case("SGD", {"dampening": 0.1 if dt == F32 else 0.0, "weight_decay": 0.01,
                                        "nesterov": dt == F64},
                                ("var", "grad", "lr", "acc", "mom", "stat"), {"lr": _SCALAR, "mom": _SCALAR}, dt))
        out.append(_update_case("Adam", {"use_nesterov": dt == F64},
                                ("var", "m", "v", "b1p", "b2p", "lr", "b1", "b2", "eps", "grad"),
                                {n: _SCALAR for n in ("b1p", "b2p", "lr", "b1", "b2", "eps")}, dt))
        out.append(_update_case("AdamWeightDecay", {}, ("var", "m", "v", "lr", "b1", "b2", "eps", "decay", "grad"),
                                {n: _SCALAR for n in ("lr", "b1", "b2", "eps", "decay")}, dt))
        out.append(_update_case("ApplyGradientDescent", {}, ("var", "alpha", "delta"), {"alpha": _SCALAR}, dt))
    for dt in (F32, "int32", "uint8", F64):
        out.append(_update_case("Assign", {}, ("var", "value"), {}, dt))
        out.append(_update_case("AssignAdd", {}, ("var", "value"), {}, dt))
    for row in optim_apply.ROWS:
        if row.name == "ApplyGradientDescent":
            continue
        attrs = {n: 0.1 for n in row.required}
        if "update_slots" in row.attrs:
            attrs["update_slots"] = row.name != "ApplyAdagradV2"
        if "use_nesterov" in row.attrs:
            attrs["use_nesterov"] = True
        out.append(_update_case(row.name, attrs, row.inputs, {n: _SCALAR for n in row.scalars}, F32))
    for row in optim_sparse.ROWS:
        attrs = {n: (-0.5 if n == "lr_power" else 0.1) for n in row.required}
        shapes = {"var": (6, 4), "indices": (5,), "grad": (5, 4), **{n: _SCALAR for n in row.scalars}}
        out.append(_update_case(row.name, attrs, row.inputs, shapes, F32, hi=6))
    return out


def loss_specs(label: str = "label") -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """The softmax cross-entropies: wide rows (more columns than a block's threads) and narrow ones; ``label``
    names how the sparse ones draw their labels (``"bad_label"``: one out of range, whose row is NaN on the
    CPU; the ops' NumPy reference, which the GPU suite is also checked against, has no such rule)."""
    out = []
    for dt, (n, c) in ((F32, (6, 300)), (F64, (9, 10))):
        out.append((_spec("SoftmaxCrossEntropyWithLogits", {}, ((n, c), dt), ((n, c), dt)), (), 0))
        for op in ("SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogitsGrad"):
            out.append((_spec(op, {}, ((n, c), dt), ((n,), "int32" if dt == F32 else "int64")), ("", label), c))
    return out


def _m(op: str, *args: str) -> dict:
    return {"op": op, "attrs": {}, "args": list(args)}


def gemm_specs() -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """FusedMatMul with a bias and an activation (transposed weights, as a Dense layer), a transposed ``a`` and a
    full-shape residual, a per-channel ``pre`` recipe; FusedBatchMatMul with broadcast batches and a bias, and
    with a scalar scale and a broadcast residual."""
    bias_gelu = {"producer": {"transpose_b": True}, "views": [[9]], "members": [_m("Add", "i0", "i1"),
                                                                              _m("GeLU", "t0")]}
    pre = {"producer": {}, "views": [[6], [6]],
           "pre": [{"inputs": [1], "members": [_m("Abs", "i0"), _m("Sqrt", "t0")]}],
           "members": [_m("Add", "i0", "i1"), _m("Mul", "t0", "i3"), _m("ReLU", "t1")]}
    scale_res = {"producer": {}, "views": [[], [1, 4, 5]], "members": [_m("Mul", "i0", "i1"),
                                                                       _m("Add", "t0", "i2")]}
    res_relu6 = {"producer": {"transpose_a": True}, "views": [[6, 4]], "members": [_m("Add", "i0", "i1"),
                                                                                 _m("ReLU6", "t0")]}
    bcast_bias = {"producer": {}, "views": [[6]], "members": [_m("Add", "i0", "i1"), _m("Sigmoid", "t0")]}
    return [(_spec("FusedMatMul", bias_gelu, ((7, 5), F32), ((9, 5), F32), ((9,), F32)), (), 0),
            (_spec("FusedMatMul", res_relu6, ((3, 6), F32), ((3, 4), F32), ((6, 4), F32)), (), 0),
            (_spec("FusedBatchMatMul", bcast_bias, ((2, 1, 3, 4), F32), ((5, 4, 6), F32), ((6,), F32)), (), 0),
            (_spec("FusedMatMul", bias_gelu, ((7, 5), F64), ((9, 5), F64), ((9,), F64)), (), 0),
            (_spec("FusedMatMul", pre, ((4, 3), F32), ((3, 6), F32), ((6,), F32), ((6,), F32)), (), 0),
            (_spec("FusedBatchMatMul", scale_res, ((3, 4, 6), F32), ((3, 6, 5), F32), ((), F32), ((1, 4, 5), F32)),
             (), 0)]


def indexing_specs() -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """UnsortedSegmentSum (ids over one and two axes, repeated and out of range), StopGradient."""
    return [(_spec("UnsortedSegmentSum", {"num_segments": 4}, ((7, 3), F32), ((7,), "int32")), ("", "index"), 4),
            (_spec("UnsortedSegmentSum", {"num_segments": 5}, ((2, 3, 4), F64), ((2, 3), "int64")), ("", "index"), 5),
            (_spec("UnsortedSegmentSum", {"num_segments": 3}, ((6,), "int32"), ((6,), "int32")), ("", "index"), 3),
            (_spec("StopGradient", {}, ((4, 5), F32)), (), 0)]


def strided_slice_grad_specs() -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """StridedSliceGrad of a slice with a negative step, and of a 3-D one."""
    out = []
    for attrs, shape, dt in (({"begin": (0, 6), "end": (5, 0), "strides": (2, -2)}, (5, 7), F32),
                             ({"begin": (1, 0, 1), "end": (3, 4, 6), "strides": (1, 3, 2)}, (3, 4, 6), F64)):
        fwd = _spec("StridedSlice", attrs, (shape, dt))
        canon = {key: list(fwd.attrs[key]) for key in ("start", "step", "count")}
        out.append((_spec("StridedSliceGrad", {**canon, "xshape": list(shape)}, (fwd.outputs[0].shape, dt)), (), 0))
    return out


def scatter_specs() -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """Every TensorScatter* and ScatterNd*Inplace with repeated and out-of-range index rows; a two-axis index;
    TensorScatterElements with negative indices; GatherD; the raising forms of both (``bounds="raise"``)."""
    from opbuild.ops.scatters import ND_OPS
    from opbuild.ops.scatters_inplace import INPLACE_OPS

    names = ("", "index", "")
    out = []
    for op in (*ND_OPS, *INPLACE_OPS):
        out.append((_spec(op, {}, ((5, 4), F32), ((6, 1), "int32"), ((6, 4), F32)), names, 5))
    out.append((_spec("TensorScatterAdd", {}, ((5, 4), "int32"), ((6, 1), "int64"), ((6, 4), "int32")), names, 5))
    out.append((_spec("ScatterNdAddInplace", {}, ((5, 4), F64), ((6, 1), "int64"), ((6, 4), F64)), names, 5))
    out.append((_spec("TensorScatterUpdate", {}, ((4, 3), "bool"), ((5, 2), "int32"), ((5,), "bool")), names, 3))
    el = ("", "signed_index", "")
    out.append((_spec("TensorScatterElements", {"axis": 1, "reduction": "add"}, ((3, 5), F32), ((3, 4), "int32"),
                      ((3, 4), F32)), el, 5))
    out.append((_spec("TensorScatterElements", {"axis": 0, "reduction": "none"}, ((4, 3), "int32"),
                      ((3, 2), "int64"), ((3, 2), "int32")), el, 4))
    out.append((_spec("TensorScatterElements", {"axis": 0, "reduction": "max"}, ((4, 3), F64), ((2, 3), "int32"),
                      ((2, 3), F64)), el, 4))
    out.append((_spec("GatherD", {"dim": 1}, ((3, 5), F32), ((3, 4), "int64")), el, 5))
    out.append((_spec("GatherD", {"dim": 0}, ((4, 2, 3), "int32"), ((6, 2, 3), "int32")), el, 4))
    # bounds="raise" (ops/bounds.py): the same kernels checking their indices first (all in range here)
    valid = ("", "valid_index", "")
    out.append((_spec("TensorScatterElements", {"axis": 1, "reduction": "add", "bounds": "raise"}, ((3, 5), F32),
                      ((3, 4), "int32"), ((3, 4), F32)), valid, 5))
    out.append((_spec("GatherD", {"dim": 1, "bounds": "raise"}, ((3, 5), F32), ((3, 4), "int64")), valid, 5))
    return out


def scan_specs() -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """CumSum/CumProd inclusive, exclusive, reversed, in floats and integers; Cummax/Cummin with ties and NaN."""
    return [(_spec("CumSum", {"axis": 1}, ((4, 6), F32)), (), 0),
            (_spec("CumSum", {"axis": 0, "exclusive": True, "reverse": True}, ((5, 3), F64)), (), 0),
            (_spec("CumSum", {"axis": -1, "reverse": True}, ((3, 7), "int32")), (), 0),
            (_spec("CumProd", {"axis": 1}, ((3, 5), F32)), (), 0),
            (_spec("CumProd", {"axis": 0, "exclusive": True}, ((4, 3), "uint8")), (), 0),
            (_spec("Cummax", {"axis": 1}, ((4, 6), F32)), ("with_nan",), 0),
            (_spec("Cummin", {"axis": 0}, ((5, 4), "int32")), ("ties",), 0),
            (_spec("Cummin", {"axis": 1}, ((3, 5), F64)), ("with_nan",), 0)]


def topk_dropout_specs() -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """TopK largest and smallest, ties, NaN, every element (k = n); Dropout and DropoutGrad."""
    return [(_spec("TopK", {"k": 3}, ((4, 9), F32)), (), 0),
            (_spec("TopK", {"k": 10, "axis": 1, "largest": False}, ((3, 10), "int32")), ("ties",), 0),
            (_spec("TopK", {"k": 2, "axis": 0, "index_dtype": "int64"}, ((7, 3), F64)), ("with_nan",), 0),
            (_spec("TopK", {"k": 4, "axis": 1, "largest": False}, ((2, 6, 3), F32)), ("with_nan",), 0),
            (_spec("Dropout", {"keep_prob": 0.7}, ((4, 33), F32), ((2,), "int64")), ("", "state"), 0),
            (_spec("Dropout", {"keep_prob": 0.5}, ((50,), F64), ((2,), "int64")), ("", "state"), 0),
            (_spec("DropoutGrad", {"keep_prob": 0.7}, ((4, 33), F32), ((4, 33), F32)), ("", "mask"), 0)]


def random_specs() -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """The samplers, Multinomial with and without replacement (a zero weight and a negative one, never drawn),
    RandomShuffle of rows and of a vector, RandpermV2 in an integer and a float dtype."""
    st = ((2,), "int64")
    out = [(_spec(op, {"shape": (3, 7)}, st), ("state",), 0)
           for op in ("StandardNormal", "UniformReal", "StandardLaplace")]
    out.append((_spec("UniformInt", {"shape": (40,)}, st, ((), "int32"), ((), "int32")), ("state", "lo", "hi"), 0))
    for repl, k in ((True, 6), (False, 4)):
        out.append((_spec("Multinomial", {"num_samples": k, "replacement": repl}, st, ((3, 6), F32)),
                    ("state", "weights"), 0))
    out.append((_spec("Multinomial", {"num_samples": 3, "replacement": False, "dtype": "int64"}, st,
                      ((5,), F64)), ("state", "weights"), 0))
    out.append((_spec("RandomShuffle", {}, st, ((6, 3), F32)), ("state", ""), 0))
    out.append((_spec("RandomShuffle", {}, st, ((9,), "int64")), ("state", ""), 0))
    out.append((_spec("RandpermV2", {"n": 11, "dtype": "int8"}, st), ("state",), 0))
    out.append((_spec("RandpermV2", {"n": 5, "dtype": F32}, st), ("state",), 0))
    return out


def train_specs() -> list[tuple[KernelSpec, tuple[str, ...], int]]:
    """Every (spec, input names, index bound) of this family."""
    return (optimizer_specs() + loss_specs() + gemm_specs() + indexing_specs() + strided_slice_grad_specs()
            + scatter_specs() + scan_specs() + topk_dropout_specs() + random_specs())


def train_cases(first_seed: int = 10_000) -> list[TrainCase]:
    """The family's cases, seeds from ``first_seed`` (apart from suite.py's)."""
    return [TrainCase(spec, first_seed + i, names, hi) for i, (spec, names, hi) in enumerate(train_specs())]


__all__ = ["TrainCase", "train_cases", "train_specs"]
