"""Cases of the thin primitive classes (ops/ms_prim_classes.py), written once against a MindSpore-shaped
namespace: scripts/record_prim_classes.py runs them on real MindSpore 2.10 and stores inputs and outputs in
tests/fixtures/prim_classes.npz; tests/compat/test_prim_classes.py runs them on opbuild and compares.

Each case is ``name -> (fn(ms, ops, *tensors), inputs)``, returning a Tensor, a tuple of them, or Python
numbers. This module imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RNG = np.random.default_rng(25)


def _f32(*shape: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


X34 = _f32(3, 4)
Y34 = _f32(3, 4)
P34 = _f32(3, 4, low=0.05, high=0.95)
T34 = (RNG.uniform(0, 1, (3, 4)) > 0.5).astype(np.float32)
VOL = _f32(1, 2, 4, 4, 4)
IMG = _f32(2, 8, 2, 3)
ZEROS = np.array([1.0, 0.0, 2.0, 0.0], np.float32)
NUM = np.array([3.0, np.inf, -4.0, np.nan], np.float32)
LOGP = np.log(np.full((3, 4), 0.25, np.float32))
LABELS = np.array([0, 3, 1], np.int32)
W4 = np.array([1.0, 2.0, 0.5, 1.5], np.float32)

CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "argmax_with_value": (lambda ms, ops, x: ops.ArgMaxWithValue(axis=1)(x), [X34]),
    "argmax_with_value_keep": (lambda ms, ops, x: ops.ArgMaxWithValue(0, True)(x), [X34]),
    "argmin_with_value": (lambda ms, ops, x: ops.ArgMinWithValue(axis=1)(x), [X34]),
    "avg_pool3d": (lambda ms, ops, x: ops.AvgPool3D(kernel_size=2, strides=1, pad_mode="valid")(x), [VOL]),
    "avg_pool3d_same": (lambda ms, ops, x: ops.AvgPool3D(2, 2, "same")(x), [VOL]),
    "adaptive_avg_pool3d": (lambda ms, ops, x: ops.AdaptiveAvgPool3D((2, 2, 2))(x), [VOL]),
    "max_pool3d": (lambda ms, ops, x: ops.MaxPool3D(kernel_size=2, strides=1, pad_mode="VALID")(x), [VOL]),
    "bce_with_logits": (lambda ms, ops, x, y, w, p: ops.BCEWithLogitsLoss()(x, y, w, p), [X34, T34, W4, W4]),
    "bce_with_logits_none": (lambda ms, ops, x, y, w, p: ops.BCEWithLogitsLoss("none")(x, y, w, p),
                             [X34, T34, W4, W4]),
    "binary_cross_entropy": (lambda ms, ops, x, y, w: ops.BinaryCrossEntropy("sum")(x, y, w),
                             [P34, T34, _f32(3, 4, low=0.5, high=2.0)]),
    "sigmoid_ce_logits": (lambda ms, ops, x, y: ops.SigmoidCrossEntropyWithLogits()(x, y), [X34, T34]),
    "channel_shuffle": (lambda ms, ops, x: ops.ChannelShuffle(group=2)(x), [IMG]),
    "fmax": (lambda ms, ops, x, y: ops.Fmax()(x, y), [X34, Y34]),
    "glu": (lambda ms, ops, x: ops.GLU(axis=-1)(x), [X34]),
    "heaviside": (lambda ms, ops, x, v: ops.Heaviside()(x, v), [np.array([-1.0, 0.0, 2.0], np.float32),
                                                              np.array([0.5, 0.5, 0.5], np.float32)]),
    "hypot": (lambda ms, ops, x, y: ops.Hypot()(x, y), [X34, Y34]),
    "isclose": (lambda ms, ops, x, y: ops.IsClose(rtol=0.1, atol=0.5)(x, y), [X34, Y34]),
    "kl_div_loss": (lambda ms, ops, x, y: ops.KLDivLoss("sum")(x, y), [LOGP, P34]),
    "logical_xor": (lambda ms, ops, x, y: ops.LogicalXor()(x > 0, y > 0), [X34, Y34]),
    "logit": (lambda ms, ops, x: ops.Logit(eps=0.1)(x), [P34]),
    "logit_default": (lambda ms, ops, x: ops.Logit()(x), [P34]),
    "lrn": (lambda ms, ops, x: ops.LRN(depth_radius=2, bias=1.0, alpha=0.5, beta=0.75)(x), [IMG]),
    "mish": (lambda ms, ops, x: ops.Mish()(x), [X34]),
    "multi_margin_loss": (lambda ms, ops, x, t, w: ops.MultiMarginLoss()(x, t, w),
                          [X34, LABELS.astype(np.int64), W4]),
    "mvlgamma": (lambda ms, ops, x: ops.Mvlgamma(p=2)(x), [_f32(3, 4, low=1.5, high=4.0)]),
    "nll_loss": (lambda ms, ops, x, t, w: ops.NLLLoss("mean")(x, t, w), [X34, LABELS, W4]),
    "nll_loss_sum": (lambda ms, ops, x, t, w: ops.NLLLoss("sum", ignore_index=3)(x, t, w), [X34, LABELS, W4]),
    "renorm": (lambda ms, ops, x: ops.Renorm(p=2, dim=0, maxnorm=1.5)(x), [X34]),
    "selu": (lambda ms, ops, x: ops.SeLU()(x), [X34]),
    "searchsorted": (lambda ms, ops, s, v: ops.SearchSorted()(s, v),
                     [np.array([[0, 1, 3, 5, 7]], np.float32), np.array([[3.0, 6.0, 9.0]], np.float32)]),
    "searchsorted_right": (lambda ms, ops, s, v: ops.SearchSorted(right=True)(s, v),
                           [np.array([[0, 1, 3, 5, 7]], np.float32), np.array([[3.0, 6.0, 1.0]], np.float32)]),
    "searchsorted_int32": (lambda ms, ops, s, v: ops.SearchSorted(dtype=ms.int32)(s, v),
                                 [np.array([[0, 1, 3, 5, 7]], np.float32), np.array([[3.0, 6.0, 1.0]], np.float32)]),
    "softsign": (lambda ms, ops, x: ops.Softsign()(x), [X34]),
    "stack": (lambda ms, ops, x, y: ops.Stack(axis=1)((x, y)), [X34, Y34]),
    "tril": (lambda ms, ops, x: ops.Tril(diagonal=1)(x), [X34]),
    "xdivy": (lambda ms, ops, x, y: ops.Xdivy()(x, y), [ZEROS, np.array([2.0, 0.0, 4.0, 1.0], np.float32)]),
    "xlogy": (lambda ms, ops, x, y: ops.Xlogy()(x, y), [ZEROS, np.array([2.0, 0.5, 4.0, 1.0], np.float32)]),
    "reduce_std": (lambda ms, ops, x: ops.ReduceStd(axis=1)(x), [X34]),
    "reduce_std_all_biased": (lambda ms, ops, x: ops.ReduceStd(unbiased=False, keep_dims=True)(x), [X34]),
    "approximate_equal": (lambda ms, ops, x, y: ops.ApproximateEqual(tolerance=0.5)(x, y), [X34, Y34]),
    "div_no_nan": (lambda ms, ops, x, y: ops.DivNoNan()(x, y), [NUM, ZEROS]),
    "mul_no_nan": (lambda ms, ops, x, y: ops.MulNoNan()(x, y), [NUM, ZEROS]),
    "truncate_div_int": (lambda ms, ops, x, y: ops.TruncateDiv()(x, y),
                         [np.array([7, -7, 5, -9], np.int32), np.array([2, 2, -3, 4], np.int32)]),
    "truncate_div_float": (lambda ms, ops, x, y: ops.TruncateDiv()(x, y), [X34, Y34]),
    "truncate_mod": (lambda ms, ops, x, y: ops.TruncateMod()(x, y),
                     [np.array([7.0, -7.0, 5.5, -9.0], np.float32), np.array([2.0, 2.0, -3.0, 4.0], np.float32)]),
    "inv": (lambda ms, ops, x: ops.Inv()(x), [X34]),
    "rint": (lambda ms, ops, x: ops.Rint()(x), [np.array([0.5, 1.5, 2.5, -0.5, -1.7, 2.2], np.float32)]),
    "squared_difference": (lambda ms, ops, x, y: ops.SquaredDifference()(x, y), [X34, Y34]),
    "square_sum_all": (lambda ms, ops, x, y: ops.SquareSumAll()(x, y), [X34, Y34]),
    "l2_loss": (lambda ms, ops, x: ops.L2Loss()(x), [X34]),
    "l2_normalize": (lambda ms, ops, x: ops.L2Normalize(axis=1, epsilon=1e-4)(x), [X34]),
    "eps": (lambda ms, ops, x: ops.Eps()(x), [X34]),
    "rank_shape_size": (lambda ms, ops, x: (ops.Rank()(x), ops.Shape()(x), ops.Size()(x)), [X34]),
    "tensor_shape": (lambda ms, ops, x: ops.TensorShape()(x), [X34]),
    "depend": (lambda ms, ops, x, y: ops.Depend()(x, y), [X34, Y34]),
    "eye": (lambda ms, ops: ops.Eye()(3, 4, ms.int32), []),
    "linspace": (lambda ms, ops, a, b: ops.LinSpace()(a, b, 5), [np.array(1.0, np.float32),
                                                                np.array(10.0, np.float32)]),
    "depth_to_space": (lambda ms, ops, x: ops.DepthToSpace(block_size=2)(x), [IMG]),
    "space_to_depth": (lambda ms, ops, x: ops.SpaceToDepth(2)(x), [_f32(1, 2, 4, 6)]),
    "matrix_band_part": (lambda ms, ops, x: ops.MatrixBandPart()(x, 1, 0), [_f32(2, 4, 4)]),
    "matrix_band_part_all": (lambda ms, ops, x: ops.MatrixBandPart()(x, -1, 1), [_f32(4, 5)]),
    "meshgrid_xy": (lambda ms, ops, a, b: ops.Meshgrid(indexing="xy")((a, b)),
                    [np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32)]),
    "meshgrid_ij": (lambda ms, ops, a, b, c: ops.Meshgrid(indexing="ij")((a, b, c)),
                    [np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32), np.array([6, 7, 8, 9], np.int32)]),
    "ger": (lambda ms, ops, a, b: ops.Ger()(a, b), [_f32(3), _f32(4)]),
    "reduce_any": (lambda ms, ops, x: ops.ReduceAny(keep_dims=True)(x > 1.5, 1), [X34]),
    "reduce_any_all": (lambda ms, ops, x: ops.ReduceAny()(x > 1.5), [X34]),
    "scalar_to_tensor": (lambda ms, ops: ops.ScalarToTensor()(7, ms.int32), []),
    "tuple_to_array": (lambda ms, ops: (ops.TupleToArray()((1, 2, 3)), ops.TupleToArray()((1.0, 2.5))), []),
    "bartlett_window": (lambda ms, ops, n: ops.BartlettWindow(periodic=True)(n), [np.array(5, np.int32)]),
    "bartlett_window_sym": (lambda ms, ops, n: ops.BartlettWindow(False, dtype=ms.float64)(n),
                            [np.array(6, np.int64)]),
    "blackman_window": (lambda ms, ops, n: ops.BlackmanWindow()(n), [np.array(6, np.int32)]),
    "hamming_window": (lambda ms, ops, n: ops.HammingWindow(periodic=False)(n), [np.array([5], np.int64)]),
    "index_fill": (lambda ms, ops, x, i: ops.IndexFill()(x, 1, i, ms.Tensor(-1.0, ms.float32)),
                   [X34, np.array([0, 2], np.int32)]),
}


def outputs(result) -> list[np.ndarray]:
    """A case's result as a list of NumPy arrays (Tensors through ``asnumpy``, Python numbers and tuples of
    them as arrays)."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    out = []
    for r in items:
        if hasattr(r, "asnumpy"):
            out.append(r.asnumpy())
        else:
            out.append(np.asarray(r))
    return out


