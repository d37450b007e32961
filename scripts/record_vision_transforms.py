"""Record MindSpore 2.10's outputs of the vision transforms of tests/dataset/vision_cases.py, the data
transforms of tests/dataset/transforms_cases.py, the audio transforms of tests/dataset/audio_cases.py and the
text transforms of tests/dataset/text_cases.py into tests/fixtures/mindspore/vision_transforms.npz,
data_transforms.npz, audio_transforms.npz and text_transforms.npz (``<name>/<i>``
arrays; an ``error:<name>`` entry where MindSpore raises).

    /tmp/ms/bin/python scripts/record_vision_transforms.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "mindspore" / "vision_transforms.npz"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, str(REPO / "tests" / "dataset" / f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(calls: dict, out_path: Path) -> None:
    """Run each (transform, input) of ``calls`` and save the outputs."""
    arrays: dict[str, np.ndarray] = {}
    for name, (transform, data) in calls.items():
        try:
            out = transform(data)
        except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
            arrays[f"error:{name}"] = np.array(f"{type(e).__name__}: {e}"[:200])
            continue
        for i, a in enumerate(out if isinstance(out, tuple) else (out,)):
            arrays[f"{name}/{i}"] = np.asarray(a)
    np.savez_compressed(out_path, **arrays)
    print(f"{out_path}: {len(arrays)} arrays, errors: {[k for k in arrays if k.startswith('error:')]}")


def main() -> int:
    import mindspore
    import mindspore.dataset.audio as A
    import mindspore.dataset.text as X
    import mindspore.dataset.transforms as T
    import mindspore.dataset.vision as V

    vision = _load("vision_cases")
    record({k: (t, vision.image()) for k, t in vision.build(V).items()}, OUT)
    record(_load("transforms_cases").build(T), OUT.with_name("data_transforms.npz"))
    record(_load("audio_cases").build(A), OUT.with_name("audio_transforms.npz"))
    record(_load("text_cases").build(X, mindspore.int32), OUT.with_name("text_transforms.npz"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
