"""The cache is a leaf (docs/architecture.md): no module of ``opbuild.cache`` imports a higher layer. What a cache
module needs from above (the sources a graph manifest records, the target's binary suffix and BLAS libraries,
an op's code generator hash) is passed in by the layer that owns it."""

from __future__ import annotations

import ast
from pathlib import Path

import opbuild.cache

CACHE = Path(opbuild.cache.__file__).parent
FORBIDDEN = ("ops", "passes", "runtime", "builder", "nn", "frontends", "targets")


def _module_of(path: Path) -> str:
    rel = path.relative_to(CACHE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return "opbuild." + ".".join(parts)


def _imports(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """Every module ``path`` (or ``source`` as if it were that file) imports: absolute names, relative imports
    resolved, function-level ones too."""
    package = _module_of(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text() if source is None else source, str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # ``from .. import ops`` imports the module opbuild.ops: every imported name counts as a module too.
            found += [(node.lineno, stem)] + [(node.lineno, f"{stem}.{a.name}") for a in node.names]
    return found


def _forbidden(name: str) -> bool:
    return any(name == f"opbuild.{top}" or name.startswith(f"opbuild.{top}.") for top in FORBIDDEN)


def test_the_cache_imports_no_higher_layer() -> None:
    files = sorted(CACHE.rglob("*.py"))
    assert len(files) > 20  # the walk found the package
    bad = [f"{p.relative_to(CACHE.parent)}:{line} imports {name}" for p in files for line, name in _imports(p)
           if _forbidden(name)]
    assert bad == []


def test_the_check_sees_relative_and_absolute_imports() -> None:
    """The checker itself: a relative ``from ..ops import registry`` and an absolute import are both caught."""
    probe = CACHE / "admin" / "probe.py"
    names = {n for _, n in _imports(probe, "from ...ops import registry\nimport opbuild.targets.cpu\n"
                                           "from .. import fsio\nfrom . import scan\n")}
    assert _forbidden("opbuild.ops.registry") and "opbuild.ops.registry" in names
    assert "opbuild.targets.cpu" in names and "opbuild.cache.fsio" in names and "opbuild.cache.admin.scan" in names
    assert not _forbidden("opbuild.cache.fsio") and not _forbidden("opbuild.core.config")
    assert not _forbidden("opbuild.opsx")

