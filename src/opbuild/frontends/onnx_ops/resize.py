"""ONNX Resize through the resizing composition of ops/compose/resize.py, and GridSample (a primitive of its own).

Scales, sizes and the region of interest must be constants (they fix the output shape); every mode, nearest
rounding and coordinate transformation of Resize-11 to -19 is supported, with ``antialias``, ``axes``,
``exclude_outside``, ``keep_aspect_ratio_policy`` and ``extrapolation_value``. Linear and cubic resizing of
integer tensors is refused (the ONNX rounding of their results is not implemented).
"""

from __future__ import annotations

import numpy as np

from ...ops.compose import resize as R
from .core import Ctx, StaticValueError, Value, converter, dtype, one_of, prim, reshape, shape
from .elementwise import GRAPH


def _check(ctx: Ctx) -> list[str]:
    problems = one_of("mode", R.MODES, "nearest")(ctx)
    problems += one_of("coordinate_transformation_mode", R.COORDINATE_MODES, "half_pixel")(ctx)
    problems += one_of("nearest_mode", R.NEAREST_MODES, "round_prefer_floor")(ctx)
    problems += one_of("keep_aspect_ratio_policy", ("stretch", "not_larger", "not_smaller"), "stretch")(ctx)
    return problems


def _fail(ctx: Ctx, msg: str) -> StaticValueError:
    return StaticValueError(f"{ctx.op_type} (ONNX node {ctx.name!r}): {msg}")


