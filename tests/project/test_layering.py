"""Operators describe, targets emit: no module of ``opbuild.ops`` imports a target (absolute or relative,
at module level or inside a function), the CPU target has an emitter for every registered op that runs a
kernel, and no family module of ``ops`` is named like a MindSpore function it would shadow."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import opbuild
import opbuild.ops  # noqa: F401 - registers every op family
from opbuild.ops.registry import REGISTRY
from opbuild.targets.cpu import kernels

_SRC = Path(opbuild.__file__).parent
_OPS = _SRC / "ops"


def _module_name(path: Path) -> str:
    rel = path.relative_to(_SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(path: Path, text: str | None = None) -> list[str]:
    """Every module ``path`` (or ``text`` as if it were that module) imports, resolved to absolute dotted
    names (``from . import x`` gives ``package.x`` as well as ``package``, so an imported submodule is
    named)."""
    tree = ast.parse(path.read_text() if text is None else text, str(path))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.append(mod)
            found.extend(f"{mod}.{alias.name}" for alias in node.names)
    return found


def _ops_modules() -> list[Path]:
    return sorted(_OPS.rglob("*.py"))


def test_the_walk_sees_relative_and_absolute_imports():
    """The checker itself: relative imports one and two packages up, absolute ones, inside functions too."""
    assert "opbuild.targets.cpu.codegen" in _imported(_OPS / "fake.py", "from ..targets.cpu.codegen import ctype\n")
    assert "opbuild.targets.cpu" in _imported(_OPS / "fake.py", "from ..targets import cpu\n")
    assert "opbuild.targets" in _imported(_OPS / "api" / "f.py", "def f():\n    import opbuild.targets\n")
    assert "opbuild.targets.cpu" in _imported(_OPS / "api" / "f.py", "from ...targets import cpu\n")
    assert not any(m.startswith("opbuild.targets") for m in _imported(_OPS / "f.py", "from . import targets_x\n"))


@pytest.mark.parametrize("path", _ops_modules(), ids=lambda p: str(p.relative_to(_OPS)))
def test_no_ops_module_imports_a_target(path):
    bad = [m for m in _imported(path) if m == "opbuild.targets" or m.startswith("opbuild.targets.")]
    assert not bad, f"{path.relative_to(_SRC)} imports {sorted(set(bad))}: ops/ describes operators, " \
                    "targets/<name>/kernels/ emits them"


def test_every_op_that_runs_a_kernel_has_a_cpu_emitter():
    missing = sorted(n for n in REGISTRY if kernels.needs_kernel(n) and n not in kernels.EMITTERS)
    assert missing == [], f"registered ops without a CPU emitter: {missing}"
    hosts = sorted(n for n in REGISTRY if not kernels.needs_kernel(n))
    # collectives and the Python callbacks (ops/python_calls.py) run in the executor
    assert hosts == ["AllGather", "AllReduce", "Broadcast", "CustomGradient", "PyCall"]


def test_every_cpu_emitter_belongs_to_a_registered_op():
    assert sorted(set(kernels.EMITTERS) - set(REGISTRY)) == []


def test_an_op_without_an_emitter_is_refused_by_name():
    with pytest.raises(KeyError, match="no emitter for operator 'AllReduce'"):
        kernels.emitter("AllReduce")


# MindSpore 2.x function names a family module of opbuild.ops must not take (the package attribute of a
# submodule would shadow the function once it exists: ops.norm, ops.conv, ...).
_MINDSPORE_FUNCTIONS = {"norm", "conv", "reduce", "random", "loss", "matmul", "dropout", "softmax", "pad", "fill",
                        "gather", "cast", "split", "concat", "slice", "transpose", "reshape", "tile", "select"}


def test_no_family_module_is_named_like_a_mindspore_function():
    names = {p.stem for p in _OPS.glob("*.py")}
    # ops.matmul is the one kept: the package rebinds the attribute to the function (ops/__init__.py).
    assert sorted(names & _MINDSPORE_FUNCTIONS) == ["matmul"]
    assert callable(opbuild.ops.matmul)
