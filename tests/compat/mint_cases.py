"""Cases of the ``mindspore.mint`` names added in the eleventh session (``mint.nn.functional``'s convolutions,
pools, pads, sampling and losses, ``mint.nn``'s layers, ``mint.optim``, top-level functions).
scripts/record_mint.py runs them on MindSpore 2.10 (PyNative, CPU) into tests/fixtures/mindspore/mint.npz;
tests/compat/test_mint_nn.py runs them on opbuild (PyNative and GRAPH_MODE) and compares. Where MindSpore's
CPU refuses a case (many mint kernels are Ascend only), the fixture records the refusal and the test compares
with the torch twin of ``TORCH`` instead, which must then exist.

``FUNCS``: ``name -> (fn(ms, *tensors), inputs)``. ``LAYERS``: ``name -> (constructor source over ``ms``,
inputs, train)``: the layer's parameters are set from :func:`param_value`, the outputs are the call's then
(when ``train``) every non-trainable parameter after it. ``OPTIMS``: ``name -> constructor source over
``ms`` and ``params````, run for the gradients of ``GRADS``. This module imports no framework."""

from __future__ import annotations

import zlib

import numpy as np

RNG = np.random.default_rng(1127)


def _n(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _u(lo: float, hi: float, *shape: int) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def param_value(case: str, name: str, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """A deterministic value for parameter ``name`` of layer ``case`` (variances positive, counters kept)."""
    rng = np.random.default_rng(zlib.crc32(f"{case}/{name}".encode()))
    if "int" in dtype:
        return np.zeros(shape, dtype)
    if "var" in name:
        return rng.uniform(0.5, 2.0, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


X1, X2, X3 = _n(2, 4, 9), _n(2, 4, 7, 8), _n(1, 2, 5, 6, 4)
W1, W2, W3, WT = _n(6, 2, 3), _n(6, 2, 3, 2), _n(4, 2, 3, 2, 2), _n(4, 3, 3, 2)
B6, B4 = _n(6), _n(4)
P = _u(0.05, 0.95, 3, 4)
Y = (RNG.uniform(0, 1, (3, 4)) > 0.5).astype(np.float32)
WL = _u(0.5, 2.0, 3, 4)
LG = _n(3, 4)
LP = np.log(np.exp(LG) / np.exp(LG).sum(1, keepdims=True)).astype(np.float32)
T3 = np.array([1, 3, 0], np.int64)
PM1 = np.array([1.0, -1.0, 1.0], np.float32)
GRID = _u(-1.1, 1.1, 2, 3, 4, 2)
IDX = np.array([[0, 2], [3, 1]], np.int64)
EMB = _n(4, 3)
TRI = (np.triu(_n(3, 3)) + 3 * np.eye(3)).astype(np.float32)
RHS = _n(3, 2)
M35 = _n(3, 5)

FUNCS: dict = {
    "conv1d": (lambda ms, x, w, b: ms.mint.nn.functional.conv1d(x, w, b, 2, 1, 2, 2), [X1, W1, B6]),
    "conv1d_same": (lambda ms, x, w: ms.mint.nn.functional.conv1d(x, w, None, 1, "same", 1, 2), [X1, W1]),
    "conv2d": (lambda ms, x, w, b: ms.mint.nn.functional.conv2d(x, w, b, (2, 1), (1, 2), (1, 2), 2), [X2, W2, B6]),
    "conv2d_valid": (lambda ms, x, w: ms.mint.nn.functional.conv2d(x, w, None, 1, "valid", 1, 2), [X2, W2]),
    "conv3d": (lambda ms, x, w, b: ms.mint.nn.functional.conv3d(x, w, b, 1, (1, 0, 1)), [X3, W3, B4]),
    "conv_transpose2d": (lambda ms, x, w, b: ms.mint.nn.functional.conv_transpose2d(x, w, b, 2, (1, 0), (1, 0), 2),
                         [X2, WT, B6]),
    "mint_conv2d": (lambda ms, x, w: ms.mint.conv2d(x, w, None, 1, 1, 1, 2), [X2, W2]),
    "avg_pool1d": (lambda ms, x: ms.mint.nn.functional.avg_pool1d(x, 3, 2, 1, True, False), [X1]),
    "avg_pool2d": (lambda ms, x: ms.mint.nn.functional.avg_pool2d(x, 3, 2, 1), [X2]),
    "avg_pool2d_div": (lambda ms, x: ms.mint.nn.functional.avg_pool2d(x, 2, divisor_override=3), [X2]),
    "avg_pool3d": (lambda ms, x: ms.mint.nn.functional.avg_pool3d(x, 2, 1, 1, False, False), [X3]),
    "max_pool2d": (lambda ms, x: ms.mint.nn.functional.max_pool2d(x, 3, 2, 1), [X2]),
    "max_pool2d_indices": (lambda ms, x: ms.mint.nn.functional.max_pool2d(x, 2, return_indices=True), [X2]),
    "max_unpool2d": (lambda ms, x: ms.mint.nn.functional.max_unpool2d(
        *ms.mint.nn.functional.max_pool2d(x, 2, return_indices=True), 2), [X2]),
    "adaptive_avg_pool1d": (lambda ms, x: ms.mint.nn.functional.adaptive_avg_pool1d(x, 4), [X1]),
    "adaptive_avg_pool2d": (lambda ms, x: ms.mint.nn.functional.adaptive_avg_pool2d(x, (3, 5)), [X2]),
    "adaptive_avg_pool3d": (lambda ms, x: ms.mint.nn.functional.adaptive_avg_pool3d(x, (2, 3, 2)), [X3]),
    "adaptive_max_pool1d": (lambda ms, x: ms.mint.nn.functional.adaptive_max_pool1d(x, 4), [X1]),
    "adaptive_max_pool2d": (lambda ms, x: ms.mint.nn.functional.adaptive_max_pool2d(x, 3, True), [X2]),
    "pad_constant": (lambda ms, x: ms.mint.nn.functional.pad(x, (1, 2, 2, 1), "constant", 0.5), [X2]),
    "pad_reflect": (lambda ms, x: ms.mint.nn.functional.pad(x, (1, 2, 2, 1), "reflect"), [X2]),
    "pad_replicate": (lambda ms, x: ms.mint.nn.functional.pad(x, (1, 2), "replicate"), [X1]),
    "pad_circular": (lambda ms, x: ms.mint.nn.functional.pad(x, (1, 2, 2, 1), "circular"), [X2]),
    "interpolate_bilinear": (lambda ms, x: ms.mint.nn.functional.interpolate(
        x, scale_factor=2.0, mode="bilinear", align_corners=False), [X2]),
    "interpolate_nearest": (lambda ms, x: ms.mint.nn.functional.interpolate(x, size=(5, 11)), [X2]),
    "upsample_bicubic": (lambda ms, x: ms.mint.nn.functional.upsample(x, size=(9, 10), mode="bicubic",
                                                                      align_corners=True), [X2]),
    "grid_sample": (lambda ms, x, g: ms.mint.nn.functional.grid_sample(x, g, align_corners=False), [X2, GRID]),
    "unfold": (lambda ms, x: ms.mint.nn.functional.unfold(x, (2, 3), 1, 1, 2), [X2]),
    "fold": (lambda ms, x: ms.mint.nn.functional.fold(ms.mint.nn.functional.unfold(x, (2, 3), 1, 1, 2), (7, 8),
                                                      (2, 3), 1, 1, 2), [X2]),
    "pixel_shuffle": (lambda ms, x: ms.mint.nn.functional.pixel_shuffle(x, 2), [X2]),
    "embedding": (lambda ms, i, e: ms.mint.nn.functional.embedding(i, e), [IDX, EMB]),
    "batch_norm_eval": (lambda ms, x, m, v, w, b: ms.mint.nn.functional.batch_norm(x, m, v, w, b), [X2, B4, WL[0],
                                                                                                   B4, B4]),
    "binary_cross_entropy": (lambda ms, p, y, w: ms.mint.nn.functional.binary_cross_entropy(p, y, w), [P, Y, WL]),
    "binary_cross_entropy_none": (lambda ms, p, y: ms.mint.nn.functional.binary_cross_entropy(p, y, None, "none"),
                                  [P, Y]),
    "bce_with_logits": (lambda ms, x, y, w: ms.mint.nn.functional.binary_cross_entropy_with_logits(
        x, y, None, "sum", w), [LG, Y, WL[0]]),
    "nll_loss": (lambda ms, x, t, w: ms.mint.nn.functional.nll_loss(x, t, w), [LP, T3, WL[0]]),
    "nll_loss_ignore": (lambda ms, x, t: ms.mint.nn.functional.nll_loss(x, t, None, 3, "sum"), [LP, T3]),
    "kl_div": (lambda ms, x, y: ms.mint.nn.functional.kl_div(x, y, "batchmean"), [LP, P]),
    "kl_div_log_target": (lambda ms, x, y: ms.mint.nn.functional.kl_div(x, ms.mint.log(y), "sum", True), [LP, P]),
    "soft_margin_loss": (lambda ms, x, y: ms.mint.nn.functional.soft_margin_loss(x, y * 2 - 1), [LG, Y]),
    "cosine_embedding_loss": (lambda ms, a, b, t: ms.mint.nn.functional.cosine_embedding_loss(a, b, t, 0.1),
                              [LG, P, PM1]),
    "threshold": (lambda ms, x: ms.mint.nn.functional.threshold(x, 0.1, 20.0), [LG]),
    "relu_": (lambda ms, x: ms.mint.nn.functional.relu_(x * 1), [LG]),
    "sigmoid_": (lambda ms, x: ms.mint.nn.functional.sigmoid_(x * 1), [LG]),
    "elu_": (lambda ms, x: ms.mint.nn.functional.elu_(x * 1, 0.5), [LG]),
    "hardtanh_": (lambda ms, x: ms.mint.nn.functional.hardtanh_(x * 1, -0.5, 0.5), [LG]),
    "threshold_": (lambda ms, x: ms.mint.nn.functional.threshold_(x * 1, 0.1, 20.0), [LG]),
    "dropout2d_eval": (lambda ms, x: ms.mint.nn.functional.dropout2d(x, 0.5, False), [X2]),
    "addbmm": (lambda ms, a, b, c: ms.mint.addbmm(a, b, c, beta=0.5, alpha=2), [M35[:, :2], _n(4, 3, 2),
                                                                                 _n(4, 2, 2)]),
    "bitwise_not": (lambda ms, x: ms.mint.bitwise_not(x), [np.array([1, -3, 0, 7], np.int32)]),
    "bitwise_not_bool": (lambda ms, x: ms.mint.bitwise_not(x), [np.array([True, False])]),
    "cdist": (lambda ms, a, b: ms.mint.cdist(a, b), [M35, M35[:2] * 2]),
    "cdist_p1": (lambda ms, a, b: ms.mint.cdist(a, b, 1.0), [M35, M35[:2] * 2]),
    "index_add": (lambda ms, x, i, s: ms.mint.index_add(x, 0, i, s, alpha=2), [M35, np.array([0, 2, 0], np.int64),
                                                                             _n(3, 5)]),
    "kthvalue": (lambda ms, x: ms.mint.kthvalue(x, 2, 1), [M35]),
    "kthvalue_keepdim": (lambda ms, x: ms.mint.kthvalue(x, 3, 0, True), [M35]),
    "norm": (lambda ms, x: ms.mint.norm(x), [M35]),
    "norm_p1_dim": (lambda ms, x: ms.mint.norm(x, 1, 1, True), [M35]),
    "norm_p3": (lambda ms, x: ms.mint.norm(x, 3.0), [M35]),
    "triangular_solve": (lambda ms, b, a: ms.mint.triangular_solve(b, a), [RHS, TRI]),
    "triangular_solve_t_unit": (lambda ms, b, a: ms.mint.triangular_solve(b, a, True, True, True), [RHS, TRI]),
    "unique_consecutive": (lambda ms, x: ms.mint.unique_consecutive(x, True, True),
                           [np.array([1, 1, 2, 2, 3, 1, 1], np.int64)]),
    "vdot": (lambda ms, a, b: ms.mint.vdot(a, b), [M35[0], M35[1]]),
    "empty_like_shape": (lambda ms, x: ms.mint.zeros_like(ms.mint.empty_like(x)), [M35]),
}

# Compared in PyNative only: the in-place forms write into their input, and unique_consecutive's output shape
# depends on the values, which a GRAPH_MODE trace does not have.
PYNATIVE_ONLY = {"relu_", "sigmoid_", "elu_", "hardtanh_", "threshold_", "unique_consecutive"}

LAYERS: dict = {
    "Conv1d": ("ms.mint.nn.Conv1d(4, 6, 3, 2, 1, groups=2)", [X1], False),
    "Conv2d_reflect_same": ("ms.mint.nn.Conv2d(4, 6, (3, 2), padding='same', padding_mode='reflect')", [X2], False),
    "Conv2d_circular": ("ms.mint.nn.Conv2d(4, 6, 3, 1, 1, padding_mode='circular', bias=False)", [X2], False),
    "Conv3d": ("ms.mint.nn.Conv3d(2, 4, 2, padding=(1, 0, 1))", [X3], False),
    "ConvTranspose2d": ("ms.mint.nn.ConvTranspose2d(4, 6, 3, 2, 1, 1, groups=2)", [X2], False),
    "BatchNorm1d_train": ("ms.mint.nn.BatchNorm1d(4)", [X1], True),
    "BatchNorm2d_eval": ("ms.mint.nn.BatchNorm2d(4)", [X2], False),
    "BatchNorm2d_train": ("ms.mint.nn.BatchNorm2d(4, momentum=0.3)", [X2], True),
    "BatchNorm3d_train": ("ms.mint.nn.BatchNorm3d(2, affine=False)", [X3], True),
    "BatchNorm2d_no_stats": ("ms.mint.nn.BatchNorm2d(4, track_running_stats=False)", [X2], False),
    "SyncBatchNorm_eval": ("ms.mint.nn.SyncBatchNorm(4)", [X2], False),
    "GroupNorm": ("ms.mint.nn.GroupNorm(2, 4)", [X2], False),
    "GroupNorm_no_affine": ("ms.mint.nn.GroupNorm(4, 4, 1e-3, False)", [X1], False),
    "PReLU": ("ms.mint.nn.PReLU()", [X2], False),
    "PReLU_channels": ("ms.mint.nn.PReLU(4, 0.1)", [X2], False),
    "AvgPool1d": ("ms.mint.nn.AvgPool1d(3, 2, 1)", [X1], False),
    "AvgPool2d": ("ms.mint.nn.AvgPool2d(3, 2, 1, count_include_pad=False)", [X2], False),
    "AvgPool3d": ("ms.mint.nn.AvgPool3d(2)", [X3], False),
    "AdaptiveAvgPool1d": ("ms.mint.nn.AdaptiveAvgPool1d(4)", [X1], False),
    "AdaptiveAvgPool2d": ("ms.mint.nn.AdaptiveAvgPool2d((3, 5))", [X2], False),
    "AdaptiveAvgPool3d": ("ms.mint.nn.AdaptiveAvgPool3d(2)", [X3], False),
    "AdaptiveMaxPool1d": ("ms.mint.nn.AdaptiveMaxPool1d(4)", [X1], False),
    "AdaptiveMaxPool2d": ("ms.mint.nn.AdaptiveMaxPool2d(3, True)", [X2], False),
    "ConstantPad1d": ("ms.mint.nn.ConstantPad1d((1, 2), 0.5)", [X1], False),
    "ConstantPad2d": ("ms.mint.nn.ConstantPad2d(1, -1.0)", [X2], False),
    "ConstantPad3d": ("ms.mint.nn.ConstantPad3d((1, 0, 0, 1, 2, 0), 0.25)", [X3], False),
    "ZeroPad1d": ("ms.mint.nn.ZeroPad1d(2)", [X1], False),
    "ZeroPad2d": ("ms.mint.nn.ZeroPad2d((1, 0, 2, 1))", [X2], False),
    "ZeroPad3d": ("ms.mint.nn.ZeroPad3d(1)", [X3], False),
    "ReflectionPad1d": ("ms.mint.nn.ReflectionPad1d(2)", [X1], False),
    "ReflectionPad2d": ("ms.mint.nn.ReflectionPad2d((1, 2, 0, 3))", [X2], False),
    "ReflectionPad3d": ("ms.mint.nn.ReflectionPad3d(1)", [X3], False),
    "ReplicationPad1d": ("ms.mint.nn.ReplicationPad1d((2, 1))", [X1], False),
    "ReplicationPad2d": ("ms.mint.nn.ReplicationPad2d(2)", [X2], False),
    "ReplicationPad3d": ("ms.mint.nn.ReplicationPad3d((1, 1, 0, 2, 1, 0))", [X3], False),
    "Upsample": ("ms.mint.nn.Upsample(scale_factor=2.0, mode='bilinear')", [X2], False),
    "UpsamplingNearest2d": ("ms.mint.nn.UpsamplingNearest2d((9, 10))", [X2], False),
    "UpsamplingBilinear2d": ("ms.mint.nn.UpsamplingBilinear2d(scale_factor=2.0)", [X2], False),
    "Unfold": ("ms.mint.nn.Unfold(2, 1, 1, 2)", [X2], False),
    "Fold": ("ms.mint.nn.Fold((4, 5), 2)", [_n(2, 8, 12)], False),
    "PixelShuffle": ("ms.mint.nn.PixelShuffle(2)", [X2], False),
    "Threshold": ("ms.mint.nn.Threshold(0.2, -3.0)", [X2], False),
    "MaxUnpool2d": ("ms.mint.nn.MaxUnpool2d(2)", [_n(1, 1, 2, 2), np.array([[[[0, 3], [9, 14]]]], np.int64)],
                    False),
    "BCELoss": ("ms.mint.nn.BCELoss(reduction='sum')", [P, Y], False),
    "BCEWithLogitsLoss": ("ms.mint.nn.BCEWithLogitsLoss()", [LG, Y], False),
    "KLDivLoss": ("ms.mint.nn.KLDivLoss(reduction='batchmean')", [LP, P], False),
    "SmoothL1Loss": ("ms.mint.nn.SmoothL1Loss(beta=0.5)", [P, Y], False),
    "SoftMarginLoss": ("ms.mint.nn.SoftMarginLoss()", [LG, Y * 2 - 1], False),
    "CosineEmbeddingLoss": ("ms.mint.nn.CosineEmbeddingLoss(0.1, reduction='sum')", [LG, P, PM1], False),
}

W0, BIAS0 = _n(3, 2), _n(2)
GRADS = [(_n(3, 2), _n(2)) for _ in range(3)]
OPTIMS: dict = {
    "Adam": "ms.mint.optim.Adam(params, lr=0.1, weight_decay=0.1)",
    "Adam_amsgrad_maximize": "ms.mint.optim.Adam(params, lr=0.1, amsgrad=True, maximize=True)",
    "AdamW": "ms.mint.optim.AdamW(params, lr=0.1)",
    "AdamW_betas": "ms.mint.optim.AdamW(params, lr=0.1, betas=(0.8, 0.9), weight_decay=0.3)",
    "SGD": "ms.mint.optim.SGD(params, lr=0.1)",
    "SGD_momentum": "ms.mint.optim.SGD(params, 0.1, 0.9, 0.2, 0.01)",
    "SGD_nesterov": "ms.mint.optim.SGD(params, 0.1, 0.9, 0, 0.01, True)",
}


def outputs(result) -> list[np.ndarray]:
    """The arrays of a case's result (a Tensor, a number or a tuple of them)."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    return [np.asarray(r.asnumpy() if hasattr(r, "asnumpy") else r) for r in items]
