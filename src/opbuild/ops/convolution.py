"""2-D convolution and pooling (NCHW): Conv2D, MaxPool, AvgPool, GlobalAvgPool (and AdaptiveAvgPool2D(1)).

Attributes follow MindSpore (``pad_mode`` "valid" / "same" / "pad", ints or tuples for sizes, the 4-tuple
``(1, 1, h, w)`` form accepted too). ``normalize`` resolves every padding mode into explicit
``pad = [top, bottom, left, right]`` and ``pad_mode = "pad"``, so equal kernels share one cache key and
normalizing twice is a no-op (graph nodes store the normalized attrs).

Conv2D's kernel is chosen by shape when the attrs are normalized and recorded as ``algo`` (so it is in the
key and the ``.info``): ``gemm`` (1x1 stride 1, no im2col), ``depthwise`` and ``direct`` (direct loops
vectorised over the output width), ``im2col`` (im2col of row blocks into the kernel's workspace, planned in
the arena, then BLAS); the plan is ops/conv_plan.py's, the CPU's kernels are in targets/cpu/kernels/.
float16/bfloat16 convolutions compute in float32 and round once on store (``half_conv: "f32_scratch"`` in the
descriptor).

Pooling is a direct loop with window bounds clipped to the input; padding never contributes to a max, and
contributes zeros to an average only when ``count_include_pad`` (PyTorch's rule for the divisor, including
``ceil_mode`` windows that run past the padding). float16/bfloat16 pooling loads each element into float,
computes as the float32 kernel does and rounds each result once on store (``half_pool: "f32"`` in the
descriptor); MaxPool also takes int8/uint8 (ONNX's MaxPool types), compared in their own type.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.dtypes import ALL_FLOATS, FLOATS, HALFS
from ..core.errors import ShapeError
from ..core.ir import TensorType
from .conv_plan import HALF_CONV, choose, conv_workspace, nothing_to_compute
from .pool_plan import pool_layout
from .primitive import Primitive, defop
from .registry import same_dtype
from .scratch_plan import workspace_of

# ---- attribute parsing ----------------------------------------------------------------------------

def _jsonable(value):
    """Tuples become lists so attrs are JSON data (kernel keys); other values pass through for validation."""
    return list(value) if isinstance(value, tuple) else value


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _pair(op: str, name: str, value, ins: Sequence[TensorType], minimum: int = 1) -> list[int]:
    """An int, an (h, w) pair, or MindSpore's (1, 1, h, w) form -> [h, w] (each >= ``minimum``)."""
    if _is_int(value):
        vals = [int(value), int(value)]
    elif isinstance(value, (tuple, list)) and len(value) in (2, 4) and all(_is_int(v) for v in value):
        if len(value) == 4 and (value[0] != 1 or value[1] != 1):
            raise ShapeError(op, f"{name} as a 4-tuple must be (1, 1, h, w), got {tuple(value)}", list(ins))
        vals = [int(v) for v in value[-2:]]
    else:
        raise ShapeError(op, f"{name} must be an int or a tuple of 2 ints, got {value!r}", list(ins))
    if min(vals) < minimum:
        raise ShapeError(op, f"{name} must be >= {minimum}, got {value!r}", list(ins))
    return vals


def _pad4(op: str, value, ins: Sequence[TensorType]) -> list[int]:
    """``pad`` as an int (all sides), (top/bottom, left/right) or (top, bottom, left, right)."""
    if _is_int(value):
        vals = [int(value)] * 4
    elif isinstance(value, (tuple, list)) and len(value) == 2 and all(_is_int(v) for v in value):
        vals = [int(value[0]), int(value[0]), int(value[1]), int(value[1])]
    elif isinstance(value, (tuple, list)) and len(value) == 4 and all(_is_int(v) for v in value):
        vals = [int(v) for v in value]
    else:
        raise ShapeError(op, f"pad must be an int or a tuple of 2 or 4 ints (top, bottom, left, right), "
                             f"got {value!r}", list(ins))
    if min(vals) < 0:
        raise ShapeError(op, f"pad must be non-negative, got {value!r}", list(ins))
    return vals


def _pad_mode(op: str, attrs: dict, ins: Sequence[TensorType]) -> str:
    mode = attrs.get("pad_mode", "valid")
    if not isinstance(mode, str) or mode.lower() not in ("valid", "same", "pad"):
        raise ShapeError(op, f"pad_mode must be 'valid', 'same' or 'pad', got {mode!r}", list(ins))
    mode = mode.lower()
    if mode != "pad" and any(_pad4(op, attrs.get("pad", 0), ins)):
        raise ShapeError(op, f"pad={attrs['pad']!r} needs pad_mode='pad' (got pad_mode={mode!r})", list(ins))
    return mode


