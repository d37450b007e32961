"""File-dataset programs written once for both frameworks: ``make_files(root)`` writes tiny files in each
format (text, CSV, CIFAR-100, the MNIST variants, manifest, VOC, COCO), deterministically; ``run(ds, root)``
reads them with ``ds`` = ``mindspore.dataset`` (scripts/record_file_datasets.py) or ``opbuild.dataset`` (the
tests) and returns plain lists. Imports no framework itself."""

from __future__ import annotations

import json
import struct

import numpy as np

from tests.dataset.file_helpers import _idx, _image_summary, _jpeg, _rows, _write  # noqa: F401 (shared)
from tests.dataset.more_dataset_programs import _corpora, _more, _small, make_more_files


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = b""
    while True:
        out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            return out


def _field(num: int, payload: bytes) -> bytes:  # a length-delimited protobuf field
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def _example(features: dict) -> bytes:
    """A tf.train.Example protobuf, written by hand: feature name -> list of bytes, floats or ints."""
    entries = b""
    for name, values in features.items():
        if isinstance(values[0], bytes):
            feature = _field(1, b"".join(_field(1, v) for v in values))
        elif isinstance(values[0], float):
            feature = _field(2, _field(1, struct.pack(f"<{len(values)}f", *values)))
        else:
            feature = _field(3, _field(1, b"".join(_varint(v) for v in values)))
        entries += _field(1, _field(1, name.encode()) + _field(2, feature))
    return _field(1, entries)


def _crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    crc ^= 0xFFFFFFFF
    return ((crc >> 15 | crc << 17) + 0xA282EAD8) & 0xFFFFFFFF  # TFRecord's masked CRC


def _tfrecord(path: str, examples: list[dict]) -> None:
    data = b""
    for ex in examples:
        body = _example(ex)
        head = struct.pack("<Q", len(body))
        data += head + struct.pack("<I", _crc32c(head)) + body + struct.pack("<I", _crc32c(body))
    _write(path, data)


def make_files(root: str) -> None:
    """Write every format under ``root``."""
    rng = np.random.default_rng(11)
    _write(f"{root}/text/b.txt", "beta one\n\nbeta two\r\nbeta three")
    _write(f"{root}/text/a.txt", "alpha one\nalpha two\n")
    _write(f"{root}/csv/h.csv", 'id,name,score\n1,"x, y",0.5\n2,,1.25\n3,zed,\n')
    _write(f"{root}/csv/n.csv", "7;q;2.5\n8;r;3.5\n")
    _write(f"{root}/typed/t.csv", 'id,name,score\n1,"x, y",0.5\n2,,1.25\n-3,"say ""hi""",7\n')
    # MindSpore reads only whole CIFAR-100 files (10000 test records); the train split is left to opbuild's
    # own tests.
    cifar = rng.integers(0, 256, (10000, 2 + 3072), dtype=np.uint8)
    cifar[:, 0] %= 20
    cifar[:, 1] %= 100
    _write(f"{root}/cifar100/test.bin", cifar.tobytes())
    for name, prefix in (("fashion", ""), ("kmnist", "")):
        for part, n in (("train", 3), ("t10k", 2)):
            _idx(f"{root}/{name}/{prefix}{part}-images-idx3-ubyte", rng.integers(0, 256, (n, 28, 28), dtype=np.uint8))
            _idx(f"{root}/{name}/{prefix}{part}-labels-idx1-ubyte", rng.integers(0, 10, n).astype(np.uint8))
    for part, n in (("train", 3), ("test", 2)):
        _idx(f"{root}/emnist/emnist-letters-{part}-images-idx3-ubyte",
             rng.integers(0, 256, (n, 28, 28), dtype=np.uint8))
        _idx(f"{root}/emnist/emnist-letters-{part}-labels-idx1-ubyte", rng.integers(1, 27, n).astype(np.uint8))
    for split, n in (("qmnist-train", 3), ("qmnist-test", 2), ("xnist", 1)):
        img = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        _idx(f"{root}/qmnist/{split}-images-idx3-ubyte", img)
        lab = rng.integers(0, 1000, (n, 8)).astype(">i4")
        lab[:, 0] %= 10
        _write(f"{root}/qmnist/{split}-labels-idx2-int",
               bytes((0, 0, 0x0C, 2)) + struct.pack(">2i", n, 8) + lab.tobytes())
    _idx(f"{root}/pk/train-images-idx3-ubyte", rng.integers(0, 256, (8, 28, 28), dtype=np.uint8))
    _idx(f"{root}/pk/train-labels-idx1-ubyte", np.array([2, 0, 1, 2, 0, 2, 1, 2], np.uint8))
    _tfrecord(f"{root}/tfrecord/b.tfrecord",
              [{"label": [k, -k], "feat": [k * 0.5, 1.5], "name": [f"b{k}".encode()]} for k in range(3)])
    _tfrecord(f"{root}/tfrecord/a.tfrecord",
              [{"label": [10 + k, 7], "feat": [0.25, k * 1.0], "name": [f"a{k}".encode()]} for k in range(2)])
    make_more_files(root)
    _make_manifest(root, rng)
    _make_voc(root, rng)
    _make_coco(root, rng)


