"""The recorded MINDIR fixtures (scripts/record_mindir.py, MindSpore 2.10): files, inputs and outputs."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"
MINDIR = FOLDER / "mindir"
NETS = ("lenet5", "resblock", "transformer", "branchy", "mixed", "upsampler", "looped")


@cache
def record() -> dict:
    return json.loads((FOLDER / "mindir.json").read_text())


def array(a: dict) -> np.ndarray:
    return np.asarray(a["data"], dtype=a["dtype"]).reshape(a["shape"])


def case(name: str) -> tuple[Path, list[np.ndarray], dict]:
    """The file, the inputs and the record of network ``name``."""
    entry = record()["nets"][name]
    return MINDIR / f"{name}.mindir", [array(a) for a in entry["inputs"]], entry


def negated(inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The negated float inputs (index inputs unchanged), as scripts/record_mindir.py ran them."""
    return [-a if a.dtype.kind == "f" else a for a in inputs]


def close_all(got, want: list[dict]) -> None:
    """``got`` (a Tensor or a tuple of them) equals the recorded output list ``want``."""
    got = list(got) if isinstance(got, (tuple, list)) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, array(w))


def close(got, want: np.ndarray) -> None:
    """float32 agreement with MindSpore: its CPU kernels sum in another order, so the absolute tolerance scales
    with the outputs' magnitude (LeNet5's logits reach 40 from random weights)."""
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(want).max())))
