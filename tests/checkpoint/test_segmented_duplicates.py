"""load_segmented_checkpoints over a folder whose files name one parameter twice (full saves of several epochs
rather than segments of one): a ValueError naming the parameter and both files, instead of the file that sorts
last silently winning (``net_10.ckpt`` sorts before ``net_2.ckpt``)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import opbuild as ms


def test_segments_naming_one_parameter_twice_are_refused(tmp_path) -> None:
    folder = tmp_path / "ckpts"
    folder.mkdir()
    for epoch in (1, 2, 10):  # full saves of three epochs, not segments: "_10" sorts before "_2"
        ms.save_checkpoint([{"name": "w", "data": np.full(2, epoch, np.float32)}], str(folder / f"net_{epoch}.ckpt"))
    with pytest.raises(ValueError, match=r"'w' is in both net_1.ckpt and net_10.ckpt .*hold each parameter once"):
        ms.load_segmented_checkpoints(str(folder))
    for epoch in (2, 10):
        os.remove(folder / f"net_{epoch}.ckpt")
    ms.save_checkpoint([{"name": "b", "data": np.zeros(3, np.float32)}], str(folder / "net_part2.ckpt"))
    assert sorted(ms.load_segmented_checkpoints(str(folder))) == ["b", "w"]
