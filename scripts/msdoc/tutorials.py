"""Extract the Python code of MindSpore's English tutorials from a git mirror of MindSpore's docs repository.

Pure Python (reads the mirror with ``git show``; imports no framework). A tutorial becomes one program in the
documented-examples runner's shape (``{"id", "group", "name", "stmts": [{"source", "want"}]}``): one
statement per code block, in the order the page gives them, so later blocks see earlier definitions. ``want``
is the ``text`` block that follows a code block (the output the page shows), kept for reading reports only.
Nothing of the tutorials' text is stored in the repository: it is read from the mirror at run time.
"""

from __future__ import annotations

import json
import re
import subprocess

# The tutorials a new user types first, in the order the site lists them. Parallel training (multi-device
# launches), model inference on Ascend and the custom-kernel pages (compilers, Ascend C) are left out.
TUTORIALS = [
    "beginner/quick_start.md", "beginner/tensor.md", "beginner/dataset.md", "beginner/model.md",
    "beginner/autograd.md", "beginner/train.md", "beginner/save_load.md",
    "beginner/accelerate_with_static_graph.md", "beginner/mixed_precision.md",
    "compile/static_graph.md", "compile/statements.md", "compile/operators.md",
    "compile/python_builtin_functions.md", "compile/static_graph_expert_programming.md",
    "custom_program/hook_program.md", "debug/pynative.md",
    "dataset/sampler.md", "dataset/eager.md", "dataset/augment.md", "dataset/python_objects.md",
    "dataset/cache.md", "dataset/dataset_autotune.md", "dataset/dataset_offload.md",
    "dataset/optimize.ipynb", "dataset/record.ipynb",
]
ROOT = "tutorials/source_en"

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```[ \t]*(?P<lang>[\w+-]*)[ \t]*$")


def _dedent(lines: list[str], indent: str) -> list[str]:
    return [ln[len(indent):] if ln.startswith(indent) else ln.lstrip() for ln in lines]


def _clean(code: str) -> str:
    """Notebook-only lines (shell escapes ``!pip``, magics ``%matplotlib``) become comments: Python cannot run
    them, and the block keeps its line numbers."""
    out = []
    code = code.replace("\u00a0", " ")  # non-breaking spaces the pages carry in some indentation
    for ln in code.split("\n"):
        s = ln.lstrip()
        out.append(ln[: len(ln) - len(s)] + "# " + s if s.startswith(("!", "%")) else ln)
    return "\n".join(out).rstrip("\n") + "\n"


def markdown_blocks(text: str) -> list[dict]:
    """``{"source", "want"}`` of every ```` ```python ```` block of a Markdown page (fences may be indented)."""
    blocks: list[dict] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not m.group("lang"):
            i += 1
            continue
        lang, indent = m.group("lang").lower(), m.group("indent")
        j = i + 1
        while j < len(lines) and not re.match(r"^[ \t]*```[ \t]*$", lines[j]):
            j += 1
        body = "\n".join(_dedent(lines[i + 1:j], indent))
        if lang in ("python", "py", "python3"):
            blocks.append({"source": _clean(body), "want": ""})
        elif lang == "text" and blocks and not blocks[-1]["want"]:
            blocks[-1]["want"] = body
        i = j + 1
    return blocks


def notebook_blocks(text: str) -> list[dict]:
    """``{"source", "want"}`` of every code cell of a Jupyter notebook (``want``: its stored text output)."""
    nb = json.loads(text)
    out = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        if not src.strip():
            continue
        want = []
        for o in cell.get("outputs", []):
            t = o.get("text") or o.get("data", {}).get("text/plain", "")
            want.append("".join(t) if isinstance(t, list) else t)
        out.append({"source": _clean(src), "want": "".join(want)})
    return out


def read_page(mirror: str, page: str, rev: str = "HEAD") -> str:
    """The text of ``tutorials/source_en/<page>`` at ``rev`` of the bare git ``mirror``."""
    return subprocess.run(["git", "-C", mirror, "show", f"{rev}:{ROOT}/{page}"], check=True,
                          capture_output=True, text=True).stdout


def extract(mirror: str, pages: list[str] | None = None, rev: str = "HEAD") -> list[dict]:
    """One program per tutorial page (pages without a Python block are kept, with no statements)."""
    out = []
    for page in pages or TUTORIALS:
        text = read_page(mirror, page, rev)
        blocks = notebook_blocks(text) if page.endswith(".ipynb") else markdown_blocks(text)
        name = page.rsplit(".", 1)[0]
        out.append({"id": f"tutorial:{name}", "group": name.split("/")[0], "name": name, "stmts": blocks})
    return out