def _plan(ctx: Ctx, dims: tuple[int, ...], roi: Value, scales: Value, sizes: Value) -> tuple[list, list, list]:
    """(scale, output size, roi pair) per axis of x, following ONNX's rules for sizes, scales and axes."""
    rank = len(dims)
    axes = [ctx.axis(a, rank, "axes") for a in ctx.attr("axes", range(rank))]
    sizes_v = None if sizes is None else ctx.static(sizes, "sizes").reshape(-1)
    scales_v = None if scales is None else ctx.static(scales, "scales").reshape(-1)
    if sizes_v is not None and sizes_v.size == 0:
        sizes_v = None
    if scales_v is not None and scales_v.size == 0:
        scales_v = None
    if (sizes_v is None) == (scales_v is None):
        raise _fail(ctx, "exactly one of the inputs 'scales' and 'sizes' must be given")
    given = sizes_v if sizes_v is not None else scales_v
    if given.size != len(axes):
        raise _fail(ctx, f"{'sizes' if sizes_v is not None else 'scales'} has {given.size} values for "
                         f"{len(axes)} axes")
    scale = [1.0] * rank
    out = list(dims)
    if scales_v is not None:
        for a, s in zip(axes, scales_v.tolist(), strict=True):
            if s <= 0:
                raise _fail(ctx, f"scales must be positive, got {s}")
            scale[a] = float(np.float32(s))
            out[a] = R.output_size(dims[a], scale[a])
    else:
        for a, n in zip(axes, sizes_v.tolist(), strict=True):
            scale[a], out[a] = int(n) / dims[a], int(n)
        policy = ctx.attr("keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            pick = min if policy == "not_larger" else max
            s = pick(scale[a] for a in axes)
            for a in axes:
                scale[a], out[a] = s, int(s * dims[a] + 0.5)
    pairs = [(0.0, 1.0)] * rank
    if ctx.attr("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize":
        if roi is None:
            raise _fail(ctx, "coordinate_transformation_mode tf_crop_and_resize needs the 'roi' input")
        r = ctx.static(roi, "roi").reshape(-1).astype(np.float64).tolist()
        if len(r) != 2 * len(axes):
            raise _fail(ctx, f"roi has {len(r)} values, expected {2 * len(axes)} (starts then ends)")
        for i, a in enumerate(axes):
            pairs[a] = (r[i], r[len(axes) + i])
    return scale, out, pairs


@converter("Resize", (11, 13, 18, 19), attrs=("antialias", "axes", "coordinate_transformation_mode",
                                              "cubic_coeff_a", "exclude_outside", "extrapolation_value",
                                              "keep_aspect_ratio_policy", "mode", "nearest_mode"),
           check=_check, static=(1, 2, 3))
def _resize(ctx: Ctx, x: Value, roi: Value = None, scales: Value = None, sizes: Value = None) -> Value:
    dims, dt = shape(x), dtype(x)
    mode = ctx.attr("mode", "nearest")
    if mode != "nearest" and not dt.startswith(("float", "bfloat")):
        raise _fail(ctx, f"{mode} resizing of {dt} tensors is not supported (cast to float first)")
    coord = ctx.attr("coordinate_transformation_mode", "half_pixel")
    scale, out, pairs = _plan(ctx, dims, roi, scales, sizes)
    taps = {}
    for a, n in enumerate(dims):
        if out[a] == n and scale[a] == 1.0 and pairs[a] == (0.0, 1.0):
            continue
        if n == 0 or out[a] == 0:
            raise _fail(ctx, f"axis {a} resizes {n} to {out[a]} elements; empty tensors are not supported")
        taps[a] = R.axis_taps(n, out[a], scale[a], mode, coord, ctx.attr("nearest_mode", "round_prefer_floor"),
                              float(ctx.attr("cubic_coeff_a", -0.75)), bool(ctx.attr("exclude_outside", 0)),
                              bool(ctx.attr("antialias", 0)), pairs[a])
    return R.resize(GRAPH, x, dims, dt, taps, float(ctx.attr("extrapolation_value", 0.0)))


_GRID_MODES = {"bilinear": "bilinear", "linear": "bilinear", "nearest": "nearest", "bicubic": "bicubic",
               "cubic": "bicubic"}


def _check_grid(ctx: Ctx) -> list[str]:
    names = ("bilinear", "nearest", "bicubic") if ctx.version < 20 else ("linear", "nearest", "cubic")
    problems = one_of("mode", names, names[0])(ctx)
    return problems + one_of("padding_mode", ("zeros", "border", "reflection"), "zeros")(ctx)


@converter("GridSample", (16, 20, 22), attrs=("align_corners", "mode", "padding_mode"), check=_check_grid)
def _grid_sample(ctx: Ctx, x: Value, grid: Value) -> Value:
    default = "bilinear" if ctx.version < 20 else "linear"
    return prim("GridSample", {"mode": _GRID_MODES[ctx.attr("mode", default)],
                               "padding_mode": ctx.attr("padding_mode", "zeros"),
                               "align_corners": bool(ctx.attr("align_corners", 0)), "clamp_cubic": True}, x, grid)


@converter("Upsample", (7, 9), attrs=("mode", "scales"), check=one_of("mode", ("nearest", "linear"), "nearest"),
           static=(1,))
def _upsample(ctx: Ctx, x: Value, scales: Value = None) -> Value:
    """The deprecated Upsample: output length ``floor(n * scale)``, asymmetric coordinates (nearest: floor)."""
    dims, dt = shape(x), dtype(x)
    values = ctx.attr("scales") if ctx.version < 9 else ctx.static(scales, "scales").reshape(-1).tolist()
    if len(values) != len(dims):
        raise _fail(ctx, f"scales has {len(values)} values for a rank-{len(dims)} input")
    mode = ctx.attr("mode", "nearest")
    taps = {a: R.axis_taps(n, R.output_size(n, float(s)), float(s), mode, "asymmetric", "floor")
            for a, (n, s) in enumerate(zip(dims, values, strict=True)) if float(s) != 1.0}
    return R.resize(GRAPH, x, dims, dt, taps, 0.0)


@converter("AffineGrid", (20,), attrs=("align_corners",), static=(1,))
def _affine_grid(ctx: Ctx, theta: Value, size: Value) -> Value:
    """The sampling grid of affine matrices: the constant homogeneous base grid times theta^T."""
    dims = [int(v) for v in ctx.static(size, "size").reshape(-1)]
    spatial = dims[2:]
    r = len(spatial)
    axes = [np.linspace(-1, 1, n) if ctx.attr("align_corners", 0) else (2 * np.arange(n) + 1) / n - 1
            for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")  # one array per spatial axis, in (D,) H, W order
    base = np.stack([*(m.reshape(-1) for m in reversed(mesh)), np.ones(int(np.prod(spatial)))], axis=1)
    n = dims[0]
    dt = dtype(theta)
    base = prim("BroadcastTo", {"shape": [n, *base.shape]}, base.astype(dt))
    out = prim("BatchMatMul", {}, base, prim("Transpose", {"perm": [0, 2, 1]}, theta))
    return reshape(out, [n, *spatial, r])
