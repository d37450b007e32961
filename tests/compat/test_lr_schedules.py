"""The learning-rate functions (``nn.cosine_decay_lr``, ...) and schedule Cells (``nn.InverseDecayLR``, ...)
against MindSpore 2.10's outputs (tests/fixtures/prim_classes.npz, recorded by scripts/record_prim_classes.py
from the LR_* tables of tests/compat/prim_class_cases.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opbuild import Tensor, nn

from .prim_class_cases import LR_CELLS, LR_FUNCTIONS, STEPS

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "prim_classes.npz")


@pytest.mark.parametrize("name", sorted(LR_FUNCTIONS))
def test_lr_function_matches_mindspore(name) -> None:
    got = LR_FUNCTIONS[name](nn)
    assert isinstance(got, list) and all(isinstance(v, float) for v in got)
    np.testing.assert_allclose(got, FIXTURE[f"lr:{name}"], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(LR_CELLS))
def test_lr_cell_matches_mindspore(name) -> None:
    cell = LR_CELLS[name](nn)
    got = np.array([cell(Tensor(np.array(i, np.int32))).asnumpy() for i in range(STEPS)])
    want = FIXTURE[f"lrcell:{name}"]
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="decay_epoch"):
        nn.exponential_decay_lr(0.1, 0.9, 10, 2, 0)
    with pytest.raises(ValueError, match="greater than min_lr"):
        nn.cosine_decay_lr(0.1, 0.01, 10, 2, 3)
    with pytest.raises(ValueError, match="strictly increasing"):
        nn.piecewise_constant_lr([3, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="warmup_steps"):
        nn.WarmUpLR(0.1, 0)
    with pytest.raises(TypeError, match="is_stair"):
        nn.InverseDecayLR(0.1, 0.5, 3, is_stair=1)


def test_a_list_rate_drives_an_optimizer() -> None:
    net = nn.Dense(2, 1)
    opt = nn.Momentum(net.trainable_params(), nn.warmup_lr(0.1, 4, 1, 2), 0.9)
    assert opt is not None
