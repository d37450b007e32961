"""``YesNoDataset``: the Yes/No speech recordings (16-bit PCM WAV files named by their eight 0/1 labels),
with MindSpore's columns and dtypes. WAV files are read with Python's ``wave`` module."""

from __future__ import annotations

import os
import wave
from typing import Any

import numpy as np

from .core import Row
from .readers import _check_dir
from .sources import _RandomAccessSource


def read_wav(path: str) -> tuple[np.ndarray, int]:
    """The samples of a 16-bit PCM WAV file as float32 (channels, frames) divided by 32767, and its sample
    rate."""
    try:
        with wave.open(path, "rb") as f:
            if f.getsampwidth() != 2:
                raise ValueError(f"{path}: only 16-bit PCM WAV files are read, this one has {8 * f.getsampwidth()}"
                                 "-bit samples")
            channels, rate = f.getnchannels(), f.getframerate()
            data = np.frombuffer(f.readframes(f.getnframes()), "<i2")
    except (wave.Error, EOFError) as err:
        raise ValueError(f"{path} is not a PCM WAV file ({err})") from None
    # MindSpore scales by 32767 (so -32768 maps just below -1), and so does opbuild, to give its values.
    return (data.reshape(-1, channels).T.astype(np.float32) / np.float32(32767.0)), rate


class YesNoDataset(_RandomAccessSource):
    """``YesNoDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
    num_shards=None, shard_id=None, cache=None)``: one row per ``.wav`` file of ``dataset_dir`` (sorted), named
    like ``0_1_0_0_1_0_1_1.wav``: ``waveform`` (float32 (channels, frames)), ``sample_rate`` (int32) and
    ``label`` (int32 (8,), the name's digits)."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        who = "YesNoDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        root = _check_dir(who, dataset_dir)
        self._files = []
        for name in sorted(os.listdir(root)):
            if not name.endswith(".wav"):
                continue
            parts = name[:-4].split("_")
            if not all(p in ("0", "1") for p in parts):
                raise ValueError(f"{who}: {name} is not named by 0/1 labels (like 0_1_0_0_1_0_1_1.wav)")
            self._files.append((os.path.join(root, name), np.asarray([int(p) for p in parts], np.int32)))

    def _column_names(self) -> list[str]:
        return ["waveform", "sample_rate", "label"]

    def _num_rows(self) -> int:
        return len(self._files)

    def _row(self, index: int) -> Row:
        path, label = self._files[index]
        waveform, rate = read_wav(path)
        return waveform, np.asarray(rate, np.int32), label


__all__ = ["YesNoDataset", "read_wav"]
