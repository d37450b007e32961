"""``nn.layer`` exports its modules' names at the package level as MindSpore 2.10's does (model-zoo code
writes ``nn.layer.CellList``), each the very object ``nn`` has where MindSpore's is
(tests/fixtures/mindspore/nn_layer_names.json, by scripts/record_nn_layer_names.py)."""

from __future__ import annotations

import json
from pathlib import Path

from opbuild import nn
from opbuild.nn import layer

FIX = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "nn_layer_names.json")
                 .read_text())


def test_package_exports_the_layer_names_nn_has():
    have = [n for n in FIX["all"] if n in layer.__all__]
    assert have == [n for n in FIX["all"] if n in have], "nn.layer.__all__ is not in MindSpore's order"
    for name, same in FIX["same_as_nn"].items():
        if same and hasattr(nn, name):
            assert getattr(layer, name, None) is getattr(nn, name), name
            assert name in layer.__all__, name
        elif not same:
            # MindSpore's layer name is another class than nn's: never nn's under the layer path
            assert getattr(layer, name, None) is not getattr(nn, name, None), name
    assert layer.CellList is nn.CellList and layer.container.CellList is nn.CellList


def test_every_exported_name_is_one_mindspore_exports():
    assert set(layer.__all__) <= set(FIX["all"])
