"""The small nn cells (nn/layers/misc_cells.py) and ``nn.ForwardValueAndGrad`` against MindSpore 2.10's outputs
(tests/fixtures/prim_classes.npz, recorded by scripts/record_prim_classes.py from NN_CASES in
tests/compat/prim_class_cases.py), PyNative mode."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops

from .prim_class_cases import NN_CASES, outputs

FIXTURE = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "prim_classes.npz")
META = json.loads(bytes(FIXTURE["__meta__"]).decode())
# MindSpore 2.10 has no CPU kernel for LayerNormExt (its Ascend-only mint layer norm): those cases are recorded
# as MindSpore's errors and checked against a NumPy layer norm below.
NOT_ON_MINDSPORE_CPU = {"layer_norm_ext", "layer_norm_ext_no_affine"}
TOLERANCE = {"lbeta": 1e-4}  # a difference of lgammas near 40 in float32


def test_fixture_records_every_case() -> None:
    assert {k[3:] for k in META["errors"] if k.startswith("nn:")} == NOT_ON_MINDSPORE_CPU
    for name in set(NN_CASES) - NOT_ON_MINDSPORE_CPU:
        assert f"nn:{name}:out0" in FIXTURE, name


@pytest.mark.parametrize("name", sorted(set(NN_CASES) - NOT_ON_MINDSPORE_CPU))
def test_matches_mindspore(name) -> None:
    fn, inputs = NN_CASES[name]
    ins = [FIXTURE[f"nn:{name}:in{i}"] for i in range(len(inputs))]
    want = [FIXTURE[k] for k in sorted((k for k in FIXTURE.files if k.startswith(f"nn:{name}:out")),
                                       key=lambda k: int(k.rsplit("out", 1)[1]))]
    got = outputs(fn(ms, nn, ops, *[Tensor(a) for a in ins]))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        rtol = TOLERANCE.get(name, 2e-5)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol / 10)


@pytest.mark.parametrize("name", sorted(NOT_ON_MINDSPORE_CPU))
def test_layer_norm_ext_matches_numpy(name) -> None:
    fn, inputs = NN_CASES[name]
    x = inputs[0]
    axes = (1, 2) if name == "layer_norm_ext" else (2,)
    eps = 1e-5 if name == "layer_norm_ext" else 1e-3
    mean = x.mean(axis=axes, keepdims=True)
    want = (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    got = outputs(fn(ms, nn, ops, Tensor(x)))[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    params = {p.name for p in nn.LayerNormExt((3, 4)).get_parameters()}
    assert params == {"weight", "bias"} and not list(nn.LayerNormExt(4, elementwise_affine=False).get_parameters())


def test_parameter_update_writes_the_parameter() -> None:
    dense = nn.Dense(3, 4)
    param = dense.parameters_dict()["weight"]
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = nn.ParameterUpdate(param)(Tensor(w))
    np.testing.assert_array_equal(out.asnumpy(), w)
    np.testing.assert_array_equal(param.asnumpy(), w)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="central_fraction"):
        nn.CentralCrop(1.5)
    with pytest.raises(ValueError, match="scale"):
        nn.L1Regularizer(-1.0)
    with pytest.raises(TypeError, match="Parameter"):
        nn.ParameterUpdate(Tensor(np.zeros(2, np.float32)))
    with pytest.raises(TypeError, match="needs weights"):
        nn.ForwardValueAndGrad(nn.Dense(2, 2), get_by_list=True)
    with pytest.raises(ValueError, match="4-D"):
        nn.ImageGradients()(Tensor(np.zeros((2, 2), np.float32)))
    with pytest.raises(ValueError, match="num_parameters"):
        nn.PReLUExt(0)
