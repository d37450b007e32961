"""Record MindSpore's results of tests/core/control_flow_programs.py into tests/fixtures/mindspore/.

Run with real MindSpore 2.10 (its own virtualenv): ``/tmp/ms/bin/python scripts/record_control_flow.py``.
The tests compare opbuild with the recorded file and never import MindSpore.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore as ms  # noqa: E402
from tests.core import control_flow_programs as programs  # noqa: E402


def main() -> None:
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    out: dict[str, np.ndarray] = {}
    for name, fn in programs.build(ms).items():
        for case, arrays in programs.inputs().items():
            result = fn(*[ms.Tensor(a) for a in arrays])
            for k, leaf in enumerate(programs.leaves(result)):
                if isinstance(leaf, ms.Tensor):
                    out[f"{name}/{case}/{k}"] = leaf.asnumpy()
                else:  # a Python value returned from graph mode: recorded as such ("/py")
                    out[f"{name}/{case}/{k}/py"] = np.asarray(leaf)
    path = REPO / "tests" / "fixtures" / "mindspore" / "control_flow.npz"
    np.savez(path, **out)
    print(f"wrote {len(out)} arrays to {path}")


if __name__ == "__main__":
    main()
