"""Programs over the photo-collection readers (``LFWDataset``, ``SBUDataset``, ``PhotoTourDataset``), written
once for both frameworks: ``make_files(root)`` writes tiny files in each layout, deterministically;
``run(ds, root)`` reads them with ``ds`` = ``mindspore.dataset`` (scripts/record_rare_datasets.py) or
``opbuild.dataset`` (tests/dataset/test_rare_datasets.py) and returns plain lists. Imports no framework."""

from __future__ import annotations

import io
import os

import numpy as np

from tests.dataset.file_helpers import _write


def png(seed: int, shape: tuple = (5, 6, 3)) -> bytes:
    """A small PNG (lossless, so every decoder gives the same pixels)."""
    from PIL import Image

    pixels = np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return buf.getvalue()


def summary(dataset) -> list:
    """Each row as [dtype, shape, values (<= 16) or a weighted checksum] per column."""
    out = []
    for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        cells = []
        for v in row:
            a = np.asarray(v)
            if a.dtype.kind in "US":
                cells.append(["str", list(a.shape), a.tolist()])
            elif a.size <= 16:
                cells.append([a.dtype.name, list(a.shape), a.ravel().tolist()])
            else:
                w = np.arange(a.size, dtype=np.int64).reshape(a.shape) % 251
                cells.append([a.dtype.name, list(a.shape), int((a.astype(np.int64) * w).sum())])
        out.append(cells)
    return out


def attempt(make) -> object:
    """``make()``'s rows, or ``error:<type>`` where building or reading fails."""
    try:
        return summary(make())
    except Exception as exc:  # noqa: BLE001  (the exception's type is the result)
        return f"error:{type(exc).__name__}"


def _make_lfw(root: str) -> None:
    people = {"Aaron_Eckhart": 2, "Abba_Eban": 1, "Zed_Zero": 3}
    seed = 0
    for folder in ("lfw", "lfw_funneled", "lfw-deepfunneled"):
        for person, n in people.items():
            for k in range(1, n + 1):
                seed += 1
                _write(f"{root}/lfw/{folder}/{person}/{person}_{k:04d}.jpg", png(seed))
    _write(f"{root}/lfw/lfw-names.txt", "Aaron_Eckhart\t2\nAbba_Eban\t1\nZed_Zero\t3\n")
    _write(f"{root}/lfw/peopleDevTrain.txt", "2\nAaron_Eckhart\t2\nZed_Zero\t1\n")
    _write(f"{root}/lfw/peopleDevTest.txt", "1\nAbba_Eban\t1\n")
    _write(f"{root}/lfw/people.txt", "2\n1\nZed_Zero\t3\n2\nAbba_Eban\t1\nAaron_Eckhart\t1\n")
    _write(f"{root}/lfw/pairsDevTrain.txt", "1\nZed_Zero\t1\t3\nAaron_Eckhart\t2\tAbba_Eban\t1\n")
    _write(f"{root}/lfw/pairsDevTest.txt", "1\nAaron_Eckhart\t1\t2\nZed_Zero\t2\tAaron_Eckhart\t1\n")
    _write(f"{root}/lfw/pairs.txt", "2\t1\nZed_Zero\t2\t3\nAbba_Eban\t1\tZed_Zero\t1\n"
           "Aaron_Eckhart\t2\t1\nZed_Zero\t3\tAaron_Eckhart\t2\n")


def _make_sbu(root: str) -> None:
    base = "http://static.flickr.com/"
    urls = [f"{base}1/11_aa.jpg", f"{base}2/22_bb.jpg", f"{base}3/33_cc.jpg", f"{base}4/44_dd.jpg"]
    _write(f"{root}/sbu/SBU_captioned_photo_dataset_urls.txt", "\n".join(urls) + "\n")
    _write(f"{root}/sbu/SBU_captioned_photo_dataset_captions.txt",
           "a dog on a hill  \nthe sea at night\n two boats \nmissing photo\n")
    for k, url in enumerate(urls[:3]):
        _write(f"{root}/sbu/sbu_images/{url[23:].replace('/', '_')}", png(40 + k, (4, 3, 3)))
    os.makedirs(f"{root}/sbu_empty/sbu_images", exist_ok=True)
    _write(f"{root}/sbu_empty/SBU_captioned_photo_dataset_urls.txt", urls[3] + "\n")
    _write(f"{root}/sbu_empty/SBU_captioned_photo_dataset_captions.txt", "nothing here\n")


