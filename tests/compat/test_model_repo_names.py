"""Names the scripts of MindSpore's model repository use as attributes (beyond their import lines, which
tests/compat/test_module_paths.py replays): ``P.FloatStatus`` (run: MindSpore has it on GPU only), the Ascend
overflow-flag primitives (constructed, refused when called, as on MindSpore's CPU), ``C.add_flags``,
``ms.log``, ``nn.dynamic_lr`` and ``nn.learning_rate_schedule``."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn
from opbuild.ops import composite as C
from opbuild.ops import operations as P


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("bad", [None, np.inf, -np.inf, np.nan])
def test_float_status(dtype, bad, pynative_mode):
    x = np.linspace(-3, 3, 12).astype(dtype).reshape(3, 4)
    if bad is not None:
        x[1, 2] = bad
    out = P.FloatStatus()(ms.Tensor(x))
    assert str(out.dtype) == "Float32" and out.shape == (1,)
    assert out.asnumpy().tolist() == [float(not np.isfinite(x).all())]


def test_float_status_refuses_integers():
    with pytest.raises(TypeError, match="FloatStatus: the input must be a float16/float32/float64 Tensor"):
        P.FloatStatus()(ms.Tensor(np.arange(3, dtype=np.int32)))


@pytest.mark.parametrize("name", ["NPUAllocFloatStatus", "NPUGetFloatStatus", "NPUClearFloatStatus"])
def test_ascend_overflow_flags_construct_and_refuse_to_run(name):
    prim = getattr(P, name)()
    assert getattr(ms.ops, name) is getattr(P, name)
    args = () if name == "NPUAllocFloatStatus" else (ms.Tensor(np.zeros(8, np.float32)),)
    with pytest.raises(RuntimeError, match=f"{name}: reads the Ascend NPU's float overflow flags"):
        prim(*args)


def test_add_flags():
    # MindSpore 2.10: add_flags(fn, **flags) sets fn._func_graph_flags and returns fn; add_flags(**flags) is a
    # decorator; the values must be bools.
    def f(x):
        return x

    assert C.add_flags(f, has_effect=True) is f and f._func_graph_flags == {"has_effect": True}

    @C.add_flags(defer_inline=True)
    def g(x):
        return x

    assert g._func_graph_flags == {"defer_inline": True}
    C.add_flags(g, has_effect=False)
    assert g._func_graph_flags == {"defer_inline": True, "has_effect": False}
    with pytest.raises(TypeError, match="flag values must be bools"):
        C.add_flags(f, level=2)


def test_module_attributes_after_a_bare_import():
    # A fresh interpreter: `import mindspore` alone must give these attributes (no submodule import first).
    code = ("import opbuild; opbuild.alias_mindspore(); import mindspore as ms; "
            "print(ms.log.get_level(), ms.nn.dynamic_lr.piecewise_constant_lr([1, 2], [0.1, 0.01]), "
            "ms.nn.learning_rate_schedule.CosineDecayLR is ms.nn.CosineDecayLR, "
            "ms.ConvertModelUtils is ms.train.ConvertModelUtils)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["2", "[0.1,", "0.01]", "True", "True"]
    assert nn.dynamic_lr.piecewise_constant_lr([1, 2], [0.1, 0.01]) == [0.1, 0.01]
