"""``SummaryRecord`` and the summary operators against the files MindSpore 2.10 wrote for the same programs
(tests/fixtures/mindspore/summary_events.json, scripts/record_summary.py): the same events, byte for byte once
the wall times are zeroed."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops
from opbuild.core.crc32c import masked_crc32c
from opbuild.train.summary import SummaryRecord, read_events
from opbuild.train.summary._events import _png
from opbuild.train.summary._proto import messages

from .summary_programs import add_values, run_net

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "mindspore" / "summary_events.json").read_text())


def _bodies(path: str) -> list[str]:
    out = []
    for event in read_events(path):
        event.wall_time = 0.0
        out.append(event.SerializeToString().hex())
    return out


def _only_file(folder: Path) -> str:
    files = [f for f in os.listdir(folder) if ".out.events.summary." in f]
    assert len(files) == 1, files
    return str(folder / files[0])


def _assert_same_events(path: str, scenario: str) -> None:
    want = [e["hex"] for e in FIXTURE[scenario]["events"]]
    got = _bodies(path)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g == w, (k, FIXTURE[scenario]["events"][k]["fields"])


def _run_net(tmp_path: Path) -> str:
    run_net(ms, str(tmp_path))
    return _only_file(tmp_path)


def test_graph_mode_summaries_write_mindspores_events(graph_mode, tmp_path):
    _assert_same_events(_run_net(tmp_path), "graph_net")


def test_pynative_summaries_write_mindspores_events(pynative_mode, tmp_path):
    _assert_same_events(_run_net(tmp_path), "pynative_net")


def test_added_values_of_every_kind_write_mindspores_events(tmp_path):
    add_values(ms, str(tmp_path))
    path = _only_file(tmp_path)
    assert os.path.basename(path).startswith("p.out.events.summary.") and path.endswith("_s")
    _assert_same_events(path, "add_values")


def test_file_name_and_framing_are_mindspores(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        record.add_value("scalar", "loss", Tensor(0.5))
        record.record(1)
        assert record.log_dir == os.path.join(os.path.realpath(tmp_path), os.path.basename(record.log_dir))
    name = os.path.basename(_only_file(tmp_path))
    want = FIXTURE["graph_net"]["files"][0]
    # <prefix>.out.events.summary.<seconds>.<device id>.<host><suffix>: all but the time and host as recorded
    assert name.split(".")[:4] == want.split(".")[:4] and name.split(".")[5] == want.split(".")[5]
    assert name.endswith("_MS")
    raw = Path(_only_file(tmp_path)).read_bytes()
    (size,) = struct.unpack_from("<Q", raw)
    assert struct.unpack_from("<I", raw, 8)[0] == masked_crc32c(raw[:8])
    assert struct.unpack_from("<I", raw, 12 + size)[0] == masked_crc32c(raw[12:12 + size])
    assert not os.access(_only_file(tmp_path), os.W_OK) or os.geteuid() == 0  # read-only once closed


def test_masked_crc32c_is_castagnolis():
    # RFC 3720's check value for CRC32C("123456789") is 0xE3069283; then TFRecord's mask
    crc = 0xE3069283
    assert masked_crc32c(b"123456789") == ((crc >> 15 | crc << 17) + 0xA282EAD8) & 0xFFFFFFFF


def test_png_without_pillow_holds_the_same_pixels(monkeypatch):
    pytest.importorskip("PIL")
    import builtins
    import io

    from PIL import Image

    pixels = (np.arange(2 * 5 * 3) * 7 % 256).astype(np.uint8).reshape(2, 5, 3)
    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    plain = _png(pixels)
    monkeypatch.undo()
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(plain))), pixels)


def test_only_one_summary_record_at_a_time(tmp_path):
    with SummaryRecord(str(tmp_path / "a")), pytest.raises(RuntimeError, match="only one SummaryRecord"):
        SummaryRecord(str(tmp_path / "b"))
    SummaryRecord(str(tmp_path / "c")).close()


def test_bad_arguments_say_what_to_fix(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        with pytest.raises(ValueError, match="unknown plugin 'scalars'"):
            record.add_value("scalars", "x", Tensor(1.0))
        with pytest.raises(ValueError, match="scalar must hold one element"):
            record.add_value("scalar", "x", Tensor(np.ones(2, np.float32)))
        with pytest.raises(ValueError, match="image must be 4-D"):
            record.add_value("image", "x", Tensor(np.ones((2, 2), np.float32)))
        with pytest.raises(TypeError, match="value must be a Tensor"):
            record.add_value("tensor", "x", [1.0])
        with pytest.raises(TypeError, match="step must be an int"):
            record.record("1")
        with pytest.raises(NotImplementedError, match="graph"):
            record.add_value("graph", "g", b"")
    with pytest.raises(ValueError, match="file_prefix"):
        SummaryRecord(str(tmp_path), file_prefix="a/b")
    with pytest.raises(ValueError, match="tensor_format"):
        SummaryRecord(str(tmp_path), export_options={"tensor_format": "csv"})


def test_max_file_size_stops_writing_and_export_writes_npy(tmp_path):
    with SummaryRecord(str(tmp_path), max_file_size=150, export_options={"tensor_format": "npy"}) as record:
        record.add_value("tensor", "a/b", Tensor(np.arange(3, dtype=np.float32)))
        record.record(2)
        record.add_value("tensor", "big", Tensor(np.zeros(100, np.float32)))
        record.record(3)
    steps = [e.step for e in read_events(_only_file(tmp_path)) if e.HasField("summary")]
    assert steps == [2]
    exported = list((tmp_path).glob("export_*/tensor/*.npy"))
    assert sorted(p.name for p in exported) == ["a%2Fb_2.npy", "big_3.npy"]
    np.testing.assert_array_equal(np.load([p for p in exported if p.name.startswith("a")][0]), [0.0, 1.0, 2.0])


def test_read_events_refuses_a_damaged_file(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        record.add_value("scalar", "x", Tensor(1.0))
        record.record(1)
    path = _only_file(tmp_path)
    raw = bytearray(Path(path).read_bytes())
    raw[-6] ^= 0xFF
    bad = tmp_path / "bad"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="payload CRC"):
        list(read_events(str(bad)))


def test_top_level_and_train_names(tmp_path):
    assert ms.train.SummaryRecord is SummaryRecord


def _decoded(hex_body: str) -> list[tuple[int, list[tuple[str, str, Any]]]]:
    event = messages()["Event"]()
    event.ParseFromString(bytes.fromhex(hex_body))
    values = []
    for v in event.summary.value:
        kind = v.WhichOneof("value")
        if kind == "scalar_value":
            values.append((v.tag, kind, [v.scalar_value]))
        else:
            hist = v.histogram
            values.append((v.tag, kind, [hist.min, hist.max, hist.sum, hist.count,
                                         *[b.count for b in hist.buckets], *[b.left for b in hist.buckets]]))
    return event.step, values


class _CollectedNet(nn.Cell):
    """The recorded collector programs' network: Dense(4, 2) as ``fc``, with or without summary operators."""

    def __init__(self, with_ops: bool) -> None:
        super().__init__()
        self.fc = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")
        self.with_ops = with_ops
        self.scalar, self.hist = ops.ScalarSummary(), ops.HistogramSummary()

    def construct(self, x):
        out = self.fc(x)
        if self.with_ops:
            self.scalar("out_mean", out.mean())
            self.hist("out", out)
        return out


