"""Invalid ONNX models are rejected at load (frontends/onnx_check.py) with an OnnxModelError naming the file and,
per problem, the node (name and op_type) and the tensor: empty and undecodable files, missing or unknown opsets,
graphs without outputs, tensors written twice or never, cycles, nodes out of order, initializer data that does
not fit its shape, and whatever onnx.checker rejects. `opbuild run` exits 1 with the message, no traceback."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import opbuild.onnx
from opbuild.core.errors import OnnxModelError, OpbuildError, ShapeError
from opbuild.frontends import onnx_check
from tests.cli.conftest import run_cli

pytestmark = pytest.mark.usefixtures("graph_mode")

F = TensorProto.FLOAT


def model(nodes, inputs=("x",), outputs=("y",), opset: int | None = 20, initializers=(),
          ir_version: int = 10) -> onnx.ModelProto:
    """An unchecked ModelProto of float [2] inputs/outputs (invalid ones are the point)."""
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(i, F, [2]) for i in inputs],
                              [helper.make_tensor_value_info(o, F, [2]) for o in outputs],
                              initializer=list(initializers))
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)] if opset is not None else [])
    if opset is None:
        del proto.opset_import[:]
    proto.ir_version = ir_version
    return proto


def relu(i: str, o: str, name: str) -> onnx.NodeProto:
    return helper.make_node("Relu", [i], [o], name=name)


def saved(tmp_path: Path, proto: onnx.ModelProto, name: str = "bad.onnx") -> Path:
    path = tmp_path / name
    path.write_bytes(proto.SerializeToString())
    return path


def rejected(path_or_proto) -> OnnxModelError:
    with pytest.raises(OnnxModelError) as info:
        opbuild.onnx.load(path_or_proto)
    err = info.value
    assert isinstance(err, OpbuildError) and isinstance(err, ValueError)
    assert str(err).startswith(f"invalid ONNX model {err.source}: ")
    return err


# ---- files --------------------------------------------------------------------------------------------------

def test_an_empty_file_is_rejected_naming_it(tmp_path) -> None:
    path = tmp_path / "empty.onnx"
    path.write_bytes(b"")
    err = rejected(path)
    assert err.source == f"'{path}'" and str(path) in str(err)
    assert "the file is empty (0 bytes)" in str(err)


@pytest.mark.parametrize("cut", [1, 7, 40])
def test_a_truncated_file_names_the_file_not_protobuf(tmp_path, cut) -> None:
    good = model([relu("x", "y", "r")]).SerializeToString()
    path = tmp_path / "cut.onnx"
    path.write_bytes(good[:-cut])
    err = rejected(path)  # some cuts decode (at a field boundary) and fail a later check: still named
    assert str(path) in str(err)
    assert "DecodeError" not in type(err).__name__


def test_garbage_bytes_are_not_a_model(tmp_path) -> None:
    path = tmp_path / "noise.onnx"
    path.write_bytes(bytes(range(256)) * 4)
    err = rejected(path)
    assert str(path) in str(err) and "cannot be decoded as an ONNX model" in str(err) and "1024 bytes" in str(err)


# ---- model and graph --------------------------------------------------------------------------------------

def test_an_empty_model_proto_is_rejected() -> None:
    assert "the model is empty" in str(rejected(onnx.ModelProto()))


def test_an_unknown_opset_names_the_supported_range(tmp_path) -> None:
    err = rejected(saved(tmp_path, model([relu("x", "y", "r")], opset=99)))
    low, high = onnx_check.supported_opsets()
    assert f"opset 99 of the default ONNX domain is unknown: opbuild loads opsets {low} to {high}" in str(err)
    assert "tested: 13 to 22" in str(err) and str(tmp_path) in str(err)


def test_a_model_without_a_default_opset_is_rejected(tmp_path) -> None:
    assert "imports no opset of the default ONNX domain" in str(rejected(saved(tmp_path, model(
        [relu("x", "y", "r")], opset=None))))


def test_a_graph_without_outputs_is_rejected(tmp_path) -> None:
    err = rejected(saved(tmp_path, model([relu("x", "y", "r")], outputs=())))
    assert "the graph has no outputs" in str(err)


def test_a_graph_without_inputs_computing_constants_loads() -> None:
    const = helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.ones(2, np.float32)))
    m = opbuild.onnx.load(model([const, relu("c", "y", "r")], inputs=()))
    np.testing.assert_array_equal(m.run([])[0], np.ones(2, np.float32))


def test_two_nodes_writing_one_output_are_rejected(tmp_path) -> None:
    nodes = [relu("x", "y", "first"), helper.make_node("Neg", ["x"], ["y"], name="second")]
    err = rejected(saved(tmp_path, model(nodes)))
    (d,) = err.defects
    assert (d.node, d.op_type, d.tensor) == ("second", "Neg", "y")
    assert "node 'second' (Neg): writes tensor 'y', already written by node 'first' (Relu)" in str(err)


def test_a_node_overwriting_a_graph_input_or_initializer_is_rejected(tmp_path) -> None:
    w = numpy_helper.from_array(np.ones(2, np.float32), "w")
    nodes = [relu("x", "x", "over_input"), relu("x", "w", "over_init"), helper.make_node("Add", ["x", "w"], ["y"])]
    err = rejected(saved(tmp_path, model(nodes, initializers=[w])))
    assert {(d.node, d.tensor) for d in err.defects} == {("over_input", "x"), ("over_init", "w")}
    assert "already written by graph input" in str(err) and "already written by initializer" in str(err)


def test_an_undefined_input_is_rejected_naming_node_and_tensor(tmp_path) -> None:
    err = rejected(saved(tmp_path, model([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")])))
    (d,) = err.defects
    assert (d.node, d.op_type, d.tensor) == ("add", "Add", "ghost")
    assert "node 'add' (Add): reads tensor 'ghost', which no node, graph input or initializer defines" in str(err)


def test_an_undefined_graph_output_is_rejected(tmp_path) -> None:
    err = rejected(saved(tmp_path, model([relu("x", "y", "r")], outputs=("y", "nowhere"))))
    assert [d.tensor for d in err.defects] == ["nowhere"] and "graph output 'nowhere'" in str(err)


def test_a_cycle_is_reported_once_with_its_nodes(tmp_path) -> None:
    nodes = [relu("x", "c", "start"), helper.make_node("Add", ["c", "b"], ["a"], name="join"),
             relu("a", "b", "back"), relu("b", "y", "after")]  # "after" only reads from the cycle
    err = rejected(saved(tmp_path, model(nodes)))
    (d,) = err.defects
    assert d.node == "back" and d.op_type == "Relu" and d.tensor == "a"
    assert "reads tensor 'a' in a cycle: 'back' (Relu) -> 'join' (Add) -> 'back' (Relu)" in str(err)


def test_a_node_reading_its_own_output_is_a_cycle(tmp_path) -> None:
    err = rejected(saved(tmp_path, model([helper.make_node("Add", ["x", "y"], ["y"], name="loop")])))
    assert "'loop' (Add) -> 'loop' (Add)" in str(err)


def test_nodes_out_of_order_are_rejected_naming_both(tmp_path) -> None:
    err = rejected(saved(tmp_path, model([relu("a", "y", "late"), relu("x", "a", "early")])))
    (d,) = err.defects
    assert (d.node, d.tensor) == ("late", "a")
    assert "reads tensor 'a' before node 'early' (Relu) writes it" in str(err) and "topological order" in str(err)


def test_every_problem_is_listed(tmp_path) -> None:
    nodes = [helper.make_node("Add", ["x", "u1"], ["a"], name="n1"), helper.make_node("Add", ["a", "u2"], ["y"],
                                                                                        name="n2")]
    err = rejected(saved(tmp_path, model(nodes)))
    assert [d.tensor for d in err.defects] == ["u1", "u2"]
    assert "2 problems" in str(err) and "  - node 'n1' (Add)" in str(err) and "  - node 'n2' (Add)" in str(err)


@pytest.mark.parametrize("shape", [(2,), (300, 300)])  # small: seen by onnx.checker; large: by the importer
def test_initializer_data_that_does_not_fit_its_shape_names_the_tensor(tmp_path, shape) -> None:
    w = numpy_helper.from_array(np.ones(shape, np.float32), "w")
    w.raw_data = w.raw_data[:-4]
    err = rejected(saved(tmp_path, model([helper.make_node("MatMul", ["x", "w"], ["y"])], initializers=[w])))
    assert re.search(r"tensor name: w\b|initializer 'w'", str(err)) and str(tmp_path) in str(err)
    if len(shape) > 1:
        assert err.defects[0].tensor == "w" and "initializer 'w' cannot be read" in str(err)


def test_what_only_onnx_checker_rejects_is_wrapped_with_the_file(tmp_path) -> None:
    err = rejected(saved(tmp_path, model([relu("x", "y", "r")], ir_version=0)))
    assert "rejected by onnx.checker" in str(err) and "ir_version" in str(err) and str(tmp_path) in str(err)


def test_large_initializers_are_checked_without_serialising_them() -> None:
    w = numpy_helper.from_array(np.ones((300, 300), np.float32), "w")  # over onnx_check's threshold
    proto = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], initializers=[w])
    lite = onnx_check._without_large_data(proto)
    assert not lite.graph.initializer and "w" in [vi.name for vi in lite.graph.input]
    proto.graph.node[0].input[1] = "missing"  # the copy does not hide problems of the nodes reading them
    assert rejected(proto).defects[0].tensor == "missing"


# ---- opbuild run ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["empty", "truncated", "cycle", "opset99"])
def test_opbuild_run_on_an_invalid_model_exits_1_with_the_message(tmp_path, case) -> None:
    good = model([relu("x", "y", "r")])
    path = tmp_path / f"{case}.onnx"
    data = {"empty": b"", "truncated": good.SerializeToString()[:-7],
            "cycle": model([helper.make_node("Add", ["x", "y"], ["y"], name="loop")]).SerializeToString(),
            "opset99": model([relu("x", "y", "r")], opset=99).SerializeToString()}[case]
    path.write_bytes(data)
    proc = run_cli("run", str(path), root=tmp_path / "cache")
    assert proc.returncode == 1, proc.stderr
    assert f"invalid ONNX model '{path}'" in proc.stderr
    assert "Traceback" not in proc.stderr and "input" not in proc.stdout


def test_opbuild_run_names_a_bad_variable_as_a_usage_error(tmp_path) -> None:
    path = saved(tmp_path, model([relu("x", "y", "r")]), "good.onnx")
    proc = run_cli("run", str(path), root=tmp_path / "cache", env={"OPBUILD_BUILD_JOBS": "abc"})
    assert proc.returncode == 2 and "OPBUILD_BUILD_JOBS='abc' is not an integer" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "cache").exists()  # stopped before anything was built


# ---- values only known once the model runs -------------------------------------------------------------------

def _int64(name: str, values: list[int]) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, np.int64), name)


def test_a_shape_no_memory_can_hold_is_a_shape_error_before_any_compile(tmp_path, monkeypatch) -> None:
    # Tile by 2**62 once reached the executor's arena allocation ('Maximum allowed dimension exceeded', from
    # NumPy, naming nothing) after compiling and caching a kernel for the impossible shape.
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "cache"))
    proto = model([helper.make_node("Tile", ["x", "r"], ["y"], name="tile")], initializers=[_int64("r", [1 << 62])])
    net = opbuild.onnx.load(proto)
    with pytest.raises(ShapeError, match=r"Tile \(ONNX node 'tile'\).*more than any memory can hold"):
        net(np.ones(2, np.float32))
    assert not list((tmp_path / "cache").rglob("*.so"))


@pytest.mark.parametrize("dims, words", [([-2], "negative dimensions"), ([1 << 40, 1 << 40], "too big")])
def test_a_folded_constant_that_numpy_refuses_names_the_node(dims, words) -> None:
    proto = model([helper.make_node("ConstantOfShape", ["s"], ["c"], name="cos"),
                   helper.make_node("Add", ["x", "c"], ["y"])], initializers=[_int64("s", dims)])
    net = opbuild.onnx.load(proto)
    with pytest.raises(ValueError, match=rf"ConstantOfShape \(ONNX node 'cos'\): .*{words}"):
        net(np.ones(2, np.float32))
