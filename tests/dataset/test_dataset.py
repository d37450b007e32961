"""opbuild.dataset: MindSpore's column naming, sampling (default shuffle, shards with wrap-around), batch,
shuffle, map, epoch iterators and argument errors, each checked against exact rows and orders."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.dataset as ds
from opbuild.core.tensor import Tensor


@pytest.fixture(autouse=True)
def _seeds():
    """Every test starts from context seed 0 and no dataset seed override, and leaves them so."""
    old = ms.get_context("seed")
    ms.set_context(seed=0)
    ds.config.reset_seed()
    yield
    ds.config.reset_seed()
    ms.set_context(seed=old)


def rows(dataset, column=0, **kw):
    """One epoch of one column as a list of Python values (scalars) or lists."""
    return [r[column].tolist() for r in dataset.create_tuple_iterator(output_numpy=True, **kw)]


# ---- sources and column names --------------------------------------------------------------------
def test_column_names_follow_mindspore_defaults():
    x = np.arange(6).reshape(3, 2)
    assert ds.NumpySlicesDataset([1, 2, 3]).get_col_names() == ["column_0"]
    assert ds.NumpySlicesDataset(x).get_col_names() == ["column_0"]
    assert ds.NumpySlicesDataset((x, [7, 8, 9])).get_col_names() == ["column_0", "column_1"]
    assert ds.NumpySlicesDataset({"img": x, "label": [0, 1, 0]}).get_col_names() == ["img", "label"]
    assert ds.NumpySlicesDataset({"a": x, "b": [0, 1, 0]}, column_names=["p", "q"]).get_col_names() == ["p", "q"]
    # A list is one column: a list of pairs gives rows that are pairs.
    assert rows(ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False)) == [[1, 2], [3, 4]]


def test_numpy_slices_rows_keep_values_and_dtypes():
    data = {"x": np.arange(6, dtype=np.float32).reshape(3, 2), "y": np.array([5, 6, 7], np.int32)}
    got = list(ds.NumpySlicesDataset(data, shuffle=False).create_dict_iterator(output_numpy=True))
    assert [r["x"].tolist() for r in got] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert [r["y"].tolist() for r in got] == [5, 6, 7]
    assert got[0]["x"].dtype == np.float32 and got[0]["y"].dtype == np.int32 and got[0]["y"].shape == ()


def test_numpy_slices_argument_errors():
    with pytest.raises(ValueError, match="different lengths.*a: 3, b: 2"):
        ds.NumpySlicesDataset({"a": [1, 2, 3], "b": [1, 2]})
    with pytest.raises(ValueError, match="column_names has 1 names"):
        ds.NumpySlicesDataset(([1, 2], [3, 4]), column_names=["only"])
    with pytest.raises(ValueError, match="scalar"):
        ds.NumpySlicesDataset(np.float32(3.0))
    with pytest.raises(RuntimeError, match="shard_id is given but num_shards is not"):
        ds.NumpySlicesDataset([1, 2, 3], shard_id=0)
    with pytest.raises(RuntimeError, match="num_shards is given but shard_id is not"):
        ds.NumpySlicesDataset([1, 2, 3], num_shards=2)
    with pytest.raises(ValueError, match=r"shard_id must be in \[0, 1\], got 2"):
        ds.NumpySlicesDataset([1, 2, 3], num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="num_shards must be in"):
        ds.NumpySlicesDataset([1, 2, 3], num_shards=0, shard_id=0)
    with pytest.raises(TypeError, match="shuffle must be a bool"):
        ds.NumpySlicesDataset([1, 2, 3], shuffle="yes")


# ---- sampling: shuffle and shards -----------------------------------------------------------------
def test_shuffle_defaults_to_on_and_is_seeded_per_epoch():
    data = list(range(20))
    assert rows(ds.NumpySlicesDataset(data, shuffle=False)) == data
    d = ds.NumpySlicesDataset(data)  # shuffle=None: shuffled, as MindSpore does for random-accessible data
    it = d.create_tuple_iterator(output_numpy=True)
    epoch0 = [r[0].item() for r in it]
    epoch1 = [r[0].item() for r in it]
    # The documented scheme: a permutation drawn from (seed, node depth, epoch).
    assert epoch0 == np.random.default_rng([0, 0, 0]).permutation(20).tolist()
    assert epoch1 == np.random.default_rng([0, 0, 1]).permutation(20).tolist()
    assert epoch0 != epoch1 and sorted(epoch1) == data
    # A new iterator restarts at epoch 0: the same order again (repeatable runs).
    assert rows(d) == epoch0


def test_seed_follows_set_seed_and_dataset_config():
    data = list(range(20))
    ms.set_seed(1)
    a = rows(ds.NumpySlicesDataset(data))
    ms.set_seed(2)
    b = rows(ds.NumpySlicesDataset(data))
    assert a != b and sorted(a) == sorted(b) == data
    assert a == np.random.default_rng([1, 0, 0]).permutation(20).tolist()
    ds.config.set_seed(1)  # the dataset seed overrides the context seed (2)
    assert ds.config.get_seed() == 1 and rows(ds.NumpySlicesDataset(data)) == a
    with pytest.raises(ValueError, match="dataset seed"):
        ds.config.set_seed(-1)


def test_shards_take_every_nth_row_with_wrap_around():
    data = list(range(10))
    shards = [ds.NumpySlicesDataset(data, shuffle=False, num_shards=3, shard_id=i) for i in range(3)]
    # ceil(10 / 3) = 4 rows each; the last positions wrap to the start so every shard has as many rows.
    assert [rows(s) for s in shards] == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    assert [s.get_dataset_size() for s in shards] == [4, 4, 4]
    even = [rows(ds.NumpySlicesDataset(data, shuffle=False, num_shards=2, shard_id=i)) for i in range(2)]
    assert even == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]
    # More shards than rows: one row each, wrapping.
    assert rows(ds.NumpySlicesDataset([5, 6], shuffle=False, num_shards=3, shard_id=2)) == [5]


def test_shuffled_shards_split_one_permutation():
    data = list(range(10))
    perm = rows(ds.NumpySlicesDataset(data))  # the unsharded shuffled order of epoch 0
    shards = [rows(ds.NumpySlicesDataset(data, num_shards=3, shard_id=i)) for i in range(3)]
    for i, shard in enumerate(shards):
        assert shard == [perm[(k * 3 + i) % 10] for k in range(4)]
    assert sorted(set(sum(shards, []))) == data


def test_num_samples_caps_rows_per_epoch_and_shard():
    assert rows(ds.NumpySlicesDataset(list(range(10)), num_samples=3, shuffle=False)) == [0, 1, 2]
    d = ds.NumpySlicesDataset(list(range(10)), num_samples=2, shuffle=False, num_shards=3, shard_id=1)
    assert rows(d) == [1, 4] and d.get_dataset_size() == 2


# ---- pipeline operations --------------------------------------------------------------------------
def test_batch_stacks_rows_and_counts_batches():
    x = np.arange(14, dtype=np.float32).reshape(7, 2)
    d = ds.NumpySlicesDataset((x, np.arange(7)), shuffle=False).batch(3)
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert [b[1].tolist() for b in got] == [[0, 1, 2], [3, 4, 5], [6]]
    assert got[0][0].shape == (3, 2) and got[2][0].tolist() == [[12.0, 13.0]]
    assert d.get_dataset_size() == 3
    dropped = ds.NumpySlicesDataset(np.arange(7), shuffle=False).batch(3, drop_remainder=True)
    assert rows(dropped) == [[0, 1, 2], [3, 4, 5]] and dropped.get_dataset_size() == 2
    with pytest.raises(ValueError, match="batch_size must be in"):
        ds.NumpySlicesDataset([1]).batch(0)


def test_batch_refuses_rows_of_different_shapes():
    d = ds.GeneratorDataset(lambda: iter([np.zeros(2), np.zeros(3)]), column_names=["v"]).batch(2)
    with pytest.raises(RuntimeError, match="column 'v' differ in shape"):
        list(d)


def test_shuffle_buffer_permutes_and_reshuffles_each_epoch():
    data = list(range(30))
    d = ds.NumpySlicesDataset(data, shuffle=False).shuffle(buffer_size=30)
    it = d.create_tuple_iterator(output_numpy=True)
    e0, e1 = [r[0].item() for r in it], [r[0].item() for r in it]
    assert sorted(e0) == sorted(e1) == data and e0 != e1 and e0 != data
    assert rows(d) == e0
    # The first row out of a buffer of 2 is one of the first two rows in.
    small = rows(ds.NumpySlicesDataset(data, shuffle=False).shuffle(2))
    assert small[0] in (0, 1) and sorted(small) == data
    with pytest.raises(ValueError, match="buffer_size must be in"):
        ds.NumpySlicesDataset(data).shuffle(1)


def test_map_replaces_columns_in_place_or_puts_outputs_first():
    d = ds.NumpySlicesDataset({"a": [1, 2], "b": [10, 20], "c": [5, 5]}, shuffle=False)
    one = d.map(lambda a: a * 2)  # default: the first column
    assert one.get_col_names() == ["a", "b", "c"] and rows(one, 0) == [2, 4]
    chain = d.map([lambda b: b + 1, lambda b: b * 3], input_columns="b")
    assert rows(chain, 1) == [33, 63]
    renamed = d.map(lambda a, b: (b, a), input_columns=["a", "b"], output_columns=["x", "y"])
    assert renamed.get_col_names() == ["x", "y", "c"] and rows(renamed, 0) == [10, 20]
    merged = d.map(lambda a, b: a + b, input_columns=["a", "b"], output_columns=["s"])
    assert merged.get_col_names() == ["s", "c"] and rows(merged, 0) == [11, 22] and rows(merged, 1) == [5, 5]
    split = d.map(lambda c: (c, c + 1), input_columns="c", output_columns=["c0", "c1"])
    assert split.get_col_names() == ["c0", "c1", "a", "b"] and rows(split, 1) == [6, 6]
    with pytest.raises(ValueError, match=r"input_columns \['z'\] are not columns"):
        d.map(abs, input_columns="z")
    bad = d.map(lambda a: (a, a), input_columns="a")
    with pytest.raises(RuntimeError, match="returned 2 values for output columns"):
        list(bad)


# ---- iterators ------------------------------------------------------------------------------------
def test_iterators_yield_tensors_and_count_epochs():
    d = ds.NumpySlicesDataset({"x": np.ones((2, 3), np.float32), "y": np.array([0, 1], np.int32)}, shuffle=False)
    first = next(iter(d))
    assert isinstance(first, list) and all(isinstance(t, Tensor) for t in first)
    assert first[0].shape == (3,) and first[0].dtype == ms.float32 and first[1].dtype == ms.int32
    item = next(d.create_dict_iterator())
    assert list(item) == ["x", "y"] and int(item["y"]) == 0
    assert [int(r[0]) for r in d.create_tuple_iterator(columns=["y"])] == [0, 1]
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert len(list(it)) == 2 and len(list(it)) == 2
    with pytest.raises(RuntimeError, match="num_epochs=2"):
        next(it)
    with pytest.raises(ValueError, match="num_epochs"):
        d.create_tuple_iterator(num_epochs=0)


def test_tensor_unsupported_dtype_suggests_output_numpy():
    # uint8 (issue #16) and complex64 (docs/fft.md) became Tensor dtypes; NumPy's long double is none.
    d = ds.NumpySlicesDataset(np.zeros((2, 2), np.longdouble), shuffle=False)
    with pytest.raises(TypeError, match="output_numpy=True"):
        next(iter(d))
    assert next(d.create_tuple_iterator(output_numpy=True))[0].dtype == np.longdouble


# ---- GeneratorDataset -----------------------------------------------------------------------------
def test_generator_function_is_called_each_epoch():
    calls = []

    def gen():
        calls.append(1)
        for i in range(3):
            yield np.array(i), np.array([i, i])

    d = ds.GeneratorDataset(gen, column_names=["i", "pair"])
    assert d.get_dataset_size() == 3  # counted by iterating, as MindSpore does
    it = d.create_tuple_iterator(output_numpy=True)
    assert [r[1].tolist() for r in it] == [[0, 0], [1, 1], [2, 2]]
    assert [r[0].item() for r in it] == [0, 1, 2]  # sources of this kind are never shuffled
    assert len(calls) == 3


class Squares:
    """A random-accessible source: rows (i, i*i) read by index."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __getitem__(self, i: int):
        return np.array(i, np.int64), np.array(i * i, np.int64)

    def __len__(self) -> int:
        return self.n


