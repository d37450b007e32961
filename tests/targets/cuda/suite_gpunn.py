"""The neural-network kernels of the GPU op suite (targets/cuda/kernels/conv.py, pooling.py, norm.py):
convolutions and their backward ops (groups, depthwise, strides, dilation, every padding mode), FusedConv2D
(bias, activation, a per-channel ``pre`` recipe), pooling and its backward (ceil_mode, count_include_pad,
ties), BatchNorm (inference, training, backward) in NCHW/NHWC/(N, C), LayerNorm, BiasAdd and BiasAddGrad.
A few cases per op, so the suite's compile time stays modest. suite.py's ``cases()`` appends these."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opbuild.core.ir import KernelSpec, TensorType
from opbuild.ops.registry import get as get_op

from .suite import Case


@dataclass(frozen=True)
class NNCase(Case):
    """A case whose inputs ``positive`` are made positive (variances, reciprocal deviations) and, with
    ``ties``, rounded to halves so pooling windows hold equal maxima (MaxPoolGrad's rule for ties)."""

    positive: tuple[int, ...] = ()
    ties: bool = False

    def inputs(self) -> list[np.ndarray]:
        arrays = super().inputs()
        for i in self.positive:
            arrays[i] = (np.abs(arrays[i]) + 0.5).astype(arrays[i].dtype)
        if self.ties:
            arrays = [np.round(a * 2) / 2 if a.dtype.kind == "f" else a for a in arrays]
        return arrays

    def tolerance(self, dtype: str, against_cpu: bool = False) -> tuple[float, float]:
        """(rtol, atol) of a float output against the op's NumPy reference or (``against_cpu``) the CPU's
        kernel, the CPU tests' rules: sums of products (convolutions) rtol 1e-4, atol 1e-4 * sqrt(taps) (float64
        1e-10, 1e-12 * sqrt(taps)); normalisations and the other sums 1e-5 (float64 1e-12); GridSample 1e-5
        whatever the dtype (its coordinates and weights are float32); the rest rtol 1e-5, atol 1e-6.
        GridSampleGrad's reference differentiates float32 coordinates by central differences (step 1e-4):
        rtol 2e-2, atol 5e-2 against it, 1e-5 against the CPU's kernel (test_nn_kernels.py; scripts/gpu_check.py
        asks without ``against_cpu``, so its GridSampleGrad check is the loose one)."""
        spec = self.spec
        if spec.op.startswith("GridSample"):
            return (2e-2, 5e-2) if not against_cpu and spec.op == "GridSampleGrad" else (1e-5, 1e-5)
        if spec.op.startswith(("Conv2D", "FusedConv2D")):
            w = spec.inputs[1]
            taps = {"Conv2DBackpropFilter": spec.inputs[0].size / max(spec.inputs[0].shape[1], 1),
                    "Conv2DBackpropInput": w.size / max(w.shape[1], 1)}.get(spec.op, w.size / max(w.shape[0], 1))
            taps = max(taps, 1) ** 0.5
            return (1e-4, 1e-4 * taps) if dtype == "float32" else (1e-10, 1e-12 * taps)
        if spec.op.startswith(("BatchNorm", "LayerNorm", "BiasAddGrad", "GlobalAvgPool")):
            return (1e-5, 1e-5) if dtype == "float32" else (1e-12, 1e-12)
        return (1e-5, 1e-6) if dtype == "float32" else (1e-12, 1e-12)


def _t(shape, dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


def _spec(op: str, attrs: dict, *types: TensorType) -> KernelSpec:
    return get_op(op).spec(attrs, list(types))


# (x shape, w shape, attrs, dtype): plain padded, grouped with strides/dilation/4-sided pad, depthwise "same"
# stride 2 in float64, 1x1 "valid".
CONVS = [((2, 3, 9, 8), (4, 3, 3, 3), {"pad_mode": "pad", "pad": 1}, "float32"),
         ((1, 4, 11, 10), (6, 2, 3, 2), {"pad_mode": "pad", "pad": (1, 0, 2, 1), "stride": (2, 1),
                                         "dilation": (1, 2), "group": 2}, "float32"),
         ((2, 4, 7, 7), (4, 1, 3, 3), {"pad_mode": "same", "stride": 2, "group": 4}, "float64"),
         ((2, 8, 5, 5), (16, 8, 1, 1), {}, "float32")]


def conv_specs() -> list[KernelSpec]:
    """Conv2D and its two backward ops on each geometry of :data:`CONVS`."""
    specs = []
    for xs, ws, attrs, dt in CONVS:
        fwd = _spec("Conv2D", {"out_channel": ws[0], "kernel_size": list(ws[2:]), **attrs}, _t(xs, dt), _t(ws, dt))
        base = {k: v for k, v in fwd.attrs.items() if k != "algo"}
        y = fwd.outputs[0]
        specs += [fwd,
                  _spec("Conv2DBackpropInput", {**base, "input_size": list(xs)}, y, _t(ws, dt)),
                  _spec("Conv2DBackpropFilter", {**base, "filter_size": list(ws)}, y, _t(xs, dt))]
    return specs


def fused_conv_specs() -> list[KernelSpec]:
    """FusedConv2D as the epilogue pass writes it: bias + ReLU; and a folded BatchNorm whose per-channel
    factor ``scale * var`` is a ``pre`` recipe, then a residual add (a full-shape epilogue input)."""
    conv = {"out_channel": 4, "kernel_size": [3, 3], "pad_mode": "pad", "pad": 1}
    x, w = _t((2, 3, 6, 5)), _t((4, 3, 3, 3))
    bias_relu = {"producer": conv, "views": [[4, 1, 1]],
                 "members": [{"op": "Add", "attrs": {}, "args": ["i0", "i1"]},
                             {"op": "ReLU", "attrs": {}, "args": ["t0"]}]}
    folded = {"producer": conv, "views": [[4, 1, 1], [4, 1, 1], [4, 1, 1], [2, 4, 6, 5]],
              "pre": [{"inputs": [1, 2], "members": [{"op": "Mul", "attrs": {}, "args": ["i0", "i1"]}]}],
              "members": [{"op": "Mul", "attrs": {}, "args": ["i0", "i5"]},
                          {"op": "Add", "attrs": {}, "args": ["t0", "i1"]},
                          {"op": "Add", "attrs": {}, "args": ["t1", "i4"]},
                          {"op": "ReLU", "attrs": {}, "args": ["t2"]}]}
    return [_spec("FusedConv2D", bias_relu, x, w, _t((4,))),
            _spec("FusedConv2D", folded, x, w, _t((4,)), _t((4,)), _t((4,)), _t((2, 4, 6, 5)))]


# (x shape, attrs, dtype) of the pooling cases.
POOLS = [((2, 3, 9, 9), {"kernel_size": 3, "strides": 2, "pad_mode": "pad", "pad": 1}, "float32"),
         ((1, 2, 8, 7), {"kernel_size": (2, 3), "strides": 2, "ceil_mode": True, "pad_mode": "pad",
                         "pad": (1, 1, 1, 1)}, "float32"),
         ((2, 2, 7, 5), {"kernel_size": 3, "strides": 2, "pad_mode": "same"}, "float64")]


def pool_specs() -> list[KernelSpec]:
    """MaxPool, AvgPool (count_include_pad both ways) and their backward ops on :data:`POOLS`; an int8
    MaxPool; GlobalAvgPool."""
    specs = []
    for xs, attrs, dt in POOLS:
        x = _t(xs, dt)
        for op, extra in (("MaxPool", {}), ("AvgPool", {}), ("AvgPool", {"count_include_pad": False})):
            fwd = _spec(op, {**attrs, **extra}, x)
            y = fwd.outputs[0]
            specs += [fwd, _spec(op + "Grad", fwd.attrs, x, y, y)]
    specs.append(_spec("MaxPool", {"kernel_size": 2, "strides": 2}, _t((1, 2, 6, 6), "int8")))
    specs.append(_spec("GlobalAvgPool", {}, _t((2, 3, 7, 9))))
    specs.append(_spec("GlobalAvgPool", {}, _t((1, 4, 20, 20), "float64")))
    return specs


def norm_specs() -> list[KernelSpec]:
    """BatchNorm / BatchNormTraining / BatchNormGrad in NCHW, NHWC and (N, C); LayerNorm with parameters
    over the normalised axes, fewer (repeated) and more (spanning rows); BiasAdd / BiasAddGrad."""
    specs = []
    for xs, fmt, dt in (((2, 3, 4, 5), "NCHW", "float32"), ((2, 4, 5, 3), "NHWC", "float32"),
                        ((6, 5), "NCHW", "float64")):
        c = xs[3] if fmt == "NHWC" else xs[1]
        x, p = _t(xs, dt), _t((c,), dt)
        specs.append(_spec("BatchNorm", {"epsilon": 1e-3, "data_format": fmt}, x, p, p, p, p))
        specs.append(_spec("BatchNormTraining", {"epsilon": 1e-5, "momentum": 0.1, "data_format": fmt},
                           x, p, p, p, p))
        specs.append(_spec("BatchNormGrad", {"data_format": fmt}, x, x, p, p, p))
    for xs, bna, bpa, dt in (((4, 6, 5), 1, 1, "float32"), ((3, 4, 10), 2, 2, "float32"),
                             ((3, 4, 10), 1, 2, "float32"), ((3, 4, 10), 2, 1, "float32"),
                             ((5, 300), 1, 1, "float64")):
        g = _t(xs[bpa:], dt)
        specs.append(_spec("LayerNorm", {"begin_norm_axis": bna, "begin_params_axis": bpa, "epsilon": 1e-5},
                           _t(xs, dt), g, g))
    for xs, fmt, dt in (((2, 3, 4, 5), "NCHW", "float32"), ((2, 4, 5, 3), "NHWC", "float32"),
                        ((6, 5), "NC", "float64"), ((2, 3, 4), "NCHW", "int32")):
        c = xs[-1] if fmt == "NHWC" else xs[1]
        specs.append(_spec("BiasAdd", {"data_format": fmt}, _t(xs, dt), _t((c,), dt)))
        specs.append(_spec("BiasAddGrad", {"data_format": fmt}, _t(xs, dt)))
    return specs


# (x shape, grid shape, attrs, dtype): every mode and padding, 1 to 3 spatial axes, both alignments.
GRIDS = [((2, 3, 5, 6), (2, 4, 3, 2), {"mode": "bilinear", "padding_mode": "zeros"}, "float32"),
         ((1, 2, 5, 4), (1, 3, 3, 2), {"mode": "bicubic", "padding_mode": "border", "align_corners": True},
          "float32"),
         ((1, 2, 4, 5), (1, 2, 3, 2), {"mode": "bicubic", "padding_mode": "reflection"}, "float64"),
         ((2, 2, 7), (2, 5, 1), {"mode": "nearest", "padding_mode": "reflection", "align_corners": True},
          "float64"),
         ((1, 2, 3, 4, 3), (1, 2, 2, 3, 3), {"mode": "bilinear", "padding_mode": "border"}, "float32")]


def grid_specs() -> list[KernelSpec]:
    """GridSample and GridSampleGrad on :data:`GRIDS`."""
    specs = []
    for xs, gs, attrs, dt in GRIDS:
        fwd = _spec("GridSample", attrs, _t(xs, dt), _t(gs, dt))
        specs += [fwd, _spec("GridSampleGrad", fwd.attrs, fwd.outputs[0], _t(xs, dt), _t(gs, dt))]
    return specs


def specs() -> list[KernelSpec]:
    """Every spec of this part of the suite, each once (AvgPool "same" ignores count_include_pad)."""
    seen: dict = {}
    for spec in conv_specs() + fused_conv_specs() + pool_specs() + norm_specs() + grid_specs():
        seen.setdefault(spec.memo_key(), spec)
    return list(seen.values())


# Inputs made positive: BatchNorm's variance, BatchNormTraining's moving variance, BatchNormGrad's save_rstd.
_POSITIVE = {"BatchNorm": (4,), "BatchNormTraining": (4,), "BatchNormGrad": (4,)}


def cases(first_seed: int = 0) -> list[NNCase]:
    """The cases of :func:`specs`, seeded from ``first_seed`` on."""
    return [NNCase(spec, first_seed + i, positive=_POSITIVE.get(spec.op, ()), ties="Pool" in spec.op)
            for i, spec in enumerate(specs())]


__all__ = ["CONVS", "GRIDS", "NNCase", "POOLS", "cases", "conv_specs", "fused_conv_specs", "grid_specs", "norm_specs",
           "pool_specs", "specs"]
