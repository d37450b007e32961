"""Small programs over the names of ``mindspore.nn`` that opbuild added in the nn-surface round (the train
metrics nn still exports, ``get_metrics``, SyncBatchNorm, Lamb, LARS, SSIM/MSSSIM/PSNR, Conv2dBnAct, the matrix
cells, the gradient cells and the *Ext layers), whose ``str(result)`` scripts/record_nn_surface.py records from
MindSpore 2.10 and tests/compat/test_nn_surface.py compares with opbuild's. Each program runs with ``ms`` and
``np`` and sets ``result``; it imports no framework itself."""

_R = "np.round({}.asnumpy(), 4).tolist()"

CASES = {
    "metric_aliases": "result = all(getattr(ms.nn, n) is getattr(ms.train, n) for n in ('F1', 'MAE', 'ROC', "
                      "'auc', 'BleuScore', 'Dice', 'HausdorffDistance', 'ConfusionMatrixMetric', 'names', "
                      "'get_metric_fn', 'rearrange_inputs', 'TopKCategoricalAccuracy'))",
    "get_metrics_set": "result = sorted((k, type(v).__name__) for k, v in ms.nn.get_metrics({'mae', 'accuracy', "
                       "'precision'}).items())",
    "get_metrics_none": "result = ms.nn.get_metrics(None)",
    "get_metrics_dict": "m = ms.nn.MAE()\nresult = ms.nn.get_metrics({'m': m})['m'] is m",
    "get_metrics_bad": "result = ms.nn.get_metrics(['mae'])",
    "get_metrics_bad_dict": "result = ms.nn.get_metrics({'m': 3})",
}

_SBN_X = "x = ms.Tensor((np.arange(48, dtype=np.float32).reshape(2, 3, 2, 4) % 7) / 3)\n"
CASES.update({
    "sync_bn_train": _SBN_X + "n = ms.nn.SyncBatchNorm(3, momentum=0.8)\nn.set_train()\ny = n(x)\n"
                     f"result = ({_R.format('y')}, {_R.format('n.moving_mean')}, {_R.format('n.moving_variance')})",
    "sync_bn_eval_2d": "n = ms.nn.SyncBatchNorm(3, moving_mean_init='ones', moving_var_init=ms.Tensor(np.array("
                       "[1., 4., 9.], np.float32)))\ny = n(ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))\n"
                       f"result = {_R.format('y')}",
    "sync_bn_use_batch": _SBN_X + "n = ms.nn.SyncBatchNorm(3, use_batch_statistics=True, gamma_init=ms.Tensor("
                         "np.array([1., 2., 3.], np.float32)))\ny = n(x)\n"
                         f"result = ({_R.format('y')}, {_R.format('n.moving_mean')})",
    "sync_bn_no_batch_train": _SBN_X + "n = ms.nn.SyncBatchNorm(3, use_batch_statistics=False, moving_mean_init="
                              "'ones')\nn.set_train()\ny = n(x)\n"
                              f"result = ({_R.format('y')}, {_R.format('n.moving_mean')})",
    "sync_bn_float16": "n = ms.nn.SyncBatchNorm(2, dtype=ms.float16)\n"
                       "y = n(ms.Tensor(np.array([[1., 2.], [3., 4.]], np.float16)))\n"
                       "result = (n.gamma.dtype, y.dtype, np.round(y.asnumpy().astype(np.float32), 3).tolist())",
    "sync_bn_bad_groups": "result = ms.nn.SyncBatchNorm(3, process_groups=[[0], [0]])",
    "sync_bn_groups_type": "result = ms.nn.SyncBatchNorm(3, process_groups=(0,))",
    "sync_bn_rank3": "result = ms.nn.SyncBatchNorm(3)(ms.Tensor(np.ones((2, 3, 4), np.float32)))",
})

# A few optimizer steps over three parameters (a decayed weight, a 'bias', a 'gamma' the default filters skip).
_PARAMS = (
    "w = ms.Parameter(ms.Tensor(np.sin(np.arange(12, dtype=np.float32)).reshape(3, 4)), name='dense.weight')\n"
    "b = ms.Parameter(ms.Tensor(np.cos(np.arange(4, dtype=np.float32))), name='dense.bias')\n"
    "gm = ms.Parameter(ms.Tensor(np.ones(4, np.float32)), name='ln.gamma')\n"
    "ps = [w, b, gm]\n"
    "def grads(k):\n"
    "    return tuple(ms.Tensor((np.sin(np.arange(p.size, dtype=np.float32) * (k + 1.7)) * 0.5)"
    ".reshape(p.shape)) for p in ps)\n")
