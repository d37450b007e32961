"""docs/mindspore-compat.md's generated tables are current (scripts/gen_compat_table.py --check)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_compat_table.py"


def _load():
    spec = importlib.util.spec_from_file_location("gen_compat_table", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_committed_table_is_current():
    gen = _load()
    text = gen.DOC.read_text()
    assert gen.render(text) == text, "docs/mindspore-compat.md is stale: run python scripts/gen_compat_table.py"


def test_table_lists_every_function():
    gen = _load()
    from opbuild.ops import functional

    out = gen.tables()
    assert all(f"| `{name}` |" in out for name in functional.API)
    assert "`matmul(input, other)`" in out and "| `T` | (property) |" in out
