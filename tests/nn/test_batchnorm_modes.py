"""nn.BatchNorm2d / nn.BatchNorm1d ``use_batch_statistics`` (None follows the training flag, True always the
batch's statistics, False always the moving ones), against MindSpore 2.10's outputs and moving statistics
(tests/fixtures/mindspore/batchnorm_modes.json, by scripts/record_batchnorm_modes.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ob
from opbuild import nn

FIX = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "batchnorm_modes.json").read_text())


def _id(c: dict) -> str:
    return f"{c['layer']}-ubs{c['use_batch_statistics']}-{'train' if c['train'] else 'eval'}"


@pytest.mark.parametrize("case", FIX["cases"], ids=_id)
def test_matches_mindspore(case):
    shape = tuple(case["shape"])
    x = (np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 7 - 2.5) * 0.75
    c = shape[1]
    net = getattr(nn, case["layer"])(c, use_batch_statistics=case["use_batch_statistics"], momentum=0.8,
                                     moving_mean_init=ob.Tensor(np.linspace(-1, 1, c).astype(np.float32)),
                                     moving_var_init=ob.Tensor(np.linspace(0.5, 2, c).astype(np.float32)))
    net.set_train(case["train"])
    y = net(ob.Tensor(x)).asnumpy()
    np.testing.assert_allclose(y.reshape(-1), case["out"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(net.moving_mean.asnumpy(), case["moving_mean"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.moving_variance.asnumpy(), case["moving_variance"], rtol=1e-5, atol=1e-6)


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(TypeError, match="use_batch_statistics must be None or a bool"):
        nn.BatchNorm2d(3, use_batch_statistics="yes")
    with pytest.raises(ValueError, match="data_format must be 'NCHW'"):
        nn.BatchNorm2d(3, data_format="NHWC")
    with pytest.raises(TypeError, match="dtype must be float32"):
        nn.BatchNorm1d(3, dtype=ob.float16)
    nn.BatchNorm2d(3, dtype=ob.float32, data_format="NCHW")
