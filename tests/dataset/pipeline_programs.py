"""Dataset-level methods and sources (``apply``, ``flat_map``, ``get_batch_size``, ``get_repeat_count``,
``output_shapes``/``output_types``, ``use_sampler``, sampler children, ``Schema``, ``zip``,
``PaddedDataset``), run by scripts/record_dataset_ops.py under MindSpore 2.10 and by
tests/dataset/test_dataset_extras.py under opbuild. ``run(ds, ms)`` takes the modules."""

from __future__ import annotations

import json

import numpy as np


def _rows(d) -> np.ndarray:
    return np.array([np.asarray(v).tolist() for row in d.create_tuple_iterator(num_epochs=1, output_numpy=True)
                     for v in row])


def cases(ds, ms) -> dict:
    def gen2():
        for i in range(1, 4):
            yield np.ones((2, 3), np.float32), np.array([i], np.int32)

    def flat():
        d = ds.NumpySlicesDataset([[0, 1], [2, 3]], shuffle=False)
        return _rows(d.flat_map(lambda a: ds.NumpySlicesDataset(a, shuffle=False).repeat(2)))

    def flat2():
        d = ds.NumpySlicesDataset(([[0, 1], [2, 3]], [[0, -1], [-2, -3]]), shuffle=False)
        return _rows(d.flat_map(lambda a, b: ds.NumpySlicesDataset((a + 1, b - 1), shuffle=False)))

    def use_sampler():
        d = ds.GeneratorDataset(list(range(10)), "c", shuffle=False)
        d.use_sampler(ds.DistributedSampler(2, 1, shuffle=False))
        return _rows(d)

    def sampler_child():
        s = ds.SubsetSampler([4, 3, 2, 1, 0])
        s.add_child(ds.SequentialSampler(start_index=2, num_samples=6))
        return _rows(ds.NumpySlicesDataset(np.arange(10), "c", sampler=s))

    def schema():
        s = ds.Schema()
        s.add_column("col_1d", de_type=ms.int64, shape=[2])
        s.add_column("img", de_type=ms.uint8)
        cols = json.loads(s.to_json())["columns"]
        return np.array([f"{c['name']}:{c['type']}:{c.get('shape')}:{c.get('rank')}" for c in cols])

    def parse():
        s = ds.Schema()
        s.parse_columns({"image": {"shape": [3, 3], "type": "int8"}, "label": {"shape": [1], "type": "int8"}})
        return np.array([json.dumps(c, sort_keys=True) for c in json.loads(s.to_json())["columns"]])

    def bucket():
        def gen():
            for i in range(8):
                yield (np.array([i]), np.array(list(range(i + 1))))

        d = ds.GeneratorDataset(gen, ["col1", "col2"], shuffle=False)
        d = d.bucket_batch_by_length(["col1", "col2"], [5, 10], [2, 1, 1],
                                     lambda a, b: max(len(a), len(b)), {"col2": ([None], -1)}, True)
        return np.array([str(np.asarray(v).tolist()) for row in d.create_tuple_iterator(num_epochs=1,
                                                                                        output_numpy=True)
                         for v in row])

    def bucket_plain():
        d = ds.GeneratorDataset(lambda: ((np.arange(i % 4 + 1),) for i in range(9)), ["c"], shuffle=False)
        d = d.bucket_batch_by_length(["c"], [2, 3], [3, 2, 2], pad_info={"c": (None, 0)})
        return np.array([str(np.asarray(v).tolist()) for row in d.create_tuple_iterator(num_epochs=1,
                                                                                        output_numpy=True)
                         for v in row])

    return {
        "bucket_batch": bucket,
        "bucket_batch_default_length": bucket_plain,
        "batch_size": lambda: np.array(ds.GeneratorDataset(list(range(10)), "c").batch(2).get_batch_size()),
        "batch_size_none": lambda: np.array(ds.GeneratorDataset(list(range(10)), "c").get_batch_size()),
        "repeat_count": lambda: np.array(ds.GeneratorDataset(list(range(10)), "c").repeat(5).get_repeat_count()),
        "output_shapes": lambda: np.array(str(ds.GeneratorDataset(gen2, ["a", "b"]).output_shapes())),
        "output_types": lambda: np.array(str(ds.GeneratorDataset(gen2, ["a", "b"]).output_types())),
        "apply": lambda: np.array(ds.GeneratorDataset(list(range(10)), "c").apply(lambda d: d.batch(3))
                                  .get_dataset_size()),
        "flat_map": flat,
        "flat_map_two_columns": flat2,
        "use_sampler": use_sampler,
        "sampler_child": sampler_child,
        "schema": schema,
        "schema_parse": parse,
        "zip": lambda: np.array(ds.zip((ds.GeneratorDataset([1], "a"), ds.GeneratorDataset([2], "b")))
                                .get_col_names()),
        "padded": lambda: _rows(ds.PaddedDataset([{"image": np.zeros(2, np.uint8)}, {"image": np.ones(2, np.uint8)}])),
        "fake_image_size": lambda: np.array(ds.FakeImageDataset(num_images=20, image_size=(8, 8, 3), num_classes=4,
                                                                num_samples=3).get_dataset_size()),
    }


def run(ds, ms) -> dict:
    """Each case's result as an array, or the name of the exception it raised."""
    out = {}
    for name, fn in cases(ds, ms).items():
        try:
            out[name] = np.asarray(fn())
        except Exception as e:  # recorded: a refusal is compared as a refusal
            out[name] = type(e).__name__
    return out