def _make_manifest(root: str, rng: np.random.Generator) -> None:
    lines = []
    for k, labels in enumerate((["cat"], ["dog", "cat"], ["bird"], [])):
        path = f"{root}/manifest/img{k}.jpg"
        _write(path, _jpeg(rng, 10 + k))
        ann = [{"type": "modelarts/image_classification", "name": n} for n in labels]
        lines.append(json.dumps({"source": path, "usage": "train" if k != 2 else "eval", "annotation": ann}))
    _write(f"{root}/manifest/data.manifest", "\n".join(lines) + "\n")


def _voc_xml(objs: list[tuple[str, int, int, int, int, int, int]]) -> str:
    body = "".join(
        f"<object><name>{n}</name><pose>Unspecified</pose><truncated>{t}</truncated><difficult>{d}</difficult>"
        f"<bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin><xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>"
        for n, d, t, x0, y0, x1, y1 in objs)
    return f"<annotation><size><width>8</width><height>6</height><depth>3</depth></size>{body}</annotation>"


def _make_voc(root: str, rng: np.random.Generator) -> None:
    base = f"{root}/voc"
    ids = ["2007_000001", "2007_000002"]
    objs = {"2007_000001": [("dog", 0, 0, 1, 2, 5, 6), ("cat", 1, 1, 2, 1, 7, 4), ("bird", 0, 0, 3, 3, 4, 5)],
            "2007_000002": [("person", 0, 1, 1, 1, 3, 3)]}
    for i in ids:
        _write(f"{base}/JPEGImages/{i}.jpg", _jpeg(rng, 12))
        _write(f"{base}/SegmentationClass/{i}.png", rng.integers(0, 256, 9, dtype=np.uint8).tobytes())
        _write(f"{base}/Annotations/{i}.xml", _voc_xml(objs[i]))
    for task in ("Main", "Segmentation"):
        _write(f"{base}/ImageSets/{task}/train.txt", "\n".join(ids) + "\n")


