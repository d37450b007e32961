"""Random ops draw the same values in separate processes for the same seeds (MindSpore's promise under
``set_seed``), and other values for another seed."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_python

pytestmark = pytest.mark.slow

CODE = """
import json, sys
import opbuild as ms
from opbuild import ops, Tensor
import numpy as np
ms.set_seed(int(sys.argv[1]))
out = [ops.randn(4).asnumpy().tolist(), ops.randn(4).asnumpy().tolist(), ops.randint(0, 100, (4,)).asnumpy().tolist(),
       ops.StandardLaplace(seed=3, seed2=1)((3,)).asnumpy().tolist()]
print(json.dumps(out))
"""


def test_same_seed_same_values_across_processes(tmp_path):
    runs = [json.loads(run_python(CODE, seed, cwd=tmp_path).stdout.strip().splitlines()[-1])
            for seed in ("4", "4", "5")]
    assert runs[0] == runs[1]
    assert runs[0][0] != runs[0][1]
    assert all(a != b for a, b in zip(runs[0][:3], runs[2][:3]))
    # A primitive given its own seed pair draws MindSpore's stream of that pair whatever the global seed (MindSpore
    # 2.10 prints the same StandardLaplace(seed=3, seed2=1) values after set_seed(4) and set_seed(5)).
    assert runs[0][3] == runs[2][3]