# The learning-rate functions (each returns a list of floats) and schedule Cells (called on steps 0..STEPS-1).
LR_FUNCTIONS: dict[str, Callable] = {
    "cosine_decay_lr": lambda nn: nn.cosine_decay_lr(0.01, 0.1, 10, 2, 3),
    "exponential_decay_lr": lambda nn: nn.exponential_decay_lr(0.1, 0.9, 10, 2, 3),
    "exponential_decay_lr_stair": lambda nn: nn.exponential_decay_lr(0.1, 0.9, 10, 2, 3, True),
    "inverse_decay_lr": lambda nn: nn.inverse_decay_lr(0.1, 0.5, 10, 2, 3),
    "inverse_decay_lr_stair": lambda nn: nn.inverse_decay_lr(0.1, 0.5, 10, 2, 3, True),
    "natural_exp_decay_lr": lambda nn: nn.natural_exp_decay_lr(0.1, 0.9, 10, 2, 3),
    "natural_exp_decay_lr_stair": lambda nn: nn.natural_exp_decay_lr(0.1, 0.9, 10, 2, 3, True),
    "piecewise_constant_lr": lambda nn: nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]),
    "polynomial_decay_lr": lambda nn: nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 3, 0.5),
    "polynomial_decay_lr_update": lambda nn: nn.polynomial_decay_lr(0.1, 0.01, 14, 2, 2, 0.5, True),
    "warmup_lr": lambda nn: nn.warmup_lr(0.1, 10, 2, 3),
}
STEPS = 10
LR_CELLS: dict[str, Callable] = {
    "InverseDecayLR": lambda nn: nn.InverseDecayLR(0.1, 0.5, 3),
    "InverseDecayLR_stair": lambda nn: nn.InverseDecayLR(0.1, 0.5, 3, True),
    "NaturalExpDecayLR": lambda nn: nn.NaturalExpDecayLR(0.1, 0.9, 3),
    "NaturalExpDecayLR_stair": lambda nn: nn.NaturalExpDecayLR(0.1, 0.9, 3, True),
    "PolynomialDecayLR": lambda nn: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5),
    "PolynomialDecayLR_update": lambda nn: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, True),
    "WarmUpLR": lambda nn: nn.WarmUpLR(0.1, 3),
}