def _make_coco(root: str, rng: np.random.Generator) -> None:
    base = f"{root}/coco"
    images = [{"id": 3, "file_name": "c.jpg", "height": 5, "width": 6},
              {"id": 1, "file_name": "a.jpg", "height": 4, "width": 4}]
    for im in images:
        _write(f"{base}/images/{im['file_name']}", _jpeg(rng, 7))
    det = {"images": images, "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}],
           "annotations": [
               {"id": 10, "image_id": 3, "category_id": 2, "bbox": [1.0, 2.0, 3.0, 1.5], "iscrowd": 0,
                "area": 4.5, "segmentation": [[1.0, 2.0, 4.0, 2.0, 4.0, 3.5]]},
               {"id": 11, "image_id": 1, "category_id": 1, "bbox": [0.5, 0.5, 2.0, 2.0], "iscrowd": 1,
                "area": 4.0, "segmentation": {"counts": [3, 4, 5, 4], "size": [4, 4]}},
               {"id": 12, "image_id": 3, "category_id": 1, "bbox": [0.0, 0.0, 1.0, 1.0], "iscrowd": 0,
                "area": 1.0, "segmentation": [[0.0, 0.0, 1.0, 0.0, 1.0, 1.0], [2.0, 2.0, 3.0, 3.0]]}]}
    _write(f"{base}/det.json", json.dumps(det))
    kp = dict(det, annotations=[dict(a, keypoints=[1, 2, 2, 3, 4, 1], num_keypoints=2) for a in det["annotations"]])
    _write(f"{base}/kp.json", json.dumps(kp))
    cap = {"images": images, "annotations": [{"id": 1, "image_id": 3, "caption": "two animals"},
                                             {"id": 2, "image_id": 1, "caption": "a cat"},
                                             {"id": 3, "image_id": 3, "caption": "a dog and a cat"}]}
    _write(f"{base}/cap.json", json.dumps(cap))
    seg = [{"id": 5, "category_id": 2, "iscrowd": 0, "bbox": [1, 1, 2, 3], "area": 6},
           {"id": 6, "category_id": 1, "iscrowd": 1, "bbox": [0, 0, 4, 2], "area": 7}]
    pan = {"images": images, "categories": [{"id": 1, "name": "cat", "isthing": 1},
                                            {"id": 2, "name": "sky", "isthing": 0}],
           "annotations": [{"image_id": 1, "file_name": "a.png", "segments_info": seg},
                           {"image_id": 3, "file_name": "c.png", "segments_info": seg[:1]}]}
    _write(f"{base}/pan.json", json.dumps(pan))


