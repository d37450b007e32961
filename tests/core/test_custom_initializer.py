"""A user Initializer subclass written to MindSpore's ``_initialize(arr)`` protocol (the idiom of the model
zoo's KaimingUniform/KaimingNormal helpers) is handed an array of the target shape and dtype and its values are
kept, as MindSpore 2.10 does (tests/fixtures/mindspore/custom_initializer.json, by
scripts/record_custom_initializer.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ob
from opbuild import nn
from opbuild.common import initializer as init

FIX = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" /
                  "custom_initializer.json").read_text())


class Ramp(init.Initializer):
    """Fills index * scale + offset; remembers the array it was handed."""

    def __init__(self, scale: float, offset: float = 0.0) -> None:
        super().__init__()
        self.scale, self.offset = scale, offset
        self.seen: list = []

    def _initialize(self, arr):
        self.seen.append({"shape": list(arr.shape), "dtype": str(arr.dtype)})
        arr[:] = np.arange(arr.size, dtype=np.float64).reshape(arr.shape) * self.scale + self.offset


@pytest.mark.parametrize("case", FIX["cases"], ids=lambda c: c["dtype"])
def test_initializer_and_parameter_match_mindspore(case):
    ramp = Ramp(case["scale"], case["offset"])
    t = init.initializer(ramp, tuple(case["shape"]), getattr(ob, case["dtype"]))
    vals = t.asnumpy()
    assert ramp.seen == [case["handed"]]
    assert str(vals.dtype) == case["out_dtype"]
    np.testing.assert_array_equal(vals.reshape(-1), np.asarray(case["values"], dtype=vals.dtype))
    p = ob.Parameter(init.initializer(Ramp(case["scale"], case["offset"]), tuple(case["shape"]),
                                      getattr(ob, case["dtype"])), name="w")
    np.testing.assert_array_equal(p.asnumpy().reshape(-1), np.asarray(case["param_values"], dtype=vals.dtype))


def test_layer_weight_init_and_set_data_take_the_subclass():
    conv = nn.Conv2d(2, 3, 3, weight_init=Ramp(0.01))
    want = (np.arange(3 * 2 * 3 * 3) * 0.01).astype(np.float32).reshape(3, 2, 3, 3)
    np.testing.assert_array_equal(conv.weight.asnumpy(), want)
    dense = nn.Dense(4, 2)
    dense.weight.set_data(init.initializer(Ramp(-1.0, 2.0), dense.weight.shape, dense.weight.dtype))
    np.testing.assert_array_equal(dense.weight.asnumpy(), (2.0 - np.arange(8)).reshape(2, 4).astype(np.float32))


def test_subclass_with_neither_hook_says_so():
    class Empty(init.Initializer):
        pass

    with pytest.raises(NotImplementedError, match=r"Empty gives no values.*_initialize\(arr\)"):
        init.initializer(Empty(), (2, 2), ob.float32)
