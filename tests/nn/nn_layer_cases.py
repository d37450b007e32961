"""Cases of the ``nn`` layers and losses (and their ``ops`` functional forms), written once against a
MindSpore-shaped namespace: scripts/record_nn_layers.py runs them on real MindSpore 2.10 (PyNative, CPU) and
stores inputs, outputs and gradients in tests/fixtures/ms_nn_layers.npz; tests/nn/test_ms_nn_layers.py runs them
on opbuild and compares.

Each case is ``name -> (fn(ms, nn, ops, *tensors), inputs, grad)``; ``fn`` returns a Tensor or a tuple of them.
With ``grad`` the recorder also stores the gradient of ``sum(fn(...))`` (the first output) with respect to every
float input (``True``) or to the inputs at the given positions (a tuple), through ``ms.grad``. MindSpore's
KLDivLoss, BCELoss, BCEWithLogitsLoss and MultiMarginLoss give zero gradients for their labels and weights
(their backward treats them as constants); opbuild differentiates them, so those cases compare the logits'.
This module imports neither MindSpore nor opbuild.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

RNG = np.random.default_rng(25)


def _f32(*shape: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(np.float32)


def _i(values, dtype=np.int32) -> np.ndarray:
    return np.asarray(values, dtype)


X = _f32(4, 5)
Y = _f32(4, 5)
P = _f32(4, 5, low=0.05, high=0.95)
T01 = (RNG.uniform(0, 1, (4, 5)) > 0.5).astype(np.float32)
PM1 = np.where(RNG.uniform(0, 1, (4, 5)) > 0.5, 1.0, -1.0).astype(np.float32)
CLS = _i([1, 0, 4, 2])
CLS64 = _i([1, 0, 4, 2], np.int64)
CLS_IGN = _i([1, -100, 4, 2])
W5 = _f32(5, low=0.2, high=2.0)
W45 = _f32(4, 5, low=0.2, high=2.0)
LOGP = np.log(np.exp(X) / np.exp(X).sum(1, keepdims=True)).astype(np.float32)
X3 = _f32(2, 3, 4)
CLS3 = _i([[0, 2, 1, 1], [2, 2, 0, 1]])
ML_T = _i([[3, 0, -1, 1, 2], [1, -1, 0, 0, 0], [4, 3, 2, 1, 0], [-1, 1, 1, 1, 1]])
V8 = _f32(6, 8)
PM1_6 = _f32(6, low=-1, high=1)
PM1_6 = np.where(PM1_6 > 0, 1.0, -1.0).astype(np.float32)
VAR = _f32(4, 5, low=0.01, high=2.0)
RATE = _f32(4, 5, low=0.0, high=3.0).round()


def _bind(make, reduction: str) -> Callable:
    return lambda ms, nn, ops, *t: make(ms, nn, ops, reduction, *t)


def _reductions(prefix: str, make, inputs, grad: bool | tuple[int, ...] = True,
                reductions=("mean", "sum", "none")) -> dict:
    """One case per reduction of ``make(ms, nn, ops, reduction, *tensors)``."""
    return {f"{prefix}_{r}": (_bind(make, r), inputs, grad) for r in reductions}


CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    **_reductions("l1_loss", lambda ms, nn, ops, r, x, y: ops.l1_loss(x, y, r), [X, Y]),
    **_reductions("MAELoss", lambda ms, nn, ops, r, x, y: nn.MAELoss(r)(x, y), [X, Y]),
    "MAELoss_broadcast": (lambda ms, nn, ops, x, y: nn.MAELoss()(x, y), [X, Y[:1]], True),
    "RMSELoss": (lambda ms, nn, ops, x, y: nn.RMSELoss()(x, y), [X, Y], True),
    **_reductions("MSELoss", lambda ms, nn, ops, r, x, y: nn.MSELoss(r)(x, y), [X, Y]),
    **_reductions("smooth_l1_loss", lambda ms, nn, ops, r, x, y: ops.smooth_l1_loss(x, y, 0.7, r), [X, Y]),
    "SmoothL1Loss_default": (lambda ms, nn, ops, x, y: nn.SmoothL1Loss()(x, y), [X, Y], True),
    **_reductions("huber_loss", lambda ms, nn, ops, r, x, y: ops.huber_loss(x, y, r, 1.3), [X, Y]),
    "HuberLoss_default": (lambda ms, nn, ops, x, y: nn.HuberLoss()(x, y), [X, Y], True),
    **_reductions("kl_div", lambda ms, nn, ops, r, x, y: ops.kl_div(x, y, r), [LOGP, P], (0,),
                  reductions=("mean", "sum", "none", "batchmean")),
    "KLDivLoss_default": (lambda ms, nn, ops, x, y: nn.KLDivLoss()(x, y), [LOGP, P], (0,)),
    "KLDivLoss_zero_labels": (lambda ms, nn, ops, x, y: nn.KLDivLoss("sum")(x, y), [LOGP, P * T01], (0,)),
    **_reductions("nll_loss", lambda ms, nn, ops, r, x, t: ops.nll_loss(x, t, reduction=r), [LOGP, CLS]),
    "nll_loss_weight_ignore": (lambda ms, nn, ops, x, t, w: ops.nll_loss(x, t, w, ignore_index=-100),
                               [LOGP, CLS_IGN, W5], True),
    "nll_loss_smoothing": (lambda ms, nn, ops, x, t: ops.nll_loss(x, t, label_smoothing=0.2), [LOGP, CLS], True),
    "nll_loss_3d": (lambda ms, nn, ops, x, t: ops.nll_loss(x, t), [X3, CLS3], True),
    "NLLLoss_weight_sum": (lambda ms, nn, ops, x, t, w: nn.NLLLoss(w, reduction="sum")(x, t),
                           [LOGP, CLS, W5], True),
    "NLLLoss_ignore_index": (lambda ms, nn, ops, x, t: nn.NLLLoss(ignore_index=4)(x, t), [LOGP, CLS], True),
    "CrossEntropyLoss_options": (
        lambda ms, nn, ops, x, t, w: nn.CrossEntropyLoss(w, ignore_index=2, label_smoothing=0.1)(x, t),
        [X, CLS, W5], True),
    "cross_entropy_3d": (lambda ms, nn, ops, x, t: ops.cross_entropy(x, t, label_smoothing=0.05), [X3, CLS3], True),
    **_reductions("binary_cross_entropy", lambda ms, nn, ops, r, x, y: ops.binary_cross_entropy(x, y, None, r),
                  [P, T01]),
    "binary_cross_entropy_weight": (lambda ms, nn, ops, x, y, w: ops.binary_cross_entropy(x, y, w),
                                    [P, T01, W45], (0, 1)),
    "BCELoss_weight_sum": (lambda ms, nn, ops, x, y, w: nn.BCELoss(w, "sum")(x, y), [P, T01, W45], (0, 1)),
    **_reductions("bce_with_logits", lambda ms, nn, ops, r, x, y: ops.binary_cross_entropy_with_logits(
        x, y, reduction=r), [X, T01]),
    "bce_with_logits_weights": (lambda ms, nn, ops, x, y, w, pw: ops.binary_cross_entropy_with_logits(x, y, w, pw),
                                [X, T01, W5, W5[::-1].copy()], (0, 1)),
    "BCEWithLogitsLoss_pos_weight": (
        lambda ms, nn, ops, x, y, pw: nn.BCEWithLogitsLoss("sum", None, pw)(x, y), [X, P, W5], (0, 1)),
    **_reductions("soft_margin_loss", lambda ms, nn, ops, r, x, y: ops.soft_margin_loss(x, y, r), [X, PM1]),
    "SoftMarginLoss": (lambda ms, nn, ops, x, y: nn.SoftMarginLoss()(x, y), [X, PM1], True),
    **_reductions("multi_margin_loss", lambda ms, nn, ops, r, x, t: ops.multi_margin_loss(x, t, reduction=r),
                  [X, CLS64]),
    "multi_margin_loss_p2_weight": (
        lambda ms, nn, ops, x, t, w: ops.multi_margin_loss(x, t, p=2, margin=2, weight=w), [X, CLS64, W5], (0,)),
    "MultiMarginLoss_construct_weight": (
        lambda ms, nn, ops, x, t, w: nn.MultiMarginLoss(margin=1.5, reduction="sum")(x, t, w), [X, CLS64, W5], (0,)),
    **_reductions("multilabel_soft_margin_loss", lambda ms, nn, ops, r, x, y: ops.multilabel_soft_margin_loss(
        x, y, reduction=r), [X, T01]),
    "MultiLabelSoftMarginLoss_weight": (
        lambda ms, nn, ops, x, y, w: nn.MultiLabelSoftMarginLoss(w)(x, y), [X, T01, W5], True),
    **_reductions("multilabel_margin_loss", lambda ms, nn, ops, r, x, t: ops.multilabel_margin_loss(x, t, r),
                  [X, ML_T]),
    "MultilabelMarginLoss": (lambda ms, nn, ops, x, t: nn.MultilabelMarginLoss()(x, t), [X, ML_T], True),
    **_reductions("cosine_embedding_loss", lambda ms, nn, ops, r, a, b, y: ops.cosine_embedding_loss(
        a, b, y, 0.2, r), [V8, _f32(6, 8), PM1_6]),
    "CosineEmbeddingLoss": (lambda ms, nn, ops, a, b, y: nn.CosineEmbeddingLoss()(a, b, y),
                            [V8, _f32(6, 8), PM1_6], True),
    **_reductions("margin_ranking_loss", lambda ms, nn, ops, r, a, b, y: ops.margin_ranking_loss(a, b, y, 0.3, r),
                  [X, Y, PM1]),
    "MarginRankingLoss": (lambda ms, nn, ops, a, b, y: nn.MarginRankingLoss()(a, b, y), [X, Y, PM1], True),
    **_reductions("triplet_margin_loss", lambda ms, nn, ops, r, a, p, n: ops.triplet_margin_loss(
        a, p, n, reduction=r), [V8, _f32(6, 8), _f32(6, 8)]),
    "triplet_margin_loss_p1_swap": (lambda ms, nn, ops, a, p, n: ops.triplet_margin_loss(
        a, p, n, margin=2.0, p=1, swap=True), [V8, _f32(6, 8), _f32(6, 8)], True),
    "TripletMarginLoss": (lambda ms, nn, ops, a, p, n: nn.TripletMarginLoss(margin=1.5)(a, p, n),
                          [V8, _f32(6, 8), _f32(6, 8)], True),
    **_reductions("gaussian_nll_loss", lambda ms, nn, ops, r, x, y, v: ops.gaussian_nll_loss(x, y, v, reduction=r),
                  [X, Y, VAR]),
    "GaussianNLLLoss_full": (lambda ms, nn, ops, x, y, v: nn.GaussianNLLLoss(full=True, eps=0.05)(x, y, v),
                             [X, Y, VAR], True),
    **_reductions("hinge_embedding_loss", lambda ms, nn, ops, r, x, y: ops.hinge_embedding_loss(x, y, 0.8, r),
                  [X, PM1], (0,)),
    "HingeEmbeddingLoss": (lambda ms, nn, ops, x, y: nn.HingeEmbeddingLoss()(x, y), [X, PM1], (0,)),
    **_reductions("PoissonNLLLoss", lambda ms, nn, ops, r, x, y: nn.PoissonNLLLoss(reduction=r)(x, y), [X, RATE]),
    "PoissonNLLLoss_rates_full": (lambda ms, nn, ops, x, y: nn.PoissonNLLLoss(log_input=False, full=True)(x, y),
                                  [VAR, RATE], True),
    "DiceLoss": (lambda ms, nn, ops, x, y: nn.DiceLoss()(x, y), [P, T01], True),
    "FocalLoss": (lambda ms, nn, ops, x, t: nn.FocalLoss(gamma=2.0)(x, t),
                  [X3, _i([[0, 2, 1, 1], [2, 2, 0, 1]]).reshape(2, 1, 4)], True),
    "FocalLoss_weight_onehot": (lambda ms, nn, ops, x, y, w: nn.FocalLoss(w, 1.0, "sum")(x, y),
                                [X, np.eye(5, dtype=np.float32)[CLS], W5], True),
}

IMG = _f32(2, 3, 5, 6)
VOL = _f32(1, 2, 4, 5, 6)
SEQ = _f32(2, 3, 7)
XA = _f32(3, 4, 6, low=-3.0, high=3.0)


def _fn(name: str, *args, **kwargs) -> Callable:
    return lambda ms, nn, ops, x: getattr(ops, name)(x, *args, **kwargs)


def _layer(name: str, *args, **kwargs) -> Callable:
    return lambda ms, nn, ops, x: getattr(nn, name)(*args, **kwargs)(x)


LAYER_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "elu": (_fn("elu"), [XA], True),
    "celu": (_fn("celu", 1.5), [XA], True),
    "CELU": (_layer("CELU"), [XA], True),
    "selu": (_fn("selu"), [XA], False),  # MindSpore 2.10's SeLU gradient is wrong for x < 0
    "SeLU": (_layer("SeLU"), [XA], False),
    "leaky_relu": (_fn("leaky_relu", 0.1), [XA], True),
    "prelu": (lambda ms, nn, ops, x, w: ops.prelu(x, w), [XA, _f32(4, low=0.1, high=0.5)], True),
    "hardtanh": (_fn("hardtanh", -0.5, 1.2), [XA], True),
    "Hardtanh": (_layer("Hardtanh"), [XA], True),
    "hardsigmoid": (_fn("hardsigmoid"), [XA], True),
    "hardswish": (_fn("hardswish"), [XA], True),
    "hardshrink": (_fn("hardshrink", 0.8), [XA], True),
    "HShrink": (_layer("HShrink"), [XA], True),
    "softshrink": (_fn("softshrink", 0.8), [XA], True),
    "soft_shrink": (_fn("soft_shrink"), [XA], True),
    "SoftShrink": (_layer("SoftShrink", 0.3), [XA], True),
    "tanhshrink": (_fn("tanhshrink"), [XA], True),
    "Tanhshrink": (_layer("Tanhshrink"), [XA], True),
    "threshold": (_fn("threshold", 0.5, -2.0), [XA], True),
    "Threshold": (_layer("Threshold", 0.1, 20.0), [XA], True),
    "softsign": (_fn("softsign"), [XA], True),
    "Softsign": (_layer("Softsign"), [XA], True),
    "logsigmoid": (_fn("logsigmoid"), [XA * 10], True),
    "LogSigmoid": (_layer("LogSigmoid"), [XA], True),
    "mish": (_fn("mish"), [XA], True),
    "glu": (_fn("glu", 1), [XA], True),
    "GLU": (_layer("GLU"), [XA], True),
    "softmin": (_fn("softmin", 1), [XA], True),
    "Softmin": (_layer("Softmin"), [XA], True),
    "LogSoftmax": (_layer("LogSoftmax", 1), [XA], True),
    "Softmax2d": (_layer("Softmax2d"), [IMG], True),
    "pad_reflect": (_fn("pad", (2, 1, 1, 3), "reflect"), [IMG], True),
    "pad_replicate": (_fn("pad", (2, 1, 1, 3), "replicate"), [IMG], True),
    "pad_circular": (_fn("pad", (2, 1, 1, 3), "circular"), [IMG], True),
    "pad_constant_negative": (_fn("pad", (-1, 2, 1, -2), "constant", 1.5), [IMG], True),
    "ZeroPad2d": (_layer("ZeroPad2d", (1, 2, 0, 3)), [IMG], True),
    "ConstantPad1d": (_layer("ConstantPad1d", 2, 0.5), [SEQ], True),
    "ConstantPad2d": (_layer("ConstantPad2d", (1, 0, 2, 1), -1.0), [IMG], True),
    "ConstantPad3d": (_layer("ConstantPad3d", 1, 2.0), [VOL], True),
    "ReflectionPad1d": (_layer("ReflectionPad1d", (3, 1)), [SEQ], True),
    "ReflectionPad2d": (_layer("ReflectionPad2d", (1, 2, 2, 1)), [IMG], True),
    "ReflectionPad3d": (_layer("ReflectionPad3d", 1), [VOL], True),
    "ReplicationPad1d": (_layer("ReplicationPad1d", (3, 1)), [SEQ], True),
    "ReplicationPad2d": (_layer("ReplicationPad2d", (1, 2, 2, 1)), [IMG], True),
    "ReplicationPad3d": (_layer("ReplicationPad3d", (1, 2, 0, 1, 2, 0)), [VOL], True),
    "pixel_shuffle": (_fn("pixel_shuffle", 2), [_f32(1, 8, 3, 2)], True),
    "pixel_unshuffle": (_fn("pixel_unshuffle", 2), [_f32(1, 2, 4, 6)], True),
    "PixelUnshuffle": (_layer("PixelUnshuffle", 3), [_f32(2, 1, 6, 3)], True),
    "Unflatten": (_layer("Unflatten", 1, (2, 3)), [_f32(2, 6, 4)], True),
    "Flatten_dims": (_layer("Flatten", 1, 2), [VOL], True),
    "adaptive_avg_pool1d": (_fn("adaptive_avg_pool1d", 4), [_f32(2, 3, 8)], True),
    "adaptive_max_pool1d": (_fn("adaptive_max_pool1d", 3), [_f32(2, 3, 9)], True),
    "AdaptiveAvgPool1d": (_layer("AdaptiveAvgPool1d", 7), [SEQ], True),
    "AdaptiveMaxPool1d": (_layer("AdaptiveMaxPool1d", 2), [_f32(2, 3, 8)], True),
    "adaptive_avg_pool2d": (_fn("adaptive_avg_pool2d", (3, 4)), [IMG], True),
    "adaptive_max_pool2d": (_fn("adaptive_max_pool2d", (2, 4)), [IMG], True),
    "adaptive_avg_pool3d": (_fn("adaptive_avg_pool3d", (3, 2, 4)), [VOL], True),
    "adaptive_max_pool3d": (_fn("adaptive_max_pool3d", (2, 3, 4)), [VOL], True),
    "AdaptiveAvgPool3d": (_layer("AdaptiveAvgPool3d", (None, 3, 2)), [VOL], True),
    "AdaptiveMaxPool3d": (_layer("AdaptiveMaxPool3d", 2), [VOL], True),
    "dropout2d_inference": (_fn("dropout2d", 0.5, False), [IMG], True),
    "Dropout3d_inference": (_layer("Dropout3d", 0.4), [VOL], True),
}
CASES.update(LAYER_CASES)


def _bn_train(ms, nn, ops, x, rm, rv, w, b):
    mean, var = ms.Parameter(rm, name="rm"), ms.Parameter(rv, name="rv")
    y = ops.batch_norm(x, mean, var, w, b, training=True, momentum=0.2, eps=1e-3)
    return y, mean.value() if hasattr(mean, "value") else mean, var.value() if hasattr(var, "value") else var


def _bn3d_train(ms, nn, ops, x):
    layer = nn.BatchNorm3d(3, momentum=0.8, use_batch_statistics=True)
    y = layer(x)
    return y, layer.bn2d.moving_mean + 0, layer.bn2d.moving_variance + 0


NORM_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "BatchNorm3d_inference": (_layer("BatchNorm3d", 2), [VOL], True),
    "BatchNorm3d_batch_statistics": (_bn3d_train, [_f32(2, 3, 2, 3, 4)], (0,)),
    "batch_norm_inference": (lambda ms, nn, ops, x, rm, rv, w, b: ops.batch_norm(x, rm, rv, w, b),
                             [IMG, _f32(3), _f32(3, low=0.5, high=2), _f32(3), _f32(3)], (0, 3, 4)),
    # Builds its Parameters from the inputs: PyNative only (tests/nn/test_ms_nn_layers.py: PYNATIVE_ONLY).
    "batch_norm_training": (_bn_train, [SEQ, _f32(3), _f32(3, low=0.5, high=2), _f32(3), _f32(3)], False),
    "group_norm": (lambda ms, nn, ops, x, w, b: ops.group_norm(x, 3, w, b, 1e-3), [_f32(2, 6, 3, 2), _f32(6), _f32(6)],
                   True),
    "GroupNorm_5d": (lambda ms, nn, ops, x: nn.GroupNorm(2, 4)(x), [_f32(2, 4, 2, 3, 2)], True),
}
CASES.update(NORM_CASES)


def _cell(kind: str, gates: int, *args, i: int = 5, hid: int = 4, **kwargs) -> Callable:
    """A recurrent cell with fixed weights (drawn here, set before the call) applied to the case's x and
    hidden state(s)."""
    g = gates * hid
    weights = (_f32(g, i, low=-0.5, high=0.5), _f32(g, hid, low=-0.5, high=0.5), _f32(g, low=-0.5, high=0.5),
               _f32(g, low=-0.5, high=0.5))

    def run(ms, nn, ops, x, h, c=None):
        cell = getattr(nn, kind)(i, hid, *args, **kwargs)
        for p, v in zip((cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh), weights):
            p.set_data(ms.Tensor(v))
        return cell(x, (h, c)) if c is not None else cell(x, h)
    return run


def _cell_inputs(lstm: bool = False, batch: int = 3, i: int = 5, hid: int = 4) -> list[np.ndarray]:
    ins = [_f32(batch, i), _f32(batch, hid, low=-1, high=1)]
    return ins + [_f32(batch, hid, low=-1, high=1)] if lstm else ins


CELL_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "RNNCell_tanh": (_cell("RNNCell", 1), _cell_inputs(), True),
    "RNNCell_relu": (_cell("RNNCell", 1, nonlinearity="relu"), _cell_inputs(), True),
    "GRUCell": (_cell("GRUCell", 3), _cell_inputs(), True),
    "LSTMCell": (_cell("LSTMCell", 4), _cell_inputs(True), True),
}
CASES.update(CELL_CASES)


def _conv3d_layer(*args, **kwargs) -> Callable:
    """nn.Conv3d(2, 4, ...) with fixed weights (drawn here) applied to the case's input."""
    groups = kwargs.get("group", 1)
    k = args[0] if isinstance(args[0], tuple) else (args[0],) * 3
    weight = _f32(4, 2 // groups, *k, low=-0.5, high=0.5)
    bias = _f32(4)

    def run(ms, nn, ops, x):
        layer = nn.Conv3d(2, 4, *args, has_bias=True, **kwargs)
        layer.weight.set_data(ms.Tensor(weight))
        layer.bias.set_data(ms.Tensor(bias))
        return layer(x)
    return run


VOL2 = _f32(2, 2, 5, 6, 7)
W3 = _f32(4, 2, 2, 3, 2, low=-0.5, high=0.5)
VOLUME_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "conv3d_valid": (lambda ms, nn, ops, x, w: ops.conv3d(x, w), [VOL2, W3], True),
    "conv3d_pad_stride_dilation": (lambda ms, nn, ops, x, w, b: ops.conv3d(
        x, w, b, stride=(2, 1, 2), pad_mode="pad", padding=(1, 2, 1), dilation=(2, 1, 2)), [VOL2, W3, _f32(4)], True),
    "conv3d_same_groups": (lambda ms, nn, ops, x, w: ops.conv3d(x, w, pad_mode="same", stride=2, groups=2),
                           [VOL2, _f32(4, 1, 3, 3, 3, low=-0.5, high=0.5)], True),
    "Conv3d_same": (_conv3d_layer(3), [VOL2], True),
    "Conv3d_pad_6": (_conv3d_layer((2, 3, 1), stride=(1, 2, 1), pad_mode="pad", padding=(1, 0, 1, 2, 0, 1)),
                     [VOL2], True),
    "max_pool3d": (lambda ms, nn, ops, x: ops.max_pool3d(x, 2), [VOL2], True),
    "max_pool3d_pad_ceil": (lambda ms, nn, ops, x: ops.max_pool3d(x, 3, 2, 1, ceil_mode=True), [VOL2], True),
    "max_pool3d_dilation": (lambda ms, nn, ops, x: ops.max_pool3d(x, (2, 2, 3), (1, 2, 1), (1, 0, 1), 2),
                            [VOL2], True),
    "MaxPool3d_same": (_layer("MaxPool3d", 3, 2, "same"), [VOL2], True),
    "MaxPool3d_pad": (_layer("MaxPool3d", (3, 2, 2), 1, "pad", (1, 1, 0)), [VOL2], True),
    "avg_pool3d": (lambda ms, nn, ops, x: ops.avg_pool3d(x, 2, 2), [VOL2], True),
    "avg_pool3d_pad_exclude": (lambda ms, nn, ops, x: ops.avg_pool3d(x, 3, 2, 1, count_include_pad=False),
                               [VOL2], True),
    "avg_pool3d_pad_include_ceil": (lambda ms, nn, ops, x: ops.avg_pool3d(x, 3, 2, 1, ceil_mode=True), [VOL2], True),
    "avg_pool3d_divisor": (lambda ms, nn, ops, x: ops.avg_pool3d(
        x, (2, 3, 2), 1, (1, 0, 1, 1, 0, 0), divisor_override=5), [VOL2], True),
    "AvgPool3d_valid": (_layer("AvgPool3d", (2, 3, 3), (1, 2, 2)), [VOL2], True),
    "AvgPool3d_same": (_layer("AvgPool3d", 3, 2, "same"), [VOL2], True),
    "AvgPool3d_pad_ceil_exclude": (_layer("AvgPool3d", 2, 2, "pad", 1, True, False), [VOL2], True),
    "conv1d": (lambda ms, nn, ops, x, w, b: ops.conv1d(x, w, b, 2, "pad", 1, 2), [SEQ, _f32(4, 3, 3), _f32(4)], True),
    "conv1d_same_groups": (lambda ms, nn, ops, x, w: ops.conv1d(x, w, pad_mode="same", groups=3),
                           [SEQ, _f32(6, 1, 2)], True),
}
CASES.update(VOLUME_CASES)


