"""Every ``nn`` Cell's ``construct`` takes MindSpore 2.10's parameter names (recorded by
scripts/record_construct_params.py), so a network calling a layer by keyword (``self.relu(input=x)``, as
MindSpore's documented networks do) runs unchanged."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn

RECORDED = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "nn_construct_params.json")
                      .read_text())["construct"]
# Where opbuild's construct takes the arguments through *args/**kwargs (one generic implementation for a family
# whose MindSpore classes each name theirs), or MindSpore's abstract base names a placeholder.
GENERIC = {"AdaSumByDeltaWeightWrapCell", "AdaSumByGradWrapCell", "LossBase", "Optimizer",
           "FixedLossScaleUpdateCell"}


def _named(name: str) -> bool:
    """Whether opbuild's ``name.construct`` names its parameters (not ``*args``, which takes any keyword)."""
    params = inspect.signature(getattr(nn, name).construct).parameters.values()
    return not any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)


@pytest.mark.parametrize("name", sorted(n for n in RECORDED if hasattr(nn, n) and n not in GENERIC and _named(n)))
def test_construct_parameter_names_are_mindspores(name):
    ours = [p.name for p in inspect.signature(getattr(nn, name).construct).parameters.values()][1:]
    assert ours == RECORDED[name]


def test_keyword_calls_as_in_mindspores_documentation(pynative_mode):
    x = ms.Tensor(np.array([[-1.0, 2.0]], np.float32))
    assert nn.ReLU()(input=x).asnumpy().tolist() == [[0.0, 2.0]]
    assert nn.Softmax()(input=x).shape == (1, 2)
    assert nn.LayerNorm((2,))(input_x=x).shape == (1, 2)
    assert nn.SequentialCell([nn.ReLU()])(input_data=x).asnumpy().tolist() == [[0.0, 2.0]]
    loss = nn.BCEWithLogitsLoss()(input=x, target=ms.Tensor(np.array([[0.0, 1.0]], np.float32)))
    assert loss.shape == ()
