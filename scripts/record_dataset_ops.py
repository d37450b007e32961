"""Record MindSpore's results of the dataset-operation programs (tests/dataset/audio_programs.py,
text_programs.py, ops_programs.py, pipeline_programs.py) into tests/fixtures/mindspore/dataset_ops.npz: one
array per case output (``<program>/<case>`` or ``<program>/<case>/<i>`` for several outputs), or a 0-d string array
``error:<ExceptionType>`` where MindSpore refused.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_dataset_ops.py``.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore as ms  # noqa: E402
import mindspore.dataset as ds  # noqa: E402
import mindspore.dataset.audio as audio  # noqa: E402
import mindspore.dataset.text as text  # noqa: E402
import mindspore.dataset.transforms as transforms  # noqa: E402
import mindspore.dataset.vision as vision  # noqa: E402

PROGRAMS = {"audio": lambda m: m.run(audio), "text": lambda m: m.run(text, ds),
            "ops": lambda m: m.run(vision, transforms, ds), "pipeline": lambda m: m.run(ds, ms)}


def flatten(prefix: str, results: dict) -> dict[str, np.ndarray]:
    """``results`` of one program as npz entries (see the module docstring)."""
    flat: dict[str, np.ndarray] = {}
    for case, res in results.items():
        key = f"{prefix}/{case}"
        if isinstance(res, str):
            flat[key] = np.array(f"error:{res}")
        elif isinstance(res, list):
            flat[key + "/n"] = np.array(len(res))
            for i, r in enumerate(res):
                flat[f"{key}/{i}"] = np.asarray(r)
        else:
            flat[key] = np.asarray(res)
    return flat


def main() -> None:
    entries: dict[str, np.ndarray] = {}
    for name, runner in PROGRAMS.items():
        try:
            module = importlib.import_module(f"tests.dataset.{name}_programs")
        except ImportError:
            continue
        entries.update(flatten(name, runner(module)))
    path = REPO / "tests" / "fixtures" / "mindspore" / "dataset_ops.npz"
    np.savez_compressed(path, **entries)
    print(f"wrote {path} ({len(entries)} entries)")


if __name__ == "__main__":
    main()
