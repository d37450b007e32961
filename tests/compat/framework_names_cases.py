"""Programs over the framework names of MindSpore 2.10's top level and its runtime, dtype, context, amp, nn.wrap,
train and parallel modules (common/dtype_kinds.py, runtime/memory.py, hal.py, train/ckpt_convert.py,
framework_names.py, ...): scripts/record_framework_names.py records MindSpore 2.10's ``str(result)`` of each,
tests/compat/test_framework_names.py compares opbuild's. Each program runs with ``ms`` and ``np`` and sets
``result``."""

KINDS = "(ms.string, ms.number, ms.list_, ms.tuple_, ms.type_none, ms.tensor_type)"
DTYPE_NAMES = ("string", "number", "list_", "tuple_", "type_none", "tensor_type", "Int", "TensorType", "QuantDtype")
RUNTIME_TOP = ("synchronize", "Stream", "current_stream", "default_stream", "set_cur_stream", "memory_allocated",
               "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats", "memory_summary",
               "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_reserved", "empty_cache",
               "Event", "StreamCtx", "StreamLimitCtx", "launch_blocking", "communication_stream", "get_stream_limit",
               "set_stream_limit",
               "reset_stream_limit", "get_device_limit", "set_device_limit", "set_kernel_launch_capture")
MEMORY_FUNCS = ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
                "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_reserved", "empty_cache",
                "synchronize", "launch_blocking")
WRAP = ("DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "ForwardValueAndGrad", "GradAccumulationCell",
        "MicroBatchInterleaved", "ParameterUpdate", "PipelineCell", "PipelineGradReducer", "TimeDistributed",
        "TrainOneStepWithLossScaleCell", "VirtualDatasetCellTriple", "WithGradCell")

# A network with fixed weights for the mixed-precision programs.
NET = """
class Net(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = ms.nn.Dense(3, 2)
        self.d.weight.set_data(ms.Tensor(np.array([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]], np.float32)))
        self.d.bias.set_data(ms.Tensor(np.array([0.1, -0.2], np.float32)))
        self.r = ms.nn.ReLU()
        self.bn = ms.nn.BatchNorm1d(2)
    def construct(self, x):
        return self.bn(self.r(self.d(x)))
net = Net()
net.set_train(False)
x = ms.Tensor(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32))
"""
SEQ = NET + "seq = ms.nn.SequentialCell([net.d, ms.nn.ReLU()])\n"
OUT = "\nresult = (str(y.dtype), y.asnumpy().astype(np.float64).round(2).tolist())"

# Checkpoint files in a fresh directory ``d``.
CKPT = """
import os, struct, tempfile
d = tempfile.mkdtemp()
ms.save_checkpoint([{"name": "x", "data": ms.Tensor(np.arange(6, dtype=np.float16).reshape(2, 3))},
                    {"name": "y", "data": ms.Tensor(np.array([1, 2], np.int64))},
                    {"name": "w", "data": ms.Tensor(np.array([[1.5, -2.0]], np.float32))}], os.path.join(d, "b.ckpt"))
def header(path):
    blob = open(path, "rb").read()
    n = struct.unpack("<Q", blob[:8])[0]
    return (n, blob[8:8 + n].decode())
def show(params):
    return [(k, str(v.dtype), v.asnumpy().tolist()) for k, v in params.items()]
"""

# Two training runs of a fixed-weight Dense with BackupAndRestore in ``d``.
BACKUP = """
import os, tempfile
d = tempfile.mkdtemp()
def run(epochs, **kw):
    net = ms.nn.Dense(2, 1)
    net.weight.set_data(ms.Tensor(np.array([[0.5, -0.5]], np.float32)))
    net.bias.set_data(ms.Tensor(np.array([0.25], np.float32)))
    data = ms.dataset.NumpySlicesDataset({"x": np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [2.0, 1.0]],
                                                       np.float32),
                                          "y": np.array([[1.0], [0.0], [2.0], [-1.0]], np.float32)},
                                         shuffle=False).batch(2)
    model = ms.train.Model(net, ms.nn.MSELoss(), ms.nn.SGD(net.trainable_params(), 0.1))
    model.train(epochs, data, callbacks=[ms.train.BackupAndRestore(os.path.join(d, "bk"), **kw)],
                dataset_sink_mode=False)
    return [round(v, 4) for v in net.weight.asnumpy().ravel().tolist() + net.bias.asnumpy().tolist()]
"""