def run(ds, root: str) -> dict:
    """What each reader gives on the files of :func:`make_files`."""
    out: dict = {}
    text = f"{root}/text"
    out["text"] = _rows(ds.TextFileDataset(f"{text}/*.txt", shuffle=False))
    out["text_list"] = _rows(ds.TextFileDataset([f"{text}/b.txt", f"{text}/a.txt"], shuffle=ds.Shuffle.FALSE))
    out["text_size"] = ds.TextFileDataset(f"{text}/*.txt", num_samples=3).get_dataset_size()
    for s in range(3):
        out[f"text_shard{s}"] = _rows(ds.TextFileDataset(f"{text}/*.txt", shuffle=False, num_shards=3, shard_id=s))
    out["text_shard_size"] = ds.TextFileDataset(f"{text}/*.txt", shuffle=False, num_shards=2,
                                                shard_id=1).get_dataset_size()
    out["text_cols"] = ds.TextFileDataset(f"{text}/a.txt").get_col_names()
    csvd = f"{root}/csv"
    out["csv_header"] = _rows(ds.CSVDataset(f"{csvd}/h.csv", shuffle=False))
    out["csv_header_cols"] = ds.CSVDataset(f"{csvd}/h.csv", shuffle=False).get_col_names()
    out["csv_typed"] = _rows(ds.CSVDataset(f"{root}/typed/t.csv", column_defaults=[0, "none", 9.0], shuffle=False))
    out["csv_named"] = _rows(ds.CSVDataset(f"{csvd}/n.csv", field_delim=";", column_defaults=[0, "", 0.0],
                                           column_names=["a", "b", "c"], shuffle=False))
    out["csv_named_cols"] = ds.CSVDataset(f"{csvd}/n.csv", field_delim=";", column_names=["a", "b", "c"],
                                          shuffle=False).get_col_names()
    c100 = ds.Cifar100Dataset(f"{root}/cifar100", usage="test", sampler=ds.SubsetSampler([0, 1, 9999]))
    out["cifar100"] = [_rows(c100), c100.get_col_names(),
                       ds.Cifar100Dataset(f"{root}/cifar100", usage="test").get_dataset_size()]
    for name in ("FashionMnist", "KMnist"):
        d = f"{root}/{name.lower().replace('mnist', '') or 'kmnist'}"
        d = f"{root}/fashion" if name == "FashionMnist" else f"{root}/kmnist"
        out[name] = {u: _rows(getattr(ds, f"{name}Dataset")(d, usage=u, shuffle=False)) for u in ("train", "all")}
    out["emnist"] = {u: _rows(ds.EMnistDataset(f"{root}/emnist", "letters", usage=u, shuffle=False))
                     for u in ("train", "test", "all")}
    out["qmnist"] = {f"{u}_{c}": _rows(ds.QMnistDataset(f"{root}/qmnist", usage=u, compat=c, shuffle=False))
                     for u in ("train", "all") for c in (True, False)}
    man = f"{root}/manifest/data.manifest"
    md = ds.ManifestDataset(man, shuffle=False)
    out["manifest"] = _rows(md)
    out["manifest_indexing"] = md.get_class_indexing()
    out["manifest_eval"] = _rows(ds.ManifestDataset(man, usage="eval", shuffle=False))
    out["manifest_ci"] = _rows(ds.ManifestDataset(man, class_indexing={"cat": 4, "dog": 9, "bird": 1},
                                                  shuffle=False))
    voc = f"{root}/voc"
    vdet = ds.VOCDataset(voc, task="Detection", usage="train", shuffle=False)
    out["voc_det"] = _rows(vdet)
    out["voc_det_cols"] = vdet.get_col_names()
    out["voc_indexing"] = vdet.get_class_indexing()
    out["voc_det_ci"] = _rows(ds.VOCDataset(voc, task="Detection", class_indexing={"dog": 5, "cat": 6, "person": 7},
                                            shuffle=False))
    vseg = ds.VOCDataset(voc, task="Segmentation", usage="train", shuffle=False)
    out["voc_seg"] = _rows(vseg)
    out["voc_seg_cols"] = vseg.get_col_names()
    coco = f"{root}/coco"
    for task, ann in (("Detection", "det"), ("Stuff", "det"), ("Keypoint", "kp"), ("Captioning", "cap"),
                      ("Panoptic", "pan")):
        c = ds.CocoDataset(f"{coco}/images", f"{coco}/{ann}.json", task=task, shuffle=False)
        out[f"coco_{task}"] = _rows(c)
        out[f"coco_{task}_cols"] = c.get_col_names()
    cd = ds.CocoDataset(f"{coco}/images", f"{coco}/det.json", task="Detection", shuffle=False)
    out["coco_indexing"] = [[k, list(v)] for k, v in cd.get_class_indexing().items()]
    pan = ds.CocoDataset(f"{coco}/images", f"{coco}/pan.json", task="Panoptic", shuffle=False)
    out["coco_pan_indexing"] = [[k, list(v)] for k, v in pan.get_class_indexing().items()]
    out["weighted"] = ds.NumpySlicesDataset(
        {"a": np.arange(6, dtype=np.int32)},
        sampler=ds.WeightedRandomSampler([0, 0, 1, 0, 0, 0], num_samples=4)).get_dataset_size()
    out["weighted_rows"] = [r[0][2] for r in _rows(ds.NumpySlicesDataset(
        {"a": np.arange(6, dtype=np.int32)}, sampler=ds.WeightedRandomSampler([0, 0, 1, 0, 0, 0], num_samples=4)))]
    pk = {}
    for key, kw in (("k2", {"num_val": 2}), ("k3", {"num_val": 3}), ("k1", {"num_val": 1}),
                    ("k2s3", {"num_val": 2, "num_samples": 3})):
        d = ds.MnistDataset(f"{root}/pk", usage="train", sampler=ds.PKSampler(**kw))
        pk[key] = [d.get_dataset_size(), [[r[0][2][0], r[1][2][0]] for r in _rows(d)]]
    out["pk"] = pk
    tfr = f"{root}/tfrecord/*.tfrecord"
    plain = ds.TFRecordDataset(tfr, shuffle=False)
    out["tfrecord_cols"] = plain.get_col_names()
    out["tfrecord"] = _rows(plain)
    schema = ds.Schema()
    schema.add_column("feat", de_type="float32", shape=[2])
    schema.add_column("label", de_type="int64", shape=[2])
    out["tfrecord_schema"] = _rows(ds.TFRecordDataset(tfr, schema=schema, shuffle=False))
    out["tfrecord_columns"] = _rows(ds.TFRecordDataset(tfr, columns_list=["name", "label"], shuffle=False))
    out["tfrecord_shard"] = _rows(ds.TFRecordDataset(tfr, columns_list=["label"], shuffle=False, num_shards=2,
                                                     shard_id=1, shard_equal_rows=True))
    out["tfrecord_file_shards"] = [_rows(ds.TFRecordDataset(tfr, columns_list=["label"], shuffle=False,
                                                            num_shards=2, shard_id=i)) for i in range(2)]
    out["tfrecord_size"] = ds.TFRecordDataset(tfr, num_samples=4).get_dataset_size()
    out["corpora"] = _corpora(ds, root)
    out["small"] = _small(ds, root)
    out["more"] = _more(ds, root)
    out["pipeline_json"] = _pipelines_json(ds, root)
    out["callbacks"] = {str(step): _callback_events(ds, step) for step in (1, 2)}
    rnd = ds.RandomDataset(total_rows=5, schema=_random_schema(ds), shuffle=False)
    out["random_shape"] = [rnd.get_dataset_size(), rnd.get_col_names(),
                           [[c[0], c[1]] for c in _rows(rnd)[0]]]
    return out