def _transposed_layer(kind: str, cin: int, cout: int, k, *args, **kwargs) -> Callable:
    """nn.Conv3dTranspose / Conv1dTranspose with fixed weights (drawn here) applied to the case's input."""
    groups = kwargs.get("group", 1)
    kshape = (1, k) if kind == "Conv1dTranspose" else ((k,) * 3 if isinstance(k, int) else k)
    weight = _f32(cin, cout // groups, *kshape, low=-0.5, high=0.5)
    bias = _f32(cout)

    def run(ms, nn, ops, x):
        layer = getattr(nn, kind)(cin, cout, k, *args, has_bias=True, **kwargs)
        layer.weight.set_data(ms.Tensor(weight))
        layer.bias.set_data(ms.Tensor(bias))
        return layer(x)
    return run


VOL3 = _f32(1, 2, 3, 4, 3)
TRANSPOSED_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "conv3d_transpose_valid": (lambda ms, nn, ops, x, w: ops.conv3d_transpose(x, w), [VOL3, _f32(2, 3, 2, 3, 2)],
                               True),
    "conv3d_transpose_pad_stride": (lambda ms, nn, ops, x, w: ops.conv3d_transpose(
        x, w, "pad", (1, 0, 1, 1, 0, 1), (2, 1, 2), (1, 2, 1), output_padding=(1, 0, 1)),
        [VOL3, _f32(2, 3, 3, 2, 3)], True),
    "conv3d_transpose_same_group": (lambda ms, nn, ops, x, w: ops.conv3d_transpose(
        x, w, "same", stride=2, group=2), [VOL3, _f32(2, 2, 3, 3, 3)], True),
    "Conv3dTranspose_same": (_transposed_layer("Conv3dTranspose", 2, 4, 3, 2), [VOL3], True),
    "Conv3dTranspose_pad": (_transposed_layer("Conv3dTranspose", 2, 4, (2, 3, 2), 2, "pad", 1, (1, 2, 2)),
                            [VOL3], True),
    "Conv1dTranspose_same": (_transposed_layer("Conv1dTranspose", 3, 4, 3, 2), [SEQ], True),
    "Conv1dTranspose_pad_groups": (_transposed_layer("Conv1dTranspose", 3, 6, 4, 3, "pad", 1, 2, group=3),
                                   [SEQ], True),
    "Conv1dTranspose_valid": (_transposed_layer("Conv1dTranspose", 3, 2, 2, 1, "valid"), [SEQ], True),
}
CASES.update(TRANSPOSED_CASES)


