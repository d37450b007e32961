"""An offline stand-in for the ``download`` package that MindSpore's tutorials fetch their data sets with.

The tutorials harness (scripts/ms_tutorials.py) puts this directory first on ``sys.path`` of both frameworks'
processes, so the tutorials' ``from download import download`` gets this module: instead of fetching a URL it
writes a small generated data set with the file layout of the one the URL names (same file names, formats and
directory structure; fewer samples, values from a fixed seed). Both frameworks therefore read the same bytes,
and what a tutorial prints about the data (shapes, dtypes, trained numbers) is compared on the same data.
"""

from __future__ import annotations

import os
import struct
import wave

import numpy as np

# Sample counts: enough batches for the tutorials' loops, small enough to train in seconds on a CPU.
MNIST_TRAIN, MNIST_TEST = 1280, 256
CIFAR_PER_FILE = 10000  # MindSpore's reader expects CIFAR-10's 10000 records per file


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)))


def _mnist(root: str) -> None:
    for sub, prefix, n in (("train", "train", MNIST_TRAIN), ("test", "t10k", MNIST_TEST)):
        d = os.path.join(root, "MNIST_Data", sub)
        os.makedirs(d, exist_ok=True)
        rng = _rng(sub)
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        # Digit-like images: a bright bar whose position depends on the label, plus noise, so a net can learn.
        images = rng.integers(0, 60, (n, 28, 28), dtype=np.uint8)
        for i, lab in enumerate(labels):
            images[i, 4 + 2 * lab: 6 + 2 * lab, 4:24] = 255
        with open(os.path.join(d, f"{prefix}-images-idx3-ubyte"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        with open(os.path.join(d, f"{prefix}-labels-idx1-ubyte"), "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())


def _cifar10(root: str) -> None:
    d = os.path.join(root, "cifar-10-batches-bin")
    os.makedirs(d, exist_ok=True)
    # One train file of the five (the reader takes the ones present), to keep the data small.
    for name in ("data_batch_1.bin", "test_batch.bin"):
        rng = _rng(name)
        rec = np.empty((CIFAR_PER_FILE, 1 + 3072), np.uint8)
        rec[:, 0] = rng.integers(0, 10, CIFAR_PER_FILE)
        rec[:, 1:] = rng.integers(0, 256, (CIFAR_PER_FILE, 3072))
        with open(os.path.join(d, name), "wb") as f:
            f.write(rec.tobytes())
    with open(os.path.join(d, "batches.meta.txt"), "w") as f:
        f.write("\n".join(["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
                           "truck"]) + "\n")


def _image(path: str, shape: tuple[int, int], seed: str) -> None:
    from PIL import Image

    rng = _rng(seed)
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([(xx * 255 // w), (yy * 255 // h), (xx + yy) * 127 // (h + w)], -1).astype(np.uint8)
    img = np.clip(img.astype(int) + rng.integers(-8, 8, img.shape), 0, 255).astype(np.uint8)
    Image.fromarray(img).save(path, format="JPEG", quality=95)


def _imagenet_similar(root: str) -> None:
    for split in ("train", "val"):
        for cls in ("n01440764", "n01443537"):
            d = os.path.join(root, "ImageNetSimilar", split, cls)
            os.makedirs(d, exist_ok=True)
            for i in range(3):
                _image(os.path.join(d, f"{cls}_{i}.JPEG"), (300 + 20 * i, 400), f"{split}{cls}{i}")


def _wav(path: str) -> None:
    rate = 16000
    t = np.arange(rate) / rate
    pcm = (0.3 * np.sin(2 * np.pi * 440 * t) * 32767).astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def download(url: str, path: str = ".", kind: str = "file", replace: bool = False, **_) -> str:
    """Write the generated data set ``url`` names under ``path`` (a folder for archives, else the file)."""
    name = url.rstrip("/").rsplit("/", 1)[-1]
    if kind in ("zip", "tar", "tar.gz", "tgz"):
        os.makedirs(path, exist_ok=True)
        makers = {"MNIST_Data.zip": _mnist, "cifar-10-binary.tar.gz": _cifar10,
                  "ImageNetSimilar.tar.gz": _imagenet_similar}
        if name not in makers:
            raise RuntimeError(f"offline download stand-in: no generated data set for {url}")
        makers[name](path)
        return path
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    if name.endswith((".jpg", ".jpeg", ".JPEG")):
        _image(path, (300, 400), name)
    elif name.endswith(".wav"):
        _wav(path)
    else:
        raise RuntimeError(f"offline download stand-in: no generated file for {url}")
    return path
