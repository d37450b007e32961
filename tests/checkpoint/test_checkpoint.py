"""Checkpoints: MindSpore's .ckpt bytes (checked against a hand-encoded protobuf message), round trips of every
dtype and shape, loading into a real network, load_param_into_net's rules, and clear errors for bad files."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import opbuild as ms
from opbuild.checkpoint import CheckpointError, serialization
from opbuild.checkpoint import async_save as async_writes
from opbuild.checkpoint.proto import Checkpoint
from opbuild.models import mlp, mlp_input

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]
SHAPES = [(), (0,), (1,), (5,), (2, 3), (2, 1, 3)]


# A protobuf wire encoder written out by hand, independent of the descriptor the module builds.
def varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field_len(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def value_bytes(tag: str, dims: list[int], ttype: str, content: bytes) -> bytes:
    """One ``Checkpoint.value`` entry: Value{tag=1, tensor=2{dims=1 (unpacked varints), type=2, content=3}}."""
    tensor = b"".join(varint(1 << 3 | 0) + varint(d) for d in dims)
    tensor += field_len(2, ttype.encode()) + field_len(3, content)
    return field_len(1, field_len(1, tag.encode()) + field_len(2, tensor))


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    return rng.standard_normal(shape).astype(dtype)


# ---- format ---------------------------------------------------------------------------------------
def test_bytes_match_a_hand_encoded_mindspore_message(tmp_path):
    w = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    step = np.int64(-7)
    flags = np.array([True, False])
    ms.save_checkpoint([{"name": "layer.w", "data": ms.Tensor(w)}, {"name": "global_step", "data": ms.Tensor(step)},
                        {"name": "flags", "data": ms.Tensor(flags)}, {"name": "note", "data": "hi"}],
                       str(tmp_path / "a.ckpt"))
    expected = (value_bytes("layer.w", [2, 3], "Float32", w.astype("<f4").tobytes())
                + value_bytes("global_step", [], "Int64", np.array(step, "<i8").tobytes())  # 0-d: no dims
                + value_bytes("flags", [2], "Bool", b"\x01\x00")
                + value_bytes("note", [0], "str", "hi".encode("utf-32-le")))
    assert (tmp_path / "a.ckpt").read_bytes() == expected


def test_round_trip_of_every_dtype_and_shape(tmp_path):
    entries = [{"name": f"{np.dtype(dt).name}.{'x'.join(map(str, shape)) or 'scalar'}",
                "data": ms.Tensor(sample(dt, shape, seed=i))}
               for i, (dt, shape) in enumerate((dt, s) for dt in DTYPES for s in SHAPES)]
    ms.save_checkpoint(entries, str(tmp_path / "all.ckpt"))
    loaded = ms.load_checkpoint(str(tmp_path / "all.ckpt"))
    assert list(loaded) == [e["name"] for e in entries]
    for e in entries:
        got, want = loaded[e["name"]], e["data"].asnumpy()
        assert isinstance(got, ms.Parameter) and got.name == e["name"] and got.requires_grad
        assert got.shape == want.shape and got.asnumpy().dtype == want.dtype
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_reads_mindspore_1x_scalars_and_joins_chunks(tmp_path):
    path = tmp_path / "old.ckpt"
    path.write_bytes(value_bytes("lr", [0], "Float32", np.float32(0.5).tobytes())   # 1.x scalar spelling
                     + value_bytes("empty", [0], "Int32", b"")                      # a real (0,) tensor
                     + value_bytes("big", [4], "Int32", np.arange(2, dtype="<i4").tobytes())
                     + value_bytes("big", [4], "Int32", np.arange(2, 4, dtype="<i4").tobytes()))
    loaded = ms.load_checkpoint(str(path))
    assert loaded["lr"].shape == () and float(loaded["lr"]) == 0.5
    assert loaded["empty"].shape == (0,)
    assert loaded["big"].asnumpy().tolist() == [0, 1, 2, 3]


def test_large_tensors_are_split_like_mindspore(tmp_path, monkeypatch):
    monkeypatch.setattr(serialization, "CHUNK_BYTES", 16)
    data = np.arange(10, dtype=np.float64)  # 80 bytes: 5 values of 16 bytes
    ms.save_checkpoint([{"name": "v", "data": ms.Tensor(data)}], str(tmp_path / "c.ckpt"))
    msg = Checkpoint()
    msg.ParseFromString((tmp_path / "c.ckpt").read_bytes())
    assert [v.tag for v in msg.value] == ["v"] * 5 and all(list(v.tensor.dims) == [10] for v in msg.value)
    np.testing.assert_array_equal(ms.load_checkpoint(str(tmp_path / "c.ckpt"))["v"].asnumpy(), data)


def test_save_forms_suffix_append_dict_and_selection(tmp_path):
    net = mlp(16, (8,), 4, seed=0)
    ms.save_checkpoint(net, str(tmp_path / "net"), append_dict={"epoch_num": 3, "lr": 0.25, "tag": "v1"})
    loaded = ms.load_checkpoint(str(tmp_path / "net.ckpt"))  # ".ckpt" appended, as MindSpore does
    assert list(loaded) == ["body.0.weight", "body.0.bias", "head.weight", "head.bias", "epoch_num", "lr", "tag"]
    assert loaded["epoch_num"].dtype == ms.int64 and int(loaded["epoch_num"]) == 3
    assert loaded["lr"].dtype == ms.float32 and loaded["tag"] == "v1"
    ms.save_checkpoint(loaded, str(tmp_path / "dict.ckpt"), choice_func=lambda n: n.startswith("head"))
    assert list(ms.load_checkpoint(str(tmp_path / "dict.ckpt"))) == ["head.weight", "head.bias"]
    ms.save_checkpoint(net.trainable_params(), str(tmp_path / "list.ckpt"))
    path = str(tmp_path / "list.ckpt")
    assert list(ms.load_checkpoint(path, specify_prefix="body")) == ["body.0.weight", "body.0.bias"]
    assert list(ms.load_checkpoint(path, filter_prefix=["body", "head.b"])) == ["head.weight"]
    assert list(ms.load_checkpoint(path, choice_func=lambda n: n.endswith("bias"))) == ["body.0.bias", "head.bias"]
    with pytest.raises(ValueError, match="appears twice"):
        ms.save_checkpoint([{"name": "a", "data": ms.Tensor(1.0)}] * 2, str(tmp_path / "dup.ckpt"))
    with pytest.raises(TypeError, match="save_obj must be a Cell, list or dict"):
        ms.save_checkpoint(ms.Tensor(1.0), str(tmp_path / "bad.ckpt"))
    with pytest.raises(TypeError, match="dtype"):
        ms.save_checkpoint([{"name": "c", "data": np.zeros(2, np.longdouble)}], str(tmp_path / "c.ckpt"))


# ---- bad files ------------------------------------------------------------------------------------
@pytest.mark.parametrize("content, message", [
    (value_bytes("w", [2], "Float32", np.zeros(2, "<f4").tobytes())[:-3], "not a valid MindSpore checkpoint"),
    (b"", "no parameters"),
    (b"\xff\xff\xff\xff\xff", "not a valid MindSpore checkpoint"),
    (value_bytes("w", [2], "Int4", b"\0" * 2), "'Int4', a MindSpore type opbuild has no"),
    (value_bytes("w", [2], "Float17", b"\0" * 4), "unknown tensor_type 'Float17'"),
    (value_bytes("w", [3], "Float32", b"\0" * 8), "should hold 12 bytes but holds 8"),
    (field_len(1, field_len(1, b"w")), "entry 'w' has no tensor"),
])
def test_bad_files_raise_errors_naming_the_file(tmp_path, content, message):
    path = tmp_path / "bad.ckpt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=message) as info:
        ms.load_checkpoint(str(path))
    assert str(path) in str(info.value) and isinstance(info.value, ValueError)


def test_load_checks_the_name_first(tmp_path):
    with pytest.raises(ValueError, match="should end with '.ckpt'"):
        ms.load_checkpoint(str(tmp_path / "model.bin"))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "missing.ckpt"))


# ---- loading into networks ------------------------------------------------------------------------
def test_load_into_a_compiled_mlp_gives_identical_outputs(tmp_path):
    x = mlp_input(batch=3, in_features=16, seed=5)
    source, target = mlp(16, (8,), 4, seed=0), mlp(16, (8,), 4, seed=1)
    want = source(x).asnumpy()
    before = target(x).asnumpy()  # compiles target's graph: loading must reach the compiled graph too
    assert not np.allclose(before, want)
    ms.save_checkpoint(source, str(tmp_path / "mlp.ckpt"))
    params = ms.load_checkpoint(str(tmp_path / "mlp.ckpt"), net=target)
    np.testing.assert_array_equal(target(x).asnumpy(), want)
    # The net holds copies: changing the loaded dict afterwards does not touch the network.
    params["head.bias"].asnumpy()[:] = 100.0
    np.testing.assert_array_equal(target(x).asnumpy(), want)


def test_load_param_into_net_reports_what_did_not_load(caplog):
    net = mlp(16, (8,), 4, seed=0)
    values = {n: ms.Parameter(np.full(p.shape, 0.5, np.float32), name=n) for n, p in net.parameters_and_names()}
    del values["head.bias"]
    values["extra.weight"] = ms.Parameter(np.zeros(2, np.float32), name="extra.weight")
    with caplog.at_level(logging.WARNING, logger="opbuild.checkpoint"):
        not_loaded, unused = ms.load_param_into_net(net, values)
    assert not_loaded == ["head.bias"] and unused == ["extra.weight"]
    assert "head.bias" in caplog.text
    assert float(net.head.weight.asnumpy()[0, 0]) == 0.5 and float(net.head.bias.asnumpy()[0]) != 0.5


def test_prefixed_names_load_unless_strict():
    net = mlp(16, (8,), 4, seed=0)
    wrapped = {f"network.{n}": ms.Parameter(np.full(p.shape, 0.25, np.float32), name=f"network.{n}")
               for n, p in net.parameters_and_names()}
    names = [n for n, _ in net.parameters_and_names()]
    assert ms.load_param_into_net(net, wrapped, strict_load=True) == (names, list(wrapped))
    assert float(net.head.bias.asnumpy()[0]) != 0.25
    assert ms.load_param_into_net(net, wrapped) == ([], [])
    assert all(np.all(p.asnumpy() == 0.25) for p in net.get_parameters())


def test_dtype_and_shape_rules():
    net = mlp(16, (8,), 4, seed=0)
    as64 = {"head.bias": ms.Parameter(np.array([1, 2, 3, 4], np.float64), name="head.bias")}
    with pytest.raises(RuntimeError, match="dtype float32 in the net but float64"):
        ms.load_param_into_net(net, as64, strict_load=True)
    ms.load_param_into_net(net, as64)  # float64 -> float32 converts when not strict
    assert net.head.bias.asnumpy().dtype == np.float32 and net.head.bias.asnumpy().tolist() == [1, 2, 3, 4]
    with pytest.raises(RuntimeError, match="only float<->float and int<->int"):
        ms.load_param_into_net(net, {"head.bias": ms.Parameter(np.zeros(4, np.int32), name="head.bias")})
    with pytest.raises(RuntimeError, match=r"shape \(4,\) in the net but \(5,\)"):
        ms.load_param_into_net(net, {"head.bias": ms.Parameter(np.zeros(5, np.float32), name="head.bias")})
    # Extra trailing 1s in the checkpoint are dropped (MindSpore's rule for GE's 4-d weights).
    ms.load_param_into_net(net, {"head.bias": ms.Parameter(np.full((4, 1, 1), 7, np.float32), name="head.bias")})
    assert net.head.bias.asnumpy().tolist() == [7, 7, 7, 7]
    with pytest.raises(TypeError, match="net must be a Cell"):
        ms.load_param_into_net({}, as64)
    with pytest.raises(TypeError, match="must map str to Parameter"):
        ms.load_param_into_net(net, {"head.bias": [1, 2, 3, 4]})


def test_async_save_writes_a_snapshot(tmp_path):
    param = ms.Parameter(np.ones(4, np.float32), name="w")
    ms.save_checkpoint([param], str(tmp_path / "async.ckpt"), async_save=True)
    param.asnumpy()[:] = 0.0  # an in-place update after the call (training goes on): must not reach the file
    async_writes.wait()
    assert not ms.async_ckpt_thread_status()
    assert ms.load_checkpoint(str(tmp_path / "async.ckpt"))["w"].asnumpy().tolist() == [1, 1, 1, 1]


def test_a_failed_async_save_is_reported_by_the_next_save(tmp_path):
    param = ms.Parameter(np.ones(4, np.float32), name="w")
    missing = tmp_path / "gone" / "a.ckpt"  # its folder does not exist: the background write fails
    ms.save_checkpoint([param], str(missing), async_save=True)
    with pytest.raises(RuntimeError, match=r"async_save=True\) of .*a\.ckpt failed: .*not written"):
        ms.save_checkpoint([param], str(tmp_path / "b.ckpt"))
    assert not (tmp_path / "b.ckpt").exists()  # the caller learns of the loss before anything else happens
    ms.save_checkpoint([param], str(tmp_path / "b.ckpt"))  # reported once: the next save goes ahead
    assert ms.load_checkpoint(str(tmp_path / "b.ckpt"))["w"].asnumpy().tolist() == [1, 1, 1, 1]
