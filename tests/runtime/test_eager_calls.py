"""PyNative's per-call work (runtime/session.py ``run_eager``): a kernel's scratch size is computed once per
kernel spec, not on every call, and each call still gets scratch of that size."""

from __future__ import annotations

import numpy as np

import opbuild as ms
from opbuild.ops.registry import OpDef


def test_workspace_size_is_computed_once_per_spec(monkeypatch):
    sizes: list[tuple[str, int]] = []
    real = OpDef.workspace_bytes

    def counted(self, attrs, ins, outs):
        size = real(self, attrs, ins, outs)
        sizes.append((self.name, size))
        return size

    monkeypatch.setattr(OpDef, "workspace_bytes", counted)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 5, 5)).astype(np.float32)
    b = rng.standard_normal((2, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(ms.ops.det(ms.Tensor(a)).asnumpy(), np.linalg.det(a), rtol=1e-4)
    first = [s for name, s in sizes if name == "MatrixDeterminant"]
    assert first and all(s > 0 for s in first)  # MatrixDeterminant plans scratch (its LU copy)
    for _ in range(3):  # later calls of the same spec reuse the size
        np.testing.assert_allclose(ms.ops.det(ms.Tensor(a)).asnumpy(), np.linalg.det(a), rtol=1e-4)
    assert [s for name, s in sizes if name == "MatrixDeterminant"] == first
    np.testing.assert_allclose(ms.ops.det(ms.Tensor(b)).asnumpy(), np.linalg.det(b), rtol=1e-4)
    assert len([s for name, s in sizes if name == "MatrixDeterminant"]) > len(first)  # a new spec: sized anew
