"""The comparison against a recorded MindSpore fixture that tests of op cases share: a cases module's
``CASES`` (``name: (fn(ms, ops, *tensors), inputs)``) replayed on the fixture's recorded inputs in PyNative and,
but for ``PYNATIVE_ONLY``, traced in GRAPH_MODE, each output compared with MindSpore's (shape, dtype, values
within float tolerance)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

import opbuild as ms
from opbuild import Tensor, ops

from ..helpers import FnCell

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


class Recorded:
    """The fixture ``tests/fixtures/<name>.npz`` of ``cases`` (with their ``outputs`` function)."""

    def __init__(self, name: str, cases: dict, outputs: Callable, pynative_only: set[str] = frozenset()):
        self.fixture = np.load(FIXTURES / f"{name}.npz")
        self.meta = json.loads(bytes(self.fixture["__meta__"]).decode())
        self.refused = set(self.meta["errors"])
        self.cases, self.outputs, self.pynative_only = cases, outputs, set(pynative_only)

    def missing(self) -> list[str]:
        """Cases MindSpore answered whose outputs the fixture lacks (a stale recording)."""
        return [n for n in set(self.cases) - self.refused if f"{n}:out0" not in self.fixture]

    def runs(self) -> list[tuple[str, str]]:
        """(case, mode) pairs to compare: every answered case in PyNative, the graph-capable ones traced."""
        answered = set(self.cases) - self.refused
        return [(n, "pynative") for n in sorted(answered)] + \
            [(n, "graph") for n in sorted(answered - self.pynative_only)]

    def run(self, name: str, mode: str):
        """The case on its recorded inputs, in ``mode`` (``graph``: traced in a Cell)."""
        fn, inputs = self.cases[name]
        arrays = [self.fixture[f"{name}:in{i}"] for i in range(len(inputs))]
        old = ms.get_context("mode")
        try:
            graph = mode == "graph" and name not in self.pynative_only
            ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
            tensors = [Tensor(a) for a in arrays]
            return FnCell(lambda *ts: fn(ms, ops, *ts))(*tensors) if graph else fn(ms, ops, *tensors)
        finally:
            ms.set_context(mode=old)

    def check(self, name: str, mode: str) -> None:
        """The case's outputs equal MindSpore's: shapes and dtypes exactly, values within float tolerance
        (float16: a few units in the last place, as the order of its roundings differs)."""
        keys = sorted((k for k in self.fixture.files if k.startswith(f"{name}:out")),
                      key=lambda k: int(k.rsplit("out", 1)[1]))
        want = [self.fixture[k] for k in keys]
        got = self.outputs(self.run(name, mode))
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
            tol = (2e-3, 1e-3) if g.dtype == np.float16 else (2e-5, 2e-6)
            np.testing.assert_allclose(g, w, rtol=tol[0], atol=tol[1])
