"""Small programs over MindSpore 2.x's framework names (``mindspore.runtime`` streams and limits,
``run_check``, Cell conveniences, amp and train helpers) whose ``str(result)`` scripts/record_framework_extras.py
records from MindSpore 2.10 and tests/compat/test_framework_extras.py compares with opbuild's. Each program runs
with ``ms`` (the framework) and ``np`` and sets ``result``; imports no framework itself. A program whose
MindSpore result depends on the machine (CPU limits print uninitialised numbers there) compares the keys."""

CASES = {
    "stream_limit_set": ("s = ms.runtime.Stream()\nms.runtime.set_stream_limit(s, 8, 4)\n"
                         "result = sorted(ms.runtime.get_stream_limit(s))"),
    "stream_limit_reset": "s = ms.runtime.Stream()\nms.runtime.set_stream_limit(s, 8, 8)\n"
                          "ms.runtime.reset_stream_limit(s)\nresult = sorted(ms.runtime.get_stream_limit(s))",
    "device_limit_keys": "ms.runtime.set_device_limit(0, 8, 8)\nresult = sorted(ms.runtime.get_device_limit(0))",
    "kernel_capture": "result = ms.runtime.set_kernel_launch_capture(False, ['matmul', 'addn'])",
    "stream_sync": "s = ms.runtime.Stream()\nresult = s.synchronize()",
    "run_check": ("import io, contextlib\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
                  "    ms.run_check()\nresult = buf.getvalue().splitlines()[-1]"),
}

_CM = (
    "x = np.array([[[0, 1, 1], [1, 0, 0], [1, 1, 0]], [[1, 0, 1], [0, 0, 1], [1, 0, 0]]])\n"
    "y = np.array([[[0, 1, 0], [1, 0, 1], [1, 0, 0]], [[1, 1, 1], [0, 0, 0], [0, 0, 1]]])\n")
for _name in ("tpr", "specificity", "precision", "npv", "miss_rate", "fall out", "fdr", "for", "pt", "ts",
              "accuracy", "ba", "f1 score", "mcc", "fm", "bm", "mk"):
    CASES[f"cmm_{_name}"] = _CM + (f"m = ms.train.ConfusionMatrixMetric(metric_name={_name!r})\n"
                                   "m.update(ms.Tensor(x), ms.Tensor(y))\nresult = np.round(m.eval(), 6)")
for _dec in ("mean", "sum"):  # MindSpore 2.10 fails on the other decrease modes
    CASES[f"cmm_calc_{_dec}"] = _CM + (
        f"m = ms.train.ConfusionMatrixMetric(skip_channel=False, metric_name='f1', calculation_method=True, "
        f"decrease={_dec!r})\nm.update(x, y)\nm.update(y, y)\nresult = round(float(m.eval()), 6)")
CASES["cmm_example"] = ("m = ms.train.ConfusionMatrixMetric(skip_channel=True, metric_name='tpr', "
                        "calculation_method=False, decrease='mean')\nm.clear()\n"
                        "m.update(ms.Tensor(np.array([[[0], [1]], [[1], [0]]])), "
                        "ms.Tensor(np.array([[[0], [1]], [[0], [1]]])))\nresult = m.eval()")
CASES["cmm_bad_name"] = _CM + ("m = ms.train.ConfusionMatrixMetric(metric_name='nope')\nm.update(x, y)\n"
                               "result = m.eval()")
_NET = ("class Net(ms.nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
        "        self.w = ms.Parameter(ms.Tensor(np.arange(24, dtype=np.float32).reshape(12, 2) / 10))\n"
        "    def construct(self, x):\n        return ms.ops.matmul(x.reshape(x.shape[0], -1), self.w)\n")
CASES["occlusion_2d"] = _NET + ("m = ms.train.OcclusionSensitivity(margin=1, n_batch=5)\n"
                                "m.update(Net(), np.arange(12, dtype=np.float32).reshape(1, 3, 4) / 7, np.array(1))\n"
                                "result = np.round(m.eval(), 4)")
CASES["occlusion_box"] = _NET + ("m = ms.train.OcclusionSensitivity(pad_val=0.5, margin=1, "
                                 "b_box=[1, 2, 0, 2])\n"
                                 "m.update(Net(), np.arange(12, dtype=np.float32).reshape(1, 3, 4) / 7, "
                                 "np.array(0))\nresult = np.round(m.eval(), 4)")
CASES["occlusion_batch2"] = _NET + ("m = ms.train.OcclusionSensitivity()\n"
                                    "m.update(Net(), np.ones((2, 3, 4), np.float32), np.array(0))\nresult = m.eval()")
CASES["train_names"] = "result = ms.train.names()"
CASES["conv2d_repr_normal"] = "result = repr(ms.nn.Conv2d(120, 240, 4, has_bias=False, weight_init='normal'))"
CASES["conv2d_repr_default"] = ("result = repr(ms.nn.Conv2d(3, 8, (3, 5), stride=2, pad_mode='pad', padding=1, "
                                "weight_init='ones'))")
CASES["conv2d_repr_bias"] = ("result = repr(ms.nn.Conv2d(4, 4, 3, pad_mode='valid', dilation=2, group=2, "
                             "has_bias=True, weight_init='uniform', bias_init='zeros'))")
CASES["conv2d_repr_pad4"] = ("result = repr(ms.nn.Conv2d(2, 2, 1, pad_mode='pad', padding=(1, 2, 3, 4), "
                             "weight_init='zeros'))")
