"""The readers of text, CSV, CIFAR-100, the MNIST variants, manifest, VOC and COCO files and the
WeightedRandom/PK samplers give MindSpore's rows: tests/dataset/file_dataset_programs.py runs on opbuild over
files it writes into tmp_path and is compared with what MindSpore 2.10 gave on the same files
(scripts/record_file_datasets.py). Also opbuild's own checks: splits MindSpore cannot read from tiny files,
shuffling, sharding and clear errors on bad input."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

import opbuild.dataset as ds
from tests.dataset import file_dataset_programs as programs

EXPECTED = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "file_datasets.json").read_text())
RANDOM = {"pk"}  # MindSpore's random draws are not reproduced: sizes, classes and membership are compared
SERIALIZED = {"pipeline_json"}  # each framework writes its own JSON: the rows and the reading of MindSpore's


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("ms-file-datasets")
    programs.make_files(str(root))
    return str(root)


@pytest.fixture(scope="module")
def results(files):
    return json.loads(json.dumps(programs.run(ds, files)))


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - RANDOM - SERIALIZED))
def test_matches_mindspore(results, name):
    assert results[name] == EXPECTED[name]


def test_pk_sampler_classes_and_sizes_match_mindspore(results, files):
    images = np.fromfile(f"{files}/pk/train-images-idx3-ubyte", np.uint8)[16:].reshape(8, -1)
    labels = np.fromfile(f"{files}/pk/train-labels-idx1-ubyte", np.uint8)[8:]
    first_pixel_label = {(int(i[0]), int(lbl)) for i, lbl in zip(images, labels, strict=True)}
    for key, (size, rows) in EXPECTED["pk"].items():
        got_size, got_rows = results["pk"][key]
        assert got_size == size, key
        assert [r[1] for r in got_rows] == [r[1] for r in rows], key  # classes in ascending order
        assert all(tuple(r) in first_pixel_label for r in got_rows), key  # each row is of its class


def _idx(path, arr):
    path.write_bytes(bytes((0, 0, 8, arr.ndim)) + struct.pack(f">{arr.ndim}i", *arr.shape) + arr.tobytes())


def test_cifar100_train_then_test(tmp_path):
    rng = np.random.default_rng(0)
    rec = rng.integers(0, 256, (5, 3074), dtype=np.uint8)
    (tmp_path / "train.bin").write_bytes(rec[:3].tobytes())
    (tmp_path / "test.bin").write_bytes(rec[3:].tobytes())
    rows = list(ds.Cifar100Dataset(str(tmp_path), shuffle=False).create_tuple_iterator(output_numpy=True))
    assert [int(r[1]) for r in rows] == rec[:, 0].tolist() and [int(r[2]) for r in rows] == rec[:, 1].tolist()
    np.testing.assert_array_equal(rows[4][0], rec[4, 2:].reshape(3, 32, 32).transpose(1, 2, 0))
    (tmp_path / "test.bin").write_bytes(rec[3:].tobytes()[:-1])
    with pytest.raises(ValueError, match="whole number of 3074-byte records"):
        ds.Cifar100Dataset(str(tmp_path), usage="test")


def test_qmnist_test_splits(tmp_path):
    img = np.zeros((3, 28, 28), np.uint8)
    img[:, 0, 0] = [1, 2, 3]
    _idx(tmp_path / "qmnist-test-images-idx3-ubyte", img)
    lab = np.arange(24).reshape(3, 8).astype(">i4")
    (tmp_path / "qmnist-test-labels-idx2-int").write_bytes(bytes((0, 0, 12, 2)) + struct.pack(">2i", 3, 8)
                                                           + lab.tobytes())
    d = ds.QMnistDataset(str(tmp_path), usage="test10k", compat=False, shuffle=False)
    assert d.get_dataset_size() == 3
    assert next(iter(d.create_tuple_iterator(output_numpy=True)))[1].tolist() == list(range(8))
    assert ds.QMnistDataset(str(tmp_path), usage="test50k").get_dataset_size() == 0
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.QMnistDataset(str(tmp_path), usage="valid")
    with pytest.raises(ValueError, match="qmnist-train-images-idx3-ubyte"):
        ds.QMnistDataset(str(tmp_path), usage="train")


def _texts(d):
    return [str(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


def test_text_shuffle_shards_and_epochs(files):
    pattern = f"{files}/text/*.txt"
    every = sorted(_texts(ds.TextFileDataset(pattern, shuffle=False)))
    ds.config.set_seed(3)
    shuffled = ds.TextFileDataset(pattern)  # Shuffle.GLOBAL by default
    it = shuffled.create_tuple_iterator(output_numpy=True, num_epochs=2)
    epochs = [[str(r[0]) for r in it] for _ in range(2)]
    assert sorted(epochs[0]) == sorted(epochs[1]) == every and epochs[0] != epochs[1]
    shards = [_texts(ds.TextFileDataset(pattern, num_shards=2, shard_id=i, shuffle=True)) for i in range(2)]
    assert len(shards[0]) == len(shards[1]) == 3 and set(shards[0]) | set(shards[1]) == set(every)
    assert _texts(ds.TextFileDataset(pattern, shuffle=False, num_parallel_workers=1)) == [
        "alpha one", "alpha two", "beta one", "beta two\r", "beta three"]


def test_csv_and_text_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="no file matches"):
        ds.TextFileDataset(str(tmp_path / "none*.txt"))
    with pytest.raises(ValueError, match="does not exist"):
        ds.TextFileDataset([str(tmp_path / "gone.txt")])
    with pytest.raises(TypeError, match="shuffle must be a bool or a Shuffle mode"):
        ds.TextFileDataset(f"{files}/text/a.txt", shuffle="yes")
    with pytest.raises(RuntimeError, match="shard_id is given but num_shards is not"):
        ds.CSVDataset(f"{files}/csv/h.csv", shard_id=0)
    with pytest.raises(ValueError, match="column_defaults has 2 entries but there are 3 columns"):
        ds.CSVDataset(f"{files}/csv/h.csv", column_defaults=[1, 2])
    with pytest.raises(ValueError, match="not a float as column_defaults says"):
        ds.CSVDataset(f"{files}/csv/h.csv", column_defaults=[0, "", 0.0])  # an empty score field
    (tmp_path / "ragged.csv").write_text("a,b\n1,2,3\n")
    with pytest.raises(ValueError, match="record 0 of .*ragged.csv has 3 fields but there are 2 columns"):
        ds.CSVDataset(str(tmp_path / "ragged.csv"))
    with pytest.raises(ValueError, match="field_delim must be one character"):
        ds.CSVDataset(f"{files}/csv/h.csv", field_delim=";;")
    with pytest.raises(TypeError, match="column_defaults must hold ints, floats or strs"):
        ds.CSVDataset(f"{files}/csv/h.csv", column_defaults=[0, None, 1.0])


def test_detection_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="task must be 'Detection' or 'Segmentation'"):
        ds.VOCDataset(f"{files}/voc", task="Keypoint")
    with pytest.raises(ValueError, match="ImageSets.Main.val.txt not found"):
        ds.VOCDataset(f"{files}/voc", task="Detection", usage="val")
    with pytest.raises(RuntimeError, match="only for task='Detection'"):
        ds.VOCDataset(f"{files}/voc").get_class_indexing()
    with pytest.raises(ValueError, match="task must be one of"):
        ds.CocoDataset(f"{files}/coco/images", f"{files}/coco/det.json", task="Masks")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ValueError, match="is not JSON"):
        ds.CocoDataset(f"{files}/coco/images", str(tmp_path / "bad.json"))
    with pytest.raises(ValueError, match="has no 'keypoints'"):
        ds.CocoDataset(f"{files}/coco/images", f"{files}/coco/det.json", task="Keypoint")
    with pytest.raises(ValueError, match="class_indexing does not name"):
        ds.ManifestDataset(f"{files}/manifest/data.manifest", class_indexing={"cat": 0})
    with pytest.raises(ValueError, match="usage must be 'train', 'eval' or 'inference'"):
        ds.ManifestDataset(f"{files}/manifest/data.manifest", usage="test")
    with pytest.raises(NotImplementedError, match="extra_metadata"):
        ds.CocoDataset(f"{files}/coco/images", f"{files}/coco/det.json", extra_metadata=True)


def test_detection_decode_and_sampling(files, tmp_path):
    from PIL import Image

    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    Image.fromarray(img).save(tmp_path / "a.png")
    line = {"source": str(tmp_path / "a.png"), "usage": "train",
            "annotation": [{"type": "modelarts/image_classification", "name": "x"}]}
    (tmp_path / "m.manifest").write_text(json.dumps(line) + "\n")
    row = next(iter(ds.ManifestDataset(str(tmp_path / "m.manifest"), decode=True).create_tuple_iterator(
        output_numpy=True)))
    np.testing.assert_array_equal(row[0], img)
    coco = ds.CocoDataset(f"{files}/coco/images", f"{files}/coco/det.json", num_shards=2, shard_id=1)
    assert coco.get_dataset_size() == 1
    sampled = ds.VOCDataset(f"{files}/voc", task="Detection", sampler=ds.SubsetSampler([1]))
    assert [r[2].ravel().tolist() for r in sampled.create_tuple_iterator(output_numpy=True)] == [[3]]


def test_weighted_random_sampler():
    d = ds.NumpySlicesDataset({"a": np.arange(4)}, sampler=ds.WeightedRandomSampler([1, 0, 3, 0], num_samples=400))
    drawn = [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True)]
    assert len(drawn) == 400 and set(drawn) == {0, 2} and 240 < drawn.count(2) < 360
    once = ds.WeightedRandomSampler([1, 1, 1, 0], num_samples=3, replacement=False)
    got = [int(r[0]) for r in ds.NumpySlicesDataset({"a": np.arange(4)}, sampler=once).create_tuple_iterator(
        output_numpy=True)]
    assert sorted(got) == [0, 1, 2]
    with pytest.raises(ValueError, match="weights must be finite, >= 0 and not all zero"):
        ds.WeightedRandomSampler([0, 0])
    too_many = ds.WeightedRandomSampler([1, 0], num_samples=2, replacement=False)
    with pytest.raises(ValueError, match="without replacement need as many rows"):
        ds.NumpySlicesDataset({"a": np.arange(2)}, sampler=too_many).get_dataset_size()


def test_pk_sampler_shuffle_and_errors(files):
    ds.config.set_seed(1)
    d = ds.MnistDataset(f"{files}/pk", usage="train", sampler=ds.PKSampler(2, shuffle=True))
    it = d.create_tuple_iterator(output_numpy=True, num_epochs=3)
    orders = [[int(r[1]) for r in it][::2] for _ in range(3)]
    assert all(sorted(o) == [0, 1, 2] for o in orders) and len({tuple(o) for o in orders}) > 1
    with pytest.raises(NotImplementedError, match="num_class"):
        ds.PKSampler(2, num_class=3)
    with pytest.raises(RuntimeError, match="num_val must be positive"):
        ds.PKSampler(0)
    bad = ds.MnistDataset(f"{files}/pk", usage="train", sampler=ds.PKSampler(1, class_column="cls"))
    with pytest.raises(RuntimeError, match="class_column 'cls' is not a column"):
        bad.get_dataset_size()


def test_random_dataset():
    schema = ds.Schema()
    schema.add_column("image", de_type="uint8", shape=[2, 3])
    schema.add_column("score", de_type="float32", shape=[4])
    d = ds.RandomDataset(total_rows=6, schema=schema, columns_list=["score", "image"], shuffle=False)
    rows = list(d.create_tuple_iterator(output_numpy=True))
    assert d.get_col_names() == ["score", "image"] and len(rows) == 6
    assert rows[0][0].dtype == np.float32 and rows[0][1].shape == (2, 3) and rows[0][1].dtype == np.uint8
    again = list(d.create_tuple_iterator(output_numpy=True))
    np.testing.assert_array_equal(rows[3][0], again[3][0])
    assert not np.array_equal(rows[0][0], rows[1][0])
    assert ds.RandomDataset(total_rows=6, schema=schema, num_shards=4, shard_id=3).get_dataset_size() == 2
    free = ds.RandomDataset(total_rows=3)
    assert 1 <= len(free.get_col_names()) <= 4 and free.get_dataset_size() == 3
    with pytest.raises(ValueError, match="columns_list names"):
        ds.RandomDataset(total_rows=2, schema=schema, columns_list=["label"])


def test_tfrecord_damaged_record_data_is_refused(files, tmp_path):
    """A byte changed inside a record's data fails the record's data checksum: it must not read as another
    value (the length checksum alone let 68 of 800 random corruptions through)."""
    raw = bytearray((Path(files) / "tfrecord" / "a.tfrecord").read_bytes())
    (length,) = struct.unpack_from("<Q", raw, 0)
    second = 12 + length + 4  # the second record's header
    raw[second + 12 + 5] ^= 0x40
    (tmp_path / "bad.tfrecord").write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"is damaged: record 1 \(data at byte \d+, \d+ bytes\) fails its checksum"):
        list(ds.TFRecordDataset(str(tmp_path / "bad.tfrecord"), shuffle=False).create_tuple_iterator())


def test_tfrecord_compression_schema_and_bad_files(files, tmp_path):
    import gzip
    import zlib

    plain = Path(files) / "tfrecord" / "a.tfrecord"
    (tmp_path / "a.gz").write_bytes(gzip.compress(plain.read_bytes()))
    (tmp_path / "a.z").write_bytes(zlib.compress(plain.read_bytes()))
    want = [r[1].tolist() for r in ds.TFRecordDataset(str(plain), shuffle=False).create_tuple_iterator(
        output_numpy=True)]
    assert want == [[10, 7], [11, 7]]
    for name, kind in (("a.gz", "GZIP"), ("a.z", "ZLIB")):
        got = ds.TFRecordDataset(str(tmp_path / name), compression_type=kind, shuffle=False)
        assert [r[1].tolist() for r in got.create_tuple_iterator(output_numpy=True)] == want
    with pytest.raises(ValueError, match="not a TFRecord file .*compression_type='GZIP'"):
        ds.TFRecordDataset(str(tmp_path / "a.gz"))
    (tmp_path / "cut.tfrecord").write_bytes(plain.read_bytes()[:-3])
    with pytest.raises(ValueError, match="is truncated"):
        ds.TFRecordDataset(str(tmp_path / "cut.tfrecord"))
    schema = ds.Schema()
    schema.add_column("label", de_type="int32", shape=[1, 2])
    schema.add_column("name", de_type="string")
    rows = list(ds.TFRecordDataset(str(plain), schema=schema, shuffle=False).create_tuple_iterator(
        output_numpy=True))
    assert rows[0][0].dtype == np.int32 and rows[0][0].shape == (1, 2) and str(rows[1][1]) == "a1"
    bad = ds.Schema()
    bad.add_column("label", de_type="int64", shape=[3])
    with pytest.raises(ValueError, match="has 2 values, which do not fit the schema's shape"):
        ds.TFRecordDataset(str(plain), schema=bad)
    with pytest.raises(ValueError, match="columns_list names"):
        ds.TFRecordDataset(str(plain), columns_list=["image"])
    with pytest.raises(ValueError, match="compression_type must be"):
        ds.TFRecordDataset(str(plain), compression_type="LZ4")
    shards = [ds.TFRecordDataset(f"{files}/tfrecord/*.tfrecord", num_shards=2, shard_id=i) for i in range(2)]
    assert [s.get_dataset_size() for s in shards] == [2, 3]  # whole files: a (2 rows) and b (3 rows)


def test_waited_ds_callback_syncs_with_the_training_steps():
    from opbuild.train.callback import Callback, RunContext

    seen = []

    class Sync(ds.WaitedDSCallback):
        def sync_epoch_begin(self, train_run_context, ds_run_context):
            seen.append(("epoch", train_run_context.original_args()["step"], ds_run_context.cur_epoch_num))

        def sync_step_begin(self, train_run_context, ds_run_context):
            seen.append(("step", train_run_context.original_args()["step"], ds_run_context.cur_step_num))

    cb = Sync()
    assert isinstance(cb, Callback) and isinstance(cb, ds.DSCallback)
    d = ds.NumpySlicesDataset({"a": np.arange(2)}, shuffle=False).map(lambda x: x, callbacks=[cb])
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    step = 0
    for _ in range(2):
        for _row in it:  # the "training step" on the row ends before the next row is read
            step += 1
            cb.step_end(RunContext({"step": step}))
        cb.epoch_end(RunContext({"step": step}))
    assert seen == [("step", 1, 2), ("epoch", 2, 2), ("step", 2, 3), ("step", 3, 4)]
    with pytest.raises(TypeError, match="callbacks must be DSCallback objects"):
        d.map(lambda x: x, callbacks=[object()])
    with pytest.raises(ValueError, match="step_size must be in"):
        ds.DSCallback(step_size=0)


def _swap_root(obj, root):
    return json.loads(json.dumps(obj).replace("<root>", root))


def _all_rows(d):
    return programs._rows(d)


@pytest.mark.parametrize("k", range(len(EXPECTED["pipeline_json"])))
def test_pipelines_and_mindspore_json(results, files, k):
    ms_json, ms_rows = EXPECTED["pipeline_json"][k]
    assert results["pipeline_json"][k][1] == ms_rows
    rebuilt = ds.deserialize(input_dict=_swap_root(ms_json, files))  # MindSpore's own JSON
    assert json.loads(json.dumps(_all_rows(rebuilt))) == ms_rows
    ours = _swap_root(results["pipeline_json"][k][0], files)
    again = ds.deserialize(input_dict=ours)
    assert json.loads(json.dumps(_all_rows(again))) == ms_rows
    assert ds.serialize(again) == ours and ds.compare(again, ds.deserialize(input_dict=ours))


def test_serialize_files_show_and_refusals(files, tmp_path, capsys):
    d = ds.TextFileDataset(f"{files}/text/a.txt", shuffle=False).map(ds.transforms.TypeCast("int32"),
                                                                      input_columns="text")
    out = ds.serialize(d, json_filepath=str(tmp_path / "pipe"))
    assert json.loads((tmp_path / "pipe.json").read_text()) == out
    assert out["operations"][0] == {"tensor_op_name": "TypeCast", "python_module": type(
        ds.transforms.TypeCast("int32")).__module__, "tensor_op_params": {"data_type": "int32"}}
    assert ds.serialize(ds.deserialize(json_filepath=str(tmp_path / "pipe.json"))) == out
    ds.show(d)
    assert '"op_type": "Map"' in capsys.readouterr().out
    assert not ds.compare(d, d.take(1))
    lam = ds.TextFileDataset(f"{files}/text/a.txt", shuffle=False).map(lambda t: t)
    vis = ds.vision
    ops = ds.TextFileDataset(f"{files}/text/a.txt").map([vis.Resize((4, 5), vis.Inter.NEAREST),
                                                        vis.Normalize([1.0, 2.0, 3.0], [2.0, 2.0, 2.0])])
    back = ds.deserialize(input_dict=ds.serialize(ops))
    assert [vars(o).keys() for o in back.operations] == [vars(o).keys() for o in ops.operations]
    assert back.operations[0].interpolation == vis.Inter.NEAREST
    np.testing.assert_array_equal(back.operations[1].mean, ops.operations[1].mean)
    with pytest.raises(ValueError, match="map operation '<lambda>' is Python code"):
        ds.deserialize(input_dict=ds.serialize(lam))
    slices = ds.NumpySlicesDataset({"a": np.arange(3)}, shuffle=False).batch(2)
    assert ds.serialize(slices)["children"][0]["data"] == {"a": {"unserializable": "ndarray"}}
    with pytest.raises(ValueError, match="NumpySlicesDataset holds Python data"):
        ds.deserialize(input_dict=ds.serialize(slices))
    with pytest.raises(ValueError, match="Filter nodes cannot be rebuilt"):
        ds.deserialize(input_dict=ds.serialize(slices.filter(lambda a: True)))
    with pytest.raises(ValueError, match="exactly one of input_dict and json_filepath"):
        ds.deserialize()
    with pytest.raises(ValueError, match="does not exist"):
        ds.deserialize(json_filepath=str(tmp_path / "none.json"))


def test_corpora_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.AGNewsDataset(f"{files}/corpora/agnews", usage="valid")
    with pytest.raises(ValueError, match="valid.csv|test.csv not found"):
        ds.YelpReviewDataset(str(tmp_path), usage="test")
    (tmp_path / "train.csv").write_text('"1","only two"\n')
    with pytest.raises(ValueError, match="record 0 of .*train.csv has 2 fields, expected 3"):
        ds.DBpediaDataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="ptb.valid.txt not found"):
        ds.PennTreebankDataset(str(tmp_path), usage="valid")
    with pytest.raises(ValueError, match="folder .*train.pos not found"):
        ds.IMDBDataset(str(tmp_path), usage="train")
    shuffled = ds.WikiTextDataset(f"{files}/corpora/wiki", num_shards=2, shard_id=0)
    assert shuffled.get_dataset_size() == 3


def test_small_sets_bad_input_and_dataset_cache(files, tmp_path):
    with pytest.raises(ValueError, match="usage must be 'train', 'dev' or 'test'"):
        ds.SST2Dataset(f"{files}/sst2", usage="all")
    (tmp_path / "semeion.data").write_text("1.0 0.0\n")
    with pytest.raises(ValueError, match="line 1 of .*semeion.data has 2 values"):
        ds.SemeionDataset(str(tmp_path))
    (tmp_path / "usps").write_text("1 1:0.5 2:0.1\n")
    with pytest.raises(ValueError, match="is not '<class> 1:<v> ... 256:<v>'"):
        ds.USPSDataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.STL10Dataset(f"{files}/stl", usage="valid")
    (tmp_path / "test_X.bin").write_bytes(b"\0" * 10)
    with pytest.raises(ValueError, match="not a whole number of 96x96x3 images"):
        ds.STL10Dataset(str(tmp_path), usage="test")
    (tmp_path / "yes.wav").write_bytes(b"RIFF")
    with pytest.raises(ValueError, match="is not named by 0/1 labels"):
        ds.YesNoDataset(str(tmp_path))
    (tmp_path / "yes.wav").rename(tmp_path / "1_0.wav")
    with pytest.raises(ValueError, match="is not a PCM WAV file"):
        list(ds.YesNoDataset(str(tmp_path)).create_tuple_iterator(output_numpy=True))
    cache = ds.DatasetCache(session_id=7, size=0)
    assert cache.session_id == 7
    with pytest.raises(NotImplementedError, match="cache"):
        ds.MnistDataset(f"{files}/fashion", cache=cache)
    with pytest.raises(NotImplementedError, match="cache"):
        ds.TextFileDataset(f"{files}/text/a.txt", cache=cache)


def test_celeba_speech_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="usage must be 'train', 'valid', 'test' or 'all'"):
        ds.CelebADataset(f"{files}/celeba", usage="eval")
    with pytest.raises(ValueError, match="no image of .* matches"):
        ds.CelebADataset(f"{files}/celeba", extensions=[".png"])
    (tmp_path / "list_attr_celeba.txt").write_text("1\nA B\nx.jpg 1\n")
    with pytest.raises(ValueError, match="list_eval_partition.txt not found"):
        ds.CelebADataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="line 3 of .* has 1 attributes, expected 2"):
        ds.CelebADataset(str(tmp_path))
    with pytest.raises(ValueError, match="metadata.csv not found"):
        ds.LJSpeechDataset(str(tmp_path))
    with pytest.raises(ValueError, match="validation_list.txt not found"):
        ds.SpeechCommandsDataset(str(tmp_path), usage="valid")
    decoded = ds.CelebADataset(f"{files}/celeba", decode=True)
    with pytest.raises(RuntimeError, match="not an image Pillow can decode"):
        list(decoded.create_tuple_iterator(output_numpy=True))


def test_nlp_and_food_bad_input(files, tmp_path):
    (tmp_path / "train.txt").write_text("word POS\n\n")
    with pytest.raises(ValueError, match="line 1 of .*train.txt has 2 fields, expected 3"):
        ds.CoNLL2000Dataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.UDPOSDataset(f"{files}/udpos", usage="dev")
    with pytest.raises(ValueError, match="no train-v1.1.json or train-v2.0.json"):
        ds.SQuADDataset(str(tmp_path), usage="train")
    (tmp_path / "dev-v1.1.json").write_text("{")
    with pytest.raises(ValueError, match="is not JSON"):
        ds.SQuADDataset(str(tmp_path), usage="dev")
    with pytest.raises(ValueError, match="meta.train.txt not found"):
        ds.Food101Dataset(str(tmp_path), usage="train")
    rows = list(ds.SQuADDataset(f"{files}/squad", usage="train", shuffle=False).create_tuple_iterator(
        output_numpy=True))
    assert rows[1][3].dtype == np.uint32 and rows[1][3].tolist() == [2**32 - 1]


def test_multi30k_and_image_sets_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="language_pair must be"):
        ds.Multi30kDataset(f"{files}/multi30k", language_pair=["en", "fr"])
    with pytest.raises(ValueError, match="training.train.en not found"):
        ds.Multi30kDataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="usage must be 'train', 'valid', 'test' or 'all'"):
        ds.RenderedSST2Dataset(f"{files}/rsst2", usage="dev")
    with pytest.raises(ValueError, match="ClassName.txt not found"):
        ds.SUN397Dataset(str(tmp_path))
    (tmp_path / "ClassName.txt").write_text("/z/zoo\n")
    with pytest.raises(ValueError, match="class folder .*zoo .*not found"):
        ds.SUN397Dataset(str(tmp_path))
    with pytest.raises(ValueError, match="images_evaluation not found"):
        ds.OmniglotDataset(str(tmp_path), background=False)
    with pytest.raises(TypeError, match="background must be a bool or None"):
        ds.OmniglotDataset(f"{files}/omniglot", background="yes")


def test_flickr_div2k_bad_input(files, tmp_path):
    (tmp_path / "ann.txt").write_text("no tab here\n")
    with pytest.raises(ValueError, match="line 1 of .* is not '<image>#<k><TAB><caption>'"):
        ds.FlickrDataset(str(tmp_path), str(tmp_path / "ann.txt"))
    with pytest.raises(ValueError, match="annotation_file .* is not an existing file"):
        ds.FlickrDataset(str(tmp_path), str(tmp_path / "none.txt"))
    with pytest.raises(ValueError, match="comes in scales \\[4\\]"):
        ds.DIV2KDataset(f"{files}/div2k", downgrade="mild", scale=2)
    with pytest.raises(ValueError, match="DIV2K_train_LR_bicubic.X2 not found"):
        ds.DIV2KDataset(f"{files}/div2k", usage="train", scale=2)
    with pytest.raises(TypeError, match="decode must be a bool"):
        ds.DIV2KDataset(f"{files}/div2k", scale=3, decode="yes")


def test_cmu_gtzan_wider_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="cmu_us_bdl_arctic.etc.txt.done.data not found"):
        ds.CMUArcticDataset(f"{files}/cmu", name="bdl")
    with pytest.raises(NotImplementedError, match="fixed list of files"):
        ds.GTZANDataset(f"{files}/gtzan", usage="train")
    with pytest.raises(ValueError, match="no <genre>/\\*.wav file"):
        ds.GTZANDataset(str(tmp_path))
    with pytest.raises(NotImplementedError, match="usage 'test'"):
        ds.WIDERFaceDataset(f"{files}/wider", usage="test")
    (tmp_path / "wider_face_split").mkdir()
    (tmp_path / "wider_face_split" / "wider_face_train_bbx_gt.txt").write_text("0--Parade/x.jpg\n2\n1 2 3 4\n")
    with pytest.raises(ValueError, match="annotation of 0--Parade/x.jpg .* is not '<count>'"):
        ds.WIDERFaceDataset(str(tmp_path), usage="train")
    both = ds.WIDERFaceDataset(f"{files}/wider", shuffle=False)  # opbuild reads 'all' as train then valid
    assert both.get_dataset_size() == 3


def test_obs_names_refuse_clearly():
    with pytest.raises(NotImplementedError, match="OBS object storage.*MindDataset"):
        ds.OBSMindDataset(["a.mindrecord"], "https://obs", "ak", "sk", "/cache")
    with pytest.raises(NotImplementedError, match="serves OBSMindDataset"):
        ds.sync_wait_for_dataset(0, 1, 1, None)


def test_libritts_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.LibriTTSDataset(f"{files}/libritts/LibriTTS", usage="train")
    with pytest.raises(ValueError, match="folder .*dev-other not found"):
        ds.LibriTTSDataset(f"{files}/libritts/LibriTTS", usage="dev-other")
    with pytest.raises(ValueError, match="no utterance"):
        ds.LibriTTSDataset(str(tmp_path))


def test_places365_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="usage must be one of"):
        ds.Places365Dataset(f"{files}/p365", usage="all")
    with pytest.raises(ValueError, match="places365_val.txt not found"):
        ds.Places365Dataset(str(tmp_path), usage="val")
    (tmp_path / "places365_val.txt").write_text("only_a_path.jpg\n")
    with pytest.raises(ValueError, match="is not '<image path> <label>'"):
        ds.Places365Dataset(str(tmp_path), usage="val")
    (tmp_path / "places365_val.txt").write_text("gone.jpg 3\n")
    with pytest.raises(ValueError, match="gone.jpg does not exist"):
        list(ds.Places365Dataset(str(tmp_path), usage="val").create_tuple_iterator(output_numpy=True))


def test_clue_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="task must be one of"):
        ds.CLUEDataset(f"{files}/clue/*.json", task="OCNLI")
    with pytest.raises(ValueError, match="usage must be 'train', 'eval' or 'test'"):
        ds.CLUEDataset(f"{files}/clue/*.json", usage="dev")
    (tmp_path / "a.json").write_text('{"sentence1": "x", "sentence2": "y"}\n')
    with pytest.raises(ValueError, match="line 1 of .*a.json has no \\['label'\\]"):
        ds.CLUEDataset(str(tmp_path / "a.json"))
    (tmp_path / "b.json").write_text("{not json\n")
    with pytest.raises(ValueError, match="is not JSON"):
        ds.CLUEDataset(str(tmp_path / "b.json"))


def test_cityscapes_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="quality_mode must be 'fine' or 'coarse'"):
        ds.CityscapesDataset(f"{files}/cityscapes", quality_mode="medium")
    with pytest.raises(ValueError, match="usage for quality_mode 'coarse' must be one of"):
        ds.CityscapesDataset(f"{files}/cityscapes", usage="test", quality_mode="coarse")
    with pytest.raises(ValueError, match="task must be one of"):
        ds.CityscapesDataset(f"{files}/cityscapes", task="depth")
    with pytest.raises(ValueError, match="leftImg8bit.train not found"):
        ds.CityscapesDataset(str(tmp_path))
    (tmp_path / "leftImg8bit" / "train" / "x").mkdir(parents=True)
    (tmp_path / "leftImg8bit" / "train" / "x" / "x_1_leftImg8bit.png").write_bytes(b"\x89PNG")
    with pytest.raises(ValueError, match="the instance annotation of x_1_leftImg8bit.png, not found"):
        ds.CityscapesDataset(str(tmp_path))


def test_kitti_bad_input(files, tmp_path):
    with pytest.raises(ValueError, match="usage must be 'train' or 'test'"):
        ds.KITTIDataset(f"{files}/kitti", usage="val")
    with pytest.raises(ValueError, match="image_2 not found"):
        ds.KITTIDataset(str(tmp_path))
    images = tmp_path / "data_object_image_2" / "training" / "image_2"
    images.mkdir(parents=True)
    (images / "000000.png").write_bytes(b"\x89PNG")
    with pytest.raises(ValueError, match="label file .*000000.txt not found"):
        ds.KITTIDataset(str(tmp_path))
    labels = tmp_path / "data_object_label_2" / "training" / "label_2"
    labels.mkdir(parents=True)
    (labels / "000000.txt").write_text("Boat 0 0 0 1 2 3 4 5 6 7 8 9 10 11\n")
    with pytest.raises(ValueError, match="line 1 of .* with a KITTI class"):
        ds.KITTIDataset(str(tmp_path))


@pytest.mark.parametrize("module, name", [("opbuild.mindrecord", "FileWriter"), ("opbuild.cache.local", "KernelStore"),
                                          ("opbuild.builder.driver", "Path")])
def test_deserialize_builds_only_dataset_transforms(files, tmp_path, module, name):
    # A pipeline JSON is data: an operation naming another opbuild class (built with the JSON's arguments:
    # a FileWriter over the user's file) or a class a transform module merely imports is refused.
    d = ds.TextFileDataset(f"{files}/text/a.txt", shuffle=False).map(ds.transforms.TypeCast("int32"),
                                                                      input_columns="text")
    spec = ds.serialize(d)
    spec["operations"][0] = {"tensor_op_name": name, "python_module": module,
                             "tensor_op_params": {"file_name": str(tmp_path / "victim")}}
    with pytest.raises(ValueError, match="refusing to import it|unknown map operation"):
        ds.deserialize(input_dict=spec)
    assert not list(tmp_path.iterdir())
