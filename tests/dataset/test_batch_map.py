"""``batch(per_batch_map=..., input_columns=..., output_columns=...)`` gives MindSpore 2.10's batches
(tests/dataset/batch_map_programs.py, recorded by scripts/record_batch_map.py); it used to be refused as an
unexpected keyword. What MindSpore does differently on purpose, and the errors, are checked here by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild.dataset as ds
from tests.dataset import batch_map_programs

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "batch_map.json").read_text())
RESULTS = batch_map_programs.run(ds)


@pytest.mark.parametrize("case", sorted(batch_map_programs.cases(ds)))
def test_matches_mindspore(case):
    assert RESULTS[case] == FIXTURE[case]


def _source():
    return batch_map_programs._source(ds)


def test_new_output_columns_come_first():
    # MindSpore 2.10 lists the columns the function was not given in an order of its own (here c, a);
    # opbuild keeps their dataset order after the outputs.
    d = _source().batch(2, per_batch_map=lambda b, info: ([x + 1 for x in b], [x * 0 for x in b]),
                        input_columns=["b"], output_columns=["b1", "b2"])
    assert d.get_col_names() == ["b1", "b2", "a", "c"]
    first = next(iter(d.create_dict_iterator(output_numpy=True)))
    np.testing.assert_array_equal(first["b1"], [1, 11])
    np.testing.assert_array_equal(first["b2"], [0, 0])
    np.testing.assert_array_equal(first["a"], [[0.0], [1.0]])
    assert d.get_dataset_size() == 3


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"input_columns \['zz'\] are not columns"):
        _source().batch(2, per_batch_map=lambda a, info: (a,), input_columns=["zz"])
    with pytest.raises(ValueError, match="need a per_batch_map"):
        _source().batch(2, input_columns=["a"])
    with pytest.raises(TypeError, match="per_batch_map must be callable"):
        _source().batch(2, per_batch_map=3)
    bad = _source().batch(2, per_batch_map=lambda a, info: (a, a), input_columns=["a"])
    with pytest.raises(RuntimeError, match=r"returned 2 column\(s\) for output columns \['a'\]"):
        list(bad.create_tuple_iterator())
    ragged = _source().batch(2, per_batch_map=lambda a, info: ([np.ones(i + 1) for i in range(len(a))],),
                             input_columns=["a"])
    with pytest.raises(RuntimeError, match="differ in shape"):
        list(ragged.create_tuple_iterator())
    raising = _source().batch(2, per_batch_map=lambda a, info: 1 / 0, input_columns=["a"])
    with pytest.raises(ZeroDivisionError):
        list(raising.create_tuple_iterator())


def test_serialize_marks_the_function_so_that_loading_refuses():
    # a per_batch_map is a Python function: the serialized Batch node says so (loading it refuses, as a
    # Filter's predicate), instead of describing a plain batch that would load without the function
    source = ds.NumpySlicesDataset({"a": np.arange(4.0)}, shuffle=False)
    assert "per_batch_map" not in ds.serialize(source.batch(2))
    node = ds.serialize(source.batch(2, per_batch_map=lambda a, info: ([x + 1 for x in a],)))
    assert node["op_type"] == "Batch" and node["input_columns"] == ["a"]
    assert "unserializable" in json.dumps(node["per_batch_map"])