def _pipelines_json(ds, root: str) -> list:
    """Pipelines, their serialized JSON (the root directory written as <root>) and their rows."""
    vision = ds.vision
    pipelines = [
        ds.TextFileDataset(f"{root}/text/*.txt", shuffle=False).take(4).skip(1).project(["text"]).rename(
            ["text"], ["line"]).repeat(2),
        ds.Cifar100Dataset(f"{root}/cifar100", usage="test", sampler=ds.SequentialSampler(1, 2)).project(
            ["fine_label", "coarse_label"]),
        ds.MnistDataset(f"{root}/fashion", usage="train", shuffle=False, num_samples=2).map(
            vision.Rescale(0.5, 1.0), input_columns="image").batch(2, drop_remainder=True),
        ds.CSVDataset(f"{root}/csv/n.csv", field_delim=";", column_names=["a", "b", "c"], shuffle=False).zip(
            ds.TextFileDataset(f"{root}/text/a.txt", shuffle=False)),
    ]
    out = []
    for p in pipelines:
        text = json.dumps(ds.serialize(p)).replace(root, "<root>")
        out.append([json.loads(text), _rows(p)])
    return out


def _callback_events(ds, step_size: int) -> dict:
    """The hooks a DSCallback on a map sees over two epochs, by hook (MindSpore's threads interleave the
    step hooks of consecutive rows, so each hook's calls are compared in order, not their interleaving)."""
    events: dict = {}

    class Recorder(ds.DSCallback):
        def _log(self, hook, c):
            events.setdefault(hook, []).append([c.cur_epoch_num, c.cur_step_num_in_epoch, c.cur_step_num])

        def ds_begin(self, c):
            self._log("begin", c)

        def ds_epoch_begin(self, c):
            self._log("epoch_begin", c)

        def ds_epoch_end(self, c):
            self._log("epoch_end", c)

        def ds_step_begin(self, c):
            self._log("step_begin", c)

        def ds_step_end(self, c):
            self._log("step_end", c)

    d = ds.NumpySlicesDataset({"a": np.arange(3)}, shuffle=False).map(lambda x: x + 1, input_columns="a",
                                                                      callbacks=Recorder(step_size))
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    events["rows"] = [[int(r[0]) for r in it] for _ in range(2)]
    return events


def _random_schema(ds):
    schema = ds.Schema()
    schema.add_column("image", de_type="uint8", shape=[2, 3])
    schema.add_column("label", de_type="int32", shape=[1])
    return schema