def test_random_access_source_shuffles_and_shards_like_numpy_slices():
    src = Squares(10)
    gen = ds.GeneratorDataset(src, column_names=["i", "sq"])
    assert rows(gen) == rows(ds.NumpySlicesDataset(list(range(10))))  # same sampler, same seed: same order
    shard = ds.GeneratorDataset(src, column_names=["i", "sq"], shuffle=False, num_shards=4, shard_id=3)
    assert rows(shard) == [3, 7, 1] and rows(shard, 1) == [9, 49, 1] and shard.get_dataset_size() == 3
    cast = ds.GeneratorDataset(src, column_names=["i", "sq"], column_types=[ms.float32, np.int32], shuffle=False)
    r = next(cast.create_tuple_iterator(output_numpy=True))
    assert r[0].dtype == np.float32 and r[1].dtype == np.int32


def test_generator_argument_errors():
    with pytest.raises(ValueError, match="column_names is required"):
        ds.GeneratorDataset(Squares(2))
    with pytest.raises(ValueError, match="shuffle needs a random-accessible source"):
        ds.GeneratorDataset(lambda: iter([]), column_names=["a"], shuffle=True)
    with pytest.raises(ValueError, match="num_shards needs a random-accessible source"):
        ds.GeneratorDataset([(1,), (2,)].__iter__(), column_names=["a"], num_shards=2, shard_id=0)
    with pytest.raises(TypeError, match="source must be"):
        ds.GeneratorDataset(42, column_names=["a"])
    wrong = ds.GeneratorDataset(Squares(2), column_names=["only"], shuffle=False)
    with pytest.raises(RuntimeError, match="row of 2 values but column_names names 1"):
        list(wrong)


class Countdown:
    """An iterable source (no __getitem__): read in order, a fresh iterator per epoch."""

    def __iter__(self):
        return iter([(np.float32(2.5),), (np.float32(1.5),), (np.float32(0.5),)])


def test_iterable_source_reads_in_order():
    d = ds.GeneratorDataset(Countdown(), column_names=["v"])
    assert rows(d) == [2.5, 1.5, 0.5] and rows(d) == [2.5, 1.5, 0.5] and d.get_dataset_size() == 3
    # A list has __getitem__: it is random-accessible, hence shuffled by default, as in MindSpore.
    listed = ds.GeneratorDataset([(i,) for i in range(20)], column_names=["v"])
    assert rows(listed) == rows(ds.NumpySlicesDataset(list(range(20))))


def test_list_of_a_generator_dataset_runs_the_generator_once():
    calls = []

    def gen():
        calls.append(1)
        yield (np.int32(1),)

    assert len(list(ds.GeneratorDataset(gen, column_names=["a"]))) == 1 and len(calls) == 1
