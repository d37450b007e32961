"""``dataset.text`` (the dataset/text package) gives MindSpore 2.10's outputs for the calls of
tests/dataset/text_cases.py (fixtures recorded by scripts/record_vision_transforms.py), token by token with
their dtypes and byte offsets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opbuild
from opbuild.dataset import text as T
from tests.dataset.text_cases import build

FIXTURE = dict(np.load(Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "text_transforms.npz"))
CALLS = build(T, opbuild.int32)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_text_matches_mindspore(name):
    fn, data = CALLS[name]
    if f"error:{name}" in FIXTURE:
        with pytest.raises((TypeError, ValueError, RuntimeError)):
            fn(data)
        return
    out = fn(data)
    outs = out if isinstance(out, tuple) else (out,)
    n = len([k for k in FIXTURE if k.startswith(f"{name}/")])
    assert len(outs) == n, name
    for i, got in enumerate(outs):
        exp = FIXTURE[f"{name}/{i}"]
        got = np.asarray(got)
        assert got.shape == exp.shape, (name, got, exp)
        assert got.dtype.kind == exp.dtype.kind and (got.dtype.kind in "US" or got.dtype == exp.dtype), \
            (name, got.dtype, exp.dtype)
        assert got.tolist() == exp.tolist(), (name, got, exp)


def test_bad_inputs_are_refused():
    with pytest.raises(RuntimeError, match="not in the vocab"):
        T.Lookup(T.Vocab.from_list(["a"]))(np.array(["b"]))
    with pytest.raises(ValueError, match="appears more than once"):
        T.Vocab.from_list(["a", "a"])
    with pytest.raises(RuntimeError, match="not a number"):
        T.ToNumber(opbuild.int32)(np.array(["x"]))
