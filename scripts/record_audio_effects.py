"""Record MindSpore 2.10's outputs of the audio effects of tests/dataset/audio_effect_cases.py into
tests/fixtures/mindspore/audio_effects.npz: ``<name>/<i>`` arrays, or a 0-d ``error:<ExceptionType>`` string
where MindSpore raises (bad arguments included, as ``bad/<name>``).

    /tmp/ms/bin/python scripts/record_audio_effects.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "mindspore" / "audio_effects.npz"


def _cases():
    spec = importlib.util.spec_from_file_location("audio_effect_cases",
                                                  str(REPO / "tests" / "dataset" / "audio_effect_cases.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    import mindspore.dataset as ds
    import mindspore.dataset.audio as A

    cases = _cases()
    arrays: dict[str, np.ndarray] = {}
    for name, (transform, data) in cases.build(A, ds).items():
        try:
            out = transform(data)
        except Exception as exc:  # noqa: BLE001  (the exception's type is the record)
            arrays[f"{name}/error"] = np.array(f"error:{type(exc).__name__}")
            continue
        for i, o in enumerate(out if isinstance(out, tuple) else (out,)):
            arrays[f"{name}/{i}"] = np.asarray(o)
    for name, make in cases.bad_arguments(A).items():
        try:
            make()
            arrays[f"bad/{name}"] = np.array("ok")
        except Exception as exc:  # noqa: BLE001
            arrays[f"bad/{name}"] = np.array(f"error:{type(exc).__name__}")
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({len(arrays)} entries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
