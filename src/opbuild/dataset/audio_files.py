"""Readers of speech and music recordings: ``YesNoDataset`` (WAV files named by their eight 0/1 labels),
``LJSpeechDataset``, ``SpeechCommandsDataset``, ``CMUArcticDataset``, ``GTZANDataset`` and
``LibriTTSDataset``, with MindSpore's
columns and dtypes. WAV files (16-bit PCM) are read with Python's ``wave`` module."""

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
            raw = f.readframes(f.getnframes())
    except (wave.Error, EOFError) as err:
        raise ValueError(f"{path} is not a PCM WAV file ({err})") from None
    if len(raw) % (2 * channels):  # NumPy's errors here would name neither the file nor the problem
        raise ValueError(f"{path} ends inside a frame ({len(raw)} bytes of samples, frames of {2 * channels}): the "
                         "file is cut short")
    data = np.frombuffer(raw, "<i2")
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


class LJSpeechDataset(_RandomAccessSource):
    """``LJSpeechDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
    num_shards=None, shard_id=None, cache=None)``: one row per line of ``metadata.csv`` (``id|text|normalized
    text``), the audio in ``wavs/<id>.wav``: ``waveform`` (float32 (1, frames)), ``sample_rate`` (int32),
    ``transcription`` and ``normalized_transcription`` (strings)."""

    def __init__(self, dataset_dir: str, num_samples: int | None = None, num_parallel_workers: int | None = None,
                 shuffle: bool | None = None, sampler: Any = None, num_shards: int | None = None,
                 shard_id: int | None = None, cache: Any = None) -> None:
        who = "LJSpeechDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        root = _check_dir(who, dataset_dir)
        meta = os.path.join(root, "metadata.csv")
        if not os.path.isfile(meta):
            raise ValueError(f"{who}: {meta} not found (dataset_dir is the LJSpeech-1.1 folder)")
        self._items: list[tuple[str, str, str]] = []
        with open(meta, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                fields = line.rstrip("\r\n").split("|")
                if fields == [""]:
                    continue
                if len(fields) != 3:
                    raise ValueError(f"{who}: line {k} of {meta} has {len(fields)} '|'-separated fields, expected 3")
                self._items.append((os.path.join(root, "wavs", fields[0] + ".wav"), fields[1], fields[2]))

    def _column_names(self) -> list[str]:
        return ["waveform", "sample_rate", "transcription", "normalized_transcription"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, text, normalized = self._items[index]
        waveform, rate = read_wav(path)
        return waveform, np.asarray(rate, np.int32), np.array(text), np.array(normalized)


class SpeechCommandsDataset(_RandomAccessSource):
    """``SpeechCommandsDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)``: the ``<word>/<speaker>_nohash_<n>
    .wav`` files (sorted by path); 'valid' and 'test' are those listed in ``validation_list.txt`` /
    ``testing_list.txt``, 'train' the others, 'all' (None) every file. Columns ``waveform``, ``sample_rate``
    (int32), ``label`` (the word), ``speaker_id`` (strings), ``utterance_number`` (int32)."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "SpeechCommandsDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        usage = "all" if usage is None else usage
        if usage not in ("train", "valid", "test", "all"):
            raise ValueError(f"{who}: usage must be 'train', 'valid', 'test' or 'all', got {usage!r}")
        root = _check_dir(who, dataset_dir)
        lists = {}
        for part, name in (("valid", "validation_list.txt"), ("test", "testing_list.txt")):
            path = os.path.join(root, name)
            if usage != "all" and not os.path.isfile(path):
                raise ValueError(f"{who}: {path} not found (usage {usage!r} needs the split lists)")
            lists[part] = set()
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    lists[part] = {line.strip() for line in f if line.strip()}
        self._items: list[tuple[str, str, str, int]] = []
        for word in sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))):
            if word.startswith("_"):  # _background_noise_ is not a command
                continue
            for name in sorted(os.listdir(os.path.join(root, word))):
                if not name.endswith(".wav"):
                    continue
                rel = f"{word}/{name}"
                split = "valid" if rel in lists["valid"] else "test" if rel in lists["test"] else "train"
                if usage not in ("all", split):
                    continue
                speaker, _, number = name[:-4].partition("_nohash_")
                if not number.isdigit():
                    raise ValueError(f"{who}: {rel} is not named <speaker>_nohash_<number>.wav")
                self._items.append((os.path.join(root, word, name), word, speaker, int(number)))

    def _column_names(self) -> list[str]:
        return ["waveform", "sample_rate", "label", "speaker_id", "utterance_number"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, word, speaker, number = self._items[index]
        waveform, rate = read_wav(path)
        return (waveform, np.asarray(rate, np.int32), np.array(word), np.array(speaker),
                np.asarray(number, np.int32))


class CMUArcticDataset(_RandomAccessSource):
    """``CMUArcticDataset(dataset_dir, name=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: speaker ``name`` (default 'aew') from
    ``cmu_us_<name>_arctic/``: the utterances of ``etc/txt.done.data`` in its order, audio ``wav/<id>.wav``:
    ``waveform`` (float32), ``sample_rate`` (uint32), ``transcript`` and ``utterance_id`` (strings, the id
    without its ``arctic_`` prefix)."""

    def __init__(self, dataset_dir: str, name: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "CMUArcticDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        name = "aew" if name is None else name
        if not isinstance(name, str) or not name:
            raise TypeError(f"{who}: name must be a speaker name such as 'aew', got {name!r}")
        root = os.path.join(_check_dir(who, dataset_dir), f"cmu_us_{name}_arctic")
        listing = os.path.join(root, "etc", "txt.done.data")
        if not os.path.isfile(listing):
            raise ValueError(f"{who}: {listing} not found (speaker {name!r})")
        self._items: list[tuple[str, str, str]] = []
        with open(listing, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                text = line.strip()
                if not text:
                    continue
                uid, sep, rest = text.strip("() ").partition(" ")
                if not sep or '"' not in rest:
                    raise ValueError(f"{who}: line {k} of {listing} is not '( <id> \"<transcript>\" )'")
                self._items.append((os.path.join(root, "wav", uid + ".wav"), rest.strip().strip('"'),
                                    uid.removeprefix("arctic_")))

    def _column_names(self) -> list[str]:
        return ["waveform", "sample_rate", "transcript", "utterance_id"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, text, uid = self._items[index]
        waveform, rate = read_wav(path)
        return waveform, np.asarray(rate, np.uint32), np.array(text), np.array(uid)


class GTZANDataset(_RandomAccessSource):
    """``GTZANDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: ``<genre>/<genre>.<n>.wav`` files (genres and
    files sorted): ``waveform`` (float32), ``sample_rate`` (uint32), ``label`` (the genre). Only usage 'all'
    (None): MindSpore's train/valid/test are fixed lists of file names, which opbuild does not carry."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "GTZANDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        if usage not in (None, "all"):
            if usage in ("train", "valid", "test"):
                raise NotImplementedError(f"{who}: usage {usage!r} is MindSpore's fixed list of files, which "
                                          "opbuild does not carry; read usage='all' and split it")
            raise ValueError(f"{who}: usage must be 'train', 'valid', 'test' or 'all', got {usage!r}")
        root = _check_dir(who, dataset_dir)
        self._items: list[tuple[str, str]] = []
        for genre in sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))):
            folder = os.path.join(root, genre)
            self._items += [(os.path.join(folder, n), genre) for n in sorted(os.listdir(folder))
                            if n.endswith(".wav")]
        if not self._items:
            raise ValueError(f"{who}: no <genre>/*.wav file in {root}")

    def _column_names(self) -> list[str]:
        return ["waveform", "sample_rate", "label"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, genre = self._items[index]
        waveform, rate = read_wav(path)
        return waveform, np.asarray(rate, np.uint32), np.array(genre)


_LIBRITTS = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
             "train-other-500")