_STEPS = "for k in range(3):\n    opt(grads(k))\nresult = [np.round(p.asnumpy(), 5).tolist() for p in ps]"
CASES.update({
    "lamb_plain": _PARAMS + "opt = ms.nn.Lamb(ps, 0.1)\n" + _STEPS,
    "lamb_decay": _PARAMS + "opt = ms.nn.Lamb(ps, 0.05, beta1=0.8, beta2=0.95, eps=1e-5, weight_decay=0.1)\n"
                  + _STEPS,
    "lamb_groups": _PARAMS + "opt = ms.nn.Lamb([{'params': [w], 'weight_decay': 0.2, 'lr': 0.02}, {'params': "
                   "[b, gm]}], 0.1)\n" + _STEPS,
    "lamb_dynamic_lr": _PARAMS + "opt = ms.nn.Lamb(ps, ms.nn.ExponentialDecayLR(0.1, 0.5, 1))\n" + _STEPS
                       + "\nresult = (result, opt.global_step.asnumpy().tolist())",
    "lamb_state": _PARAMS + "opt = ms.nn.Lamb(ps, 0.1)\nopt(grads(0))\nresult = ([p.name for p in opt.moments1],"
                  " [p.name for p in opt.moments2], np.round(opt.moments2[0].asnumpy(), 5).tolist(), "
                  "opt.global_step.asnumpy().tolist())",
    "lamb_bad_beta": _PARAMS + "result = ms.nn.Lamb(ps, 0.1, beta1=1.0)",
    "lamb_bad_eps_type": _PARAMS + "result = ms.nn.Lamb(ps, 0.1, eps=1)",
    "lars_momentum": _PARAMS + "opt = ms.nn.LARS(ms.nn.Momentum(ps, 0.1, 0.9, weight_decay=0.01))\n" + _STEPS,
    "lars_sgd_coefficient": _PARAMS + "opt = ms.nn.LARS(ms.nn.SGD(ps, 0.2), epsilon=1e-3, coefficient=0.01)\n"
                            + _STEPS,
    "lars_clip": _PARAMS + "opt = ms.nn.LARS(ms.nn.Momentum(ps, 0.1, 0.9), coefficient=0.5, use_clip=True)\n"
                 + _STEPS,
    "lars_filter": _PARAMS + "opt = ms.nn.LARS(ms.nn.Momentum(ps, 0.1, 0.9, weight_decay=0.05), "
                   "lars_filter=lambda p: 'weight' in p.name)\n" + _STEPS,
    "lars_loss_scale": _PARAMS + "opt = ms.nn.LARS(ms.nn.Momentum(ps, 0.1, 0.9, weight_decay=0.01, "
                       "loss_scale=4.0))\n" + _STEPS,
    "lars_bad_use_clip": _PARAMS + "result = ms.nn.LARS(ms.nn.SGD(ps, 0.1), use_clip=1)",
    "lars_bad_epsilon": _PARAMS + "result = ms.nn.LARS(ms.nn.SGD(ps, 0.1), epsilon=1)",
})

_IMGS = ("a = (np.sin(np.arange(2 * 2 * 16 * 16, dtype=np.float32) * 0.37).reshape(2, 2, 16, 16) + 1) / 2\n"
         "b = np.clip(a + np.cos(np.arange(a.size, dtype=np.float32) * 1.3).reshape(a.shape) * 0.1, 0, 1)\n"
         "x, y = ms.Tensor(a), ms.Tensor(b)\n")
