"""``batch(per_batch_map=...)`` programs, run by scripts/record_batch_map.py under MindSpore 2.10 and by
tests/dataset/test_batch_map.py under opbuild. ``cases(ds)`` maps a case name to a function giving the column
names and every epoch's rows (two epochs of one iterator, so that ``BatchInfo``'s epoch shows), as plain lists."""

from __future__ import annotations

import numpy as np


def _source(ds):
    def gen():
        for i in range(5):
            yield np.array([i], np.float32), np.array(i * 10, np.int32), np.array([i, i], np.int64)

    return ds.GeneratorDataset(gen, ["a", "b", "c"], shuffle=False)


def _epochs(d, epochs: int = 2) -> dict:
    it = d.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    rows = [[[np.asarray(v).tolist() for v in row] for row in it] for _ in range(epochs)]
    return {"names": d.get_col_names(), "rows": rows}


def _info(a, b, c, info):
    # the batch and epoch numbers, written into the rows so that the recorded output shows them
    return ([x * 2 + info.get_batch_num() for x in a], [x + 100 * info.get_epoch_num() for x in b], c)


def cases(ds) -> dict:
    return {
        "all_columns": lambda: _epochs(_source(ds).batch(2, per_batch_map=_info)),
        "one_column": lambda: _epochs(_source(ds).batch(
            2, per_batch_map=lambda b, info: ([x + 1 for x in b],), input_columns=["b"])),
        "bare_list": lambda: _epochs(_source(ds).batch(
            2, per_batch_map=lambda b, info: [x - 1 for x in b], input_columns=["b"])),
        "swapped_order": lambda: _epochs(_source(ds).batch(
            2, drop_remainder=True, per_batch_map=lambda c, a, info: (c, [x * 3 for x in a]),
            input_columns=["c", "a"])),
        "stacked_array": lambda: _epochs(_source(ds).batch(
            3, per_batch_map=lambda a, info: (np.stack(a) * 3,), input_columns=["a"])),
        "same_count_outputs": lambda: _epochs(_source(ds).batch(
            2, per_batch_map=lambda a, b, info: (b, a), input_columns=["a", "b"], output_columns=["a", "b"])),
    }


def run(ds) -> dict:
    """Each case's result, or the exception type's name where the program raised."""
    out = {}
    for name, fn in cases(ds).items():
        try:
            out[name] = fn()
        except Exception as e:  # noqa: BLE001 - a refusal is a result to compare
            out[name] = type(e).__name__
    return out