def _forward_value_and_grad(ms, nn, ops, x, labels):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = ms.Parameter(ms.Tensor(np.arange(4, dtype=np.float32).reshape(2, 2) / 4), name="weight")
            self.matmul = ops.MatMul()

        def construct(self, x):
            return self.matmul(x, self.weight)

    net = Net()
    with_loss = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits())
    fvg = nn.ForwardValueAndGrad(with_loss, weights=ms.ParameterTuple(net.trainable_params()), get_all=True,
                                 get_by_list=True)
    loss, (in_grads, w_grads) = fvg(x, labels)
    return (loss, *in_grads, *w_grads)


def _parameter_update(ms, nn, ops, w):
    dense = nn.Dense(3, 4)
    param = dense.parameters_dict()["weight"]
    out = nn.ParameterUpdate(param)(w)
    return out, ms.Tensor(param.asnumpy())


# nn cells: name -> (fn(ms, nn, ops, *tensors), inputs), recorded in PyNative mode.
NN_CASES: dict[str, tuple[Callable, list[np.ndarray]]] = {
    "central_crop": (lambda ms, nn, ops, x: nn.CentralCrop(0.5)(x), [_f32(2, 3, 6, 5)]),
    "central_crop_3d": (lambda ms, nn, ops, x: nn.CentralCrop(0.3)(x), [_f32(3, 7, 8)]),
    "image_gradients": (lambda ms, nn, ops, x: nn.ImageGradients()(x), [_f32(2, 2, 3, 4)]),
    "digamma": (lambda ms, nn, ops, x: nn.DiGamma()(x), [_f32(3, 4, low=0.5, high=6.0)]),
    "lgamma": (lambda ms, nn, ops, x: nn.LGamma()(x), [_f32(3, 4, low=0.5, high=6.0)]),
    "lbeta": (lambda ms, nn, ops, x, y: nn.LBeta()(x, y), [_f32(3, 4, low=0.5, high=10.0),
                                                          _f32(3, 4, low=0.5, high=10.0)]),
    "l1_regularizer": (lambda ms, nn, ops, w: nn.L1Regularizer(0.5)(w), [X34]),
    "parameter_update": (_parameter_update, [_f32(4, 3)]),
    "sparse_tensor_dense_matmul": (lambda ms, nn, ops, i, v, d: nn.SparseTensorDenseMatmul()(i, v, (3, 4), d),
                                   [np.array([[0, 1], [1, 2], [2, 0]], np.int32), _f32(3), _f32(4, 2)]),
    "sparse_tensor_dense_matmul_adjoint": (
        lambda ms, nn, ops, i, v, d: nn.SparseTensorDenseMatmul(True, True)(i, v, (3, 4), d),
        [np.array([[0, 1], [1, 2], [2, 0]], np.int32), _f32(3), _f32(2, 3)]),
    "layer_norm_ext": (lambda ms, nn, ops, x: nn.LayerNormExt((3, 4))(x), [_f32(2, 3, 4)]),
    "layer_norm_ext_no_affine": (lambda ms, nn, ops, x: nn.LayerNormExt(4, 1e-3, elementwise_affine=False)(x),
                                 [_f32(2, 3, 4)]),
    "prelu_ext": (lambda ms, nn, ops, x: nn.PReLUExt()(x), [_f32(2, 3, 4)]),
    "prelu_ext_channels": (lambda ms, nn, ops, x: nn.PReLUExt(3, init=0.1)(x), [_f32(2, 3, 4)]),
    "dense_bn_act_shape": (lambda ms, nn, ops, x: ms.Tensor(np.array(nn.DenseBnAct(3, 4, has_bn=True,
                                                                                  activation="relu")(x).shape)),
                           [_f32(2, 3)]),
    "forward_value_and_grad": (_forward_value_and_grad, [_f32(3, 2), np.eye(2, dtype=np.float32)[[0, 1, 1]]]),
}

