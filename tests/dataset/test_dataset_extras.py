"""Dataset-level methods and sources give MindSpore 2.10's results: tests/dataset/pipeline_programs.py's
cases against what MindSpore gave (scripts/record_dataset_ops.py), plus sync_wait/sync_update."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.dataset as ds
from tests.dataset import pipeline_programs
from tests.dataset.ops_fixture import assert_same, expected

EXPECTED = expected("pipeline")
RESULTS = pipeline_programs.run(ds, ms)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_matches_mindspore(case):
    assert_same(RESULTS[case], EXPECTED[case], case)


def test_every_case_was_recorded():
    assert set(RESULTS) == set(EXPECTED)


def test_sync_update_calls_the_wait_callback_between_batches():
    seen = []
    data = ds.GeneratorDataset(lambda: ((np.array(i),) for i in range(12)), ["input"])
    data = data.sync_wait(condition_name="policy", callback=seen.append).batch(4)
    count = 0
    for row in data.create_dict_iterator(num_epochs=1, output_numpy=True):
        assert row["input"][0] == count
        count += 4
        data.sync_update(condition_name="policy", data={"loss": count})
    assert seen == [{"loss": 4}, {"loss": 8}, {"loss": 12}]
    with pytest.raises(RuntimeError, match="no sync_wait named 'other'"):
        data.sync_update("other")


def test_extras_refuse_bad_input():
    with pytest.raises(TypeError, match="must return a dataset"):
        ds.GeneratorDataset([1, 2], "c").apply(lambda d: 3)
    with pytest.raises(TypeError, match="dataset sampler"):
        ds.GeneratorDataset([1, 2], "c").use_sampler([0, 1])
    with pytest.raises(ValueError, match="unknown column type"):
        ds.Schema().add_column("x", "nonsense")
    with pytest.raises(TypeError, match="list of dicts"):
        ds.PaddedDataset([1, 2])
