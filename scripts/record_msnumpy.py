"""Record MindSpore 2.10's results of the ``mindspore.numpy`` programs of tests/compat/msnumpy_programs.py, in
PYNATIVE_MODE (called directly) and in GRAPH_MODE (called from a Cell's ``construct``), into
tests/fixtures/mindspore/msnumpy.npz, and the facts of tests/compat/msnumpy_facts.py (dtype names, defaults)
into tests/fixtures/mindspore/msnumpy_facts.json.

    /tmp/ms/bin/python scripts/record_msnumpy.py [OUT.npz]

A case MindSpore refuses is recorded with its error (the test expects opbuild to refuse it too).
"""

from __future__ import annotations

import sys
from pathlib import Path

import mindspore as ms
import mindspore.numpy as mnp
from mindspore import nn
from ms_case_recorder import REPO, record, record_programs, save

# MindSpore's graph compiler imports a function's module by name: the programs load as tests.compat.*.
sys.path.insert(0, str(REPO))
from tests.compat import msnumpy_programs as cases  # noqa: E402

OUT = REPO / "tests" / "fixtures" / "mindspore" / "msnumpy.npz"
FACTS = REPO / "tests" / "fixtures" / "mindspore" / "msnumpy_facts.json"


class Prog1(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x):
        return self.fn(x)


class Prog2(Prog1):
    def construct(self, x, y):
        return self.fn(x, y)


def main(argv: list[str]) -> int:
    cases.bind(mnp)
    arrays: dict = {}
    errors: dict[str, str] = {}
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    record(cases.CASES, lambda fn, inputs: fn(*[ms.Tensor(a) for a in inputs]), cases.outputs, arrays, errors,
           prefix="pynative/")
    ms.set_context(mode=ms.GRAPH_MODE)
    graph = {k: v for k, v in cases.CASES.items() if k not in cases.PYNATIVE_ONLY}

    def in_graph(fn, inputs):
        cell = (Prog1 if len(inputs) == 1 else Prog2)(fn)
        return cell(*[ms.Tensor(a) for a in inputs])

    record(graph, in_graph, cases.outputs, arrays, errors, prefix="graph/")
    save(Path(argv[0]) if argv else OUT, arrays, errors, ms.__version__, len(cases.CASES) + len(graph))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    record_programs("msnumpy_facts", Path(argv[1]) if len(argv) > 1 else FACTS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