# MindSpore's (and PyTorch's) CTC gradient with respect to log_probs adds exp(log_probs), a term that cancels
# through the log_softmax that produces them; opbuild's is the plain derivative. The cases therefore start
# from logits, so the gradients compared are the logits', where both agree.
CTC_X = _f32(6, 3, 5)
CTC_T = _i([[1, 2, 2], [3, 1, 0], [4, 4, 4]])


def _ctc(make) -> Callable:
    return lambda ms, nn, ops, x, t, il, tl: make(ms, nn, ops, ops.log_softmax(x, -1), t, il, tl)


def _ctc_r(ms, nn, ops, r, x, t, il, tl):
    return ops.ctc_loss(ops.log_softmax(x, -1), t, il, tl, reduction=r)


CTC_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    **_reductions("ctc_loss", _ctc_r, [CTC_X, CTC_T, _i([6, 5, 6]), _i([3, 2, 1])]),
    "ctc_loss_blank_last": (_ctc(lambda ms, nn, ops, lp, t, il, tl: ops.ctc_loss(lp, t, il, tl, blank=4)),
                            [CTC_X, _i([[1, 2, 2], [3, 1, 0], [0, 0, 0]]), _i([6, 4, 2]), _i([3, 2, 0])], True),
    "CTCLoss_impossible_zero_infinity": (_ctc(
        lambda ms, nn, ops, lp, t, il, tl: nn.CTCLoss(reduction="none", zero_infinity=True)(lp, t, il, tl)),
        [CTC_X, CTC_T, _i([6, 2, 6]), _i([3, 2, 3])], True),
    "CTCLoss_int64": (_ctc(lambda ms, nn, ops, lp, t, il, tl: nn.CTCLoss(reduction="sum")(lp, t, il, tl)),
                      [CTC_X, CTC_T.astype(np.int64), _i([6, 6, 6], np.int64), _i([3, 2, 2], np.int64)], True),
}
CASES.update(CTC_CASES)


