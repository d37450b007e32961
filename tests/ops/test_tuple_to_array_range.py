"""``F.tuple_to_array`` / ``P.TupleToArray`` of a ``range`` (YOLOX builds its grid from ranges of the feature
map's shape) give MindSpore 2.10's int32 tensors in GRAPH_MODE and PyNative
(tests/fixtures/mindspore/tuple_to_array_range.json, by scripts/record_tuple_to_array_range.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ob
from opbuild import nn
from opbuild.ops import functional as F
from opbuild.ops import operations as P

FIX = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "tuple_to_array_range.json")
                 .read_text())


class Grid(nn.Cell):
    def construct(self, x):
        n = x.shape[1]
        return (F.tuple_to_array(range(n)), F.tuple_to_array(range(1, n, 2)), F.tuple_to_array(range(n + 1, 0, -2)))


def _check(t, rec):
    assert str(t.dtype) == rec["dtype"]
    np.testing.assert_array_equal(t.asnumpy(), rec["values"])


def test_graph_mode_ranges_from_shapes():
    ob.set_context(mode=ob.GRAPH_MODE)
    outs = Grid()(ob.Tensor(np.zeros((2, 5), np.float32)))
    for t, rec in zip(outs, FIX["graph_shape_5"], strict=True):
        _check(t, rec)


@pytest.mark.parametrize("rec", FIX["pynative"], ids=lambda r: str(r["range"]))
def test_pynative_function_and_primitive(rec):
    _check(F.tuple_to_array(range(*rec["range"])), rec)
    _check(P.TupleToArray()(range(*rec["range"])), rec)


def test_empty_range_is_refused():
    with pytest.raises(TypeError, match="non-empty tuple"):
        F.tuple_to_array(range(0))
