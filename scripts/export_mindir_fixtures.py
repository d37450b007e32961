"""Write opbuild's MINDIR exports of tests/mindir/mindir_nets.py for MindSpore to check.

Run with opbuild (``PYTHONPATH=src /work/venv/bin/python scripts/export_mindir_fixtures.py``), then
``/tmp/ms/bin/python scripts/record_mindir.py``, which loads each ``opbuild_<name>.mindir`` with MindSpore 2.10
and records its outputs next to MindSpore's own (tests/mindir/test_mindir_export.py compares them and checks
that opbuild still writes these exact files). The control-flow net is left out: opbuild does not export it.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.mindir import mindir_nets  # noqa: E402

import opbuild as ms  # noqa: E402

EXPORTED = ("lenet5", "resblock", "transformer", "mixed", "upsampler")


def main() -> None:
    folder = REPO / "tests" / "fixtures" / "mindspore" / "mindir"
    nets = mindir_nets.build(ms)
    for name in EXPORTED:
        net, inputs = nets[name]
        path = folder / f"opbuild_{name}.mindir"
        ms.export(net, *[ms.Tensor(a) for a in inputs], file_name=str(path), file_format="MINDIR")
        print(path, path.stat().st_size, "bytes")


if __name__ == "__main__":
    main()