_COLLECTED = {"collector": {"collect_train_lineage": False, "collect_eval_lineage": False},
              "collector_ops": {"histogram_regular": "fc.w.*", "collect_train_lineage": False}}


@pytest.mark.parametrize("scenario", sorted(_COLLECTED))
def test_summary_collector_writes_mindspores_events_during_training(scenario, graph_mode, tmp_path):
    from opbuild import dataset as ds
    from opbuild.train import Model, SummaryCollector

    x = np.linspace(0, 1, 48, dtype=np.float32).reshape(12, 4)
    y = (np.arange(12) % 2).astype(np.int32)
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    net = _CollectedNet(scenario == "collector_ops")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    collector = SummaryCollector(str(tmp_path), collect_freq=2, collect_specified_data={
        "collect_graph": False, "collect_dataset_graph": False, "collect_landscape": None, **_COLLECTED[scenario]})
    model.train(2, data, callbacks=[collector], dataset_sink_mode=False)
    got = [_decoded(e.SerializeToString().hex()) for e in read_events(_only_file(tmp_path))]
    want = [_decoded(e["hex"]) for e in FIXTURE[scenario]["events"]]
    assert [(step, [v[:2] for v in values]) for step, values in got] == \
        [(step, [v[:2] for v in values]) for step, values in want]
    for (_, g_values), (_, w_values) in zip(got, want):
        for g, w in zip(g_values, w_values):
            # trained in float32 kernels: the values agree loosely, the counts exactly
            np.testing.assert_allclose(g[2], w[2], rtol=1e-4, atol=1e-5, err_msg=g[0])


def test_summary_collector_checks_its_arguments(tmp_path):
    from opbuild.train import SummaryCollector

    with pytest.raises(ValueError, match="collect_freq must be a positive int"):
        SummaryCollector(str(tmp_path), collect_freq=0)
    with pytest.raises(ValueError, match="unknown keys"):
        SummaryCollector(str(tmp_path), collect_specified_data={"collect_weights": True})
    with pytest.raises(TypeError, match="must be a bool"):
        SummaryCollector(str(tmp_path), collect_specified_data={"collect_metric": 1})
