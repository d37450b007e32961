"""The gradient primitives of ``mindspore.ops.operations._grad_ops`` (opbuild/ops/grad_ops.py) against
MindSpore 2.10's results for the same inputs (tests/fixtures/mindspore/grad_ops.json,
scripts/record_grad_ops.py), and against torch for the two MindSpore's CPU cannot run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from opbuild import Tensor
from opbuild.ops import grad_ops as G

CASES = json.loads((Path(__file__).parents[1] / "fixtures" / "mindspore" / "grad_ops.json").read_text())


def _decode(v):
    if v is None:
        return None
    if "tuple" in v:
        return tuple(v["tuple"])
    return np.array(v["value"], v["dtype"]).reshape(v["shape"])


@pytest.mark.parametrize("case", [c for c in CASES if "outputs" in c],
                         ids=lambda c: f"{c['name']}-{'-'.join(f'{k}={v}' for k, v in c['kwargs'].items())}")
def test_grad_primitive_matches_mindspore(case):
    args = [v if isinstance(v, tuple) else Tensor(v) for v in map(_decode, case["inputs"])]
    got = getattr(G, case["name"])(**case["kwargs"])(*args)
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    want = [_decode(o) for o in case["outputs"]]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and str(g.asnumpy().dtype) == str(w.dtype)
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=2e-6)


def test_every_recorded_case_is_provided():
    assert {c["name"] for c in CASES} <= set(G.PRIMITIVES)


def test_softmax_and_selu_grads_match_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x, dy = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    for fn, prim in ((lambda t: torch.softmax(t, -1), G.SoftmaxGrad()), (torch.selu, None)):
        xt = torch.tensor(x, requires_grad=True)
        y = fn(xt)
        (want,) = torch.autograd.grad(y, xt, torch.tensor(dy))
        if prim is not None:
            got = prim(Tensor(y.detach().numpy()), Tensor(dy))
        else:
            got = G.SeluGrad()(Tensor(dy), Tensor(y.detach().numpy()))
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-5, atol=2e-6)


def test_grad_primitives_in_a_graph_mode_bprop(graph_mode):
    """A zoo's custom bprop calling a gradient primitive runs compiled, as in MindSpore."""
    from opbuild import nn, ops

    class Clip(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu, self.relu_grad = ops.ReLU(), G.ReluGrad()

        def construct(self, x):
            return self.relu(x)

        def bprop(self, x, out, dout):
            return (self.relu_grad(dout * 2, x),)

    x = Tensor(np.array([-1.0, 0.5, 2.0], np.float32))
    grad = ops.grad(Clip())(x)
    np.testing.assert_allclose(grad.asnumpy(), [0.0, 2.0, 2.0])


def test_the_module_path_imports_under_the_alias():
    code = ("import opbuild; opbuild.alias_mindspore()\n"
            "from mindspore.ops.operations import _grad_ops as G\n"
            "import mindspore.ops.operations._grad_ops as G2\n"
            "print(G.MaxPoolGrad.__name__, G2 is G)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["MaxPoolGrad", "True"]