def _lookup(*args, **kwargs) -> Callable:
    """nn.EmbeddingLookup(6, 4, ...) with a fixed table (drawn here) applied to the case's ids."""
    table = _f32(6, 4)

    def run(ms, nn, ops, ids):
        layer = nn.EmbeddingLookup(6, 4, *args, **kwargs)
        layer.embedding_table.set_data(ms.Tensor(table))
        return layer(ids)
    return run


PATCH_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "unfold": (lambda ms, nn, ops, x: ops.unfold(x, 2), [_f32(1, 2, 5, 4)], True),
    "unfold_options": (lambda ms, nn, ops, x: ops.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
                       [_f32(2, 3, 6, 7)], True),
    "fold": (lambda ms, nn, ops, x: ops.fold(x, ms.Tensor([5, 4], ms.int32), 2), [_f32(1, 8, 12)], True),
    "fold_options": (lambda ms, nn, ops, x: ops.fold(x, ms.Tensor([6, 7], ms.int32), (2, 3), (1, 2), 1, (2, 1)),
                     [_f32(2, 18, 20)], True),
    "lrn": (lambda ms, nn, ops, x: ops.lrn(x), [_f32(1, 6, 3, 3)], True),
    "LRN_options": (_layer("LRN", 2, 2.0, 0.5, 0.75), [_f32(2, 7, 2, 3)], True),
    "EmbeddingLookup": (_lookup(), [_i([[0, 5], [3, 3]])], False),
}
CASES.update(PATCH_CASES)


