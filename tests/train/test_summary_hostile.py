"""Summary files are never overwritten, and foreign records are refused by name: a second SummaryRecord
opened in the same second in the same folder used to truncate the first one's file (as MindSpore 2.10's
does; the second now takes the next free second in its name); a framed, checksummed record holding no
Event is a ValueError naming the file and offset, not a protobuf DecodeError."""

from __future__ import annotations

import os
import struct

import numpy as np
import pytest

from opbuild import Tensor
from opbuild.core.crc32c import masked_crc32c
from opbuild.train.summary import SummaryRecord, read_events
from opbuild.train.summary import summary_record as summary_module


def test_a_second_record_in_the_same_second_keeps_the_first_file(tmp_path, monkeypatch):
    monkeypatch.setattr(summary_module.time, "time", lambda: 1_700_000_000.25)  # both opened in one second
    paths = []
    for step, loss in ((1, 1.5), (2, 2.5)):
        with SummaryRecord(str(tmp_path)) as record:
            record.add_value("scalar", "loss", Tensor(loss))
            record.record(step)
            paths.append(record.log_dir)
    assert paths[0] != paths[1] and sorted(os.listdir(tmp_path)) == sorted(os.path.basename(p) for p in paths)
    assert ".summary.1700000000." in paths[0] and ".summary.1700000001." in paths[1]
    for path, (step, loss) in zip(paths, ((1, 1.5), (2, 2.5))):
        events = list(read_events(path))
        assert [e.step for e in events[1:]] == [step]
        assert events[1].summary.value[0].scalar_value == loss


def test_a_record_holding_no_event_is_refused_by_name(tmp_path):
    payload = b"\xff\xff\xff"  # a truncated varint: no protobuf message
    head = struct.pack("<Q", len(payload))
    path = tmp_path / "foreign.summary"
    path.write_bytes(head + struct.pack("<I", masked_crc32c(head)) + payload
                     + struct.pack("<I", masked_crc32c(payload)))
    with pytest.raises(ValueError, match=r"foreign.summary: the record at byte 0 is not a summary Event"):
        list(read_events(str(path)))


def test_a_value_no_summary_holds_is_refused_when_added(tmp_path):
    with SummaryRecord(str(tmp_path)) as record:
        record.add_value("scalar", "loss", Tensor(1.5))
        for plugin in ("scalar", "tensor", "histogram"):
            with pytest.raises(TypeError, match=r"'z' has dtype complex64, which a summary cannot hold"):
                record.add_value(plugin, "z", Tensor(np.array([1 + 2j], np.complex64)))
        with pytest.raises(ValueError, match="step must fit in int64"):
            record.record(1 << 70)
        record.record(3)  # the loss queued before the refusals is written with this step
        path = record.log_dir
    events = list(read_events(path))
    assert [(e.step, [v.tag for v in e.summary.value]) for e in events[1:]] == [(3, ["loss"])]