CASES: dict[str, str] = {
    # mindspore.common.dtype's non-tensor types and type classes, also at the top level
    "kinds_text": f"result = [(str(k), repr(k)) for k in {KINDS}]",
    "kinds_same_objects": f"result = [getattr(ms.common.dtype, n) is getattr(ms, n) for n in {DTYPE_NAMES!r}]",
    "kinds_equality": "result = (ms.string == ms.string, ms.number == ms.int32, ms.list_ == ms.tuple_, "
                      "ms.type_none == ms.type_none, ms.tensor_type == ms.TensorType(ms.float32))",
    "int_class": "result = (str(ms.Int(32)), repr(ms.Int(8)), ms.Int(64) == ms.int64, repr(ms.Int()), str(ms.Int()), "
                 "isinstance(ms.int32, ms.Int), isinstance(ms.uint8, ms.Int), isinstance(ms.float32, ms.Int), "
                 "isinstance(ms.Int(), ms.Int))",
    "int_bad_bits": "result = ms.Int(7)",
    "int_bad_bits_128": "result = ms.Int(128)",
    "tensor_type": "t = ms.TensorType(ms.float32)\nresult = (str(t), repr(ms.TensorType(ms.int8)), "
                   "t == ms.TensorType(ms.float32), t == ms.TensorType(ms.int8), str(t.element_type()), "
                   "isinstance(ms.tensor_type, ms.TensorType), hash(t) == hash(ms.TensorType(ms.float32)))",
    "quant_dtype": "result = [(q.name, q.value(), str(q)) for q in ms.QuantDtype] + [str(ms.QuantDtype(7))]",
    "pytype_kinds": "result = ([str(ms.pytype_to_dtype(t)) for t in (str, list, tuple, type(None))], "
                    "[str(ms.get_py_obj_dtype(o)) for o in ('a', [1], (1,), None)], "
                    "[ms.dtype_to_pytype(k).__name__ for k in (ms.string, ms.list_, ms.tuple_, ms.type_none)])",
    "py_obj_dtype": "result = [str(ms.get_py_obj_dtype(o)) for o in (ms.Tensor([1.0]), ms.Tensor([1], ms.int32), "
                    "ms.Parameter(ms.Tensor([1.0]), name='p'), True, 1, 1.0, ms.float32, int, np.float32)] + "
                    "[repr(ms.get_py_obj_dtype(ms.float32)), repr(ms.get_py_obj_dtype(ms.Tensor([1], ms.int32)))]",
    # context
    "syntax_levels": "result = (ms.STRICT, ms.COMPATIBLE, ms.LAX, ms.context.STRICT, ms.context.COMPATIBLE, "
                     "ms.context.LAX)",
    "syntax_level_set": "ms.set_context(jit_syntax_level=ms.LAX)\nresult = ms.get_context('jit_syntax_level')\n"
                        "ms.set_context(jit_syntax_level=ms.STRICT)",
    "context_ps": "result = (ms.context.get_ps_context('enable_ps'), ms.context.get_ps_context is ms.get_ps_context)",
    # runtime (memory, streams) and hal on the CPU
    "runtime_top_same": f"result = [getattr(ms, n) is getattr(ms.runtime, n) for n in {RUNTIME_TOP!r}]",
    "memory_result_types": f"result = [type(getattr(ms.runtime, n)()).__name__ for n in {MEMORY_FUNCS!r}]",
    "memory_stats_keys": "s = ms.runtime.memory_stats()\nresult = (sorted(s), sorted(s['common_mem_pool_stats']), "
                         "sorted(s['persistent_mem_pool_stats']), [type(v).__name__ for v in s.values()])",
    "memory_summary_layout": "result = [line[:24] for line in ms.runtime.memory_summary().splitlines()]",
    "hal_cpu": "result = (ms.hal.device_count(), ms.hal.device_count('CPU'), ms.hal.is_available('CPU'), "
               "ms.hal.get_device_name(0, 'CPU'), ms.hal.get_device_properties(0, 'CPU'), "
               "ms.hal.get_device_capability(0, 'CPU'), ms.hal.get_arch_list('CPU'))",
    "hal_bad_target": "result = ms.hal.is_available('XPU')",
    "hal_bad_device_id": "result = ms.hal.get_device_name('CPU')",
    "hal_memory": "result = [type(getattr(ms.hal, n)()).__name__ for n in ('memory_allocated', 'max_memory_allocated', "
                  "'memory_reserved', 'max_memory_reserved', 'memory_summary', 'empty_cache', 'synchronize')]",
    "hal_streams": "result = (str(type(ms.hal.default_stream()).__name__), "
                   "ms.hal.current_stream() == ms.hal.default_stream())",
    # nn.wrap module paths
    "nn_wrap_paths": f"result = [getattr(ms.nn.wrap, n) is getattr(ms.nn, n) for n in {WRAP!r}]",
    # amp.custom_mixed_precision
    # MindSpore rewrites a white-listed network from its source, which a class defined in exec() lacks: the
    # white-list programs use a SequentialCell.
    "custom_mp_white": SEQ + "y = ms.amp.custom_mixed_precision(seq, white_list=[ms.nn.Dense])(x)" + OUT,
    "custom_mp_white_bf16": SEQ + "y = ms.amp.custom_mixed_precision(seq, white_list=[ms.nn.Dense], "
                                  "dtype=ms.bfloat16)(x)" + OUT,
    "custom_mp_white_seq_black": SEQ + "y = ms.amp.custom_mixed_precision(seq, black_list=[ms.nn.Dense])(x)" + OUT,
    "custom_mp_black": NET + "y = ms.amp.custom_mixed_precision(net, black_list=[ms.nn.BatchNorm1d])(x)" + OUT,
    "custom_mp_black_relu": NET + "y = ms.amp.custom_mixed_precision(net, black_list=[ms.nn.ReLU])(x)" + OUT,
    "custom_mp_no_list": NET + "result = ms.amp.custom_mixed_precision(net)",
    "custom_mp_both_lists": NET + "result = ms.amp.custom_mixed_precision(net, white_list=[ms.nn.Dense], "
                                  "black_list=[ms.nn.ReLU])",
    "custom_mp_float32": NET + "result = ms.amp.custom_mixed_precision(net, white_list=[ms.nn.Dense], "
                               "dtype=ms.float32)",
    "build_train_network_top": "result = ms.build_train_network is ms.amp.build_train_network",
    # checkpoints
    "ckpt_to_safetensors": CKPT + "r = ms.ckpt_to_safetensors(os.path.join(d, 'b.ckpt'), "
                           "save_path=os.path.join(d, 'o'))\nresult = (r, sorted(os.listdir(os.path.join(d, 'o'))), "
                           "header(os.path.join(d, 'o', 'b.safetensors')))",
    "safetensors_to_ckpt": CKPT + "ms.ckpt_to_safetensors(os.path.join(d, 'b.ckpt'), save_path=os.path.join(d, 'o'))\n"
                           "ms.safetensors_to_ckpt(os.path.join(d, 'o', 'b.safetensors'), "
                           "save_path=os.path.join(d, 'k'))\nresult = (sorted(os.listdir(os.path.join(d, 'k'))), "
                           "show(ms.load_checkpoint(os.path.join(d, 'k', 'b.ckpt'))))",
    "ckpt_to_safetensors_default_dir": CKPT + "ms.ckpt_to_safetensors(os.path.join(d, 'b.ckpt'))\n"
                                       "result = sorted(os.listdir(d))",
    "ckpt_to_safetensors_name_map": CKPT + "ms.ckpt_to_safetensors(os.path.join(d, 'b.ckpt'), save_path=os.path.join("
                                    "d, 'o'), name_map={'x': 'renamed'})\n"
                                    "result = header(os.path.join(d, 'o', 'b.safetensors'))",
    "ckpt_to_safetensors_rank_dirs": CKPT + "os.makedirs(os.path.join(d, 'r', 'rank_0'))\n"
                                     "os.makedirs(os.path.join(d, 'r', 'rank_1'))\n"
                                     "ms.save_checkpoint([{'name': 'a', 'data': ms.Tensor([1.0])}], "
                                     "os.path.join(d, 'r', 'rank_0', 'n.ckpt'))\n"
                                     "ms.save_checkpoint([{'name': 'a', 'data': ms.Tensor([2.0])}], "
                                     "os.path.join(d, 'r', 'rank_1', 'n.ckpt'))\n"
                                     "ms.ckpt_to_safetensors(os.path.join(d, 'r'), save_path=os.path.join(d, 'o'))\n"
                                     "result = sorted((os.path.relpath(r, d), sorted(f)) for r, _, f in "
                                     "os.walk(os.path.join(d, 'o')))",
    "ckpt_to_safetensors_no_rank_dir": CKPT + "ms.ckpt_to_safetensors(d, save_path=os.path.join(d, 'o'))",
    "ckpt_to_safetensors_bad_suffix": CKPT + "open(os.path.join(d, 'x.txt'), 'w').close()\n"
                                      "ms.ckpt_to_safetensors(os.path.join(d, 'x.txt'))",
    "ckpt_to_safetensors_save_path_file": CKPT + "ms.ckpt_to_safetensors(os.path.join(d, 'b.ckpt'), "
                                          "save_path=os.path.join(d, 'o.safetensors'))",
    "ckpt_to_safetensors_missing": CKPT + "ms.ckpt_to_safetensors(os.path.join(d, 'none.ckpt'))",
    "load_checkpoint_async": CKPT + "f = ms.load_checkpoint_async(os.path.join(d, 'b.ckpt'))\n"
                             "result = (type(f).__name__, show(f.result()))",
    "load_checkpoint_async_net": CKPT + "net = ms.nn.Dense(2, 1, has_bias=False)\n"
                                 "net.weight.set_data(ms.Tensor(np.zeros((1, 2), np.float32)))\n"
                                 "ms.save_checkpoint([{'name': 'weight', 'data': ms.Tensor(np.array([[1.5, -2.0]], "
                                 "np.float32))}], os.path.join(d, 'n.ckpt'))\n"
                                 "f = ms.load_checkpoint_async(os.path.join(d, 'n.ckpt'), net=net)\n"
                                 "result = (sorted(f.result()), net.weight.asnumpy().tolist())",
    "load_segmented_checkpoints": CKPT + "os.makedirs(os.path.join(d, 's'))\n"
                                  "ms.save_checkpoint([{'name': 'a', 'data': ms.Tensor([1.0])}], "
                                  "os.path.join(d, 's', 'p1.ckpt'))\n"
                                  "ms.save_checkpoint([{'name': 'b', 'data': ms.Tensor([2.0])}], "
                                  "os.path.join(d, 's', 'p2.ckpt'))\n"
                                  "result = (show(ms.load_segmented_checkpoints(os.path.join(d, 's'))), "
                                  "ms.parallel.load_segmented_checkpoints is ms.load_segmented_checkpoints)",
    "train_serialization_names": "result = (ms.train.ckpt_to_safetensors is ms.ckpt_to_safetensors, "
                                 "ms.train.serialization.safetensors_to_ckpt is ms.safetensors_to_ckpt, "
                                 "ms.train.load_checkpoint_async is ms.load_checkpoint_async, "
                                 "ms.train.data_sink is ms.data_sink)",
    # train.callback.BackupAndRestore
    "backup_kept": BACKUP + "w = run(2, save_freq=1, delete_checkpoint=False)\n"
                   "result = (w, sorted(os.listdir(os.path.join(d, 'bk'))), "
                   "sorted(ms.load_checkpoint(os.path.join(d, 'bk', 'backup.ckpt'))))",
    "backup_restored": BACKUP + "w1 = run(2, delete_checkpoint=False)\nw2 = run(1)\nw3 = run(3)\n"
                       "result = (w1, w2, w3, sorted(os.listdir(os.path.join(d, 'bk'))))",
    "backup_freq": BACKUP + "w = run(3, save_freq=2, delete_checkpoint=False)\nw2 = run(1)\nresult = (w, w2)",
    "backup_bad_dir": "result = ms.train.BackupAndRestore(3)",
    "backup_bad_freq": "result = ms.train.BackupAndRestore(__import__('tempfile').mkdtemp(), save_freq=0)",
    "backup_bad_freq_str": "result = ms.train.BackupAndRestore(__import__('tempfile').mkdtemp(), save_freq='step')",
    "backup_bad_delete": "result = ms.train.BackupAndRestore(__import__('tempfile').mkdtemp(), delete_checkpoint=1)",
    "backup_paths": "result = (ms.BackupAndRestore is ms.train.BackupAndRestore, "
                    "ms.train.callback.BackupAndRestore is ms.train.BackupAndRestore)",
    # profiler
    "profiler_enums": "result = ([(e.name, e.value) for e in ms.profiler.ExportType], "
                      "[(e.name, e.value) for e in ms.profiler.HostSystem])",
    "mstx_without_profile": "m = ms.profiler.mstx\nresult = (m.mark('m'), m.range_start('r'), m.range_end(0))",
    "profile_methods": "result = [hasattr(ms.profiler.profile, n) for n in ('start', 'stop', 'step', 'add_metadata', "
                       "'add_metadata_json', '__enter__', '__exit__')]",
    "experimental_config": "p = ms.profiler\nc = p._ExperimentalConfig(mstx=True, export_type=[p.ExportType.Text], "
                           "host_sys=[p.HostSystem.CPU])\nresult = (c.mstx, c.export_type, c.host_sys, c.l2_cache, "
                           "c.data_simplification, c.profiler_level, c.mstx_domain_include)",
    # swap_tensors, shard, set_dump
    "swap_tensors": "a = ms.Tensor(np.array([1.0, 2.0], np.float32))\nb = ms.Tensor(np.array([[3, 4, 5]], np.int32))\n"
                    "r = ms.swap_tensors(a, b)\nresult = (r, a.shape, str(a.dtype), a.asnumpy().tolist(), b.shape, "
                    "str(b.dtype), b.asnumpy().tolist())",
    "swap_tensors_not_tensor": "result = ms.swap_tensors(ms.Tensor([1.0]), 3)",
    "shard_standalone": "def f(x):\n    return x * 2\ng = ms.shard(f, in_strategy=((1, 1),))\n"
                        "result = (g is f, g(ms.Tensor([1.0, 2.0])).asnumpy().tolist(), "
                        "ms.parallel.shard is ms.shard)",
    "shard_cell": "c = ms.nn.ReLU()\nresult = ms.shard(c, in_strategy=((1, 1),)) is c",
    "set_dump_bad_target": "result = ms.set_dump(3)",
    "set_dump_bad_enabled": "result = ms.set_dump(ms.nn.ReLU(), enabled=1)",
    # parallel helpers of a data-parallel runtime
    "parallel_merge_sliced": "p = [ms.Parameter(ms.Tensor(np.array([[1.0, 2.0]], np.float32)), name='w'), "
                             "ms.Parameter(ms.Tensor(np.array([[3.0, 4.0]], np.float32)), name='w')]\n"
                             "m = ms.parallel.merge_sliced_parameter(p)\n"
                             "result = (m.name, m.asnumpy().tolist(), ms.parallel.merge_sliced_parameter is "
                             "ms.merge_sliced_parameter)",
    "parallel_algo_parameters": "ms.parallel.set_algo_parameters(fully_use_devices=True)\n"
                                "a = ms.parallel.get_algo_parameters('fully_use_devices')\n"
                                "ms.parallel.reset_algo_parameters()\n"
                                "result = (a, ms.parallel.get_algo_parameters('fully_use_devices'))",
    "metric_names_top": "result = (ms.names() == ms.train.names(), 'acc' in ms.names())",
}
