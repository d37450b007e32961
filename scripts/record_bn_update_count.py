#!/usr/bin/env python3
"""Record how often MindSpore 2.10 updates BatchNorm's moving statistics in a train step
(tests/compat/bn_update_cases.py, GRAPH_MODE and PyNative) into tests/fixtures/mindspore/bn_update_count.json.

    /tmp/ms/bin/python scripts/record_bn_update_count.py
"""

from __future__ import annotations

import json
import subprocess
import sys

from ms_case_recorder import REPO


def main() -> None:
    if len(sys.argv) == 2:  # one mode per process: MindSpore keeps compiled graphs across set_context calls
        import mindspore as ms

        ms.set_context(device_target="CPU")
        sys.path.insert(0, str(REPO / "tests" / "compat"))  # MindSpore's parser imports construct's module
        import bn_update_cases

        print("RESULT " + json.dumps(bn_update_cases.run(ms, sys.argv[1])))
        return
    out = {"mindspore": None}
    for mode in ("graph", "pynative"):
        proc = subprocess.run([sys.executable, __file__, mode], capture_output=True, text=True, check=True)
        out[mode] = json.loads(next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))[7:])
    import mindspore as ms

    out["mindspore"] = ms.__version__
    path = REPO / "tests" / "fixtures" / "mindspore" / "bn_update_count.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
