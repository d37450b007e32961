"""Cases of max pooling with indices, dilated, adaptive and fractional pooling, AdaptiveAvgPool2D, AvgPool2d's
divisor, Conv2DTranspose: scripts/record_pools.py runs them on real MindSpore 2.10 and stores inputs, outputs
and the gradient of ``sum(out0 * weight)`` with respect to the first input in tests/fixtures/ms_pools.npz;
tests/compat/test_pool_argmax.py runs them on opbuild and compares.

Each case is ``name -> (fn(ms, ops, nn, *tensors), inputs)`` returning a Tensor or a tuple of them. This
module imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RNG = np.random.default_rng(2025)


def _f32(*shape: int) -> np.ndarray:
    # distinct values: ties would make the argmax depend on the scan order, which the cases do not test
    return RNG.permutation(int(np.prod(shape))).reshape(shape).astype(np.float32) / 7.0 - 3.0


X4 = _f32(2, 3, 9, 8)
X5 = _f32(1, 2, 5, 6, 7)
X3 = _f32(2, 3, 11)
S2 = np.array([[[0.3, 0.6], [0.9, 0.1]], [[0.5, 0.25], [0.05, 0.75]]], np.float32)   # (2, 2, 2)
S3 = np.array([[[0.3, 0.6, 0.8]], [[0.1, 0.45, 0.95]]], np.float32)                    # (2, 1, 3)
XF2 = _f32(2, 2, 9, 11)
XF3 = _f32(2, 1, 7, 8, 9)
DOUT = _f32(2, 4, 5, 4)
XD = RNG.standard_normal((2, 4, 7, 6)).astype(np.float32)
WD = RNG.standard_normal((6, 4, 3, 2)).astype(np.float32) / 4
WD2 = RNG.standard_normal((6, 2, 3, 2)).astype(np.float32) / 4
# offsets (N, 3 * dg * kh * kw, Ho, Wo): x and y offsets in [-2, 2), then a mask in [0, 1)
XTF = _f32(2, 8, 6, 3)
OFF1 = np.concatenate([RNG.uniform(-2, 2, (2, 12, 4, 5)), RNG.uniform(0, 1, (2, 6, 4, 5))], 1).astype(np.float32)
OFF2 = np.concatenate([RNG.uniform(-2, 2, (2, 24, 5, 3)), RNG.uniform(0, 1, (2, 12, 5, 3))], 1).astype(np.float32)
WT = _f32(4, 3, 3, 3)

CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "max_pool2d_indices": (lambda ms, ops, nn, x: ops.max_pool2d(x, (3, 2), (2, 1), 1, (2, 1), True, True), [X4]),
    "max_pool2d_dilation": (lambda ms, ops, nn, x: ops.max_pool2d(x, 3, 2, 1, 2), [X4]),
    "max_pool2d_plain_indices": (lambda ms, ops, nn, x: ops.max_pool2d(x, 2, return_indices=True), [X4]),
    "max_pool3d_indices": (lambda ms, ops, nn, x: ops.max_pool3d(x, 2, 1, 1, return_indices=True), [X5]),
    "max_pool3d_dilation_ceil": (lambda ms, ops, nn, x: ops.max_pool3d(x, (2, 3, 2), (2, 1, 2), 1, (1, 2, 2), True,
                                                                       True), [X5]),
    "max_pool3d_with_argmax": (lambda ms, ops, nn, x: ops.MaxPool3DWithArgmax(ksize=2, strides=(1, 2, 2),
                                                                              pads=1)(x), [X5]),
    "max_pool3d_with_argmax_int32": (lambda ms, ops, nn, x: ops.MaxPool3DWithArgmax(
        ksize=(1, 3, 3), strides=2, pads=(0, 1, 1), dilation=(1, 1, 2), ceil_mode=True,
        argmax_type=ms.int32)(x), [X5]),
    "max_pool_with_argmax_v2": (lambda ms, ops, nn, x: ops.MaxPoolWithArgmaxV2(kernel_size=(3, 2), strides=(2, 1),
                                                                               pads=1, dilation=(1, 2),
                                                                               ceil_mode=True)(x), [X4]),
    "max_pool_with_argmax_v2_default": (lambda ms, ops, nn, x: ops.MaxPoolWithArgmaxV2(kernel_size=3)(x), [X4]),
    "adaptive_max_pool2d_indices": (lambda ms, ops, nn, x: ops.adaptive_max_pool2d(x, (4, 3), True), [X4]),
    "adaptive_max_pool3d_indices": (lambda ms, ops, nn, x: ops.adaptive_max_pool3d(x, (2, 4, 3), True), [X5]),
    "nn_max_pool1d_indices": (lambda ms, ops, nn, x: nn.MaxPool1d(3, 2, "pad", 1, 2, True, True)(x), [X3]),
    "nn_max_pool2d_indices": (lambda ms, ops, nn, x: nn.MaxPool2d(3, 2, "pad", 1, 1, True)(x), [X4]),
    "nn_max_pool2d_dilation": (lambda ms, ops, nn, x: nn.MaxPool2d(2, 1, "pad", (1, 0), 2)(x), [X4]),
    "nn_max_pool2d_ceil": (lambda ms, ops, nn, x: nn.MaxPool2d(3, 2, "pad", 1, ceil_mode=True)(x), [X4]),
    "nn_max_pool1d_ceil": (lambda ms, ops, nn, x: nn.MaxPool1d(4, 3, "pad", 2, ceil_mode=True)(x), [X3]),
    "nn_max_pool2d_chw": (lambda ms, ops, nn, x: nn.MaxPool2d(2, 2)(x[0]), [X4]),
    "nn_max_pool3d_indices": (lambda ms, ops, nn, x: nn.MaxPool3d(2, 1, "pad", 1, 2, True)(x), [X5]),
    "nn_adaptive_max_pool3d": (lambda ms, ops, nn, x: nn.AdaptiveMaxPool3d((3, 2, 4), True)(x), [X5]),
    "nn_adaptive_max_pool2d": (lambda ms, ops, nn, x: nn.AdaptiveMaxPool2d((5, 3), True)(x), [X4]),
    "fractional_max_pool2d": (lambda ms, ops, nn, x, s: ops.fractional_max_pool2d(
        x, (2, 3), (4, 5), return_indices=True, _random_samples=s), [XF2, S2]),
    "fractional_max_pool2d_ratio": (lambda ms, ops, nn, x, s: ops.fractional_max_pool2d(
        x, 2, output_ratio=(0.5, 0.7), return_indices=True, _random_samples=s), [XF2, S2]),
    "fractional_max_pool3d": (lambda ms, ops, nn, x, s: ops.fractional_max_pool3d(
        x, (2, 2, 3), (3, 4, 5), return_indices=True, _random_samples=s), [XF3, S3]),
    "nn_fractional_max_pool2d": (lambda ms, ops, nn, x, s: nn.FractionalMaxPool2d(
        3, output_size=(5, 6), _random_samples=s)(x), [XF2, S2]),
    "nn_fractional_max_pool3d": (lambda ms, ops, nn, x, s: nn.FractionalMaxPool3d(
        (1, 2, 2), output_ratio=(0.5, 0.5, 0.5), return_indices=True, _random_samples=s)(x), [XF3, S3]),
    "fractional_max_pool3d_fixed": (lambda ms, ops, nn, x, s: ops.FractionalMaxPool3DWithFixedKsize(
        ksize=(2, 2, 3), output_shape=(3, 4, 5))(x, s), [XF3, S3]),
    "fractional_max_pool2d_fixed": (lambda ms, ops, nn, x, s: ops.FractionalMaxPoolWithFixedKsize(
        ksize=(2, 3), output_shape=(4, 5))(x, s), [XF2, S2]),
    "adaptive_avg_pool2d_prim": (lambda ms, ops, nn, x: ops.AdaptiveAvgPool2D((None, 3))(x), [X4]),
    "adaptive_avg_pool2d_prim_uneven": (lambda ms, ops, nn, x: ops.AdaptiveAvgPool2D((4, 5))(x), [X4]),
    "adaptive_avg_pool2d_prim_3d": (lambda ms, ops, nn, x: ops.AdaptiveAvgPool2D(2)(x[0]), [X4]),
    "nn_avg_pool2d_divisor": (lambda ms, ops, nn, x: nn.AvgPool2d(4, 1, "pad", 2, divisor_override=5)(x), [X4]),
    "nn_avg_pool2d_ceil": (lambda ms, ops, nn, x: nn.AvgPool2d(3, 2, "pad", 1, True, False)(x), [X4]),
    "avg_pool2d_divisor": (lambda ms, ops, nn, x: ops.avg_pool2d(x, 3, 2, 1, divisor_override=4), [X4]),
    "conv2d_transpose_prim": (lambda ms, ops, nn, dy, w: ops.Conv2DTranspose(4, 3, stride=2, pad_mode="pad", pad=1)(
        dy, w, (2, 3, 9, 8)), [DOUT, WT]),
    "conv2d_transpose_same": (lambda ms, ops, nn, dy, w: ops.Conv2DTranspose(4, 3, pad_mode="same")(
        dy, w, (2, 3, 5, 4)), [DOUT, WT]),
    "adaptive_max_pool2d_prim": (lambda ms, ops, nn, x: ops.AdaptiveMaxPool2D((4, 3))(x), [X4]),
    "adaptive_max_pool3d_prim": (lambda ms, ops, nn, x, s: ops.AdaptiveMaxPool3D()(x, s),
                                 [X5, np.array([3, 4, 5], np.int32)]),
    # TensorFlow-style fractional pools (NHWC); with ratios that divide the input the windows do not depend on
    # the random draw (equal steps, shuffled or not), so MindSpore's values are exact references
    "fractional_max_pool_tf": (lambda ms, ops, nn, x: ops.FractionalMaxPool([1.0, 2.0, 3.0, 1.0])(x), [XTF]),
    "fractional_max_pool_tf_overlap": (lambda ms, ops, nn, x: ops.FractionalMaxPool(
        [1.0, 2.0, 2.0, 1.0], True, True, seed=1)(x), [XTF]),
    "fractional_avg_pool_tf": (lambda ms, ops, nn, x: ops.FractionalAvgPool([1.0, 4.0, 2.0, 1.0])(x), [XTF]),
    "fractional_avg_pool_tf_overlap": (lambda ms, ops, nn, x: ops.FractionalAvgPool(
        [1.0, 2.0, 3.0, 1.0], False, True, True)(x), [XTF]),
    "fractional_max_pool_tf_int": (lambda ms, ops, nn, x: ops.FractionalMaxPool([1.0, 2.0, 2.0, 1.0])(x),
                                   [(XTF * 7).astype(np.int32)]),
    "deformable_conv2d": (lambda ms, ops, nn, x, w, o: ops.deformable_conv2d(
        x, w, o, (3, 2), (1, 1, 2, 1), (1, 1, 0, 1), dilations=(1, 1, 1, 2)), [XD, WD, OFF1]),
    "deformable_conv2d_groups": (lambda ms, ops, nn, x, w, o: ops.deformable_conv2d(
        x, w, o, (3, 2), (1, 1, 1, 2), (0, 0, 1, 0), groups=2, deformable_groups=2), [XD, WD2, OFF2]),
}

# The cases whose gradient (of sum(out0 * weight) with respect to the first input) is recorded too.
GRAD = ("max_pool2d_indices", "max_pool2d_dilation", "max_pool3d_indices", "max_pool_with_argmax_v2",
        "adaptive_max_pool3d_indices", "nn_max_pool2d_indices", "fractional_max_pool2d", "fractional_max_pool3d",
        "adaptive_avg_pool2d_prim_uneven", "nn_avg_pool2d_divisor", "conv2d_transpose_prim", "deformable_conv2d",
        "deformable_conv2d_groups", "fractional_max_pool_tf", "fractional_avg_pool_tf_overlap")


def first(result) -> object:
    """The output whose gradient is taken: the values of a (values, indices) pair."""
    return result[0] if isinstance(result, tuple) else result


def weight(shape: tuple[int, ...]) -> np.ndarray:
    """The fixed cotangent of a case's first output (distinct values, so a misrouted gradient shows)."""
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.float32).reshape(shape) % 7 + 1) / 4


def outputs(result) -> list[np.ndarray]:
    """A result (a Tensor or a tuple of them) as a list of arrays."""
    items = result if isinstance(result, tuple) else (result,)
    return [t.asnumpy() for t in items]
