"""``export(..., file_format="MINDIR")``: the files opbuild writes are the ones MindSpore 2.10 was shown to load
and run with its own outputs (scripts/export_mindir_fixtures.py + record_mindir.py), opbuild loads them back
with the same outputs in both modes, and what it cannot write is refused clearly."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild.frontends.mindir_export import UnsupportedMindirExportError
from tests.conftest import execution_mode
from tests.mindir import mindir_nets
from tests.mindir._fixtures import MINDIR, case, close_all

EXPORTED = ("lenet5", "resblock", "transformer", "mixed", "upsampler")


@pytest.fixture(scope="module")
def nets():
    return mindir_nets.build(ms)


@pytest.mark.parametrize("name", EXPORTED)
def test_mindspore_ran_opbuilds_file_with_its_own_outputs(name: str) -> None:
    _, _, entry = case(name)
    recorded = entry["opbuild_export"]
    assert "error" not in recorded, recorded.get("error")
    close_all([np.asarray(o["data"], o["dtype"]).reshape(o["shape"]) for o in recorded["output"]],
              entry["net_output"])


@pytest.mark.parametrize("name", EXPORTED)
def test_export_writes_the_file_mindspore_checked(name: str, nets, tmp_path) -> None:
    net, inputs = nets[name]
    assert ms.export(net, *[ms.Tensor(a) for a in inputs], file_name=str(tmp_path / name),
                     file_format="MINDIR") is None  # as MindSpore's export
    path = tmp_path / f"{name}.mindir"  # the suffix added
    assert path.read_bytes() == (MINDIR / f"opbuild_{name}.mindir").read_bytes(), (
        "opbuild now writes another MINDIR file for this net: rerun scripts/export_mindir_fixtures.py and "
        "scripts/record_mindir.py (MindSpore) so that MindSpore checks the new file")


@pytest.mark.parametrize("mode", ["graph", "pynative"])
@pytest.mark.parametrize("name", EXPORTED)
def test_round_trip_through_opbuild(name: str, mode: str, nets, tmp_path) -> None:
    net, inputs = nets[name]
    _, _, entry = case(name)
    xs = [ms.Tensor(a) for a in inputs]
    ms.export(net, *xs, file_name=str(tmp_path / f"{name}.mindir"), file_format="MINDIR")
    path = tmp_path / f"{name}.mindir"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # the suffix is not doubled
    with execution_mode(mode):
        close_all(ms.nn.GraphCell(ms.load(path))(*xs), entry["net_output"])
        close_all(net(*xs), entry["net_output"])  # the network itself, for reference


def test_control_flow_is_refused(nets, tmp_path) -> None:
    net, inputs = nets["branchy"]
    with pytest.raises(UnsupportedMindirExportError, match="control flow") as info:
        ms.export(net, ms.Tensor(inputs[0]), file_name=str(tmp_path / "b"), file_format="MINDIR")
    assert "ops.select/where" in str(info.value)
    assert not list(tmp_path.iterdir())


class _Unsupported(ms.nn.Cell):
    def construct(self, a):
        return ms.ops.MatrixInverse()(a) + ms.ops.Lgamma()(a)


def test_untranslated_primitives_listed_at_once(tmp_path) -> None:
    x = ms.Tensor(np.eye(3, dtype=np.float32) * 2)
    with pytest.raises(UnsupportedMindirExportError) as info:
        ms.export(_Unsupported(), x, file_name=str(tmp_path / "u"), file_format="MINDIR")
    assert {"MatrixInverse", "Lgamma"} <= set(info.value.ops)
    assert "file_format='ONNX'" in str(info.value)
    assert not list(tmp_path.iterdir())


def test_export_arguments(nets, tmp_path) -> None:
    net, inputs = nets["lenet5"]
    x = ms.Tensor(inputs[0])
    with pytest.raises(ValueError, match="opbuild does not do"):
        ms.export(net, x, file_name=str(tmp_path / "e"), file_format="MINDIR", enc_key=b"0123456789abcdef")
    with pytest.raises(TypeError, match="dataset"):
        ms.export(net, x, file_name=str(tmp_path / "e"), file_format="MINDIR", dataset=object())
    with pytest.raises(ValueError, match="Ascend's graph format"):
        ms.export(net, x, file_name=str(tmp_path / "e"), file_format="AIR")
    assert not list(tmp_path.iterdir())


class _TwinParams(ms.nn.Cell):
    """Two Parameters that share a name (both left at the default): the file still needs two."""

    def __init__(self):
        super().__init__()
        self.a = ms.Parameter(ms.Tensor(np.full((3,), 2.0, np.float32)), name="w")
        self.b = ms.Parameter(ms.Tensor(np.full((3,), 5.0, np.float32)), name="w")

    def construct(self, x):
        return x * self.a + self.b


def test_parameters_sharing_a_name_stay_distinct(tmp_path) -> None:
    x = np.arange(3, dtype=np.float32)
    ms.export(_TwinParams(), ms.Tensor(x), file_name=str(tmp_path / "twin"), file_format="MINDIR")
    net = ms.nn.GraphCell(ms.load(tmp_path / "twin.mindir"))
    assert sorted(n for n, _ in net.parameters_and_names()) == ["w", "w_1"]
    np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), x * 2.0 + 5.0)
