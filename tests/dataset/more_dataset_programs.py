"""More file-dataset programs (text corpora, small image/audio sets, NLP, folders): ``make_more_files(root)``
writes their tiny files, ``run_more(ds, root)`` reads them; used by tests/dataset/file_dataset_programs.py.
Imports no framework itself."""

from __future__ import annotations

import json
import os

import numpy as np

from tests.dataset.file_helpers import _image_summary, _jpeg, _rows, _wav, _write

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
    for part, city, ids in (("train", "bochum", ("000000_000313",)),
                            ("train", "aachen", ("000001_000019", "000000_000019")),
                            ("val", "lindau", ("000000_000019",)), ("test", "berlin", ("000000_000019",))):
        for i in ids:
            _write(f"{root}/cityscapes/leftImg8bit/{part}/{city}/{city}_{i}_leftImg8bit.png", _jpeg(rng, 3))
            for kind in ("labelIds", "instanceIds", "color"):
                _write(f"{root}/cityscapes/gtFine/{part}/{city}/{city}_{i}_gtFine_{kind}.png", _jpeg(rng, 2))
            _write(f"{root}/cityscapes/gtFine/{part}/{city}/{city}_{i}_gtFine_polygons.json",
                   json.dumps({"objects": [{"label": "road", "polygon": [[1, 2], [3.5, 4]]}], "imgHeight": 2,
                               "imgWidth": 3}))
    kitti = ["Car", "Van", "Truck", "Pedestrian", "Person_sitting", "Cyclist", "Tram", "Misc", "DontCare"]
    for k in range(2):
        _write(f"{root}/kitti/data_object_image_2/training/image_2/00000{k}.png", _jpeg(rng, 2))
        lines = [f"{c} 0.{k}{j} {j % 3} -1.5{j} 587.01 173.33 614.12 200.1{j} 1.65 1.67 3.64 -0.65 1.71 46.70 -1.59"
                 for j, c in enumerate(kitti[k * 5:(k + 1) * 5])]
        _write(f"{root}/kitti/data_object_label_2/training/label_2/00000{k}.txt", "\n".join(lines) + "\n")
    _write(f"{root}/kitti/data_object_image_2/testing/image_2/000000.png", _jpeg(rng, 3))
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
    for task in ("instance", "semantic", "color", "polygon"):
        out[f"cityscapes_{task}"] = _rows(ds.CityscapesDataset(f"{root}/cityscapes", task=task, shuffle=False))
    out["cityscapes_all"] = _rows(ds.CityscapesDataset(f"{root}/cityscapes", usage="all", task="semantic",
                                                       shuffle=False))
    for u in ("train", "test"):
        d = ds.KITTIDataset(f"{root}/kitti", usage=u, shuffle=False)
        out[f"kitti_{u}"] = [d.get_col_names(), _rows(d)]
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


def make_more_files(root: str) -> None:
    """Write the files of the corpora, small sets and folder datasets under ``root``."""
    _make_corpora(root)
    _make_small(root)
    _make_more(root)
