"""File-dataset programs written once for both frameworks: ``make_files(root)`` writes tiny files in each
format (text, CSV, CIFAR-100, the MNIST variants, manifest, VOC, COCO), deterministically; ``run(ds, root)``
reads them with ``ds`` = ``mindspore.dataset`` (scripts/record_file_datasets.py) or ``opbuild.dataset`` (the
tests) and returns plain lists. Imports no framework itself."""

from __future__ import annotations

import json
import os
import struct

import numpy as np


def _rows(dataset) -> list:
    out = []
    for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        cells = []
        for v in row:
            a = np.asarray(v)
            kind = "str" if a.dtype.kind in "US" else a.dtype.name
            vals = [f"bytes:{x.hex()}" if isinstance(x, bytes) else x for x in a.ravel().tolist()]
            cells.append([kind, list(a.shape), vals])
        out.append(cells)
    return out


def _image_summary(dataset) -> list:
    """Rows of (image, label) as the image's dtype, shape, a corner, a weighted checksum, and the label (big
    images would bloat the fixture)."""
    out = []
    for image, label in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
        img = np.asarray(image)
        weights = np.arange(img.size, dtype=np.int64).reshape(img.shape) % 251
        out.append([img.dtype.name, list(img.shape), img[:2, :3].tolist(), int((img * weights).sum()),
                    np.asarray(label).dtype.name, int(label)])
    return out


