"""Parameter names given when none is: run in a fresh process under MindSpore 2.10
(scripts/record_param_auto_names.py -> tests/fixtures/mindspore/param_auto_names.json) and under opbuild's
mindspore alias (tests/core/test_param_auto_names.py); prints one JSON line."""

import json

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn


def _names() -> dict:
    out = {}
    p = Parameter(Tensor(np.ones(2, np.float32)))
    out["first"] = p.name
    out["repr"] = repr(p)
    out["print"] = str(p)
    out["more"] = [Parameter(Tensor(np.ones(1, np.float32))).name, Parameter(np.ones(1, np.float32)).name,
                   Parameter(1.0).name, Parameter(Tensor(1.0), name="").name, Parameter(Tensor(1.0), name="  ").name]
    out["stripped"] = Parameter(Tensor(1.0), name="  w  ").name
    c = p.clone()
    out["clone"] = [type(c).__name__, c.name, c.requires_grad]
    p.name = "renamed"
    out["set"] = p.name
    p.name = None
    out["set_none"] = p.name
    try:
        Parameter(Tensor(1.0), name="x" * 1025)
        out["long"] = "ok"
    except ValueError:
        out["long"] = "ValueError"

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.ones(2, np.float32)))
            self.v = Parameter(Tensor(np.ones(2, np.float32)), name="")
            self.a = Parameter(Tensor(np.ones(2, np.float32)), name="Parameter#99")
            self.b = Parameter(Tensor(np.ones(2, np.float32)), name="Parameter")
            self.c = Parameter(Tensor(np.ones(2, np.float32)), name="Parameter#x")

        def construct(self, x):
            return x

    out["cell"] = sorted(q.name for q in Net().get_parameters())
    out["tuple"] = [q.name for q in ms.ParameterTuple([Parameter(Tensor(1.0)), Parameter(Tensor(2.0))])]
    return out


print("RESULT " + json.dumps(_names()))
