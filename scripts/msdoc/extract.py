"""Print (as JSON) the ``>>>`` examples of the docstrings of the installed MindSpore's public API, per API group.

Run with a real MindSpore's interpreter (``/tmp/ms/bin/python scripts/msdoc/extract.py OUT.json``). Reads the
docstrings at run time from the installed package; nothing of MindSpore's text is kept in the repository.
An example is one docstring's whole ``>>>`` program (its statements run in order, as doctest runs them).
"""

from __future__ import annotations

import doctest
import inspect
import json
import re
import sys
import types

# The order decides which group claims an object exported under several paths (``mindspore.Model`` is
# ``mindspore.train.Model``): the most specific group first, the top level last.
GROUPS = [
    ("Tensor", ["mindspore.Tensor"]),
    ("Cell", ["mindspore.nn.Cell"]),
    ("initializer", ["mindspore.common.initializer"]),
    ("amp", ["mindspore.amp"]),
    ("train", ["mindspore.train"]),
    ("dataset", ["mindspore.dataset", "mindspore.dataset.transforms", "mindspore.dataset.vision",
                 "mindspore.dataset.text", "mindspore.dataset.audio"]),
    ("nn", ["mindspore.nn"]),
    ("ops primitives", ["mindspore.ops:classes"]),
    ("ops functions", ["mindspore.ops:functions"]),
    ("top level", ["mindspore"]),
    # Last, so that adding it moved no example of the groups above (objects it shares stay theirs).
    ("numpy", ["mindspore.numpy"]),
]

_PLATFORMS = re.compile(r"Supported Platforms:\s*\n?\s*(.*)")


def _public(mod: types.ModuleType) -> list[str]:
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    return [n for n in names if not isinstance(getattr(mod, n, None), types.ModuleType)]


def _members(obj, prefix: str):
    """(qualified name, object) of ``obj`` and of the public methods/properties defined on a class."""
    yield prefix, obj
    if not inspect.isclass(obj):
        return
    for name in sorted(dir(obj)):
        if name.startswith("_"):
            continue
        try:
            attr = inspect.getattr_static(obj, name)
        except AttributeError:
            continue
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if isinstance(attr, property):
            attr = attr.fget
        yield f"{prefix}.{name}", attr


def _objects(spec: str):
    import importlib

    modname, _, kind = spec.partition(":")
    if modname in ("mindspore.Tensor", "mindspore.nn.Cell"):
        mod, _, cls = modname.rpartition(".")
        obj = getattr(importlib.import_module(mod), cls)
        yield from _members(obj, modname.replace("mindspore.", ""))
        return
    mod = importlib.import_module(modname)
    short = modname.replace("mindspore.", "").replace("mindspore", "mindspore")
    for name in _public(mod):
        obj = getattr(mod, name, None)
        if obj is None:
            continue
        if kind == "classes" and not inspect.isclass(obj):
            continue
        if kind == "functions" and inspect.isclass(obj):
            continue
        yield from _members(obj, f"{short}.{name}")


def _statements(doc: str) -> list[dict]:
    try:
        examples = doctest.DocTestParser().get_examples(inspect.cleandoc(doc))
    except ValueError:
        return []
    return [{"source": e.source, "want": e.want} for e in examples]


def extract() -> list[dict]:
    """Every example of every group, each docstring counted once (by its text)."""
    seen_obj: set[int] = set()
    seen_doc: set[str] = set()
    out = []
    for group, specs in GROUPS:
        for spec in specs:
            for qual, obj in _objects(spec):
                if id(obj) in seen_obj:
                    continue
                seen_obj.add(id(obj))
                doc = getattr(obj, "__doc__", None)
                if not isinstance(doc, str) or ">>>" not in doc or doc in seen_doc:
                    continue
                stmts = _statements(doc)
                if not stmts:
                    continue
                seen_doc.add(doc)
                plat = _PLATFORMS.search(doc)
                out.append({"id": f"{group}:{qual}", "group": group, "name": qual, "stmts": stmts,
                            "platforms": plat.group(1).strip() if plat else ""})
    return out


def main(argv: list[str]) -> int:
    examples = extract()
    with open(argv[0], "w") as f:
        json.dump(examples, f)
    counts: dict[str, int] = {}
    for e in examples:
        counts[e["group"]] = counts.get(e["group"], 0) + 1
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
