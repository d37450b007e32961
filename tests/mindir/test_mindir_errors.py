"""Clear errors for what opbuild cannot load: not MINDIR, truncated, encrypted (with or without dec_key),
primitives opbuild does not map, and GraphCell's arguments."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild.frontends.mindir import MindirError, UnsupportedMindirError
from opbuild.frontends.mindir_proto import ModelProto
from tests.mindir._fixtures import MINDIR, case, record


def _write(tmp_path, data: bytes, name: str = "net.mindir"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_not_a_mindir_file(tmp_path) -> None:
    path = _write(tmp_path, b"PK\x03\x04 this is a zip archive, not a model")
    with pytest.raises(MindirError, match="is not a MINDIR file"):
        ms.load(path)
    onnx_like = _write(tmp_path, (MINDIR.parent / "mindir.json").read_bytes(), "json.mindir")
    with pytest.raises(MindirError, match="not a MINDIR file"):
        ms.load(onnx_like)


@pytest.mark.parametrize("keep", [0.5, 0.9, 0.999])
def test_truncated_file(tmp_path, keep: float) -> None:
    data = (MINDIR / "lenet5.mindir").read_bytes()
    path = _write(tmp_path, data[: int(len(data) * keep)])
    with pytest.raises(MindirError, match="truncated"):
        ms.load(path)


def test_empty_file(tmp_path) -> None:
    with pytest.raises(MindirError, match="not a MINDIR file"):
        ms.load(_write(tmp_path, b""))


def test_encrypted_file_without_key() -> None:
    enc = record()["encrypted"]
    with pytest.raises(MindirError, match="encrypted"):
        ms.load(MINDIR / enc["file"])


def test_encrypted_file_with_key() -> None:
    enc = record()["encrypted"]
    with pytest.raises(MindirError, match="does not decrypt"):
        ms.load(MINDIR / enc["file"], dec_key=enc["enc_key"].encode(), dec_mode=enc["enc_mode"])


def test_unmapped_primitives_are_all_named(tmp_path) -> None:
    proto = ModelProto()
    proto.ParseFromString((MINDIR / "lenet5.mindir").read_bytes())
    renamed = {"ReLU": "FancyActivation", "MaxPool": "FancyPool"}
    for prim in proto.primitives:
        prim.op_type = renamed.get(prim.op_type, prim.op_type)
    path = _write(tmp_path, proto.SerializeToString())
    with pytest.raises(UnsupportedMindirError, match="FancyActivation, FancyPool") as info:
        ms.load(path)
    assert info.value.ops == ["FancyActivation", "FancyPool"]
    assert "opbuild has no primitive of this name" in str(info.value)


def test_undefined_node_input(tmp_path) -> None:
    proto = ModelProto()
    proto.ParseFromString((MINDIR / "lenet5.mindir").read_bytes())
    del proto.graph.node[1]  # a node the others read: what a file cut at a message boundary looks like
    with pytest.raises(MindirError, match="does not define"):
        ms.load(_write(tmp_path, proto.SerializeToString()))


def test_load_arguments(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="no such MINDIR file"):
        ms.load(tmp_path / "missing.mindir")
    with pytest.raises(ValueError, match="only MINDIR files"):
        ms.load(MINDIR.parent / "mindir.json")
    with pytest.raises(TypeError, match="unsupported keyword"):
        ms.load(MINDIR / "lenet5.mindir", key=b"x")
    with pytest.raises(ValueError, match="obfuscated"):
        ms.load(MINDIR / "lenet5.mindir", obf_func=lambda x: x)


def test_graph_cell_arguments() -> None:
    path, _, entry = case("lenet5")
    graph = ms.load(path)
    with pytest.raises(TypeError, match="what opbuild.load returns"):
        ms.nn.GraphCell(str(path))
    with pytest.raises(ValueError, match="obfuscated"):
        ms.nn.GraphCell(graph, obf_random_seed=1)
    with pytest.raises(ValueError, match="'nope', which the graph does not have"):
        ms.nn.GraphCell(graph, params_init={"nope": np.zeros(3, np.float32)})
    with pytest.raises(ValueError, match=r"has shape \[3\], the graph's parameter has \[10\]"):
        ms.nn.GraphCell(graph, params_init={"fc2.bias": np.zeros(3, np.float32)})
    with pytest.raises(TypeError, match="params_init must be a dict"):
        ms.nn.GraphCell(graph, params_init=[1])
    assert entry["params"]["fc2.bias"] == [10]
    with pytest.raises(TypeError, match=r"takes 1 input\(s\) \(float32\[2, 1, 32, 32\], as exported\), got 0"):
        ms.nn.GraphCell(graph)()