WRAPPER_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "lp_pool1d": (lambda ms, nn, ops, x: ops.lp_pool1d(x, 2, 3, 2), [_f32(2, 3, 8)], True),
    "lp_pool2d_p3": (lambda ms, nn, ops, x: ops.lp_pool2d(x, 3, (2, 3)), [_f32(1, 2, 6, 7, low=0.1, high=2.0)], True),
    "LPPool1d_ceil": (_layer("LPPool1d", 2, 3, 2, True), [_f32(2, 3, 8)], True),
    "LPPool2d": (_layer("LPPool2d", 1, 2, (1, 2)), [_f32(1, 2, 5, 6)], True),
    "fast_gelu": (_fn("fast_gelu"), [XA], True),
    "FastGelu": (_layer("FastGelu"), [XA], True),
    "channel_shuffle": (_fn("channel_shuffle", 2), [_f32(1, 6, 2, 2)], False),  # no MindSpore gradient
    "ChannelShuffle": (_layer("ChannelShuffle", 3), [_f32(2, 6, 3)], True),
    "ReduceLogSumExp": (_layer("ReduceLogSumExp", 1, True), [XA], True),
    "ClipByNorm": (lambda ms, nn, ops, x: nn.ClipByNorm()(x, ms.Tensor(2.0, ms.float32)), [XA], True),
    "Tril": (lambda ms, nn, ops, x: nn.Tril()(x, 1), [XA], True),
    "Triu": (lambda ms, nn, ops, x: nn.Triu()(x, -1), [XA], True),
    "OneHot": (_layer("OneHot", depth=4), [_i([0, 3, 1, 5])], False),
    "OneHot_axis0": (_layer("OneHot", 0, 3, 5.0, -1.0), [_i([[0, 2], [1, 1]])], False),
    "Range_int": (lambda ms, nn, ops: nn.Range(1, 10, 3)(), [], False),
    "Range_float": (lambda ms, nn, ops: nn.Range(0.5, 3.0, 0.75)(), [], False),
    "Range_limit_only": (lambda ms, nn, ops: nn.Range(5)(), [], False),
    "Norm": (_layer("Norm", 1), [XA], True),
    "Norm_all_keep": (_layer("Norm", (), True), [XA], True),
    "Moments": (_layer("Moments", 2), [XA], True),
    "Moments_keep": (_layer("Moments", (0, 2), True), [XA], True),
    "MatMul": (lambda ms, nn, ops, a, b: nn.MatMul()(a, b), [_f32(2, 3, 4), _f32(4, 5)], True),
    "MatMul_transposed": (lambda ms, nn, ops, a, b: nn.MatMul(True, True)(a, b), [_f32(2, 4, 3), _f32(2, 5, 4)],
                          True),
}
CASES.update(WRAPPER_CASES)


