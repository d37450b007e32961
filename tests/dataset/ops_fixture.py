"""MindSpore's recorded results of the dataset-operation programs (scripts/record_dataset_ops.py) and the
comparison the tests use."""

from __future__ import annotations

from pathlib import Path

import numpy as np

PATH = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "dataset_ops.npz"


def expected(program: str) -> dict:
    """Case -> array, list of arrays, or ``"error:<Type>"`` for one program's cases."""
    with np.load(PATH) as data:
        flat = {k: data[k] for k in data.files}
    out: dict = {}
    prefix = program + "/"
    for key in sorted(flat):
        if not key.startswith(prefix):
            continue
        parts = key[len(prefix):].split("/")
        if len(parts) == 1:
            v = flat[key]
            out[parts[0]] = str(v) if v.dtype.kind == "U" and v.ndim == 0 and str(v).startswith("error:") else v
        elif parts[1] == "n":
            out[parts[0]] = [flat[f"{prefix}{parts[0]}/{i}"] for i in range(int(flat[key]))]
    return out


def assert_same(got, want, case: str, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """``got`` (an opbuild result or an exception name) equals MindSpore's ``want``: same shape and dtype,
    values within tolerance (exact for integers, strings and booleans)."""
    if isinstance(want, str):
        assert got == want[len("error:"):], f"{case}: MindSpore raised {want[6:]}, opbuild gave {got!r}"
        return
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{case}: {len(want)} outputs expected"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{case}[{i}]", rtol, atol)
        return
    assert not isinstance(got, str), f"{case}: opbuild raised {got}, MindSpore gave {want.shape} {want.dtype}"
    got = np.asarray(got)
    assert got.shape == want.shape, f"{case}: shape {got.shape}, MindSpore {want.shape}"
    assert got.dtype == want.dtype, f"{case}: dtype {got.dtype}, MindSpore {want.dtype}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=case)
    else:
        np.testing.assert_array_equal(got, want, err_msg=case)
