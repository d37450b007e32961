"""Under the import alias ``mindspore.numpy`` is opbuild.numpy, by every spelling a MindSpore program uses
(``import mindspore.numpy as mnp``, ``from mindspore import numpy``, ``mindspore.numpy`` after ``import
mindspore``)."""

from __future__ import annotations

import pytest

from ..conftest import run_python

pytestmark = pytest.mark.slow  # a fresh interpreter


def test_import_alias_resolves_mindspore_numpy():
    code = ("import opbuild\nimport mindspore\nms_attr = mindspore.numpy\nimport mindspore.numpy as mnp\n"
            "from mindspore import numpy as np2\nimport opbuild.numpy\nassert ms_attr is mnp is np2 is opbuild.numpy\n"
            "print(mnp.sum(mnp.arange(5)), mnp.ones((2,)).dtype)")
    out = run_python(code, env={"OPBUILD_AS_MINDSPORE": "1"})
    assert out.stdout.split() == ["10", "Float32"]