class LibriTTSDataset(_RandomAccessSource):
    """``LibriTTSDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None)``: ``dataset_dir`` is the ``LibriTTS`` folder;
    ``usage`` one of its subsets ('dev-clean', ..., 'train-other-500') or 'all' (None). One row per line of
    each ``<speaker>/<chapter>/<speaker>_<chapter>.trans.tsv`` (``id<TAB>original<TAB>normalized``), audio
    ``<id>.wav``: ``waveform``, ``sample_rate`` (uint32), ``original_text``, ``normalized_text``,
    ``speaker_id``, ``chapter_id`` (uint32), ``utterance_id``."""

    def __init__(self, dataset_dir: str, usage: str | None = None, num_samples: int | None = None,
                 num_parallel_workers: int | None = None, shuffle: bool | None = None, sampler: Any = None,
                 num_shards: int | None = None, shard_id: int | None = None, cache: Any = None) -> None:
        who = "LibriTTSDataset"
        super().__init__(shuffle, num_shards, shard_id, num_samples, sampler)
        if cache is not None:
            raise NotImplementedError(f"{who}: cache (a dataset cache server) is not supported")
        usage = "all" if usage is None else usage
        if usage not in (*_LIBRITTS, "all"):
            raise ValueError(f"{who}: usage must be one of {[*_LIBRITTS, 'all']}, got {usage!r}")
        root = _check_dir(who, dataset_dir)
        parts = [u for u in _LIBRITTS if os.path.isdir(os.path.join(root, u))] if usage == "all" else [usage]
        self._items: list[tuple[str, str, str, int, int, str]] = []
        for part in parts:
            base = os.path.join(root, part)
            if not os.path.isdir(base):
                raise ValueError(f"{who}: folder {base} not found (usage {usage!r})")
            for spk in sorted(os.listdir(base)):
                for ch in sorted(os.listdir(os.path.join(base, spk))) if os.path.isdir(os.path.join(base, spk)) else ():
                    self._read_chapter(who, os.path.join(base, spk, ch), spk, ch)
        if not self._items:
            raise ValueError(f"{who}: no utterance (<speaker>/<chapter>/*.trans.tsv) for usage {usage!r} in {root}")

    def _read_chapter(self, who: str, folder: str, spk: str, ch: str) -> None:
        listing = os.path.join(folder, f"{spk}_{ch}.trans.tsv")
        if not os.path.isfile(listing):
            return
        with open(listing, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                fields = line.rstrip("\r\n").split("\t")
                if fields == [""]:
                    continue
                if len(fields) != 3 or not spk.isdigit() or not ch.isdigit():
                    raise ValueError(f"{who}: line {k} of {listing} is not 'id<TAB>original<TAB>normalized'")
                self._items.append((os.path.join(folder, fields[0] + ".wav"), fields[1], fields[2], int(spk),
                                    int(ch), fields[0]))

    def _column_names(self) -> list[str]:
        return ["waveform", "sample_rate", "original_text", "normalized_text", "speaker_id", "chapter_id",
                "utterance_id"]

    def _num_rows(self) -> int:
        return len(self._items)

    def _row(self, index: int) -> Row:
        path, original, normalized, spk, ch, uid = self._items[index]
        waveform, rate = read_wav(path)
        return (waveform, np.asarray(rate, np.uint32), np.array(original), np.array(normalized),
                np.asarray(spk, np.uint32), np.asarray(ch, np.uint32), np.array(uid))


__all__ = ["YesNoDataset", "LJSpeechDataset", "SpeechCommandsDataset", "CMUArcticDataset", "GTZANDataset",
           "LibriTTSDataset", "read_wav"]