def _same_pads(size: int, kernel: int, stride: int, dilation: int) -> tuple[int, int]:
    """TF/MindSpore "same": output ceil(size / stride); the odd pixel of padding goes after (bottom/right)."""
    out = -(-size // stride)
    needed = max(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - size)
    return needed // 2, needed - needed // 2


def _resolve_pads(op: str, attrs: dict, ins: Sequence[TensorType], hw: Sequence[int], kernel: Sequence[int],
                  stride: Sequence[int], dilation: Sequence[int]) -> list[int]:
    mode = _pad_mode(op, attrs, ins)
    if mode == "pad":
        return _pad4(op, attrs.get("pad", 0), ins)
    if mode == "valid":
        return [0, 0, 0, 0]
    top, bottom = _same_pads(hw[0], kernel[0], stride[0], dilation[0])
    left, right = _same_pads(hw[1], kernel[1], stride[1], dilation[1])
    return [top, bottom, left, right]


def _data_format(op: str, attrs: dict, ins: Sequence[TensorType]) -> str:
    fmt = attrs.get("data_format", "NCHW")
    if fmt != "NCHW":
        raise ShapeError(op, f"only data_format='NCHW' is supported, got {fmt!r}", list(ins))
    return fmt


def _check_4d(op: str, ins: Sequence[TensorType], names: Sequence[str] = ("x",)) -> None:
    for name, t in zip(names, ins, strict=False):  # names may list more inputs than were given
        if t.rank != 4:
            raise ShapeError(op, f"{name} must be 4-D (N, C, H, W), got rank {t.rank}", list(ins))


def _out_size(op: str, size: int, pads: Sequence[int], kernel: int, stride: int, dilation: int, ceil: bool,
              axis: str, ins: Sequence[TensorType]) -> int:
    span = (kernel - 1) * dilation + 1
    padded = size + pads[0] + pads[1]
    if span > padded:
        raise ShapeError(op, f"kernel extent {span} along {axis} is larger than the padded input "
                             f"({size} + {pads[0]} + {pads[1]} = {padded})", list(ins))
    if not ceil:
        return (padded - span) // stride + 1
    out = -(-(padded - span) // stride) + 1
    if (out - 1) * stride >= size + pads[0]:  # the last window must start inside the input or left padding
        out -= 1
    return out


# ---- Conv2D ---------------------------------------------------------------------------------------

def _conv_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    op = "Conv2D"
    if len(ins) != 2:
        return attrs  # arity error is raised by the registry with the inputs
    _check_4d(op, ins, ("x", "weight"))
    x, w = ins
    _data_format(op, attrs, ins)
    if attrs.get("mode", 1) != 1:
        raise ShapeError(op, f"only mode=1 (cross-correlation) is supported, got {attrs.get('mode')!r}",
                         list(ins))
    kernel = _pair(op, "kernel_size", attrs.get("kernel_size", list(w.shape[2:])), ins)
    if kernel != list(w.shape[2:]):
        raise ShapeError(op, f"kernel_size {kernel} does not match the weight's spatial shape "
                             f"{list(w.shape[2:])}", list(ins))
    out_channel = attrs.get("out_channel", w.shape[0])
    if not _is_int(out_channel) or out_channel != w.shape[0]:
        raise ShapeError(op, f"out_channel={out_channel!r} does not match the weight's first dim "
                             f"{w.shape[0]}", list(ins))
    stride = _pair(op, "stride", attrs.get("stride", 1), ins)
    dilation = _pair(op, "dilation", attrs.get("dilation", 1), ins)
    group = attrs.get("group", 1)
    if not _is_int(group) or group < 1:
        raise ShapeError(op, f"group must be a positive int, got {group!r}", list(ins))
    pads = _resolve_pads(op, attrs, ins, x.shape[2:], kernel, stride, dilation)
    out = {"out_channel": int(out_channel), "kernel_size": kernel, "mode": 1, "pad_mode": "pad", "pad": pads,
           "stride": stride, "dilation": dilation, "group": int(group), "data_format": "NCHW"}
    # The kernel's algorithm, chosen by shape here so it is part of the key (ops/conv_plan.py); an
    # explicit valid ``algo`` is kept (tests and benchmarks force each path).
    out["algo"] = choose(x.shape, w.shape, _conv_geometry(out, ins), {**out, "algo": attrs.get("algo")},
                         forward=True)
    if x.dtype in HALFS:  # float32 scratch + float32 kernel, rounded once (the CPU's conv_kernels.py half_wrap)
        out["half_conv"] = HALF_CONV
    return out


def _conv_geometry(attrs: dict, ins: Sequence[TensorType]) -> tuple[int, int]:
    """(OH, OW) of a convolution with normalized ``attrs``."""
    x = ins[0]
    kh, kw = attrs["kernel_size"]
    p = attrs["pad"]
    (sh, sw), (dh, dw) = attrs["stride"], attrs["dilation"]
    oh = _out_size("Conv2D", x.shape[2], p[0:2], kh, sh, dh, False, "H", ins)
    ow = _out_size("Conv2D", x.shape[3], p[2:4], kw, sw, dw, False, "W", ins)
    return oh, ow


def _conv_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    x, w = ins
    dt = same_dtype("Conv2D", ins, FLOATS + HALFS)
    g = attrs["group"]
    if x.shape[1] % g or w.shape[0] % g:
        raise ShapeError("Conv2D", f"in_channels ({x.shape[1]}) and out_channels ({w.shape[0]}) must both be "
                                   f"divisible by group ({g})", list(ins))
    if w.shape[1] != x.shape[1] // g:
        raise ShapeError("Conv2D", f"weight's dim 1 must be in_channels / group = {x.shape[1]} / {g} = "
                                   f"{x.shape[1] // g}, got {w.shape[1]}", list(ins))
    oh, ow = _conv_geometry(attrs, ins)
    return [TensorType((x.shape[0], w.shape[0], oh, ow), dt)]


def _conv_workspace(attrs: dict, ins: Sequence[TensorType], outs: Sequence[TensorType]) -> int:
    x, w = ins
    if nothing_to_compute(x.shape, outs[0].size, attrs):
        return 0
    return conv_workspace(attrs, (x.shape, w.shape, outs[0].shape), x.dtype, (x.size, w.size, outs[0].size))


def _windows(x: np.ndarray, kernel: Sequence[int], stride: Sequence[int], dil: Sequence[int]) -> np.ndarray:
    """(..., OH, OW, KH, KW) view of the (already padded) ``x`` (..., H, W): every dilated, strided window."""
    span = [(k - 1) * d + 1 for k, d in zip(kernel, dil, strict=True)]
    win = np.lib.stride_tricks.sliding_window_view(x, span, axis=(-2, -1))
    return win[..., ::stride[0], ::stride[1], ::dil[0], ::dil[1]]


def _conv_ref(attrs: dict, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    t, b, left, right = attrs["pad"]
    x, w = x.astype(np.float64), w.astype(np.float64)  # an oracle more accurate than the kernel
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (left, right)))
    win = _windows(xp, attrs["kernel_size"], attrs["stride"], attrs["dilation"])  # N C OH OW KH KW
    g = attrs["group"]
    cg, og = x.shape[1] // g, w.shape[0] // g
    outs = [np.einsum("nchwij,ocij->nohw", win[:, gi * cg:(gi + 1) * cg], w[gi * og:(gi + 1) * og])
            for gi in range(g)]
    return np.concatenate(outs, axis=1)


@defop(infer=_conv_infer, reference=_conv_ref, normalize=_conv_normalize, n_inputs=2, workspace=_conv_workspace)
class Conv2D(Primitive):
    """``Conv2D(out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
    data_format="NCHW")(x, weight)``: 2-D cross-correlation of ``x`` (N, C, H, W) with ``weight``
    (out_channel, C / group, KH, KW), float32/float64, or float16/bfloat16 (computed in float32, each result
    rounded once).

    ``pad_mode``: "valid" (no padding), "same" (output ceil(H / stride); odd padding goes bottom/right, as
    in TF and MindSpore) or "pad" (``pad`` = int or (top, bottom, left, right)). ``stride``/``dilation``: int,
    (h, w) or (1, 1, h, w). ``group`` = C gives a depthwise convolution.
    """

    def __init__(self, out_channel: int, kernel_size, mode: int = 1, pad_mode: str = "valid", pad=0,
                 stride=1, dilation=1, group: int = 1, data_format: str = "NCHW"):
        super().__init__(out_channel=out_channel, kernel_size=_jsonable(kernel_size), mode=mode,
                         pad_mode=pad_mode, pad=_jsonable(pad), stride=_jsonable(stride),
                         dilation=_jsonable(dilation), group=group, data_format=data_format)


# ---- pooling --------------------------------------------------------------------------------------

HALF_POOL = "f32"  # descriptor attribute ``half_pool``: half elements load into float, results round once
MAX_POOL_DTYPES = ALL_FLOATS + ("int8", "uint8")  # ONNX MaxPool's T (MindSpore's CPU MaxPool: the floats)
AVG_POOL_DTYPES = ALL_FLOATS  # MindSpore's AvgPool, ONNX AveragePool / GlobalAveragePool


def pool_half_attr(attrs: dict, x: TensorType) -> dict:
    """``attrs`` with ``half_pool`` set for a float16/bfloat16 ``x`` (and dropped for any other dtype): the
    strategy is part of the key, so a native half kernel later is a new cache entry, never a changed one."""
    out = {k: v for k, v in attrs.items() if k != "half_pool"}
    if x.dtype in HALFS:
        out["half_pool"] = HALF_POOL
    return out


def _pool_normalize(op: str, avg: bool):
    def normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
        if len(ins) != 1:
            return attrs
        _check_4d(op, ins)
        _data_format(op, attrs, ins)
        kernel = _pair(op, "kernel_size", attrs.get("kernel_size", 1), ins)
        stride = _pair(op, "strides", attrs.get("strides", 1), ins)
        mode = _pad_mode(op, attrs, ins)
        pads = _resolve_pads(op, attrs, ins, ins[0].shape[2:], kernel, stride, (1, 1))
        if any(p > k // 2 for p, k in zip(pads, (kernel[0], kernel[0], kernel[1], kernel[1]), strict=True)):
            raise ShapeError(op, f"pad {pads} must be at most half the kernel size {kernel} on each side "
                                 f"(a window must overlap the input)", list(ins))
        ceil_mode = attrs.get("ceil_mode", False)
        if not isinstance(ceil_mode, (bool, np.bool_)):
            raise ShapeError(op, f"ceil_mode must be a bool, got {ceil_mode!r}", list(ins))
        out = {"kernel_size": kernel, "strides": stride, "pad_mode": "pad", "pad": pads,
               "ceil_mode": bool(ceil_mode), "data_format": "NCHW"}
        if avg:
            include = attrs.get("count_include_pad", True)
            if not isinstance(include, (bool, np.bool_)):
                raise ShapeError(op, f"count_include_pad must be a bool, got {include!r}", list(ins))
            # "same" is TF's rule: the average is over the real pixels only.
            out["count_include_pad"] = bool(include) and mode != "same"
        return pool_half_attr(out, ins[0])

    return normalize


def _pool_out(op: str, attrs: dict, ins: Sequence[TensorType]) -> tuple[int, int]:
    x = ins[0]
    (kh, kw), (sh, sw), p = attrs["kernel_size"], attrs["strides"], attrs["pad"]
    ceil = attrs["ceil_mode"]
    return (_out_size(op, x.shape[2], p[0:2], kh, sh, 1, ceil, "H", ins),
            _out_size(op, x.shape[3], p[2:4], kw, sw, 1, ceil, "W", ins))


def _pool_infer(op: str, allowed: Sequence[str]):
    def infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
        dt = same_dtype(op, ins, allowed)
        oh, ow = _pool_out(op, attrs, ins)
        return [TensorType((ins[0].shape[0], ins[0].shape[1], oh, ow), dt)]

    return infer


def _pool_ref(avg: bool):
    def reference(attrs: dict, x: np.ndarray) -> np.ndarray:
        if x.dtype.name in HALFS:  # computed in float32; run_reference rounds once to the half type
            x = x.astype(np.float32)
        (kh, kw), stride = attrs["kernel_size"], attrs["strides"]
        t, b, left, right = attrs["pad"]
        _, _, h, w = x.shape
        oh, ow = _pool_out("AvgPool" if avg else "MaxPool", attrs, [TensorType(x.shape, x.dtype.name)])
        # Extra bottom/right padding so ceil_mode windows exist as full windows; masks say what is real.
        eb = max(0, (oh - 1) * stride[0] + kh - (h + t + b))
        er = max(0, (ow - 1) * stride[1] + kw - (w + left + right))
        widths = ((0, 0), (0, 0), (t, b + eb), (left, right + er))
        real = np.pad(np.ones((h, w), bool), widths[2:])
        padded = np.pad(np.ones((h, w), bool), ((t, b), (left, right)), constant_values=True)
        padded = np.pad(padded, ((0, eb), (0, er)), constant_values=False)
        win = _windows(np.pad(x, widths), (kh, kw), stride, (1, 1))[:, :, :oh, :ow]
        real_w = _windows(real, (kh, kw), stride, (1, 1))[:oh, :ow]
        if not avg:
            return np.where(real_w, win, -np.inf).max(axis=(-2, -1))
        total = np.where(real_w, win, 0).sum(axis=(-2, -1))
        counted = real_w
        if attrs["count_include_pad"]:
            counted = _windows(padded, (kh, kw), stride, (1, 1))[:oh, :ow]
        return total / counted.sum(axis=(-2, -1))

    return reference


class _Pool(Primitive):
    """The constructor MaxPool and AvgPool share (MindSpore's signature); sizes become JSON lists."""

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "valid", data_format: str = "NCHW", pad=0,
                 ceil_mode: bool = False, **extra):
        super().__init__(kernel_size=_jsonable(kernel_size), strides=_jsonable(strides), pad_mode=pad_mode,
                         data_format=data_format, pad=_jsonable(pad), ceil_mode=ceil_mode, **extra)


@defop(infer=_pool_infer("MaxPool", MAX_POOL_DTYPES), reference=_pool_ref(False),
       normalize=_pool_normalize("MaxPool", False), n_inputs=1,
       workspace=workspace_of(pool_layout(False)))
class MaxPool(_Pool):
    """``MaxPool(kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW", pad=0, ceil_mode=False)(x)``:
    2-D max pooling of ``x`` (N, C, H, W): float16, bfloat16, float32, float64, int8 or uint8 (ONNX's
    MaxPool types). Padding never wins the max; NaN propagates. The result is an element of ``x``, exact.

    ``pad_mode`` "same" / "valid" as in MindSpore, or "pad" with ``pad`` an int or (top, bottom, left,
    right), at most half the kernel on each side. ``ceil_mode`` rounds the output size up (PyTorch's rule).
    """


@defop(infer=_pool_infer("AvgPool", AVG_POOL_DTYPES), reference=_pool_ref(True),
       normalize=_pool_normalize("AvgPool", True), n_inputs=1,
       workspace=workspace_of(pool_layout(True)))
class AvgPool(_Pool):
    """``AvgPool(kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW", pad=0, ceil_mode=False,
    count_include_pad=True)(x)``: 2-D average pooling of ``x`` (N, C, H, W), float16/bfloat16/float32/float64
    (a half type sums and divides in float32 and rounds each result once).

    With pad_mode "pad", ``count_include_pad`` decides whether padded zeros count in the divisor (PyTorch's
    rule); pad_mode "same" always averages over the real pixels only (TF/MindSpore semantics).
    """

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "valid", data_format: str = "NCHW", pad=0,
                 ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__(kernel_size, strides, pad_mode, data_format, pad, ceil_mode,
                         count_include_pad=count_include_pad)


# ---- GlobalAvgPool --------------------------------------------------------------------------------

def _gap_infer(attrs: dict, ins: Sequence[TensorType]) -> list[TensorType]:
    dt = same_dtype("GlobalAvgPool", ins, AVG_POOL_DTYPES)
    _check_4d("GlobalAvgPool", ins)
    n, c, h, w = ins[0].shape
    if h * w == 0:
        raise ShapeError("GlobalAvgPool", "the spatial dims (H, W) must be non-empty", list(ins))
    return [TensorType((n, c, 1, 1), dt)]


def _gap_normalize(attrs: dict, ins: Sequence[TensorType]) -> dict:
    return pool_half_attr(attrs, ins[0]) if len(ins) == 1 else attrs


def _gap_ref(attrs: dict, x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64).mean(axis=(2, 3), keepdims=True)


@defop(infer=_gap_infer, n_inputs=1, normalize=_gap_normalize, reference=_gap_ref)
class GlobalAvgPool(Primitive):
    """``GlobalAvgPool()(x)``: mean of ``x`` (N, C, H, W) over H and W, keeping them: (N, C, 1, 1);
    float16/bfloat16/float32/float64 (summed in double, each result rounded once)."""


# An alias with its own constructor, not a second op: it applies GlobalAvgPool.
class AdaptiveAvgPool2D(Primitive):
    """``AdaptiveAvgPool2D(output_size=1)(x)``: adaptive average pooling to a 1x1 output, i.e. GlobalAvgPool.
    Only ``output_size`` 1 or (1, 1) is supported; anything else raises ValueError here."""

    op_name = "GlobalAvgPool"

    def __init__(self, output_size=1):
        if output_size not in (1, (1, 1), [1, 1]):
            raise ShapeError("AdaptiveAvgPool2D", f"only output_size=1 or (1, 1) is supported (global "
                                                  f"average pooling), got {output_size!r}")
        super().__init__()
        self.output_size = output_size

    def __repr__(self) -> str:
        return f"AdaptiveAvgPool2D(output_size={self.output_size!r})"


PRIMITIVES = {"Conv2D": Conv2D, "MaxPool": MaxPool, "AvgPool": AvgPool, "GlobalAvgPool": GlobalAvgPool,
              "AdaptiveAvgPool2D": AdaptiveAvgPool2D}
