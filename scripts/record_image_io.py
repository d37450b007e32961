"""Record MindSpore 2.10's results for the cases of tests/dataset/image_io_cases.py (image file functions,
``BoundingBoxAugment``, word vectors) into tests/fixtures/mindspore/image_io.npz: ``file:<name>`` the input
files' bytes, ``<case>/<i>`` the outputs, ``error:<case>`` the exception where MindSpore raises.

    /tmp/ms/bin/python scripts/record_image_io.py
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "mindspore" / "image_io.npz"


def _cases():
    path = REPO / "tests" / "dataset" / "image_io_cases.py"
    spec = importlib.util.spec_from_file_location("image_io_cases", str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _outputs(out) -> list:
    if out is None:
        return []
    if isinstance(out, (tuple, list)):
        return [np.asarray(a) for a in out]
    return [np.asarray(out)]


def main() -> int:
    import mindspore.dataset as ds
    import mindspore.dataset.text as X
    import mindspore.dataset.vision as V

    cases = _cases()
    arrays: dict[str, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name in cases.make_files(folder):
            with open(os.path.join(folder, name), "rb") as f:
                arrays[f"file:{name}"] = np.frombuffer(f.read(), np.uint8)
        vocab = X.SentencePieceVocab.from_file([os.path.join(folder, "corpus.txt")], 40, 1.0,
                                               X.SentencePieceModel.BPE, {"normalization_rule_name": "identity"})
        X.SentencePieceVocab.save_model(vocab, folder, "spm.model")
        with open(os.path.join(folder, "spm.model"), "rb") as f:
            arrays["file:spm.model"] = np.frombuffer(f.read(), np.uint8)
        calls = {**cases.build_sentencepiece(X, folder), **cases.build_read(V, folder),
                 **cases.build_write(V, folder), **cases.build_size(V),
                 **cases.build_bbox(V), **cases.build_vectors(X, folder), **cases.build_map(ds, V, X, folder)}
        for name, call in calls.items():
            try:
                out = call()
            except Exception as e:  # noqa: BLE001 - recorded: opbuild must raise too
                arrays[f"error:{name}"] = np.array(f"{type(e).__name__}: {e}"[:300])
                continue
            arrays[f"ok:{name}"] = np.array(len(_outputs(out)))
            for i, a in enumerate(_outputs(out)):
                arrays[f"{name}/{i}"] = a
    np.savez_compressed(OUT, **arrays)
    print(f"{OUT}: {len(arrays)} arrays; errors: {sorted(k[6:] for k in arrays if k.startswith('error:'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