DICE_X = _f32(2, 3, 4)
DICE_Y = np.eye(3, dtype=np.float32)[RNG.integers(0, 3, (2, 4))].transpose(0, 2, 1).copy()
MORE_LOSS_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "MultiClassDiceLoss": (lambda ms, nn, ops, x, y: nn.MultiClassDiceLoss()(x, y), [DICE_X, DICE_Y], (0,)),
    "MultiClassDiceLoss_weights_ignore": (
        lambda ms, nn, ops, x, y, w: nn.MultiClassDiceLoss(w, 1, "sigmoid")(x, y),
        [DICE_X, DICE_Y, _f32(3, 2, low=0.5, high=1.5)], (0,)),
    "MultiClassDiceLoss_no_activation": (lambda ms, nn, ops, x, y: nn.MultiClassDiceLoss(activation=None)(x, y),
                                         [DICE_X[:, :, :3].copy(), DICE_Y[:, :, :3].copy()], (0,)),
    "TripletMarginWithDistanceLoss": (lambda ms, nn, ops, a, p, n: nn.TripletMarginWithDistanceLoss()(a, p, n),
                                      [V8, _f32(6, 8), _f32(6, 8)], True),
    "TripletMarginWithDistanceLoss_swap_sum": (
        lambda ms, nn, ops, a, p, n: nn.TripletMarginWithDistanceLoss(swap=True, reduction="sum", margin=2.0)(a, p, n),
        [V8, _f32(6, 8), _f32(6, 8)], True),
}
CASES.update(MORE_LOSS_CASES)