CASES.update({
    "ssim_default": _IMGS + f"r = ms.nn.SSIM()(x, y)\nresult = (r.shape, {_R.format('r')})",
    "ssim_args": _IMGS + "r = ms.nn.SSIM(max_val=2, filter_size=5, filter_sigma=0.8, k1=0.02, k2=0.05)(x, y)\n"
                 f"result = {_R.format('r')}",
    "ssim_same": _IMGS + f"r = ms.nn.SSIM(filter_size=7)(x, x)\nresult = {_R.format('r')}",
    "ssim_params": "n = ms.nn.SSIM(filter_size=3)\n"
                   "result = [(k, p.shape, p.requires_grad) for k, p in n.parameters_and_names()]",
    "ssim_window": "n = ms.nn.SSIM(filter_size=3, filter_sigma=1.0)\n"
                   "result = np.round(n.conv.weight.asnumpy(), 5).tolist()",
    "ssim_small_image": _IMGS + "result = ms.nn.SSIM()(x[:, :, :8, :8], y[:, :, :8, :8])",
    "ssim_int_dtype": _IMGS + "result = ms.nn.SSIM(filter_size=3)(ms.Tensor(a, ms.int32), ms.Tensor(b, ms.int32))",
    "ssim_bad_sigma": "result = ms.nn.SSIM(filter_sigma=1)",
    "ssim_bad_k1": "result = ms.nn.SSIM(k1=1)",
    "msssim_default": "a = (np.sin(np.arange(2 * 1 * 64 * 64, dtype=np.float32) * 0.11).reshape(2, 1, 64, 64) + 1) / 2"
                      "\nb = np.clip(a + np.cos(np.arange(a.size, dtype=np.float32) * 0.7).reshape(a.shape) * 0.1,"
                      " 0, 1)\nr = ms.nn.MSSSIM(filter_size=3)(ms.Tensor(a), ms.Tensor(b))\n"
                      f"result = (r.shape, {_R.format('r')})",
    "msssim_three": _IMGS + "r = ms.nn.MSSSIM(max_val=1.0, power_factors=(0.3, 0.3, 0.4), filter_size=3, "
                    f"filter_sigma=1.0)(x, y)\nresult = {_R.format('r')}",
    "msssim_uint8": _IMGS + "r = ms.nn.MSSSIM(max_val=255, power_factors=[0.5, 0.5], filter_size=3)("
                    "ms.Tensor((a * 255).astype(np.uint8)), ms.Tensor((b * 255).astype(np.uint8)))\n"
                    f"result = {_R.format('r')}",
    "msssim_params": "n = ms.nn.MSSSIM(power_factors=(0.5, 0.5), filter_size=3)\n"
                     "result = [(k, p.shape) for k, p in n.parameters_and_names()]",
    "msssim_bad_factors": "result = ms.nn.MSSSIM(power_factors=0.5)",
    "psnr_default": _IMGS + f"r = ms.nn.PSNR()(x, y)\nresult = (r.shape, {_R.format('r')})",
    "psnr_max_val": _IMGS + f"r = ms.nn.PSNR(max_val=255)(x * 255, y * 255)\nresult = {_R.format('r')}",
    "psnr_uint8": _IMGS + "r = ms.nn.PSNR(255)(ms.Tensor((a * 255).astype(np.uint8)), "
                  f"ms.Tensor((b * 255).astype(np.uint8)))\nresult = {_R.format('r')}",
    "psnr_rank3": _IMGS + "result = ms.nn.PSNR()(x[0], y[0])",
    "psnr_bad_max": "result = ms.nn.PSNR(max_val=0)",
    "psnr_shape_mismatch": _IMGS + "result = ms.nn.PSNR()(x, y[:, :1])",
})


def _graph(code: str) -> str:
    """``code`` run in GRAPH_MODE (MindSpore 2.10's PyNative SSIM/MSSSIM/PSNR fail on its own ScalarCast of
    max_val; its graph mode runs them), the mode restored after."""
    body = "\n".join("    " + line for line in code.splitlines())
    return f"ms.set_context(mode=ms.GRAPH_MODE)\ntry:\n{body}\nfinally:\n    ms.set_context(mode=ms.PYNATIVE_MODE)"


CASES.update({k: _graph(v) for k, v in CASES.items() if k.startswith(("ssim_", "msssim_", "psnr_"))})

