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
