"""Record MINDIR files written by MindSpore 2.10, and MindSpore's outputs on them, for tests/mindir.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_mindir.py``. Writes
``tests/fixtures/mindspore/mindir/<name>.mindir`` for each network of tests/mindir/mindir_nets.py, an
encrypted copy of one (for the error tests), and ``tests/fixtures/mindspore/mindir.json`` with the inputs,
the outputs of ``nn.GraphCell(ms.load(file))`` and those with ``params_init``, and MindSpore's outputs on the
files opbuild exported (scripts/export_mindir_fixtures.py, run first). The tests never import MindSpore.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore as ms  # noqa: E402
from tests.mindir import mindir_nets  # noqa: E402

OUT = REPO / "tests" / "fixtures" / "mindspore"
ENC_KEY = b"0123456789abcdef"


def _arr(a: np.ndarray) -> dict:
    return {"dtype": str(a.dtype), "shape": list(a.shape), "data": a.ravel().tolist()}


def _outs(out) -> list[dict]:
    """A network's output(s) as a list of arrays (a tuple output is several)."""
    return [_arr(o.asnumpy()) for o in (out if isinstance(out, (tuple, list)) else [out])]


def _neg(a: np.ndarray) -> np.ndarray:
    """The negated input (the other branch of the control-flow net); index inputs stay as they are."""
    return -a if a.dtype.kind == "f" else a


def main() -> None:
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    folder = OUT / "mindir"
    folder.mkdir(parents=True, exist_ok=True)
    record: dict = {"nets": {}}
    for name, (net, inputs) in mindir_nets.build(ms).items():
        xs = [ms.Tensor(a) for a in inputs]
        base = str(folder / name)
        Path(base + ".mindir").unlink(missing_ok=True)  # MindSpore writes it read-only
        ms.export(net, *xs, file_name=base, file_format="MINDIR")
        cell = ms.nn.GraphCell(ms.load(base + ".mindir"))
        out = cell(*xs)
        eager = net(*xs)
        # The negated inputs too: the other branch of the control-flow net.
        neg = cell(*[ms.Tensor(_neg(a)) for a in inputs])
        entry = {"inputs": [_arr(a) for a in inputs], "output": _outs(out), "neg_output": _outs(neg),
                 "net_output": _outs(eager), "net_neg_output": _outs(net(*[ms.Tensor(_neg(a)) for a in inputs])),
                 "params": {p.name: list(p.shape) for p in cell.get_parameters()}}
        # params_init: the last parameter replaced by a constant (MindSpore's GraphCell takes a dict of Tensors).
        last = sorted(entry["params"])[-1]
        repl = np.full(entry["params"][last], 0.25, np.float32)
        cell2 = ms.nn.GraphCell(ms.load(base + ".mindir"), params_init={last: ms.Tensor(repl)})
        entry["params_init"] = {"name": last, "value": 0.25, "output": _outs(cell2(*xs))}
        # opbuild's export of the same network (scripts/export_mindir_fixtures.py), run by MindSpore.
        mine = folder / f"opbuild_{name}.mindir"
        if mine.exists():
            try:
                entry["opbuild_export"] = {"output": _outs(ms.nn.GraphCell(ms.load(str(mine)))(*xs))}
            except Exception as e:  # noqa: BLE001 - recorded: the test then says what MindSpore refused
                entry["opbuild_export"] = {"error": f"{type(e).__name__}: {str(e)[:500]}"}
        record["nets"][name] = entry
        print(name, Path(base + ".mindir").stat().st_size, "bytes")
    net, inputs = mindir_nets.build(ms)["lenet5"]
    (folder / "lenet5_encrypted.mindir").unlink(missing_ok=True)
    ms.export(net, ms.Tensor(inputs[0]), file_name=str(folder / "lenet5_encrypted"), file_format="MINDIR",
              enc_key=ENC_KEY, enc_mode="AES-GCM")
    record["encrypted"] = {"file": "lenet5_encrypted.mindir", "enc_key": ENC_KEY.decode(), "enc_mode": "AES-GCM"}
    (OUT / "mindir.json").write_text(json.dumps(record) + "\n")
    print("wrote", OUT / "mindir.json")


if __name__ == "__main__":
    main()