CASES.update({
    "conv2d_bn_act": "n = ms.nn.Conv2dBnAct(2, 3, 3, weight_init='ones', has_bn=True, activation='relu')\n"
                     "x = ms.Tensor(np.sin(np.arange(50, dtype=np.float32)).reshape(1, 2, 5, 5))\ny = n(x)\n"
                     "result = (y.shape, np.round(y.asnumpy(), 4).tolist(), [k for k, _ in n.parameters_and_names()])",
    "conv2d_bn_act_leaky": "n = ms.nn.Conv2dBnAct(1, 2, 2, stride=2, pad_mode='valid', has_bias=True, "
                           "weight_init='ones', bias_init='ones', activation='leakyrelu', alpha=0.5)\n"
                           "y = n(ms.Tensor(-np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)))\n"
                           f"result = (y.shape, {_R.format('y')}, n.has_bn, n.after_fake)",
    "conv2d_bn_act_train": "n = ms.nn.Conv2dBnAct(1, 1, 1, weight_init='ones', has_bn=True)\nn.set_train()\n"
                           "y = n(ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 1, 2, 2)))\n"
                           f"result = ({_R.format('y')}, {_R.format('n.batchnorm.moving_mean')})",
    "conv2d_bn_act_bad_act": "result = ms.nn.Conv2dBnAct(1, 1, 1, activation=3)",
    "conv2d_bn_act_bad_flag": "result = ms.nn.Conv2dBnAct(1, 1, 1, has_bn=1)",
    "matrix_diag": "x = ms.Tensor(np.array([[1, -2, 3], [4, 5, -6]], np.float32))\n"
                   f"y = ms.nn.MatrixDiag()(x)\nresult = (y.shape, {_R.format('y')})",
    "matrix_diag_int": "y = ms.nn.MatrixDiag()(ms.Tensor(np.array([1, 2], np.int32)))\n"
                       "result = (y.dtype, y.asnumpy().tolist())",
    "matrix_diag_part": "x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))\n"
                        f"y = ms.nn.MatrixDiagPart()(x)\nresult = (y.shape, {_R.format('y')})",
    "matrix_diag_part_tall": "x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))\n"
                             f"y = ms.nn.MatrixDiagPart()(x)\nresult = (y.shape, {_R.format('y')})",
    "matrix_set_diag": "x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))\n"
                       "d = ms.Tensor(-np.arange(6, dtype=np.float32).reshape(2, 3))\n"
                       f"y = ms.nn.MatrixSetDiag()(x, d)\nresult = (y.shape, {_R.format('y')})",
    "mat_det": "a = np.array([[[4, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]], [[2, 0, 0], [0, 1, 0], [0, 0, 5]]], "
               f"np.float32)\ny = ms.nn.MatDet()(ms.Tensor(a))\nresult = (y.shape, {_R.format('y')})",
    "mat_inverse": "a = np.array([[4, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]], np.float32)\n"
                   f"y = ms.nn.MatInverse()(ms.Tensor(a))\nresult = (y.shape, {_R.format('y')})",
    "mat_det_int": "result = ms.nn.MatDet()(ms.Tensor(np.eye(2, dtype=np.int32)))",
})

_NET = ("class Net(ms.nn.Cell):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = ms.nn.Dense(3, 2, weight_init=ms.Tensor(np.array([[1, -1, 0.5], [0.2, 0.3, -0.4]], "
        "np.float32)), bias_init='ones')\n"
        "    def construct(self, x):\n"
        "        return self.fc(x)\n"
        "x = ms.Tensor(np.array([[1, 2, 3], [-1, 0.5, 2], [0, 1, -1], [2, 2, 2]], np.float32))\n"
        "t = ms.Tensor(np.array([[0, 1], [1, 0], [0.5, 0.5], [1, 1]], np.float32))\n")
_LOSSNET = ("class LossNet(ms.nn.Cell):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.net = Net()\n"
            "    def construct(self, x, t):\n"
            "        return ((self.net(x) - t) ** 2).sum()\n")
