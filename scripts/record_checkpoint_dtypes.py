"""Record MindSpore-written checkpoints of every dtype MindSpore saves into tests/fixtures/mindspore/ckpt_dtypes/.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_checkpoint_dtypes.py``.
Each ``<dtype>.ckpt`` holds two Parameters made by :func:`values` (a (3, 4) tensor and a 0-d one), so the
tests can rebuild the same values with opbuild, load MindSpore's file and save their own, byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import mindspore as ms
import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mindspore" / "ckpt_dtypes"
DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
          "int64", "uint64", "bool")


def values(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """The float32 (or integer/bool) source arrays of the two Parameters of ``dtype`` (the same recipe lives in
    tests/checkpoint/test_checkpoint_dtypes.py)."""
    if dtype == "bool":
        return np.arange(12).reshape(3, 4) % 3 == 0, np.array(True)
    if dtype.startswith(("float", "bfloat")):
        grid = (np.arange(12, dtype=np.float32).reshape(3, 4) - 6.0) * np.float32(0.3712)
        grid[0, 0] = np.inf
        grid[0, 1] = -0.0
        return grid, np.array(1.0 / 3.0, np.float32)
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    picks = [lo, lo + 1, lo // 3, max(lo, -1), 0, 1, 7, 100, hi // 3, hi // 2, hi - 1, hi]
    grid = np.array(picks, dtype=dtype).reshape(3, 4)
    return grid, np.array(info.max, dtype)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in DTYPES:
        grid, scalar = values(name)
        msdtype = getattr(ms, "bool_" if name == "bool" else name)
        params = [ms.Parameter(ms.Tensor(grid, dtype=msdtype), name="grid"),
                  ms.Parameter(ms.Tensor(scalar, dtype=msdtype), name="scalar")]
        path = OUT / f"{name}.ckpt"
        if path.exists():
            path.unlink()
        ms.save_checkpoint(params, str(path))
        path.chmod(0o644)
        print(name, path.stat().st_size)


if __name__ == "__main__":
    main()
