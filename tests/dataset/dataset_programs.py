"""Dataset programs written once for both frameworks: ``make_files(root)`` writes small MNIST (IDX), CIFAR-10
(binary) and image-folder datasets; ``run(ds, ms, root)`` reads them and runs pipeline operations, samplers and
transforms with ``ds`` = ``mindspore.dataset`` (scripts/record_dataset.py) or ``opbuild.dataset`` (the
tests), returning plain lists. Imports no framework itself."""

from __future__ import annotations

import io
import os
import struct

import numpy as np


def _png(pixels: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG")
    return buf.getvalue()


def make_files(root: str) -> None:
    """Write the three datasets under ``root`` (mnist/, cifar/, folder/)."""
    rng = np.random.default_rng(5)
    os.makedirs(f"{root}/mnist")
    for prefix, n in (("train", 5), ("t10k", 3)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, n).astype(np.uint8)
        with open(f"{root}/mnist/{prefix}-images-idx3-ubyte", "wb") as f:
            f.write(bytes((0, 0, 8, 3)) + struct.pack(">3i", n, 28, 28) + images.tobytes())
        with open(f"{root}/mnist/{prefix}-labels-idx1-ubyte", "wb") as f:
            f.write(bytes((0, 0, 8, 1)) + struct.pack(">i", n) + labels.tobytes())
    os.makedirs(f"{root}/cifar")
    # MindSpore reads only whole CIFAR-10 files (10000 records); the test split is one such file.
    records = rng.integers(0, 256, (10000, 3073), dtype=np.uint8)
    records[:, 0] %= 10
    records.tofile(f"{root}/cifar/test_batch.bin")
    for cls, count in (("dog", 2), ("cat", 3), ("bird", 1)):
        os.makedirs(f"{root}/folder/{cls}")
        for k in range(count):
            h, w = 6 + k, 9 - k
            with open(f"{root}/folder/{cls}/img{k}.png", "wb") as f:
                f.write(_png(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)))
    with open(f"{root}/folder/dog/notes.txt", "wb") as f:
        f.write(b"not an image")


def _rows(dataset) -> list:
    out = []
    for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        out.append([[np.asarray(v).dtype.name, list(np.asarray(v).shape), np.asarray(v).ravel().tolist()]
                    for v in row])
    return out