CASES.update({
    "with_grad_cell_loss_fn": _NET + "g = ms.nn.WithGradCell(Net(), ms.nn.MSELoss())(x, t)\n"
                              "result = [np.round(v.asnumpy(), 4).tolist() for v in g]",
    "with_grad_cell_sens": _NET + "g = ms.nn.WithGradCell(Net(), sens=ms.Tensor(np.ones((4, 2), np.float32) * 2))(x)\n"
                           "result = [np.round(v.asnumpy(), 4).tolist() for v in g]",
    "with_grad_cell_plain": _NET + _LOSSNET + "g = ms.nn.WithGradCell(LossNet())(x, t)\n"
                            "result = [np.round(v.asnumpy(), 4).tolist() for v in g]",
    "grad_accumulation_cell": _NET + _LOSSNET + "c = ms.nn.GradAccumulationCell(LossNet(), 2)\ny = c(x, t)\n"
                              f"result = ({_R.format('y')}, float(np.round(LossNet()(x, t).asnumpy(), 4)))",
    "grad_accumulation_bad_size": _NET + "result = ms.nn.GradAccumulationCell(Net(), 0)",
    "grad_accumulation_uneven": _NET + "result = ms.nn.GradAccumulationCell(Net(), 3)(x)",
    "micro_batch_interleaved": _NET + "c = ms.nn.MicroBatchInterleaved(Net(), 2)\ny = c(x)\n"
                               f"result = (y.shape, {_R.format('y')})",
    "micro_batch_interleaved_bad": _NET + "result = ms.nn.MicroBatchInterleaved(Net(), 2.0)",
    "pipeline_cell": _NET + _LOSSNET + "c = ms.nn.PipelineCell(LossNet(), 4)\ny = c(x, t)\n"
                     f"result = {_R.format('y')}",
    "virtual_dataset_cell_triple": "class Three(ms.nn.Cell):\n"
                                   "    def construct(self, a, b, c):\n"
                                   "        return a * b - c\n"
                                   "v = ms.nn.VirtualDatasetCellTriple(Three())\n"
                                   "y = v(ms.Tensor(np.array([1., 2.], np.float32)), ms.Tensor(np.array([3., 4.], "
                                   "np.float32)), ms.Tensor(np.array([1., 1.], np.float32)))\n"
                                   f"result = {_R.format('y')}",
    "pipeline_grad_reducer": _NET + "net = Net()\n"
                             "r = ms.nn.PipelineGradReducer(ms.ParameterTuple(net.trainable_params()), "
                             "scale_sense=2.0)\ng = tuple(ms.Tensor(np.ones(p.shape, np.float32)) for p in "
                             "net.trainable_params())\nout = r(g)\n"
                             "result = ([np.round(o.asnumpy(), 4).tolist() for o in out], "
                             "[p.name for p in r.accu_grads])",
    "jvp_single": "f = ms.ops.sin\nx = ms.Tensor(np.array([1., 2., 3.], np.float32))\n"
                  "out, j = ms.nn.Jvp(f)(x, ms.Tensor(np.array([1., 0.5, 2.], np.float32)))\n"
                  f"result = ({_R.format('out')}, {_R.format('j')})",
    "jvp_two": "f = ms.ops.mul\n"
               "a, b = ms.Tensor(np.array([1., 2.], np.float32)), ms.Tensor(np.array([3., 4.], np.float32))\n"
               "out, j = ms.nn.Jvp(f)(a, b, (ms.Tensor(np.array([1., 1.], np.float32)), ms.Tensor(np.array([2., "
               "0.], np.float32))))\n"
               f"result = ({_R.format('out')}, {_R.format('j')})",
    "vjp_single": "f = ms.ops.sin\nx = ms.Tensor(np.array([1., 2., 3.], np.float32))\n"
                  "out, g = ms.nn.Vjp(f)(x, ms.Tensor(np.array([1., 0.5, 2.], np.float32)))\n"
                  f"result = ({_R.format('out')}, {_R.format('g')})",
    "vjp_two": "f = ms.ops.mul\n"
               "a, b = ms.Tensor(np.array([1., 2.], np.float32)), ms.Tensor(np.array([3., 4.], np.float32))\n"
               "out, g = ms.nn.Vjp(f)(a, b, ms.Tensor(np.array([1., 2.], np.float32)))\n"
               "result = (np.round(out.asnumpy(), 4).tolist(), [np.round(v.asnumpy(), 4).tolist() for v in g])",
    "no_init_parameters": "with ms.nn.no_init_parameters():\n"
                          "    inside = ms.Parameter(ms.common.initializer.initializer('ones', [2], ms.float32), "
                          "name='p')\n"
                          "    flag_in = inside.init_param\n"
                          "after = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name='q')\n"
                          "result = (flag_in, inside.init_param, after.init_param)",
})

