"""``TedliumDataset``: the TED-LIUM speech corpus (releases 1, 2 and 3): one row per line of the ``.stm``
transcripts, with the segment's samples read from the talk's NIST SPHERE (``.sph``) file."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .core import Row
from .readers import _check_dir
from .sources import _RandomAccessSource

_USAGES = {"release1": ("train", "test", "dev", "all"), "release2": ("train", "test", "dev", "all"),
           "release3": ("all",)}


def read_sphere_header(path: str, raw: bytes) -> tuple[int, dict[str, str]]:
    """The header size and ``name -> value`` fields of a NIST SPHERE file (``NIST_1A``, the header size,
    then ``name -type value`` lines up to ``end_head``)."""
    lines = raw[:1024].split(b"\n")
    if len(lines) < 2 or lines[0].strip() != b"NIST_1A" or not lines[1].strip().isdigit():
        raise RuntimeError(f"TedliumDataset: {path} is not a NIST SPHERE file (no NIST_1A header)")
    size = int(lines[1])
    fields: dict[str, str] = {}
    for line in raw[:size].split(b"\n")[2:]:
        parts = line.decode("latin-1").split(None, 2)
        if parts and parts[0] == "end_head":
            return size, fields
        if len(parts) == 3:
            fields[parts[0]] = parts[2].strip()
    # No end_head within the declared size: the samples would start inside the header's text.
    raise RuntimeError(f"TedliumDataset: {path}'s SPHERE header declares {size} bytes but holds no end_head line "
                       "within them (a damaged file)")


def read_sphere_segment(path: str, start_time: float, end_time: float) -> tuple[np.ndarray, int]:
    """Samples ``[start_time, end_time)`` seconds of a 16-bit PCM mono SPHERE file as float32 (1, n) divided by
    32767 (the scale of MindSpore's audio readers), and the sample rate."""
    if not os.path.isfile(path):
        raise RuntimeError(f"TedliumDataset: audio file {path} does not exist")
    with open(path, "rb") as f:
        raw = f.read()
    size, fields = read_sphere_header(path, raw)
    coding = fields.get("sample_coding", "pcm")
    if coding != "pcm" or fields.get("sample_n_bytes", "2") != "2" or fields.get("channel_count", "1") != "1":
        raise RuntimeError(f"TedliumDataset: {path} is not 16-bit PCM mono (sample_coding {coding!r}, "
                           f"sample_n_bytes {fields.get('sample_n_bytes')}, channel_count "
                           f"{fields.get('channel_count')}); decompress it first (e.g. sph2pipe)")
    rate_text = fields.get("sample_rate", "")
    if not rate_text.isdigit() or int(rate_text) <= 0:  # a rate of 0 would give every segment no samples
        raise RuntimeError(f"TedliumDataset: {path}'s SPHERE header has sample_rate {rate_text or None!r}; a "
                           "positive integer is needed to find a segment's samples")
    rate = int(rate_text)
    if not (np.isfinite(start_time) and np.isfinite(end_time)):
        raise RuntimeError(f"TedliumDataset: the segment [{start_time}, {end_time}) s of {path} is not finite")
    order = "<" if fields.get("sample_byte_format", "10") == "01" else ">"
    start, end = int(start_time * rate), int(end_time * rate)
    body = memoryview(raw)[size:]
    if len(body) % 2:
        raise RuntimeError(f"TedliumDataset: {path} holds {len(body)} bytes of 16-bit samples after its header, "
                           "an odd count (the file is cut short)")
    data = np.frombuffer(body, f"{order}i2")
    if start < 0 or end > len(data) or end < start:
        raise RuntimeError(f"TedliumDataset: the segment [{start_time}, {end_time}) s needs samples {start}..{end} "
                           f"but {path} has {len(data)}")
    return (data[start:end].astype(np.float64) / 32767.0).astype(np.float32)[None], rate


class TedliumDataset(_RandomAccessSource):
    """``TedliumDataset(dataset_dir, release, usage=None, extensions=None, num_samples=None,
    num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)``:
    ``release`` 'release1'/'release2' (``<usage>/stm/*.stm`` and ``<usage>/sph/``; usage 'train', 'test',
    'dev' or 'all' (None: train, test, dev)) or 'release3' (``data/``; usage 'all'). Columns ``waveform``
    float32 (1, n), ``sample_rate`` int32, ``transcript``, ``talk_id``, ``speaker_id``, ``identifier``
    (strings). Rows come in MindSpore's order: sorted by (line number as a string, talk, usage).
    ``extensions`` must be '.sph' (None), as in MindSpore.

    MindSpore 2.10 returns waveforms of zeros (its reader fills a buffer it then does not read, after
    seeking to the segment's sample index as a byte offset); opbuild reads the segment's samples, honouring
    the header's size and byte order, and refuses compressed (shorten) files with a clear error."""

    def __init__(self, dataset_dir: str, release: str, usage: str | None = None, extensions: str | None = None,
                 num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        who = "TedliumDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        if not isinstance(release, str) or release not in _USAGES:
            raise ValueError(f"{who}: release must be one of {list(_USAGES)}, got {release!r}")
        usage = "all" if usage is None else usage
        if not isinstance(usage, str) or usage not in _USAGES[release]:
            raise ValueError(f"{who}: usage must be one of {list(_USAGES[release])} for {release}, got {usage!r}")
        self._root = _check_dir(who, dataset_dir)
        self._ext = ".sph" if extensions is None else extensions
        if self._ext != ".sph":
            raise RuntimeError(f"{who}: extensions must be '.sph' (the only audio format MindSpore reads), got "
                               f"{extensions!r}")
        parts = ["data"] if release == "release3" else (["train", "test", "dev"] if usage == "all" else [usage])
        items: list[tuple[str, str, str]] = []
        for part in parts:
            folder = os.path.join(self._root, part, "stm")
            if not os.path.isdir(folder):
                raise RuntimeError(f"{who}: the transcript folder {folder} does not exist")
            for name in os.listdir(folder):
                if not name.endswith(".stm"):
                    continue
                with open(os.path.join(folder, name), encoding="utf-8", newline="\n") as f:
                    lines = f.read().split("\n")
                lines = lines[:-1] if lines and lines[-1] == "" else lines
                items += [(str(k), line.split(" ", 1)[0], part) for k, line in enumerate(lines)]
        if not items:
            raise RuntimeError(f"{who}: no transcript line found under {self._root} for {release}, usage {usage!r}")
        self._items = sorted(items)

    def _column_names(self) -> list[str]:
        return ["waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        line_no, talk, part = self._items[index]
        stm = os.path.join(self._root, part, "stm", talk + ".stm")
        with open(stm, encoding="utf-8", newline="\n") as f:
            line = f.read().split("\n")[int(line_no)]
        fields = line.split(" ", 6)
        if len(fields) != 7:
            raise RuntimeError(f"TedliumDataset: line {int(line_no) + 1} of {stm} has {len(fields)} fields, expected "
                               "7 (talk, channel, speaker, start, end, identifier, transcript)")
        talk_id, _, speaker, start, end, identifier, transcript = fields
        try:
            t0, t1 = float(start), float(end)
        except ValueError:
            raise RuntimeError(f"TedliumDataset: line {int(line_no) + 1} of {stm}: bad times {start!r}, {end!r}") \
                from None
        wave, rate = read_sphere_segment(os.path.join(self._root, part, "sph", talk + self._ext), t0, t1)
        return (wave, np.asarray(rate, np.int32), np.array(transcript), np.array(talk_id), np.array(speaker),
                np.array(identifier))


__all__ = ["TedliumDataset"]
