"""The import statements MindSpore 2.10 accepts (tests/fixtures/mindspore/module_paths.json, recorded by
scripts/record_module_paths.py from module_path_cases.py) work with ``mindspore`` spelled ``opbuild``, and each
imported name is the object opbuild documents under its top-level or canonical name."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "module_paths.json")
                     .read_text())["imports"]

# Every import MindSpore accepts, opbuild accepts (the last two it lacked, train.summary and
# ops.operations._grad_ops, are provided: docs/mindspore-compat.md).
ACCEPTED = [line for line, result in FIXTURE.items() if result == "ok"]


def test_the_fixture_covers_both_outcomes() -> None:
    assert len(ACCEPTED) >= 40 and any(result != "ok" for result in FIXTURE.values())


_RUNNER = """
import json, sys
import opbuild
opbuild.alias_mindspore()
results = {}
for line in json.loads(sys.argv[1]):
    namespace = {}
    try:
        exec(line, namespace)
    except Exception as e:
        results[line] = f"{type(e).__name__}: {e}"
        continue
    other = [n for n, obj in namespace.items() if n != "__builtins__" and hasattr(opbuild, n)
             and not isinstance(obj, type(opbuild)) and obj is not getattr(opbuild, n)]
    results[line] = "ok" if not other else f"not opbuild's top-level object: {other}"
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def under_alias() -> dict[str, str]:
    """Every accepted statement run as written, in one process under ``opbuild.alias_mindspore()``."""
    proc = subprocess.run([sys.executable, "-c", _RUNNER, json.dumps(ACCEPTED)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("line", ACCEPTED)
def test_mindspore_import_works_on_opbuild(line: str, under_alias: dict[str, str]) -> None:
    assert under_alias[line] == "ok"


def test_a_fresh_process_imports_the_module_paths() -> None:
    """The names of common and train (the loss scale managers, resolved on first use) also resolve when
    imported first."""
    code = ("from opbuild.common import set_seed\nfrom opbuild.train import FixedLossScaleManager\n"
            "import opbuild\n"
            "assert set_seed is opbuild.set_seed and FixedLossScaleManager is opbuild.FixedLossScaleManager\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
