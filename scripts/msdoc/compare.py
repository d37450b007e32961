"""Compare what an example printed under MindSpore with what it printed under opbuild, and classify examples.

Pure Python (no framework import), so tests/compat/test_msdoc_compare.py checks it without MindSpore.
Printed text is split into tokens: numbers (compared with a tolerance; an integer never equals a float, since
``[1 2]`` and ``[1. 2.]`` are tensors of different dtypes), words (dtype names compared case-insensitively
and without a ``mindspore.`` prefix), brackets and a few operators; whitespace, commas and quotes are layout.
Object addresses (``0x7f...``) match any address.
"""

from __future__ import annotations

import cmath
import re

RTOL = 1e-3
ATOL = 1e-5

_REAL = r"(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)"
_TOKEN = re.compile(rf"""
    (?P<addr>0x[0-9a-fA-F]+)
  | (?P<num>[-+]?{_REAL}(?:[-+]{_REAL}j|j)?)(?![A-Za-z_0-9])
  | (?P<word>[A-Za-z_][A-Za-z_0-9.]*)
  | (?P<punct>[\[\](){{}}:=<>*/%@|&^~!?])
""", re.VERBOSE)

_DTYPES = {f"{k}{n}" for k, ns in (("float", (16, 32, 64)), ("int", (8, 16, 32, 64)),
                                   ("uint", (8, 16, 32, 64)), ("complex", (64, 128))) for n in ns}
_DTYPES |= {"bool", "bool_", "bfloat16", "float", "int", "complex"}


def tokens(text: str) -> list[tuple[str, object]]:
    """(kind, value) tokens of printed text; kinds: ``int``, ``float``, ``word``, ``punct``, ``addr``."""
    out: list[tuple[str, object]] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        s = m.group()
        if kind == "num":
            if s.endswith("j"):
                out.append(("complex", complex(s.replace("+-", "-"))))
            elif re.fullmatch(r"[-+]?\d+", s):
                out.append(("int", int(s)))
            else:
                out.append(("float", float(s)))
        elif kind == "word":
            low = s.lower()
            for prefix in ("mindspore.common.dtype.", "mindspore.", "mstype.", "ms."):
                if low.startswith(prefix) and low[len(prefix):] in _DTYPES:
                    low = low[len(prefix):]
            if low == "bool_":
                low = "bool"
            out.append(("word", low if low in _DTYPES else s))
        else:
            out.append((kind, s))
    return out


def _close(a: complex, b: complex) -> bool:
    if cmath.isnan(a) or cmath.isnan(b):
        return cmath.isnan(a) and cmath.isnan(b)
    if cmath.isinf(a) or cmath.isinf(b):
        return a == b
    return abs(a - b) <= ATOL + RTOL * abs(b)


def same_output(expected: str, actual: str, numbers: bool = True) -> str | None:
    """None when ``actual`` prints the values of ``expected``; else where they first differ. With
    ``numbers=False`` only the kinds of the numbers are compared (for values MindSpore draws at random)."""
    te, ta = tokens(expected), tokens(actual)
    for i, (e, a) in enumerate(zip(te, ta)):
        if e[0] == "addr" and a[0] == "addr":
            continue
        if e[0] != a[0]:
            return f"token {i}: expected {e[1]!r} ({e[0]}), got {a[1]!r} ({a[0]})"
        if e[0] in ("float", "complex", "int") and not numbers:
            continue
        if e[0] in ("float", "complex"):
            if not _close(complex(a[1]), complex(e[1])):  # type: ignore[arg-type]
                return f"token {i}: expected {e[1]!r}, got {a[1]!r}"
        elif e[1] != a[1]:
            return f"token {i}: expected {e[1]!r}, got {a[1]!r}"
    if len(te) != len(ta):
        return f"expected {len(te)} tokens, got {len(ta)}"
    return None


_MISSING = [
    (re.compile(r"module '((?:mindspore|opbuild)[\w.]*)' has no attribute '(\w+)'"), "{0}.{1}"),
    (re.compile(r"cannot import name '(\w+)' from '((?:mindspore|opbuild)[\w.]*)'"), "{1}.{0}"),
    (re.compile(r"No module named '((?:mindspore|opbuild)[\w.]*)'"), "{0}"),
    (re.compile(r"type object '(\w+)' has no attribute '(\w+)'"), "{0}.{1}"),
    (re.compile(r"'(\w+)' object has no attribute '(\w+)'"), "{0}.{1}"),
]


def missing_name(exc: dict) -> str | None:
    """The MindSpore name an AttributeError/ImportError says opbuild lacks (``ops.foo``, ``Tensor.bar``)."""
    if exc["type"] not in ("AttributeError", "ImportError", "ModuleNotFoundError"):
        return None
    for pattern, fmt in _MISSING:
        m = pattern.search(exc["msg"])
        if m:
            name = fmt.format(*m.groups())
            # Under the import alias opbuild's modules stand for MindSpore's: name them as MindSpore does.
            for prefix in ("mindspore.", "opbuild.", "mindspore", "opbuild"):
                if name.startswith(prefix):
                    return name[len(prefix):]
            return name
    return f"{exc['type']}: {exc['msg'][:80]}"


