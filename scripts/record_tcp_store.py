#!/usr/bin/env python3
"""Record what MindSpore 2.10's ``TCPStore`` does in tests/distributed/tcp_store_scenario.py (a master and a
client process: values, counters, waits, timeouts, argument errors) into tests/fixtures/mindspore/tcp_store.json;
tests/distributed/test_tcp_store.py runs the same scenario with opbuild and compares.

    /tmp/ms/bin/python scripts/record_tcp_store.py
"""

from __future__ import annotations

import json
import subprocess
import sys

from ms_case_recorder import REPO

SCENARIO = REPO / "tests" / "distributed" / "tcp_store_scenario.py"
OUT = REPO / "tests" / "fixtures" / "mindspore" / "tcp_store.json"


def main() -> int:
    import mindspore

    proc = subprocess.run([sys.executable, str(SCENARIO), "mindspore"], capture_output=True, text=True,
                          timeout=300, check=True)
    steps = json.loads(proc.stdout)
    OUT.write_text(json.dumps({"_meta": {"mindspore": mindspore.__version__}, "steps": steps}, indent=1,
                              sort_keys=True) + "\n")
    print(f"{len(steps)} steps -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