def _make_phototour(root: str) -> None:
    from PIL import Image

    sheet = np.random.default_rng(5).integers(0, 256, (1024, 1024), dtype=np.uint8)
    os.makedirs(f"{root}/photo/liberty", exist_ok=True)
    Image.fromarray(sheet, "L").save(f"{root}/photo/liberty/patches0000.bmp")
    _write(f"{root}/photo/liberty/info.txt", "7 0\n7 1\n9 0\n12 3\n12 2\n")
    _write(f"{root}/photo/liberty/m50_100000_100000_0.txt",
           "0 7 0 1 7 0 0\n2 9 0 3 12 0 0\n3 12 0 4 12 0 0\n17 4 0 255 4 0 0\n")


def make_files(root: str) -> None:
    """Write every layout under ``root``."""
    _make_lfw(root)
    _make_sbu(root)
    _make_phototour(root)


def run(ds, root: str) -> dict:
    """name -> rows (or an error's type) of each program."""
    lfw, sbu, photo = f"{root}/lfw", f"{root}/sbu", f"{root}/photo"
    return {
        "lfw_people": attempt(lambda: ds.LFWDataset(lfw, shuffle=False)),
        "lfw_people_10fold_original": attempt(lambda: ds.LFWDataset(lfw, "people", "10fold", "original",
                                                                    shuffle=False, decode=True)),
        "lfw_people_test_deep": attempt(lambda: ds.LFWDataset(lfw, usage="test", image_set="deepfunneled",
                                                              shuffle=False, decode=True)),
        "lfw_pairs_train": attempt(lambda: ds.LFWDataset(lfw, task="pairs", usage="train", shuffle=False)),
        "lfw_pairs_all": attempt(lambda: ds.LFWDataset(lfw, task="pairs", shuffle=False, decode=True)),
        "lfw_pairs_10fold": attempt(lambda: ds.LFWDataset(lfw, task="pairs", usage="10fold", shuffle=False)),
        "lfw_shard": attempt(lambda: ds.LFWDataset(lfw, usage="all", num_shards=2, shard_id=1, shuffle=False)),
        "lfw_num_samples": attempt(lambda: ds.LFWDataset(lfw, num_samples=2, shuffle=False)),
        "lfw_bad_task": attempt(lambda: ds.LFWDataset(lfw, task="faces")),
        "lfw_bad_usage": attempt(lambda: ds.LFWDataset(lfw, usage="valid")),
        "lfw_bad_set": attempt(lambda: ds.LFWDataset(lfw, image_set="plain")),
        "lfw_no_dir": attempt(lambda: ds.LFWDataset(f"{root}/nowhere")),
        "sbu": attempt(lambda: ds.SBUDataset(sbu, shuffle=False)),
        "sbu_decode": attempt(lambda: ds.SBUDataset(sbu, decode=True, shuffle=False, num_samples=2)),
        "sbu_shard": attempt(lambda: ds.SBUDataset(sbu, num_shards=2, shard_id=0, shuffle=False)),
        "sbu_no_images": attempt(lambda: ds.SBUDataset(f"{root}/sbu_empty")),
        "sbu_no_files": attempt(lambda: ds.SBUDataset(lfw)),
        "sbu_bad_decode": attempt(lambda: ds.SBUDataset(sbu, decode=1)),
        "photo_train": attempt(lambda: ds.PhotoTourDataset(photo, "liberty", shuffle=False)),
        "photo_test": attempt(lambda: ds.PhotoTourDataset(photo, "liberty", "test", shuffle=False)),
        "photo_sampler": attempt(lambda: ds.PhotoTourDataset(photo, "liberty", sampler=ds.SequentialSampler(1, 2))),
        "photo_bad_name": attempt(lambda: ds.PhotoTourDataset(photo, "paris")),
        "photo_bad_usage": attempt(lambda: ds.PhotoTourDataset(photo, "liberty", "all")),
        "photo_missing": attempt(lambda: ds.PhotoTourDataset(photo, "yosemite")),
    }