_X4 = "x = ms.Tensor(np.sin(np.arange(2 * 2 * 5 * 6, dtype=np.float32) * 0.7).reshape(2, 2, 5, 6))\n"
CASES.update({
    "avg_pool1d_ext": "x = ms.Tensor(np.arange(2 * 3 * 7, dtype=np.float32).reshape(2, 3, 7))\n"
                      "y = ms.nn.AvgPool1dExt(3, 2, 1, ceil_mode=True, count_include_pad=False)(x)\n"
                      f"result = (y.shape, {_R.format('y')})",
    "avg_pool1d_ext_default_stride": "x = ms.Tensor(np.arange(2 * 3 * 7, dtype=np.float32).reshape(2, 3, 7))\n"
                                     f"y = ms.nn.AvgPool1dExt(2)(x)\nresult = (y.shape, {_R.format('y')})",
    "avg_pool2d_ext": _X4 + "y = ms.nn.AvgPool2dExt((2, 3), 2, 1, divisor_override=4)(x)\n"
                      f"result = (y.shape, {_R.format('y')})",
    "avg_pool2d_ext_ceil": _X4 + "y = ms.nn.AvgPool2dExt(2, ceil_mode=True)(x)\n"
                           f"result = (y.shape, {_R.format('y')})",
    "avg_pool3d_ext": "x = ms.Tensor(np.cos(np.arange(2 * 1 * 4 * 4 * 5, dtype=np.float32)).reshape(2, 1, 4, 4, 5))\n"
                      "y = ms.nn.AvgPool3dExt(2, stride=(1, 2, 2), padding=(0, 1, 1), count_include_pad=False)(x)\n"
                      f"result = (y.shape, {_R.format('y')})",
    "max_pool2d_ext": _X4 + "y = ms.nn.MaxPool2dExt(3, 2, 1)(x)\nresult = (y.shape, " + _R.format("y") + ")",
    "max_pool2d_ext_indices": _X4 + "y, i = ms.nn.MaxPool2dExt(2, return_indices=True, ceil_mode=True)(x)\n"
                              f"result = (y.shape, {_R.format('y')}, i.dtype, i.asnumpy().tolist())",
    "max_pool2d_ext_dilation": _X4 + "y = ms.nn.MaxPool2dExt(2, 1, dilation=2)(x)\n"
                               f"result = (y.shape, {_R.format('y')})",
    "dropout_ext_eval": _X4 + f"y = ms.nn.DropoutExt(0.3)(x)\nresult = {_R.format('y')} == {_R.format('x')}",
    "dropout_ext_p1": _X4 + f"d = ms.nn.DropoutExt(1.0)\nd.set_train()\ny = d(x)\nresult = {_R.format('y')}",
    "dropout_ext_p0": _X4 + f"d = ms.nn.DropoutExt(0.0)\nd.set_train()\ny = d(x)\nresult = {_R.format('y')}",
    "embedding_ext": "w = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))\n"
                     "e = ms.nn.EmbeddingExt(4, 3, _weight=w)\n"
                     "y = e(ms.Tensor(np.array([[0, 3], [2, 2]], np.int32)))\n"
                     f"result = (y.shape, {_R.format('y')}, e.weight.name, e.weight.requires_grad)",
    "embedding_ext_padding": "e = ms.nn.EmbeddingExt(5, 2, padding_idx=1)\n"
                             "result = (e.weight.shape, e.weight.dtype, e.weight.asnumpy()[1].tolist())",
    "embedding_ext_max_norm": "w = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))\n"
                              "e = ms.nn.EmbeddingExt(4, 3, max_norm=2.0, _weight=w, _freeze=True)\n"
                              "y = e(ms.Tensor(np.array([1, 3], np.int64)))\n"
                              f"result = ({_R.format('y')}, e.weight.requires_grad)",
    "embedding_ext_dtype": "e = ms.nn.EmbeddingExt(3, 2, dtype=ms.float16)\nresult = e.weight.dtype",
    "l1_loss_ext": "a = ms.Tensor(np.array([[1., 2.], [3., -4.]], np.float32))\n"
                   "b = ms.Tensor(np.array([[0., 2.5], [1., 1.]], np.float32))\n"
                   "result = [np.round(ms.nn.L1LossExt(r)(a, b).asnumpy(), 4).tolist() for r in "
                   "('mean', 'sum', 'none')]",
    "l1_loss_ext_bad": "result = ms.nn.L1LossExt('avg')(ms.Tensor(np.ones(2, np.float32)), "
                       "ms.Tensor(np.ones(2, np.float32)))",
    "log_softmax_ext": "x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 5)\n"
                       "result = [np.round(ms.nn.LogSoftmaxExt(d)(x).asnumpy(), 4).tolist() for d in (None, 0, -1)]",
    "log_softmax_ext_2d": "x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))\n"
                          f"y = ms.nn.LogSoftmaxExt()(x)\nresult = {_R.format('y')}",
})

