"""Generate the tables of docs/mindspore-compat.md from the code (the functional API's names and
signatures, the primitive classes, the Tensor methods, the nn layers, the dataset operations), between the
markers in that file.

    python scripts/gen_compat_table.py          # rewrite the tables in place
    python scripts/gen_compat_table.py --check  # exit 1 if the committed tables are stale

tests/compat/test_docs.py runs the check, so the document cannot drift from the code.
"""

from __future__ import annotations

import enum
import inspect
import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "mindspore-compat.md"
BEGIN, END = "<!-- BEGIN GENERATED TABLES (scripts/gen_compat_table.py) -->", "<!-- END GENERATED TABLES -->"


def _tensor_methods(tensor_cls) -> list[str]:
    """Every public Tensor method and property (core/tensor.py and core/tensor_methods.py), plus indexing."""
    return ["__getitem__", "__setitem__", *sorted(n for n in dir(tensor_cls) if not n.startswith("_"))]


def _sig(fn) -> str:
    """The call signature without annotations: names and defaults are what MindSpore compatibility is about."""
    sig = inspect.signature(fn)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty)).replace("'", '"')


def tables() -> str:
    """The generated Markdown."""
    from opbuild import Tensor, nn
    from opbuild.ops import functional, operations

    lines = ["### Functional API (`opbuild.ops`, `opbuild.ops.functional`)", "",
             "| function | signature | family |", "|---|---|---|"]
    for name in sorted(functional.API):
        fn = getattr(functional, name)
        family = fn.__module__.rsplit(".", 1)[-1]
        lines.append(f"| `{name}` | `{name}{_sig(fn)}` | {family} |")
    lines += ["", "### Primitive classes (`opbuild.ops`, `opbuild.ops.operations`)", "",
              ", ".join(f"`{n}`" for n in sorted(operations.__all__) if n != "Primitive"), "",
              "### Tensor methods and properties", "", "| method | signature |", "|---|---|"]
    for name in _tensor_methods(Tensor):
        attr = inspect.getattr_static(Tensor, name)
        sig = "(property)" if isinstance(attr, property) else f"`{name}{_sig(getattr(Tensor, name))}`"
        lines.append(f"| `{name}` | {sig} |")
    lines += ["", "### Layers (`opbuild.nn`)", "", "| layer | constructor | construct |", "|---|---|---|"]
    for name in sorted(set(nn.__all__)):
        cls = getattr(nn, name)
        if not (isinstance(cls, type) and issubclass(cls, nn.Cell)) or cls is nn.Cell:
            continue
        init, call = _sig(cls.__init__).replace("(self, ", "(").replace("(self)", "()"), _sig(cls.construct)
        lines.append(f"| `{name}` | `{name}{init}` | `{call.replace('(self, ', '(').replace('(self)', '()')}` |")
    lines += _dataset_tables()
    lines += _coverage_tables()
    return "\n".join(lines) + "\n"


def _names(ops) -> str:
    return ", ".join(f"`{n}`" for n in sorted(ops)) or "none"