def _write(path: str, data: bytes | str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def _jpeg(rng: np.random.Generator, n: int) -> bytes:
    """Bytes that start like a JPEG (MindSpore's manifest reader skips files that do not)."""
    return b"\xff\xd8\xff" + rng.integers(0, 256, n, dtype=np.uint8).tobytes()


def _idx(path: str, arr: np.ndarray) -> None:
    _write(path, bytes((0, 0, 8, arr.ndim)) + struct.pack(f">{arr.ndim}i", *arr.shape) + arr.tobytes())


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
    _make_corpora(root)
    _make_small(root)
    _make_more(root)
    _make_manifest(root, rng)
    _make_voc(root, rng)
    _make_coco(root, rng)


_CORPORA = (("AGNewsDataset", "agnews", 3), ("AmazonReviewDataset", "amazon", 3), ("DBpediaDataset", "dbpedia", 3),
            ("SogouNewsDataset", "sogou", 3), ("YahooAnswersDataset", "yahoo", 4), ("YelpReviewDataset", "yelp", 2))


def _make_corpora(root: str) -> None:
    for _, name, ncol in _CORPORA:
        for part in ("train", "test"):
            rows = [",".join([f'"{r + 1}"'] + [f'"{part}{r}c{c}"' for c in range(1, ncol)]) for r in range(2)]
            _write(f"{root}/corpora/{name}/{part}.csv", "\n".join(rows) + "\n")
    _write(f"{root}/corpora/agnews/train.csv", '"3","Wall St. ""Bears"" Back","Short, sellers"\n"4","t2","d2"\n')
    for part in ("train", "valid", "test"):
        _write(f"{root}/corpora/ptb/ptb.{part}.txt", f" {part} line one \n{part} line two\n\n")
        _write(f"{root}/corpora/wiki/wiki.{part}.tokens", f" = Title {part} = \n\n text {part}\n")
    _write(f"{root}/corpora/enwik/enwik9", "<mediawiki>\n  <page>\n\n</mediawiki>\n")
    for part in ("train", "test"):
        for lab in ("pos", "neg"):
            for k in range(2):
                _write(f"{root}/corpora/imdb/{part}/{lab}/{k}_{k + 7}.txt", f"{part} {lab} review {k}<br />ok")


def _make_small(root: str) -> None:
    import wave

    rng = np.random.default_rng(13)
    _write(f"{root}/sst2/train.tsv", "sentence\tlabel\nhide new secretions \t0\ngood film\t1\n")
    _write(f"{root}/sst2/dev.tsv", "sentence\tlabel\nit 's a charming \t1\n")
    _write(f"{root}/sst2/test.tsv", "index\tsentence\n0\tuneasy mishmash\n1\tthis is fine\n")
    lines = []
    for k in range(3):
        px = rng.integers(0, 2, 256)
        lines.append(" ".join(f"{v}.0000" for v in px) + " " + " ".join(str(v) for v in np.eye(10, dtype=int)[k + 2]))
    _write(f"{root}/semeion/semeion.data", "\n".join(lines) + "\n")
    for name, n in (("usps", 3), ("usps.t", 2)):
        rows = []
        for k in range(n):
            vals = rng.uniform(-1, 1, 256)
            vals[:3] = (-1.0, 1.0, 0.0)
            rows.append(f"{k + 1} " + " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(vals)) + " ")
        _write(f"{root}/usps/{name}", "\n".join(rows) + "\n")
    x = rng.integers(0, 256, (3, 3, 96, 96), dtype=np.uint8)
    _write(f"{root}/stl/train_X.bin", x.tobytes())
    _write(f"{root}/stl/train_y.bin", bytes([1, 5, 10]))
    _write(f"{root}/stl/test_X.bin", x[:2][:, ::-1].tobytes())
    _write(f"{root}/stl/test_y.bin", bytes([2, 3]))
    _write(f"{root}/stl/unlabeled_X.bin", x[1:].tobytes())
    os.makedirs(f"{root}/yesno", exist_ok=True)
    for name, frames in (("1_1_0_0_1_0_1_0", 4), ("0_1_0_1_1_0_0_1", 5)):
        with wave.open(f"{root}/yesno/{name}.wav", "wb") as f:
            f.setnchannels(1)
            f.setsampwidth(2)
            f.setframerate(8000)
            f.writeframes(rng.integers(-30000, 30000, frames).astype("<i2").tobytes())


def _small(ds, root: str) -> dict:
    out = {f"sst2_{u}": _rows(ds.SST2Dataset(f"{root}/sst2", usage=u, shuffle=False)) for u in ("train", "dev", "test")}
    out["sst2_cols"] = ds.SST2Dataset(f"{root}/sst2", usage="test").get_col_names()
    out["semeion"] = _rows(ds.SemeionDataset(f"{root}/semeion", shuffle=False))
    out["usps"] = {u: _rows(ds.USPSDataset(f"{root}/usps", usage=u, shuffle=False)) for u in ("test", "all")}
    out["stl10"] = {u: _image_summary(ds.STL10Dataset(f"{root}/stl", usage=u, sampler=ds.SubsetSampler([0, 1])))
                    for u in ("train", "unlabeled", "train+unlabeled", "all")}
    out["stl10_last"] = _image_summary(ds.STL10Dataset(f"{root}/stl", usage="all", sampler=ds.SubsetSampler([6])))
    out["stl10_sizes"] = [ds.STL10Dataset(f"{root}/stl", usage=u).get_dataset_size() for u in ("test", "all")]
    yesno = ds.YesNoDataset(f"{root}/yesno", shuffle=False)
    out["yesno"] = [yesno.get_col_names(), _rows(yesno)]
    return out


def _wav(path: str, frames: int, rate: int, rng: np.random.Generator) -> None:
    import wave

    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(path, "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(rng.integers(-30000, 30000, frames).astype("<i2").tobytes())


def _make_more(root: str) -> None:
    rng = np.random.default_rng(17)
    for i in range(3):
        _write(f"{root}/celeba/00000{i + 1}.jpg", _jpeg(rng, 4))
    _write(f"{root}/celeba/list_attr_celeba.txt", "3\n5_o_Clock_Shadow Arched_Eyebrows Attractive\n"
           "000001.jpg -1  1  1\n000002.jpg -1 -1  1\n000003.jpg  1 -1 -1\n")
    _write(f"{root}/celeba/list_eval_partition.txt", "000001.jpg 0\n000002.jpg 1\n000003.jpg 2\n")
    for k in range(2):
        _wav(f"{root}/lj/wavs/LJ001-000{k + 1}.wav", 4 + k, 22050, rng)
    _write(f"{root}/lj/metadata.csv", "LJ001-0001|Printing, in 1820|Printing, in eighteen twenty\n"
           "LJ001-0002|in being comparatively|in being comparatively\n")
    for word, speaker in (("yes", "0a7c2a8d"), ("no", "0b09edd3")):
        for u in range(2):
            _wav(f"{root}/speech/{word}/{speaker}_nohash_{u}.wav", 3, 16000, rng)
    _write(f"{root}/speech/validation_list.txt", "no/0b09edd3_nohash_1.wav\n")
    _write(f"{root}/speech/testing_list.txt", "yes/0a7c2a8d_nohash_1.wav\n")
    _write(f"{root}/conll/train.txt", "Confidence NN B-NP\nin IN B-PP\n\nthe DT B-NP\npound NN I-NP\n.  . O\n\n")
    _write(f"{root}/conll/test.txt", "Rockwell NNP B-NP\nsaid VBD B-VP\n\nunended NN O\n")
    for u in ("train", "dev", "test"):
        _write(f"{root}/udpos/en-ud-tag.v2.{u}.txt", f"Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\n\n{u}\tNOUN\tNN\n\nlast\tX\tX\n")
    squad = {"data": [{"title": "T", "paragraphs": [{"context": "Ctx one.", "qas": [
        {"id": "a", "question": "Q1?",
         "answers": [{"text": "one", "answer_start": 4}, {"text": "Ctx", "answer_start": 0}]},
        {"id": "b", "question": "Q2?", "answers": []}]}]}], "version": "1.1"}
    _write(f"{root}/squad/train-v1.1.json", json.dumps(squad))
    squad["data"][0]["paragraphs"][0]["context"] = "Dev ctx."
    _write(f"{root}/squad/dev-v1.1.json", json.dumps(squad))
    for c in ("apple_pie", "baby_back_ribs"):
        for k in range(2):
            _write(f"{root}/food/images/{c}/{k}{c[0]}.jpg", _jpeg(rng, 2))
    _write(f"{root}/food/meta/train.txt", "apple_pie/0a\nbaby_back_ribs/1b\n")
    _write(f"{root}/food/meta/test.txt", "apple_pie/1a\nbaby_back_ribs/0b\n")
    for folder, stem in (("training", "train"), ("validation", "val"), ("mmt16_task1_test", "test")):
        _write(f"{root}/multi30k/{folder}/{stem}.en", f"A man {stem}.\nTwo dogs.\n")
        _write(f"{root}/multi30k/{folder}/{stem}.de", f"Ein Mann {stem}.\nZwei Hunde.\n")
    for u in ("train", "valid", "test"):
        for lab in ("negative", "positive"):
            _write(f"{root}/rsst2/{u}/{lab}/{lab[0]}{u}1.png", b"\x89PNG" + f"{u}{lab}".encode())
    _write(f"{root}/sun397/ClassName.txt", "/a/airplane_cabin\n/a/abbey\n")
    for c in ("a/abbey", "a/airplane_cabin"):
        for k in range(2):
            _write(f"{root}/sun397/{c}/sun_{k}.jpg", _jpeg(rng, 2))
    for bg in ("images_background", "images_evaluation"):
        for alpha in ("Alphabet_B", "Alphabet_A"):
            for ch in ("character02", "character01"):
                _write(f"{root}/omniglot/{bg}/{alpha}/{ch}/{alpha[-1]}{ch[-1]}_01.png", b"\x89PNG" + bg.encode())
    for n in ("b.jpg", "a.jpg"):
        _write(f"{root}/flickr/imgs/{n}", _jpeg(rng, 2))
    _write(f"{root}/flickr/ann.txt", "b.jpg#0\tA dog runs .\nb.jpg#1\tDog running\na.jpg#0\tA cat\n")
    for part in ("train", "valid"):
        for k in ("0002", "0001"):
            _write(f"{root}/div2k/DIV2K_{part}_HR/{k}.png", b"\x89PNG" + f"{part}{k}".encode())
            _write(f"{root}/div2k/DIV2K_{part}_LR_bicubic/X3/{k}x3.png", b"\x89PNG" + f"{part}{k}lr".encode())
    for k in ("0002", "0001"):
        _wav(f"{root}/cmu/cmu_us_aew_arctic/wav/arctic_a{k}.wav", 3, 16000, rng)
    _write(f"{root}/cmu/cmu_us_aew_arctic/etc/txt.done.data",
           '( arctic_a0002 "Not at this particular case, Tom." )\n( arctic_a0001 "Author of the danger trail." )\n')
    for g in ("rock", "blues"):
        for k in range(2):
            _wav(f"{root}/gtzan/{g}/{g}.0000{k}.wav", 3 + k, 22050, rng)
    for part, names in (("train", ("0--Parade/0_a.jpg",)),
                        ("val", ("1--Handshaking/1_c.jpg", "1--Handshaking/1_b.jpg"))):
        for n in names:
            _write(f"{root}/wider/WIDER_{part}/images/{n}", _jpeg(rng, 2))
    _write(f"{root}/wider/wider_face_split/wider_face_train_bbx_gt.txt",
           "0--Parade/0_a.jpg\n2\n449 330 122 149 0 0 0 0 0 0 \n10 20 30 40 1 2 0 1 0 1 \n")
    _write(f"{root}/wider/wider_face_split/wider_face_val_bbx_gt.txt",
           "1--Handshaking/1_c.jpg\n0\n0 0 0 0 0 0 0 0 0 0 \n1--Handshaking/1_b.jpg\n1\n1 2 3 4 0 0 1 0 0 0 \n")
    for usage, spk, ch in (("dev-clean", "84", "121123"), ("test-clean", "1089", "134686")):
        utts = ("000000_000001", "000000_000000")
        for utt in utts:
            _wav(f"{root}/libritts/LibriTTS/{usage}/{spk}/{ch}/{spk}_{ch}_{utt}.wav", 3, 24000, rng)
        _write(f"{root}/libritts/LibriTTS/{usage}/{spk}/{ch}/{spk}_{ch}.trans.tsv",
               "".join(f"{spk}_{ch}_{u}\tOriginal, {u}.\tnormalized {u}\n" for u in utts))
    _write(f"{root}/p365/categories_places365.txt", "/a/airfield 0\n/a/airplane_cabin 1\n/b/bakery/shop 2\n")
    _write(f"{root}/p365/places365_train_standard.txt",
           "/a/airplane_cabin/00000001.jpg 1\n/a/airfield/00000001.jpg 0\n/b/bakery/shop/00000002.jpg 2\n")
    _write(f"{root}/p365/places365_train_challenge.txt", "/a/airfield/00000001.jpg 0\n")
    _write(f"{root}/p365/places365_val.txt", "Places365_val_00000001.jpg 2\n")
    for p in ("a/airplane_cabin/00000001.jpg", "a/airfield/00000001.jpg", "b/bakery/shop/00000002.jpg"):
        _write(f"{root}/p365/data_256_standard/{p}", _jpeg(rng, 2))
        _write(f"{root}/p365/data_large_standard/{p}", _jpeg(rng, 3))
    _write(f"{root}/p365/data_256_challenge/a/airfield/00000001.jpg", _jpeg(rng, 4))
    _write(f"{root}/p365/val_256/Places365_val_00000001.jpg", _jpeg(rng, 2))
    _write(f"{root}/p365/val_large/Places365_val_00000001.jpg", _jpeg(rng, 3))
    clue = {"id": 7, "sentence1": "s1", "sentence2": "s2", "label": "1", "label_des": "news_tech",
            "label_desc": "tech", "sentence": "sent", "keywords": "k1,k2", "idx": 5, "text": "txt", "abst": "abs",
            "target": {"span1_index": 0, "span2_index": 3, "span1_text": "A", "span2_text": "B"},
            "keyword": ["x", "y"]}
    for k in range(2):
        _write(f"{root}/clue/part{k}.json", "".join(json.dumps(dict(clue, id=k * 10 + j, idx=j, sentence=f"s{k}{j}"))
                                                   + "\n" for j in range(2)))
    for c, n in (("001.ak47", 2), ("002.american-flag", 1), ("257.clutter", 1)):
        for k in range(n):
            _write(f"{root}/caltech256/{c}/{c[:3]}_000{k + 1}.jpg", _jpeg(rng, 3))


def _more(ds, root: str) -> dict:
    out = {f"celeba_{u}": _rows(ds.CelebADataset(f"{root}/celeba", usage=u, shuffle=False))
           for u in ("all", "valid")}
    out["celeba_cols"] = ds.CelebADataset(f"{root}/celeba").get_col_names()
    lj = ds.LJSpeechDataset(f"{root}/lj", shuffle=False)
    out["ljspeech"] = [lj.get_col_names(), _rows(lj)]
    for u in ("train", "valid", "test", "all"):
        out[f"speech_{u}"] = _rows(ds.SpeechCommandsDataset(f"{root}/speech", usage=u, shuffle=False))
    for name, cls, usages in (("conll", "CoNLL2000Dataset", ("train", "test", "all")),
                              ("udpos", "UDPOSDataset", ("valid", "all")), ("squad", "SQuADDataset", ("dev", "all")),
                              ("food", "Food101Dataset", ("test", "all"))):
        for u in usages:
            d = getattr(ds, cls)(f"{root}/{name}", usage=u, shuffle=False, num_parallel_workers=2)
            out[f"{name}_{u}"] = [d.get_col_names(), _rows(d)]
    for u in ("train", "all"):
        d = ds.Multi30kDataset(f"{root}/multi30k", usage=u, shuffle=False, num_parallel_workers=2)
        out[f"multi30k_{u}"] = [d.get_col_names(), _rows(d)]
    out["multi30k_de"] = _rows(ds.Multi30kDataset(f"{root}/multi30k", usage="valid", language_pair=["de", "en"],
                                                  shuffle=False))
    out["rsst2"] = {u: _rows(ds.RenderedSST2Dataset(f"{root}/rsst2", usage=u, shuffle=False)) for u in ("test", "all")}
    out["sun397"] = _rows(ds.SUN397Dataset(f"{root}/sun397", shuffle=False))
    out["omniglot"] = {str(b): _rows(ds.OmniglotDataset(f"{root}/omniglot", background=b, shuffle=False))
                       for b in (None, True, False)}
    flickr = ds.FlickrDataset(f"{root}/flickr/imgs", f"{root}/flickr/ann.txt", shuffle=False)
    out["flickr"] = [flickr.get_col_names(), _rows(flickr)]
    out["div2k"] = {u: _rows(ds.DIV2KDataset(f"{root}/div2k", usage=u, scale=3, shuffle=False))
                    for u in ("valid", "all")}
    cmu = ds.CMUArcticDataset(f"{root}/cmu", shuffle=False)
    out["cmu_arctic"] = [cmu.get_col_names(), _rows(cmu)]
    out["gtzan"] = _rows(ds.GTZANDataset(f"{root}/gtzan", usage="all", shuffle=False))
    # MindSpore 2.10's usage 'all' looks for the train event folders under WIDER_val: each split on its own.
    out["wider"] = [ds.WIDERFaceDataset(f"{root}/wider").get_col_names()] + [
        _rows(ds.WIDERFaceDataset(f"{root}/wider", usage=u, shuffle=False)) for u in ("train", "valid")]
    libri = ds.LibriTTSDataset(f"{root}/libritts/LibriTTS", usage="test-clean", shuffle=False)
    out["libritts"] = [libri.get_col_names(), _rows(libri),
                       _rows(ds.LibriTTSDataset(f"{root}/libritts/LibriTTS", shuffle=False))]
    out["places365"] = [_rows(ds.Places365Dataset(f"{root}/p365", usage=u, small=small, shuffle=False))
                        for u, small in ((None, True), ("train-standard", False), ("train-challenge", True),
                                         ("val", False))]
    for task in ("AFQMC", "TNEWS", "IFLYTEK", "CMNLI", "WSC", "CSL"):
        for usage in ("train", "test"):
            d = ds.CLUEDataset(f"{root}/clue/*.json", task=task, usage=usage, shuffle=False)
            out[f"clue_{task}_{usage}"] = [d.get_col_names(), _rows(d)]
    cal = ds.Caltech256Dataset(f"{root}/caltech256", shuffle=False)
    out["caltech256"] = [cal.get_col_names(), _rows(cal)]
    return out


def _corpora(ds, root: str) -> dict:
    out = {}
    for cls, name, _ in _CORPORA:
        for usage in ("train", "all"):
            d = getattr(ds, cls)(f"{root}/corpora/{name}", usage=usage, shuffle=False)
            out[f"{cls}_{usage}"] = [d.get_col_names(), _rows(d)]
    # Three files: the interleaving depends on the number of parallel readers, so it is given.
    for cls, name, usage in (("PennTreebankDataset", "ptb", "train"), ("PennTreebankDataset", "ptb", "all"),
                             ("WikiTextDataset", "wiki", "valid"), ("WikiTextDataset", "wiki", "all")):
        d = getattr(ds, cls)(f"{root}/corpora/{name}", usage=usage, shuffle=False, num_parallel_workers=2)
        out[f"{cls}_{usage}"] = [d.get_col_names(), _rows(d)]
    out["enwik9"] = _rows(ds.EnWik9Dataset(f"{root}/corpora/enwik", shuffle=False))
    for usage in ("train", "all"):
        d = ds.IMDBDataset(f"{root}/corpora/imdb", usage=usage, shuffle=False)
        out[f"imdb_{usage}"] = [d.get_col_names(), d.get_dataset_size(), _rows(d)]
    return out


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
