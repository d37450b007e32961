"""Record MindSpore 2.10's ``mindspore.rewrite`` behaviour on the networks and edits of
tests/rewrite/rewrite_cases.py into tests/fixtures/mindspore/rewrite.json.

    /tmp/ms/bin/python scripts/record_rewrite.py

The cases file is written for opbuild; it is copied to a temporary directory with its ``opbuild`` imports
turned into ``mindspore`` ones (rewrite reads the ``construct`` source, so the module must be a real file) and
run there. tests/rewrite/test_recorded.py compares opbuild's results with what is written here.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "rewrite" / "rewrite_cases.py"
OUT = REPO / "tests" / "fixtures" / "mindspore" / "rewrite.json"


def main() -> int:
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE)
    text = CASES.read_text().replace("from opbuild.rewrite import", "from mindspore.rewrite import")
    text = text.replace("from opbuild import", "from mindspore import")
    tmp = Path(tempfile.mkdtemp(prefix="ms_rewrite_"))
    (tmp / "ms_rewrite_cases.py").write_text(text)
    sys.path.insert(0, str(tmp))
    os.chdir(tmp)  # MindSpore's get_network writes the rewritten code under ./rewritten_network
    cases = importlib.import_module("ms_rewrite_cases")
    data: dict = {"_meta": {"mindspore": ms.__version__, "cases": str(CASES.relative_to(REPO))}}
    data["cases"] = {f"{net}/{edit}": cases.run_case(net, edit, run) for net, edit, run in cases.CASES}
    data["bad_uses"] = cases.bad_uses()
    data["scoped_values"] = cases.scoped_values()
    data["facts"] = cases.facts()
    text = json.dumps(data, indent=1, sort_keys=True)
    # Lists of numbers (the outputs) on one line each: a readable file, a short diff.
    text = re.sub(r"\[[-0-9.e,\s]+\]", lambda m: "[" + ", ".join(m.group(0)[1:-1].split()).replace(",,", ",")
                  + "]", text)
    OUT.write_text(text + "\n")
    print(f"{OUT}: {len(data['cases'])} cases, {len(data['bad_uses'])} bad uses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