def _coverage_tables() -> list[str]:
    """How many primitives have a gradient rule and how each is checked, and which export to ONNX: counted
    from the registry and the test tables (tests/ops/grad_cases.py, tests/onnx/export_cases.py)."""
    sys.path.insert(0, str(DOC.parent.parent))
    try:
        from tests.onnx import export_cases as E
        from tests.ops import grad_cases as G

        from opbuild.ops.registry import NO_GRADIENT, REGISTRY
    finally:
        sys.path.pop(0)
    rules = sorted(n for n, d in REGISTRY.items() if d.grad is not None and d.grad is not NO_GRADIENT)
    cases = {op: cs if isinstance(cs, tuple) else (cs,) for op, cs in G.CASES.items() if op in rules}
    by_torch = [op for op, cs in cases.items() if all(c.torch is not None for c in cs)]
    by_fd = [op for op in cases if op not in by_torch]
    elsewhere: dict[str, list[str]] = {}
    for op, test in G.ELSEWHERE.items():
        elsewhere.setdefault(test, []).append(op)
    lines = ["", "### Gradient coverage (`tests/ops/grad_cases.py`)", "",
             f"{len(REGISTRY)} registered primitives; {len(rules)} have a gradient rule. Each rule is checked: "
             "`tests/ops/test_grad_checks.py` runs one table entry per op in float64 and asserts the op's own rule "
             "ran; `tests/ops/test_grad_coverage.py` fails for a rule without an entry.", "",
             "| how | primitives | which |", "|---|---|---|",
             f"| against `torch.autograd` (float64) | {len(by_torch)} | {_names(by_torch)} |",
             f"| against central finite differences (float64: torch has no gradient for them, or no op drawing "
             f"the same random mask) | {len(by_fd)} | "
             f"{_names(by_fd)} |"]
    for test, ops in sorted(elsewhere.items()):
        how = "MindSpore 2.10's recorded gradients" if "grads_ms" in test else "torch, float32"
        lines.append(f"| in `{test}` ({how}) | {len(ops)} | {_names(ops)} |")
    lines += [f"| rule refuses with NotImplementedError (checked) | {len(G.REFUSED)} | {_names(G.REFUSED)} |"]
    lines += [f"| exempt: {reason} | 1 | `{op}` |" for op, reason in sorted(G.EXEMPT.items())]
    nograd = [n for n, d in REGISTRY.items() if d.grad is NO_GRADIENT]
    norule = [n for n, d in REGISTRY.items() if d.grad is None]
    lines += ["", f"Not differentiable (a zero gradient, as MindSpore's bprops give): {len(nograd)} primitives "
              "(comparisons, rounding, integer and random outputs, optimizer updates). Without a rule (autodiff "
              f"refuses to differentiate through them, naming them): {_names(norule)}.",
              "", "### ONNX export coverage (`tests/onnx/export_cases.py`)", "",
              f"{len(E.CASES)} of {len(REGISTRY)} primitives export (each checked against onnxruntime on a tiny "
              "graph by `tests/onnx/test_export_checks.py`); the others, by reason:", "",
              "| reason | primitives |", "|---|---|"]
    reasons: dict[str, list[str]] = {}
    for op, reason in E.NO_EXPORT.items():
        reasons.setdefault(reason, []).append(op)
    lines += [f"| {reason} | {_names(ops)} |" for reason, ops in sorted(reasons.items())]
    return lines


def _dataset_tables() -> list[str]:
    """The operations of ``opbuild.dataset.audio``, ``text``, ``vision`` and ``transforms`` with their
    constructor signatures (functions with their own)."""
    from opbuild.dataset import audio, text, transforms, vision

    lines: list[str] = []
    for label, mod in (("audio", audio), ("text", text), ("vision", vision), ("transforms", transforms)):
        lines += ["", f"### Dataset {label} operations (`opbuild.dataset.{label}`)", "",
                  "| name | signature |", "|---|---|"]
        for name in sorted(mod.__all__):
            obj = getattr(mod, name)
            if isinstance(obj, type) and issubclass(obj, enum.Enum):
                lines.append(f"| `{name}` | enum: {', '.join(m.name for m in obj)} |")
                continue
            target = obj.__init__ if isinstance(obj, type) else obj
            try:
                sig = _sig(target).replace("(self, ", "(").replace("(self)", "()")
                sig = re.sub(r"<(\w+\.\w+): [^>]*>", r"\1", sig)  # enum defaults as MindSpore writes them
            except (TypeError, ValueError):
                sig = "()"
            lines.append(f"| `{name}` | `{name}{sig}` |")
    return lines


def render(text: str) -> str:
    """``text`` with the part between the markers replaced by fresh tables."""
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{tables()}{END}{tail}"


def main(argv: list[str]) -> int:
    text = DOC.read_text()
    new = render(text)
    if "--check" in argv:
        if new != text:
            print(f"{DOC} is stale: run python scripts/gen_compat_table.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