def _ms_skip_reason(exc: dict) -> str:
    msg = f"{exc['type']}: {exc['msg']}"
    low = msg.lower()
    if any(k in low for k in ("ascend", "gpu", "device_target", "not supported on cpu", "kernel not found",
                              "unsupported op", "not support", "can not find")):
        return "needs Ascend/GPU or unsupported on MindSpore CPU"
    if any(k in low for k in ("urlopen", "download", "connection", "network", "http")):
        return "needs network"
    if exc["type"] in ("FileNotFoundError",) or any(k in low for k in ("no such file", "not exist",
                                                                          "does not exist", "dataset_dir")):
        return "needs files"
    return "fails on MindSpore CPU"


def classify(example: dict, ms: dict | None, ob: dict | None, ms2: dict | None = None) -> dict:
    """``{"status", "detail"}`` of one example: ``passes``, ``value differs``, ``missing name``, ``error``,
    ``skipped`` (MindSpore itself fails on the CPU, or it was not recorded) or ``not run`` (opbuild).
    ``ms2`` is a second MindSpore run of the example: a statement whose numbers differ between MindSpore's
    two runs prints random values, and only its layout, words and kinds of numbers are compared (the result
    then carries ``random: True``)."""
    if ms is None:
        return {"status": "not recorded", "detail": ""}
    if ms.get("fail"):
        reason = ms["fail"] if ms["fail"].startswith("needs") else f"MindSpore {ms['fail']}"
        return {"status": "skipped", "detail": reason, "reason": reason}
    for i, st in enumerate(ms["stmts"]):
        if st["exc"]:
            return {"status": "skipped", "reason": _ms_skip_reason(st["exc"]),
                    "detail": f"stmt {i}: {st['exc']['type']}: {st['exc']['msg']}"}
    if ob is None:
        return {"status": "not run", "detail": ""}
    if ob.get("fail"):
        return {"status": "error", "detail": f"opbuild {ob['fail']}", "cause": f"{ob['fail']}"}
    random_values = False
    for i, (m, o) in enumerate(zip(ms["stmts"], ob["stmts"])):
        src = example["stmts"][i]["source"].strip().splitlines()[0][:100]
        if o["exc"]:
            name = missing_name(o["exc"])
            if name is not None and not name.startswith(("AttributeError", "ImportError", "ModuleNotFound")):
                return {"status": "missing name", "cause": name, "detail": f"stmt {i} `{src}`"}
            cause = f"{o['exc']['type']}: {o['exc']['msg']}"
            return {"status": "error", "cause": cause[:200], "detail": f"stmt {i} `{src}`"}
        varies = bool(ms2 and not ms2.get("fail") and i < len(ms2["stmts"])
                      and same_output(m["out"], ms2["stmts"][i]["out"]) is not None)
        random_values = random_values or varies
        diff = same_output(m["out"], o["out"], numbers=not varies)
        if diff is not None:
            return {"status": "value differs", "detail": f"stmt {i} `{src}`: {diff}",
                    "expected": m["out"][:400], "got": o["out"][:400]}
    return {"status": "passes", "detail": "", "random": random_values}


def classify_blocks(program: dict, ms: dict | None, ob: dict | None, ms2: dict | None = None) -> list[dict]:
    """Per statement (a tutorial's code block) of ``program``: ``{"status", "detail"}`` with status
    ``equal``, ``value differs``, ``error`` (``cause``: type and first line, or the missing name),
    ``left out`` (MindSpore itself raised there, or never got there: ``reason``; ``same error`` says whether
    opbuild raised the same exception type) or ``not run``. Unlike :func:`classify`, a statement's failure does
    not decide the others': every statement is compared on its own, after the earlier ones ran."""
    out = []
    ms_st = (ms or {}).get("stmts", [])
    ob_st = (ob or {}).get("stmts", [])
    for i, stmt in enumerate(program["stmts"]):
        src = (stmt["source"].strip().splitlines() or [""])[0][:100]
        o = ob_st[i] if i < len(ob_st) else None
        if ms is None:
            out.append({"status": "not run", "detail": "not recorded"})
            continue
        if i >= len(ms_st):
            reason = f"MindSpore {ms['fail']}" if ms.get("fail") and i == len(ms_st) else "after a MindSpore stop"
            out.append({"status": "left out", "reason": reason, "detail": src})
            continue
        m = ms_st[i]
        if m["exc"]:
            same = bool(o and o["exc"] and o["exc"]["type"] == m["exc"]["type"])
            out.append({"status": "left out", "reason": _ms_skip_reason(m["exc"]), "same error": same,
                        "detail": f"`{src}`: {m['exc']['type']}: {m['exc']['msg'][:120]}"})
            continue
        if o is None:
            cause = f"opbuild {ob['fail']}" if ob and ob.get("fail") and i == len(ob_st) else "not run"
            out.append({"status": "error" if ob else "not run", "cause": cause, "detail": f"`{src}`"})
            continue
        if o["exc"]:
            name = missing_name(o["exc"])
            cause = (f"missing {name}" if name is not None and not name.startswith(
                ("AttributeError", "ImportError", "ModuleNotFound")) else f"{o['exc']['type']}: {o['exc']['msg']}")
            out.append({"status": "error", "cause": cause[:200], "detail": f"`{src}`"})
            continue
        m2 = (ms2 or {}).get("stmts", [])
        varies = bool(i < len(m2) and not m2[i]["exc"] and same_output(m["out"], m2[i]["out"]) is not None)
        diff = same_output(m["out"], o["out"], numbers=not varies)
        if diff is not None:
            out.append({"status": "value differs", "detail": f"`{src}`: {diff}", "random": varies,
                        "expected": m["out"][:400], "got": o["out"][:400]})
        else:
            out.append({"status": "equal", "detail": "", "random": varies})
    return out
