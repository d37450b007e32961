"""MindSpore 2.x's top-level helpers (rng.py, api_extras.py, sparse_legacy.py, Parameter settings,
Tensor.get_bytes) give what MindSpore 2.10 gives: ``str(result)`` of each program of
tests/compat/top_level_cases.py against fixtures recorded by scripts/record_top_level_extras.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from tests.compat.top_level_cases import CASES

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "top_level_extras.json")
                     .read_text())


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_matches_mindspore(name, pynative_mode):
    env = {"ms": ms, "np": np}
    want = FIXTURE[name]
    if "error" in want:
        with pytest.raises(Exception) as info:  # noqa: B017 - MindSpore raises here; so must opbuild
            exec(CASES[name], env)  # noqa: S102
        assert type(info.value).__name__ == want["error"].split(":")[0]
        return
    exec(CASES[name], env)  # noqa: S102 - the repository's own programs
    assert str(env["result"]) == want["str"]


def test_bad_input_is_refused_with_a_clear_message():
    with pytest.raises(TypeError, match="frombuffer: dtype"):
        ms.frombuffer(b"\x00", dtype=np.uint8)
    with pytest.raises(ValueError, match="unknown key 'nope'"):
        ms.get_ps_context("nope")
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    with pytest.raises(TypeError, match="comm_fusion must be int"):
        p.comm_fusion = "3"
    with pytest.raises(ValueError, match="share one name"):
        ms.merge_sliced_parameter([p, ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="q")])
    with pytest.raises(TypeError, match="16-byte"):
        ms.Generator().set_state((1, 2))


def test_more_initializers_refuse_bad_shapes_and_arguments():
    from opbuild.common import initializer as init

    with pytest.raises(ValueError, match="Identity: the shape must be 2-D"):
        init.initializer(init.Identity(), [2, 3, 4])
    with pytest.raises(ValueError, match="not divisible by groups"):
        init.initializer(init.Dirac(groups=4), [6, 4, 3, 3])
    with pytest.raises(ValueError, match="mode must be"):
        init.VarianceScaling(mode="fan")
    w = init.initializer(init.VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform"), [64, 200])
    assert np.abs(w.asnumpy()).max() <= np.sqrt(3 * 2.0 / 200) + 1e-6


def test_train_names_are_top_level_as_in_mindspore():
    import opbuild.train as train

    for name in ("LossMonitor", "ModelCheckpoint", "CheckpointConfig", "SummaryCollector", "Accuracy", "Dice"):
        assert getattr(ms, name) is getattr(train, name)
