"""Record MindSpore 2.10's outputs of the vision transforms of tests/dataset/vision_cases.py into
tests/fixtures/mindspore/vision_transforms.npz (``<name>/<i>`` arrays; an ``error:<name>`` entry where
MindSpore raises).

    /tmp/ms/bin/python scripts/record_vision_transforms.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "dataset" / "vision_cases.py"
OUT = REPO / "tests" / "fixtures" / "mindspore" / "vision_transforms.npz"


def main() -> int:
    import mindspore.dataset.vision as V

    spec = importlib.util.spec_from_file_location("vision_cases", str(CASES))
    cases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cases)
    arrays: dict[str, np.ndarray] = {}
    for name, transform in cases.build(V).items():
        try:
            out = transform(cases.image())
        except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
            arrays[f"error:{name}"] = np.array(f"{type(e).__name__}: {e}"[:200])
            continue
        for i, a in enumerate(out if isinstance(out, tuple) else (out,)):
            arrays[f"{name}/{i}"] = np.asarray(a)
    np.savez_compressed(OUT, **arrays)
    print(f"{OUT}: {len(arrays)} arrays, errors: {[k for k in arrays if k.startswith('error:')]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
