#!/usr/bin/env python3
"""Record MindSpore 2.10's ``mindspore.parallel.Layout`` results for tests/compat/layout_cases.py into
tests/fixtures/mindspore/parallel_layout.json. Run with a Python that has MindSpore (see
scripts/ms_case_recorder.py); opbuild's tests compare against the file and never import MindSpore."""

from __future__ import annotations

import json

from mindspore.parallel import Layout
from ms_case_recorder import REPO, load_cases


def main() -> None:
    cases = load_cases("layout_cases")
    results = {label: cases.run(Layout, ctor, tmap) for label, (ctor, tmap) in cases.CASES.items()}
    out = REPO / "tests" / "fixtures" / "mindspore" / "parallel_layout.json"
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(results)} cases to {out}")


if __name__ == "__main__":
    main()