CASES["cell_to"] = ("net = ms.nn.Dense(4, 4)\nr = net.to(device='CPU', dtype=ms.float16)\n"
                    "result = (r is net, repr(r), [str(p.dtype) for p in net.get_parameters()], "
                    "str(net(ms.Tensor(np.ones((1, 4), np.float16))).dtype))")
CASES["cell_to_none"] = ("net = ms.nn.Dense(2, 2)\nr = net.to()\n"
                         "result = [str(p.dtype) for p in r.get_parameters()]")
CASES["cell_to_int"] = "net = ms.nn.Dense(2, 2)\nresult = net.to(dtype=ms.int32)"
CASES["cell_to_device"] = "net = ms.nn.Dense(2, 2)\nresult = net.to(device='GPU')"
CASES["offload"] = "net = ms.nn.Dense(2, 2)\nresult = net.offload()"
CASES["ckpt_name_kept"] = ("import os, tempfile\nd = tempfile.mkdtemp()\nn = os.path.join(d, 'model_ckpt')\n"
                           "ms.save_checkpoint(ms.nn.Dense(2, 2), n)\n"
                           "result = (sorted(os.listdir(d)), sorted(ms.load_checkpoint(n)))")
CASES["ckpt_name_suffixed"] = ("import os, tempfile\nd = tempfile.mkdtemp()\nn = os.path.join(d, 'model')\n"
                               "ms.save_checkpoint(ms.nn.Dense(2, 2), n)\nresult = sorted(os.listdir(d))")
CASES["grad_scale_map"] = (
    "sv = ms.Parameter(ms.Tensor(1024, ms.float32), name='sv')\n"
    "g = (ms.Tensor(np.array([1.0, 2.0], np.float32)), ms.Tensor(np.array([0.5], np.float16)))\n"
    "s = ms.amp._grad_scale_map(sv, g)\nu = ms.amp._grad_unscale_map(sv, s)\n"
    "result = (type(s).__name__, [x.asnumpy().tolist() for x in s], [str(x.dtype) for x in s], "
    "[x.asnumpy().tolist() for x in u])")
CASES["coo_add"] = (
    "a = ms.COOTensor(ms.Tensor([[0, 1], [1, 2]], dtype=ms.int64), ms.Tensor([1, 2], dtype=ms.int32), (3, 4))\n"
    "b = ms.COOTensor(ms.Tensor([[0, 0], [1, 1]], dtype=ms.int64), ms.Tensor([3, 4], dtype=ms.int32), (3, 4))\n"
    "result = a.add(b, ms.Tensor(0, dtype=ms.int32))")
CASES["coo_add_thresh"] = (
    "a = ms.COOTensor(ms.Tensor([[0, 1], [2, 2]], dtype=ms.int64), ms.Tensor([1.5, -2.0], ms.float32), (3, 4))\n"
    "b = ms.COOTensor(ms.Tensor([[0, 1], [1, 1], [2, 2]], dtype=ms.int64), "
    "ms.Tensor([-1.0, 0.25, 1.0], ms.float32), (3, 4))\n"
    "result = a.add(b, ms.Tensor(0.5, ms.float32))")
CASES["coo_coalesce"] = (
    "c = ms.COOTensor(ms.Tensor([[0, 0, 1], [1, 1, 2]], dtype=ms.int64).transpose(), "
    "ms.Tensor([1, 5, 4], dtype=ms.float32), (3, 3))\nresult = c.coalesce()")
CASES["csr_add"] = (
    "ip = ms.Tensor([0, 1, 2], dtype=ms.int32)\nix = ms.Tensor([0, 1], dtype=ms.int32)\n"
    "a = ms.CSRTensor(ip, ix, ms.Tensor([2, 1], dtype=ms.float32), (2, 4))\n"
    "b = ms.CSRTensor(ip, ix, ms.Tensor([1, 2], dtype=ms.float32), (2, 4))\n"
    "result = a.add(b, ms.Tensor(1, ms.float32), ms.Tensor(1, ms.float32))")
CASES["csr_add_union"] = (
    "a = ms.CSRTensor(ms.Tensor([0, 1, 2, 2], ms.int32), ms.Tensor([3, 0], ms.int32), "
    "ms.Tensor([2.0, 1.0], ms.float32), (3, 4))\n"
    "b = ms.CSRTensor(ms.Tensor([0, 2, 2, 3], ms.int32), ms.Tensor([1, 3, 2], ms.int32), "
    "ms.Tensor([1.0, 2.0, 5.0], ms.float32), (3, 4))\n"
    "result = a.add(b, ms.Tensor(2.0, ms.float32), ms.Tensor(-1.0, ms.float32))")
CASES["declared_input_repr"] = ("net = ms.nn.ReLU()\nnet.set_inputs(ms.Tensor(shape=[3, None], dtype=ms.float32))\n"
                               "result = net.get_inputs()")
CASES["symbol_min0"] = "result = ms.Symbol(min=0)"
CASES["symbol_divisor0"] = "result = ms.Symbol(divisor=0)"
CASES["symbol_float"] = "result = ms.Symbol(max=3.5)"
CASES["symbol_declaration"] = ("t = ms.Tensor(shape=(None, ms.Symbol(divisor=8, remainder=1), ms.Symbol(max=32)), "
                               "dtype=ms.float32)\nresult = t.shape")
CASES["amp_white_cells"] = "result = [c.__name__ for c in ms.amp.get_white_list() if issubclass(c, ms.nn.Cell)]"
CASES["amp_black_cells"] = "result = [c.__name__ for c in ms.amp.get_black_list()]"
