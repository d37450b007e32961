"""Elementwise-only test networks for the cache tests, described by plain JSON-able data.

A network is a list of independent branches; branch ``i`` takes one input of shape ``(ROWS, width)`` and
dtype ``dtype`` and applies Sigmoid, Tanh, Mul, Add and ReLU (plus a Cast to ``cast`` when given). Branches
with distinct (width, dtype) share no kernel, so the set of distinct kernels of a network, and which of them
change when one branch changes, can be computed here without asking opbuild (:func:`expected_kernels`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ROWS = 2
BRANCH_OPS = ("Sigmoid", "Tanh", "Mul", "Add", "ReLU")
# Stated tolerances: float32 kernels use expf/tanhf, which may differ from NumPy by a few ulp. float16 kernels
# (unfused in the cache tests) round each of the branch's five results once: a few float16 ulps (2^-10).
TOLERANCE = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12),
             "float16": dict(rtol=4e-3, atol=2e-3)}


def branches(widths: Sequence[int], dtype: str = "float32", cast: str | None = None) -> list[dict]:
    """One branch per width, all of ``dtype``."""
    return [{"w": int(w), "dtype": dtype, "cast": cast} for w in widths]


def expected_kernels(config: Sequence[dict]) -> set[tuple]:
    """The distinct kernels of a network as (op, shape, dtype, cast target) tuples."""
    out = set()
    for b in config:
        shape = (ROWS, b["w"])
        for op in BRANCH_OPS:
            out.add((op, shape, b["dtype"], None))
        if b.get("cast"):
            out.add(("Cast", shape, b["dtype"], b["cast"]))
    return out


def make_net(config: Sequence[dict]):
    """An opbuild Cell computing every branch; returns a tuple with one output per branch."""
    import opbuild.nn as nn
    import opbuild.ops as ops

    class BranchNet(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.sigmoid = ops.Sigmoid()
            self.tanh = ops.Tanh()
            self.relu = ops.ReLU()
            self.mul = ops.Mul()
            self.add = ops.Add()
            self.cast = ops.Cast()

        def construct(self, *xs):
            outs = []
            for b, x in zip(config, xs, strict=True):
                y = self.relu(self.add(self.mul(self.sigmoid(x), self.tanh(x)), x))
                if b.get("cast"):
                    y = self.cast(y, b["cast"])
                outs.append(y)
            return tuple(outs)

    return BranchNet()


def make_inputs(config: Sequence[dict], seed: int = 0) -> list[np.ndarray]:
    """Deterministic inputs in [-3, 3] (both signs, so ReLU and Sigmoid are exercised on each side)."""
    rng = np.random.default_rng(seed)
    return [rng.uniform(-3, 3, (ROWS, b["w"])).astype(b["dtype"]) for b in config]


def reference(config: Sequence[dict], arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The network computed with NumPy alone (independent of opbuild's op references)."""
    outs = []
    for b, x in zip(config, arrays, strict=True):
        xc = x.astype(np.float32) if x.dtype == np.float16 else x  # half: float32 math rounded at the end
        y = np.maximum((1 / (1 + np.exp(-xc))) * np.tanh(xc) + xc, 0).astype(b["dtype"])
        outs.append(y.astype(b["cast"]) if b.get("cast") else y)
    return outs


def check_outputs(config: Sequence[dict], got: Sequence[np.ndarray], arrays: Sequence[np.ndarray]) -> None:
    """Raise AssertionError unless ``got`` matches the NumPy reference (dtype, shape and values)."""
    want = reference(config, arrays)
    assert len(got) == len(want), f"{len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert (g.dtype, g.shape) == (w.dtype, w.shape), f"output {i}: {g.dtype}{g.shape}, {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, **TOLERANCE[config[i]["dtype"]], err_msg=f"output {i}")
