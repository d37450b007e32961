"""Dependencies point down: core imports nothing of opbuild above it (its one upward lookup is by name, in
core/providers.py), and the builder's miss pipeline is handed its collaborators rather than the Builder."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def imported_modules(path: Path) -> set[str]:
    """The absolute names of the opbuild modules ``path`` imports (at any level of the file)."""
    package = ".".join(path.relative_to(SRC).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("opbuild"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.startswith("opbuild"):
                out.add(name)
    return out


def test_core_imports_nothing_above_it() -> None:
    bad = {p.name: sorted(m for m in imported_modules(p) if not m.startswith(("opbuild.core", "opbuild._version")))
           for p in (SRC / "opbuild" / "core").glob("*.py")}
    assert not {k: v for k, v in bad.items() if v}, f"core imports higher layers: {bad}"


def test_miss_pipeline_gets_its_collaborators_not_the_builder() -> None:
    from opbuild.builder.misses import MissPipeline

    assert "opbuild.builder.driver" not in imported_modules(SRC / "opbuild" / "builder" / "misses.py")
    params = inspect.signature(MissPipeline.__init__).parameters
    assert {"stores", "memory", "target", "compiler"} <= set(params)
    assert not any("Builder" in str(p.annotation) for p in params.values())
