#!/usr/bin/env python3
"""Record what tests/compat/parallel_context_program.py observes under MindSpore 2.10 into
tests/fixtures/mindspore/parallel_context.json (tests/compat/test_parallel_context.py compares opbuild).

    /tmp/ms/bin/python scripts/record_parallel_context.py
"""

from __future__ import annotations

import json
import sys

from ms_case_recorder import REPO, load_cases

OUT = REPO / "tests" / "fixtures" / "mindspore" / "parallel_context.json"


def main() -> int:
    import mindspore

    result = load_cases("parallel_context_program").run()
    OUT.write_text(json.dumps({"_meta": {"mindspore": mindspore.__version__}, **result}, indent=1) + "\n")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
