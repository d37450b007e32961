"""Programs over ``TedliumDataset``, written once for both frameworks: ``make_files(root)`` writes tiny
TED-LIUM trees (``.stm`` transcripts, 16-bit PCM NIST SPHERE audio); ``run(ds, root)`` reads them with ``ds``
= ``mindspore.dataset`` (scripts/record_rare_datasets.py) or ``opbuild.dataset`` (the tests). MindSpore
2.10's waveforms are zeros (see TedliumDataset's docstring): the waveform is summarized by dtype and shape
only, and tests/dataset/test_rare_datasets.py checks opbuild's samples against the written ones."""

from __future__ import annotations

import numpy as np

from tests.dataset.file_helpers import _write
from tests.dataset.photo_dataset_programs import attempt

RATE = 16000


def samples(talk: str) -> np.ndarray:
    """The int16 samples written for ``talk`` (3000 of them)."""
    seed = sum(map(ord, talk))
    return np.random.default_rng(seed).integers(-32768, 32768, 3000).astype(np.int16)


def sphere(talk: str, byte_order: str = "10") -> bytes:
    data = samples(talk)
    head = (f"NIST_1A\n   1024\nsample_count -i {data.size}\nsample_n_bytes -i 2\nchannel_count -i 1\n"
            f"sample_byte_format -s2 {byte_order}\nsample_rate -i {RATE}\nsample_coding -s3 pcm\nend_head\n")
    head = head.encode() + b" " * (1024 - len(head))
    return head + data.astype(">i2" if byte_order == "10" else "<i2").tobytes()


def make_files(root: str) -> None:
    """A release-1 tree (train, dev; test left without audio) and a release-3 tree."""
    base = f"{root}/ted1"
    _write(f"{base}/train/stm/TalkB.stm", "TalkB 1 TalkB 0.0 0.05 <o,f0,male> hello world\n"
           "TalkB 1 TalkB 0.05 0.0625 <o,f0,male> second line  here\n")
    _write(f"{base}/train/stm/TalkA.stm", "TalkA 1 SpeakerA 0.01 0.02 <o,f0,female> a\n"
           "TalkA 1 SpeakerA 0.02 0.04 <o,f0,female> b\nTalkA 1 SpeakerA 0.04 0.05 <o,f0,female> c\n")
    _write(f"{base}/train/stm/notes.txt", "not a transcript\n")
    _write(f"{base}/train/sph/TalkB.sph", sphere("TalkB"))
    _write(f"{base}/train/sph/TalkA.sph", sphere("TalkA"))
    _write(f"{base}/dev/stm/TalkC.stm", "TalkC 1 TalkC 0.1 0.125 <o,f0,male> dev talk\n")
    _write(f"{base}/dev/sph/TalkC.sph", sphere("TalkC"))
    _write(f"{base}/test/stm/TalkD.stm", "TalkD 1 TalkD 0.0 0.01 <o,f0,male> no audio\n")
    _write(f"{root}/ted3/data/stm/TalkE.stm", "TalkE 1 TalkE 0.0 0.001 <o,f0,male> three\n")
    _write(f"{root}/ted3/data/sph/TalkE.sph", sphere("TalkE", "01"))


def _summary(dataset) -> list:
    rows = []
    for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        wave = np.asarray(row[0])
        rows.append([wave.dtype.name, list(wave.shape), int(row[1]), *[str(v) for v in row[2:]]])
    return rows


def run(ds, root: str) -> dict:
    """name -> rows (or an error's type) of each program."""
    t1, t3 = f"{root}/ted1", f"{root}/ted3"

    def rows(make):
        return lambda: _Rows(make())

    return {name: attempt(rows(make)) for name, make in {
        "tedlium_train": lambda: ds.TedliumDataset(t1, "release1", "train", shuffle=False),
        "tedlium_dev_r2": lambda: ds.TedliumDataset(t1, "release2", "dev", shuffle=False),
        "tedlium_all_missing_audio": lambda: ds.TedliumDataset(t1, "release1", shuffle=False),
        "tedlium_r3": lambda: ds.TedliumDataset(t3, "release3", extensions=".sph", shuffle=False),
        "tedlium_wav": lambda: ds.TedliumDataset(t3, "release3", extensions=".wav", shuffle=False),
        "tedlium_shard": lambda: ds.TedliumDataset(t1, "release1", "train", num_shards=2, shard_id=1,
                                                   shuffle=False),
        "tedlium_bad_release": lambda: ds.TedliumDataset(t1, "release4"),
        "tedlium_bad_usage": lambda: ds.TedliumDataset(t3, "release3", "train"),
        "tedlium_no_stm": lambda: ds.TedliumDataset(t3, "release1", "dev"),
    }.items()}


class _Rows:
    """Adapts ``attempt`` (which summarizes a dataset) to Tedlium's summary."""

    def __init__(self, dataset) -> None:
        self._rows = _summary(dataset)

    def create_tuple_iterator(self, **_):
        return iter([[np.array(str(r))] for r in self._rows])
