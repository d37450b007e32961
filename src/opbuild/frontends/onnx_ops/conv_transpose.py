"""ONNX ConvTranspose through Conv2DBackpropInput (the input gradient of a convolution is a transposed
convolution): the full, unpadded transposed convolution is computed, then cropped by the begin padding and
cut (or zero-extended) to the output length, which covers ``pads``, ``output_padding``, ``output_shape`` and
``auto_pad`` alike. 1-D runs as 2-D; 3-D is refused."""

from __future__ import annotations

from .core import Ctx, StaticValueError, Value, converter, one_of, prim, reshape, shape


def _check(ctx: Ctx) -> list[str]:
    problems = one_of("auto_pad", ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"), "NOTSET")(ctx)
    kernel = ctx.attr("kernel_shape")
    if kernel is not None and len(kernel) not in (1, 2):
        problems.append(f"{len(kernel)}-D kernels are not supported (1-D and 2-D only)")
    return problems


def _geometry(ctx: Ctx, sizes: list[int], kernel: list[int]) -> tuple[list[int], list[int], list[int], list[int]]:
    """(strides, dilations, begin crop, output length) per spatial axis, as ONNX defines them."""
    n = len(sizes)
    strides = list(ctx.attr("strides", [1] * n))
    dil = list(ctx.attr("dilations", [1] * n))
    out_pad = list(ctx.attr("output_padding", [0] * n))
    full = [s * (h - 1) + (k - 1) * d + 1 for s, h, k, d in zip(strides, sizes, kernel, dil, strict=True)]
    auto = ctx.attr("auto_pad", "NOTSET")
    out_shape = ctx.attr("output_shape")
    if out_shape is not None:
        out_shape = list(out_shape)[-n:]
    if auto in ("SAME_UPPER", "SAME_LOWER") and ctx.attr("pads") is None:
        target = out_shape or [h * s for h, s in zip(sizes, strides, strict=True)]
        total = [f + p - t for f, p, t in zip(full, out_pad, target, strict=True)]
        begin = [t // 2 if auto == "SAME_UPPER" else t - t // 2 for t in total]
        return strides, dil, begin, target
    pads = [0] * 2 * n if auto == "VALID" else list(ctx.attr("pads", [0] * 2 * n))
    begin, end = pads[:n], pads[n:]
    if out_shape is not None:
        return strides, dil, begin, out_shape
    return strides, dil, begin, [f + p - b - e for f, p, b, e in zip(full, out_pad, begin, end, strict=True)]


@converter("ConvTranspose", (1, 11, 22), attrs=("auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                                                "output_shape", "pads", "strides"), check=_check)
def _conv_transpose(ctx: Ctx, x: Value, w: Value, bias: Value = None) -> Value:
    rank = len(shape(x))
    if rank not in (3, 4):
        raise StaticValueError(f"ConvTranspose (ONNX node {ctx.name!r}): input rank {rank}; only 1-D and 2-D "
                               f"transposed convolutions (rank 3 or 4) are supported")
    one_d = rank == 3
    if one_d:
        x = reshape(x, [*shape(x)[:2], 1, shape(x)[2]])
        w = reshape(w, [*shape(w)[:2], 1, shape(w)[2]])
    n_, c_in, *sizes = shape(x)
    group = int(ctx.attr("group", 1))
    kernel = list(shape(w)[2:])
    c_out = shape(w)[1] * group
    strides, dil, begin, target = _geometry(ctx, sizes[1:] if one_d else sizes, kernel[1:] if one_d else kernel)
    if one_d:
        strides, dil, begin, target = [1, *strides], [1, *dil], [0, *begin], [1, *target]
    full = [s * (h - 1) + (k - 1) * d + 1 for s, h, k, d in zip(strides, sizes, kernel, dil, strict=True)]
    attrs = {"out_channel": c_in, "kernel_size": kernel, "pad_mode": "pad", "pad": [0, 0, 0, 0],
             "stride": strides, "dilation": dil, "group": group, "input_size": [n_, c_out, *full]}
    y = prim("Conv2DBackpropInput", attrs, x, w)
    # Crop the begin padding and cut to the output length; zero-extend where the output is longer.
    keep = [min(t, f - b) for t, f, b in zip(target, full, begin, strict=True)]
    if begin != [0, 0] or keep != full:
        y = prim("StridedSlice", {"begin": [0, 0, *begin], "end": [n_, c_out, *(b + k for b, k in zip(begin, keep))],
                                  "strides": [1, 1, 1, 1]}, y)
    extra = [t - k for t, k in zip(target, keep, strict=True)]
    if any(extra):
        y = prim("Pad", {"paddings": [[0, 0], [0, 0], [0, extra[0]], [0, extra[1]]]}, y)
    if bias is not None:
        y = prim("BiasAdd", {"data_format": "NCHW"}, y, bias)
    return reshape(y, [n_, c_out, target[1]]) if one_d else y