_MF = ("ids = ms.Tensor(np.array([[1, 3, 5, 0], [2, 2, 4, 1]], np.int32))\n"
       "vals = ms.Tensor(np.array([[1., 0.5, 2., 0.], [1., -1., 3., 1.]], np.float32))\n"
       "fields = ms.Tensor(np.array([[0, 0, 2, 1], [1, 1, 2, 0]], np.int32))\n"
       "table = ms.Tensor(np.sin(np.arange(12, dtype=np.float32)).reshape(6, 2))\n")
CASES.update({
    f"multi_field_{op.lower()}": _MF + f"m = ms.nn.MultiFieldEmbeddingLookup(6, 2, 3, param_init=table, "
                                       f"operator='{op}')\ny = m(ids, vals, fields)\n"
                                       f"result = (y.shape, {_R.format('y')}, m.embedding_table.name)"
    for op in ("SUM", "MEAN", "MAX")
})
CASES.update({
    "multi_field_bad_operator": "result = ms.nn.MultiFieldEmbeddingLookup(6, 2, 3, operator='PROD')",
    "multi_field_bad_field_size": "result = ms.nn.MultiFieldEmbeddingLookup(6, 2, 0)",
    "multi_field_bad_values": _MF + "result = ms.nn.MultiFieldEmbeddingLookup(6, 2, 3)(ids, ms.Tensor(np.ones((2, 4), "
                              "np.int32)), fields)",
})
CASES["multi_field_max_norm"] = (_MF + "m = ms.nn.MultiFieldEmbeddingLookup(6, 2, 3, param_init=table * 3, "
                                 "max_norm=1.5, operator='MEAN')\ny = m(ids, vals, fields)\n"
                                 f"result = {_R.format('y')}")

CASES.update({
    f"embedding_lookup_thor_{target.lower()}": (
        f"n = ms.nn.EmbeddingLookupThor(5, 3, param_init='ones', target='{target}')\n"
        "y = n(ms.Tensor(np.array([[1, 2], [2, 4]], np.int32)))\n"
        "result = (y.asnumpy().tolist(), n.matrix_a.asnumpy().tolist(), n.matrix_g.shape, "
        "[k for k, _ in n.parameters_and_names()], n.thor)")
    for target in ("CPU", "DEVICE")
})
# inside a network: a lone MindSpore BatchNorm names its statistics 'mean'/'variance' until a parent renames them
CASES["sync_bn_repr"] = "result = repr(ms.nn.SequentialCell([ms.nn.SyncBatchNorm(2, eps=1e-3, momentum=0.5)]))"
CASES["no_init_parameters_utils_path"] = "result = ms.nn.utils.no_init_parameters is ms.nn.no_init_parameters"
CASES["embedding_ext_repr"] = "result = repr(ms.nn.EmbeddingExt(3, 2, padding_idx=1, max_norm=2.0))"
CASES.update({
    f"adasum_{name.lower()}_stand_alone": (_PARAMS + f"result = ms.nn.{name}(ms.nn.Momentum(ps, 0.1, 0.9))")
    for name in ("AdaSumByGradWrapCell", "AdaSumByDeltaWeightWrapCell")
})
CASES["adasum_data_parallel_too_few"] = (
    _PARAMS + "ms.set_auto_parallel_context(parallel_mode='data_parallel', device_num=2)\n"
    "try:\n    result = ms.nn.AdaSumByGradWrapCell(ms.nn.Momentum(ps, 0.1, 0.9))\n"
    "finally:\n    ms.reset_auto_parallel_context()")