def _bidense(*args, **kwargs) -> Callable:
    weight, bias = _f32(3, 4, 5, low=-0.5, high=0.5), _f32(3)

    def run(ms, nn, ops, a, b):
        layer = nn.BiDense(4, 5, 3, *args, **kwargs)
        layer.weight.set_data(ms.Tensor(weight))
        if getattr(layer, "bias", None) is not None:  # MindSpore's BiDense has no bias attribute without one
            layer.bias.set_data(ms.Tensor(bias))
        return layer(a, b)
    return run


# Unpooling indices: distinct flat positions per plane (as max pooling yields).
UNPOOL2_IDX = np.stack([RNG.permutation(6 * 8)[:12] for _ in range(6)]).reshape(2, 3, 3, 4).astype(np.int64)
UNPOOL1_IDX = np.stack([RNG.permutation(9)[:4] for _ in range(6)]).reshape(2, 3, 4).astype(np.int64)
UNPOOL3_IDX = np.stack([RNG.permutation(4 * 4 * 6)[:12] for _ in range(2)]).reshape(1, 2, 2, 2, 3).astype(np.int64)
EXTRA_LAYER_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "BiDense": (_bidense(), [_f32(6, 4), _f32(6, 5)], True),
    "BiDense_batch_no_bias": (_bidense(has_bias=False), [_f32(2, 3, 4), _f32(2, 3, 5)], True),
    "max_unpool2d": (lambda ms, nn, ops, x, i: ops.max_unpool2d(x, i, 2), [_f32(2, 3, 3, 4), UNPOOL2_IDX], (0,)),
    "MaxUnpool1d": (lambda ms, nn, ops, x, i: nn.MaxUnpool1d(3, 2)(x, i), [_f32(2, 3, 4), UNPOOL1_IDX], (0,)),
    "MaxUnpool3d_output_size": (lambda ms, nn, ops, x, i: nn.MaxUnpool3d(2)(x, i, (1, 2, 4, 4, 6)),
                                [_f32(1, 2, 2, 2, 3), UNPOOL3_IDX], (0,)),
    "Dropout2dExt_inference": (_layer("Dropout2dExt", 0.3), [IMG], True),
}
CASES.update(EXTRA_LAYER_CASES)


