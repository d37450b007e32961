"""Small programs over MindSpore 2.x's top-level helpers (seeds and generators, buffers, parameter settings,
contexts, legacy sparse containers) whose ``str(result)`` scripts/record_top_level_extras.py records from
MindSpore 2.10 and tests/compat/test_top_level_extras.py compares with opbuild's. Each program runs with
``ms`` (the framework) and ``np`` and sets ``result``; imports no framework itself."""

P = "p = ms.Parameter(ms.Tensor(np.array([1, 2], np.float32)), name='p')\n"

CASES = {
    "get_seed": "ms.set_seed(1234)\nresult = ms.get_seed()",
    "manual_seed": "g = ms.manual_seed(13)\nresult = (type(g).__name__, ms.initial_seed())",
    "generator_state": ("g = ms.Generator()\ng.manual_seed(5)\nst = g.get_state()\ns = g.seed()\n"
                        "g.set_state(st)\nresult = (g.initial_seed(), isinstance(s, int))"),
    "rng_state": "st = ms.get_rng_state()\nms.set_rng_state(st)\nresult = len(st)",
    "from_numpy": "result = ms.from_numpy(np.array([1, 2]))",
    "frombuffer": "result = ms.frombuffer(bytearray([1, 2, 3, 4, 5, 6]), dtype=ms.uint8)",
    "frombuffer_f32": "result = ms.frombuffer(np.arange(3, dtype=np.float32).tobytes(), dtype=ms.float32)",
    "get_bytes": "result = ms.Tensor([1, 2, 3], ms.int16).get_bytes()",
    "param_defaults": P + ("result = (p.layerwise_parallel, p.parallel_optimizer, p.comm_fusion, p.cache_enable, "
                           "p.sliced, p.unique, p.inited_param, p.parallel_optimizer_comm_recompute)"),
    "param_set": P + ("p.comm_fusion = 3\np.sliced = True\np.key = 2\np.cache_enable = True\n"
                      "p.cache_shape = [1, 2]\nresult = (p.comm_fusion, p.sliced, p.key, p.cache_enable, "
                      "p.cache_shape)"),
    "param_value": P + "result = p.value()",
    "merge_sliced": ("ps = [ms.Parameter(ms.Tensor(np.array([0.5, 1.5])), 'net.w'), "
                     "ms.Parameter(ms.Tensor(np.array([2.5, 3.5])), 'net.w')]\n"
                     "m = ms.merge_sliced_parameter(ps)\nresult = (m, m.asnumpy().tolist())"),
    "algo_defaults": ("ms.reset_algo_parameters()\nresult = [ms.get_algo_parameters(k) for k in "
                      "('fully_use_devices', 'elementwise_op_strategy_follow', 'enable_algo_approxi', "
                      "'algo_approxi_epsilon', 'tensor_slice_align_enable', 'tensor_slice_align_size')]"),
    "algo_set": ("ms.set_algo_parameters(fully_use_devices=False)\nresult = ms.get_algo_parameters("
                 "'fully_use_devices')\nms.reset_algo_parameters()"),
    "mutable": "result = ms.mutable((ms.Tensor([1.0]), ms.Tensor([2.0])))",
    "row_tensor": ("x = ms.RowTensor(ms.Tensor([0]), ms.Tensor([[1, 2]], dtype=ms.float32), (3, 2))\n"
                   "result = (x.values, x.indices, x.dense_shape)"),
    "sparse_tensor": ("x = ms.SparseTensor(ms.Tensor([[0, 1], [1, 2]]), ms.Tensor([1, 2], dtype=ms.float32), "
                      "(3, 4))\nresult = (x.values, x.indices, x.shape)"),
    "recompute": "result = ms.recompute(ms.nn.ReLU(), ms.Tensor([-1.0, 2.0]))",
    "recompute_function": "result = ms.recompute(lambda a: a * 2, ms.Tensor([1.0, 2.0]))",
    "no_inline": "f = ms.no_inline(lambda a: a + 1)\nresult = f(ms.Tensor([1.0]))",
    "init_identity": "I = ms.common.initializer\nresult = I.initializer(I.Identity(), [2, 3], ms.float32).asnumpy()",
    "init_identity_name": "I = ms.common.initializer\nresult = I.initializer('identity', [3, 2]).asnumpy()",
    "init_dirac": ("I = ms.common.initializer\nresult = I.initializer(I.Dirac(groups=2), [6, 4, 3, 3], "
                   "ms.float32).asnumpy().reshape(6, -1).tolist()"),
    "init_dirac_3d": ("I = ms.common.initializer\nresult = I.initializer('dirac', [2, 3, 3], ms.float32)"
                      ".asnumpy().tolist()"),
    "init_orthogonal_shape": ("I = ms.common.initializer\nw = I.initializer(I.Orthogonal(gain=2.), [2, 3, 4], "
                              "ms.float32)\nm = w.asnumpy().reshape(2, -1)\n"
                              "result = (w.shape, np.allclose(m @ m.T, 4 * np.eye(2), atol=1e-4))"),
    "init_variance_scaling": ("I = ms.common.initializer\nw = I.initializer(I.VarianceScaling(scale=1.0, "
                              "mode='fan_out', distribution='untruncated_normal'), [2, 3], ms.float32)\n"
                              "result = (w.shape, w.dtype)"),
    "init_variance_scaling_name": ("I = ms.common.initializer\nw = I.initializer('varianceScaling', [2, 3], "
                                   "ms.float32)\nresult = (w.shape, w.dtype)"),
    "init_sparse": ("I = ms.common.initializer\nw = I.initializer(I.Sparse(sparsity=0.5, sigma=0.01), [4, 8], "
                    "ms.float32).asnumpy()\nresult = (w.shape, (w == 0).sum(axis=0).tolist())"),
    "metric_dice": ("m = ms.train.Dice(smooth=1e-5)\nm.clear()\nm.update(ms.Tensor(np.array([[0.2, 0.5], "
                    "[0.3, 0.1], [0.9, 0.6]])), ms.Tensor(np.array([[0, 1], [1, 0], [0, 1]])))\n"
                    "m.update(np.array([[0.7], [0.1]]), np.array([[1], [0]]))\nresult = m.eval()"),
    "metric_cosine": ("m = ms.train.CosineSimilarity()\nm.update(np.array([[1, 3, 4, 7], [2, 4, 2, 5], "
                      "[3, 1, 5, 8]]))\nresult = m.eval().round(6).tolist()"),
    "metric_cosine_mean": ("m = ms.train.CosineSimilarity(similarity='dot', reduction='mean')\n"
                           "m.update(np.array([[1.0, 2.0], [3.0, 4.0]]))\nresult = m.eval()"),
    "metric_perplexity": ("m = ms.train.Perplexity(ignore_label=0)\nm.update(ms.Tensor(np.array([[0.2, 0.5], "
                          "[0.3, 0.1], [0.9, 0.6]])), ms.Tensor(np.array([1, 0, 1])))\nresult = m.eval()"),
    "metric_bleu": ("m = ms.train.BleuScore()\nm.update([['i', 'have', 'a', 'pen', 'on', 'my', 'desk']], "
                    "[[['i', 'have', 'a', 'pen', 'in', 'my', 'desk'], ['there', 'is', 'a', 'pen', 'on', 'the', "
                    "'desk']]])\nresult = m.eval()"),
    "metric_bleu_smooth": ("m = ms.train.BleuScore(n_gram=3, smooth=True)\nm.update([['a', 'cat', 'sat']], "
                           "[[['the', 'cat', 'sat', 'down']]])\nresult = m.eval()"),
    "metric_by_name": "result = type(ms.train.get_metric_fn('precision', eval_type='classification')).__name__",
    "ds_batch_size": ("d = ms.dataset.GeneratorDataset([i for i in range(10)], 'c').batch(2).repeat(3)\n"
                      "result = (d.get_batch_size(), d.get_repeat_count())"),
    "ds_defaults": "d = ms.dataset.GeneratorDataset([i for i in range(10)], 'c')\n"
                   "result = (d.get_batch_size(), d.get_repeat_count())",
    "ds_output_shapes_types": ("d = ms.dataset.NumpySlicesDataset({'a': np.ones((4, 2, 3), np.float32), "
                               "'b': np.arange(4, dtype=np.int32)}, shuffle=False)\n"
                               "result = (d.output_shapes(), d.output_types())"),
    "ds_zip": ("d = ms.dataset.zip((ms.dataset.GeneratorDataset([1], 'c1'), ms.dataset.GeneratorDataset([2], "
               "'c2')))\nresult = (d.get_col_names(), d.get_dataset_size())"),
    "ds_apply": ("d = ms.dataset.GeneratorDataset([i for i in range(10)], 'c').apply(lambda x: x.batch(4))\n"
                 "result = (d.get_dataset_size(), d.get_batch_size())"),
    "ds_schema": ("s = ms.dataset.Schema()\ns.add_column('col_1d', de_type=ms.int64, shape=[2])\n"
                  "s.add_column('b', de_type='float32')\nresult = s.to_json()"),
    "ds_schema_parse": ("s = ms.dataset.Schema()\ns.parse_columns({'image': {'shape': [3, 3], 'type': 'int8'}, "
                        "'label': {'type': 'int32'}})\nresult = str(s)"),
    "generator_set_state_returns": "g = ms.Generator()\nresult = g.set_state(g.get_state())",
    "dataset_strategy": "result = ms.get_auto_parallel_context('dataset_strategy')",
    "set_data_parallel": "result = ms.nn.Dense(3, 4).set_data_parallel()",
    "lr_scheduler": ("net = ms.nn.Dense(4, 2)\nopt = ms.nn.Momentum(net.trainable_params(), learning_rate=0.1, "
                     "momentum=0.9)\nmodel = ms.train.Model(net, loss_fn=ms.nn.MSELoss(), optimizer=opt)\n"
                     "data = {'x': np.ones((8, 4), np.float32), 'y': np.zeros((8, 2), np.float32)}\n"
                     "dataset = ms.dataset.NumpySlicesDataset(data=data, shuffle=False).batch(2)\n"
                     "model.train(1, dataset, callbacks=[ms.train.LearningRateScheduler(lambda lr, step: "
                     "lr * 0.5 if step % 2 == 0 else lr)], dataset_sink_mode=False)\n"
                     "result = round(float(opt.learning_rate.asnumpy()), 6)"),
    "ds_flat_map": ("d = ms.dataset.NumpySlicesDataset(([[0, 1], [2, 3]], [[0, -1], [-2, -3]]), shuffle=False)\n"
                    "d = d.flat_map(lambda a, b: ms.dataset.NumpySlicesDataset((a + 1, b - 1), shuffle=False))\n"
                    "result = [[int(v) for v in row] for row in d.create_tuple_iterator(output_numpy=True)]"),
    "ds_padded": ("d = ms.dataset.PaddedDataset([{'image': np.zeros(1, np.uint8)}, {'image': np.ones(2, np.uint8)}])\n"
                  "result = [r['image'].tolist() for r in d.create_dict_iterator(output_numpy=True)]"),
    "ds_use_sampler": ("d = ms.dataset.GeneratorDataset([i for i in range(10)], 'c')\n"
                       "d.use_sampler(ms.dataset.DistributedSampler(2, 1, shuffle=False))\n"
                       "result = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]"),
    "ds_add_sampler": ("d = ms.dataset.GeneratorDataset([i for i in range(10)], 'c', shuffle=False)\n"
                       "d.add_sampler(ms.dataset.SequentialSampler(start_index=2, num_samples=3))\n"
                       "result = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]"),
    "async_ckpt": "result = ms.async_ckpt_thread_status()",
    "dataset_helper": ("d = ms.dataset.NumpySlicesDataset({'x': np.arange(12, dtype=np.float32).reshape(6, 2)}, "
                       "shuffle=False).batch(4)\nh = ms.DatasetHelper(d, dataset_sink_mode=False)\n"
                       "result = [(type(r).__name__, [t.shape for t in r]) for r in h]"),
    "metric_surface": ("x = ms.Tensor(np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]]))\n"
                       "y = ms.Tensor(np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]]))\nout = []\n"
                       "for m in (ms.train.HausdorffDistance(), ms.train.HausdorffDistance(directed=True), "
                       "ms.train.HausdorffDistance('chessboard', percentile=50.0), "
                       "ms.train.MeanSurfaceDistance(), ms.train.MeanSurfaceDistance(True, 'taxicab'), "
                       "ms.train.RootMeanSquareDistance(), ms.train.RootMeanSquareDistance(True)):\n"
                       "    m.clear()\n    m.update(x, y, 0)\n    out.append(round(float(m.eval()), 6))\n"
                       "result = out"),
    "metric_surface_block": ("x = np.zeros((6, 6))\nx[1:5, 1:4] = 1\ny = np.zeros((6, 6))\ny[2:6, 2:6] = 1\n"
                             "out = []\nfor m in (ms.train.HausdorffDistance(), ms.train.MeanSurfaceDistance(True),"
                             " ms.train.RootMeanSquareDistance()):\n    m.clear()\n    m.update(x, y, 1)\n"
                             "    out.append(round(float(m.eval()), 6))\nresult = out"),
}