def run(ds, ms, root: str) -> dict:
    """What each reader, operation, sampler and transform gives."""
    out: dict = {}
    for usage in ("train", "test", "all"):
        out[f"mnist_{usage}"] = _rows(ds.MnistDataset(f"{root}/mnist", usage=usage, shuffle=False))
    cifar = ds.Cifar10Dataset(f"{root}/cifar", usage="test", sampler=ds.SubsetSampler([0, 1, 9999]))
    out["cifar_test"] = _rows(cifar)
    out["cifar_test_size"] = ds.Cifar10Dataset(f"{root}/cifar", usage="test").get_dataset_size()
    folder = ds.ImageFolderDataset(f"{root}/folder", shuffle=False, extensions=[".png"])
    out["folder_labels"] = [r[1][2] for r in _rows(folder)]
    out["folder_sizes"] = [r[0][1] for r in _rows(folder)]
    out["folder_class_indexing"] = folder.get_class_indexing()
    out["folder_decoded"] = _rows(ds.ImageFolderDataset(f"{root}/folder", shuffle=False, decode=True,
                                                        extensions=[".png"]))
    out["folder_indexing"] = [r[1][2] for r in _rows(ds.ImageFolderDataset(
        f"{root}/folder", shuffle=False, class_indexing={"cat": 5, "dog": 7}, extensions=[".png"]))]
    out["folder_all_files"] = ds.ImageFolderDataset(f"{root}/folder", shuffle=False).get_dataset_size()

    def base(n=10):
        return ds.NumpySlicesDataset({"a": np.arange(n, dtype=np.int32), "b": np.arange(n, dtype=np.int32) * 10},
                                     shuffle=False)

    other = ds.NumpySlicesDataset({"c": np.arange(4, dtype=np.float32)}, shuffle=False)
    out["take"] = _rows(base().take(3))
    out["skip"] = _rows(base().skip(7))
    out["repeat"] = _rows(base(3).repeat(2))
    out["repeat_size"] = base(3).repeat(3).get_dataset_size()
    out["zip"] = _rows(base().zip(other))
    out["concat"] = _rows(base(2) + base(3))
    out["filter"] = _rows(base().filter(lambda a: a % 3 == 0, input_columns=["a"]))
    out["rename"] = base().rename(["a"], ["x"]).get_col_names()
    out["project"] = _rows(base(2).project(["b"]))
    out["split_int"] = [_rows(s) for s in base().split([4, 6], randomize=False)]
    out["split_float"] = [len(_rows(s)) for s in base().split([0.25, 0.25, 0.5], randomize=False)]
    out["batch_take"] = _rows(base().batch(3).take(2))
    sizes = {}
    for name, sampler in (("sequential", ds.SequentialSampler(start_index=2, num_samples=3)),
                          ("distributed", ds.DistributedSampler(num_shards=3, shard_id=1, shuffle=False)),
                          ("subset", ds.SubsetSampler([7, 2, 5])),
                          ("subset_random", ds.SubsetRandomSampler([7, 2, 5])),
                          ("random", ds.RandomSampler(num_samples=4))):
        d = ds.NumpySlicesDataset({"a": np.arange(10, dtype=np.int32)}, sampler=sampler)
        rows = [r[0][2][0] for r in _rows(d)]
        sizes[name] = [d.get_dataset_size(), sorted(rows) if "random" in name else rows]
    out["samplers"] = sizes
    mnist_sampled = ds.MnistDataset(f"{root}/mnist", usage="all", sampler=ds.SequentialSampler(num_samples=2))
    out["mnist_sampler"] = [r[1][2] for r in _rows(mnist_sampled)]

    vision, transforms = ds.vision, ds.transforms
    rng = np.random.default_rng(9)
    img = rng.integers(0, 256, (9, 13, 3), dtype=np.uint8)
    out["decode"] = vision.Decode()(np.frombuffer(_png(img), np.uint8)).tolist()
    out["resize_hw"] = vision.Resize((5, 7))(img).tolist()
    out["resize_up"] = vision.Resize((12, 20))(img).tolist()
    out["resize_short"] = list(vision.Resize(4)(img).shape)
    out["resize_nearest"] = vision.Resize((4, 6), vision.Inter.NEAREST)(img).tolist()
    norm = vision.Normalize(mean=[120.0, 110.0, 100.0], std=[50.0, 60.0, 70.0])(img)
    out["normalize"] = [norm.dtype.name, norm.tolist()]
    out["hwc2chw"] = list(vision.HWC2CHW()(img).shape)
    out["rescale"] = vision.Rescale(1.0 / 255.0, -0.5)(img).tolist()
    cast = transforms.TypeCast(ms.float32)(np.array([1, 2], np.int32))
    out["typecast"] = [cast.dtype.name, cast.tolist()]
    hot = transforms.OneHot(5)(np.array([0, 3, 4], np.int32))
    out["onehot"] = [hot.dtype.name, hot.tolist()]
    hot_s = transforms.OneHot(4, smoothing_rate=0.2)(np.array(2, np.int32))
    out["onehot_smooth"] = [hot_s.dtype.name, np.asarray(hot_s).tolist()]
    composed = transforms.Compose([vision.Resize((4, 4)), vision.HWC2CHW()])(img)
    out["compose"] = composed.tolist()
    pipeline = ds.MnistDataset(f"{root}/mnist", usage="test", shuffle=False).map(
        [vision.Resize((8, 8)), vision.Rescale(1 / 255.0, 0.0), vision.HWC2CHW()], input_columns="image",
        num_parallel_workers=2).map(transforms.TypeCast(ms.int32), input_columns="label").batch(2)
    out["mnist_pipeline"] = _rows(pipeline)
    return out