FN_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "avg_pool1d": (lambda ms, nn, ops, x: ops.avg_pool1d(x, 3, 2), [_f32(2, 3, 8)], True),
    "avg_pool1d_pad_ceil": (lambda ms, nn, ops, x: ops.avg_pool1d(x, 3, 2, 1, True), [_f32(2, 3, 8)], True),
    "avg_pool1d_exclude": (lambda ms, nn, ops, x: ops.avg_pool1d(x, 4, 3, 2, False, False), [_f32(2, 3, 9)], True),
    "clip_by_norm": (lambda ms, nn, ops, x: ops.clip_by_norm(x, 2.0), [XA], True),
    "clip_by_norm_tuple": (lambda ms, nn, ops, a, b: ops.clip_by_norm((a, b), 3.0), [XA, _f32(3, 2)], False),
    "clip_by_global_norm": (lambda ms, nn, ops, a, b: ops.clip_by_global_norm((a, b), 1.5), [XA, _f32(3, 2)], False),
    "renorm": (lambda ms, nn, ops, x: ops.renorm(x, 2, 1, 2.0), [XA], True),
    "renorm_p1": (lambda ms, nn, ops, x: ops.renorm(x, 1, -1, 5.0), [XA], True),
}
CASES.update(FN_CASES)


def _fill_by_name(ms, cell) -> None:
    """Every parameter set to values derived from its name and shape only, so MindSpore's and opbuild's cells
    with the same parameter names hold the same values."""
    for name, p in cell.parameters_and_names():
        seed = sum(ord(ch) * (i + 1) for i, ch in enumerate(name)) % 97
        values = np.sin(np.arange(int(np.prod(p.shape))) * 0.37 + seed) * 0.3
        p.set_data(ms.Tensor(values.reshape(p.shape).astype(np.float32)))


def _filled(make) -> Callable:
    def run(ms, nn, ops, *xs):
        cell = make(nn)
        _fill_by_name(ms, cell)
        return cell(*xs)
    return run


STACK_CASES: dict[str, tuple[Callable, list[np.ndarray], bool]] = {
    "Linear": (_filled(lambda nn: nn.Linear(5, 3)), [_f32(2, 4, 5)], True),
    "Linear_no_bias": (_filled(lambda nn: nn.Linear(5, 3, bias=False)), [_f32(4, 5)], True),
    "TransformerDecoder": (_filled(lambda nn: nn.TransformerDecoder(
        nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2, nn.LayerNorm((8,)))), [_f32(5, 2, 8), _f32(4, 2, 8)],
        True),
    "Transformer": (_filled(lambda nn: nn.Transformer(8, 2, 1, 2, 16, dropout=0.0)), [_f32(4, 2, 8), _f32(3, 2, 8)],
                    True),
    "Transformer_batch_first_norm_first": (_filled(lambda nn: nn.Transformer(
        8, 2, 2, 1, 12, dropout=0.0, batch_first=True, norm_first=True)), [_f32(2, 4, 8), _f32(2, 3, 8)], True),
}


def _time_distributed(*args) -> Callable:
    """nn.TimeDistributed over a Dense(4, 3) with fixed weights."""
    weight, bias = _f32(3, 4, low=-0.5, high=0.5), _f32(3)

    def run(ms, nn, ops, x):
        dense = nn.Dense(4, 3)
        dense.weight.set_data(ms.Tensor(weight))
        dense.bias.set_data(ms.Tensor(bias))
        return nn.TimeDistributed(dense, *args)(x)
    return run


STACK_CASES.update({
    "TimeDistributed_steps": (_time_distributed(1), [_f32(2, 5, 4)], True),
    "TimeDistributed_reshape": (_time_distributed(1, 0), [_f32(2, 5, 4)], True),
    "TimeDistributed_reshape_4d": (_time_distributed(2, 1), [_f32(3, 2, 6, 4)], True),
})
CASES.update(STACK_CASES)


def outputs(result) -> list[np.ndarray]:
    """The case's result as a list of NumPy arrays (one per output)."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [np.asarray(r.asnumpy()) for r in items]


def grad_positions(inputs: list[np.ndarray], grad: bool | tuple[int, ...]) -> tuple[int, ...]:
    """The positions of the inputs a gradient is taken for: the given ones, or every float input."""
    if isinstance(grad, tuple):
        return grad
    return tuple(i for i, a in enumerate(inputs) if a.dtype.kind == "f") if grad else ()
