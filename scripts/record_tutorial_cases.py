"""Record MindSpore's results of tests/compat/tutorial_cases.py into tests/fixtures/mindspore/.

Run with real MindSpore 2.10: ``/tmp/ms/bin/python scripts/record_tutorial_cases.py [CASE ...]`` (no names:
every case; names: those cases only, the others kept). Each case's result is stored in
tutorial_cases.py's JSON encoding, or the type of the exception MindSpore raised. The tests never import
MindSpore.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import mindspore as ms  # noqa: E402
from tests.compat import tutorial_cases as cases  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "mindspore" / "tutorial_cases.json"


def main(names: list[str]) -> None:
    out = json.loads(FIXTURE.read_text()) if FIXTURE.exists() and names else {}
    for name, fn in cases.CASES.items():
        if names and name not in names:
            continue
        ms.set_context(mode=ms.PYNATIVE_MODE)
        with tempfile.TemporaryDirectory() as tmp:
            try:
                out[name] = {"value": cases.encode(fn(ms, tmp), ms)}
            except Exception as e:  # noqa: BLE001 - a refusal is a result
                out[name] = {"error": type(e).__name__, "message": str(e).splitlines()[0][:200] if str(e) else ""}
        print(name, json.dumps(out[name])[:150])
    FIXTURE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} cases to {FIXTURE}")


if __name__ == "__main__":
    main(sys.argv[1:])