BOXES_A = np.array([[0, 0, 4, 3], [1, 1, 5, 5], [2, 0, 3, 6]], np.float32)
BOXES_B = np.array([[1, 1, 3, 3], [0, 2, 6, 4]], np.float32)
CASES.update({
    "conv3d": (lambda ms, ops, x, w: ops.Conv3D(out_channel=4, kernel_size=(2, 3, 3))(x, w),
               [_f32(1, 2, 4, 5, 5), _f32(4, 2, 2, 3, 3)]),
    "conv3d_pad_stride": (lambda ms, ops, x, w: ops.Conv3D(4, 3, pad_mode="pad", pad=1, stride=(1, 2, 2))(x, w),
                          [_f32(1, 2, 4, 5, 5), _f32(4, 2, 3, 3, 3)]),
    "cross": (lambda ms, ops, x, y: ops.Cross(dim=1)(x, y), [_f32(2, 3), _f32(2, 3)]),
    "cross_default_dim": (lambda ms, ops, x, y: ops.Cross()(x, y),
                          [np.array([[1, 2, 3], [4, -5, 6]], np.int32), np.array([[3, 2, 1], [0, 7, -1]], np.int32)]),
    "in_top_k": (lambda ms, ops, x, t: ops.InTopK(2)(x, t),
                 [np.array([[1, 8, 5, 2, 7], [4, 9, 1, 3, 5], [3, 3, 3, 1, 0]], np.float32),
                  np.array([1, 4, 2], np.int32)]),
    "padding": (lambda ms, ops, x: ops.Padding(4)(x), [_f32(2, 3, 1)]),
    "polar": (lambda ms, ops, r, t: ops.Polar()(r, t), [_f32(4, low=0.1, high=3.0), _f32(4, low=-3.0, high=3.0)]),
    "lower_bound": (lambda ms, ops, s, v: ops.LowerBound()(s, v),
                    [np.arange(12, dtype=np.float32).reshape(3, 4), np.array([[3.0, 0.5], [4.0, 9.0], [8.0, 20.0]],
                                                                             np.float32)]),
    "upper_bound": (lambda ms, ops, s, v: ops.UpperBound(out_type=ms.int64)(s, v),
                    [np.arange(12, dtype=np.float32).reshape(3, 4), np.array([[3.0, 0.5], [6.0, 9.0], [9.0, 20.0]],
                                                                             np.float32)]),
    "iou": (lambda ms, ops, a, g: ops.IOU()(a, g), [BOXES_A, BOXES_B]),
    "iof": (lambda ms, ops, a, g: ops.IOU(mode="iof")(a, g), [BOXES_A, BOXES_B]),
    "check_valid": (lambda ms, ops, b, m: ops.CheckValid()(b, m),
                    [np.array([[0, 0, 2, 5], [0, 0, 3, 6], [-1, 0, 1, 1], [0, 0, 2.9, 6.1], [0, 0, 2.5, 5.5]],
                              np.float32),
                     np.array([2, 1, 3], np.float32)]),
    "python_valued": (lambda ms, ops: (ms.Tensor(np.array(ops.InvertPermutation()((3, 4, 0, 2, 1)))),
                                       ms.Tensor(np.array(ops.ScalarCast()(255.9, ms.int64)))), []),
})
CASES.update({
    "tril_indices": (lambda ms, ops: ops.TrilIndices(4, 3, -1, ms.int64)(), []),
    "triu_indices": (lambda ms, ops: (ops.TriuIndices(5, 4, 2, ms.int64)(), ops.TriuIndices(3, 3)()), []),
    "fill_v2": (lambda ms, ops, s, v: ops.FillV2()(s, v), [np.array([2, 3], np.int32), np.array(1.5, np.float32)]),
    "equal_count": (lambda ms, ops, x, y: ops.EqualCount()(x, y),
                    [np.array([1, 2, 3, 4], np.int32), np.array([1, 2, 4, 4], np.int32)]),
    "conv3d_transpose": (lambda ms, ops, x, w: ops.Conv3DTranspose(2, 3, (2, 3, 2))(x, w),
                         [_f32(1, 2, 3, 4, 4), _f32(2, 3, 2, 3, 2)]),
    "conv3d_transpose_stride": (lambda ms, ops, x, w: ops.Conv3DTranspose(2, 3, 2, stride=2, pad_mode="pad",
                                                                          pad=1)(x, w),
                                [_f32(1, 2, 3, 4, 4), _f32(2, 3, 2, 2, 2)]),
})
CASES.update({
    "bbox_encode": (lambda ms, ops, a, g: ops.BoundingBoxEncode(means=(0.1, 0.0, -0.1, 0.0),
                                                                stds=(1.0, 2.0, 1.0, 0.5))(a, g),
                    [np.array([[2, 2, 2, 3], [0, 0, 4, 5], [1, 1, 6, 3]], np.float32),
                     np.array([[1, 2, 1, 4], [1, 0, 3, 6], [0, 2, 8, 4]], np.float32)]),
    "bbox_decode": (lambda ms, ops, a, d: ops.BoundingBoxDecode((20, 30), stds=(1.0, 1.0, 0.5, 0.5),
                                                                wh_ratio_clip=0.1)(a, d),
                    [np.array([[4, 1, 2, 1], [2, 2, 2, 3], [5, 5, 15, 12]], np.float32),
                     np.array([[3, 1, 2, 2], [1, 2, 1, 4], [0.1, -0.2, 0.3, -0.4]], np.float32)]),
})
