"""The tutorials harness (scripts/ms_tutorials.py): extraction of a page's code blocks, the per-block
classification, and the offline data sets' layout. No MindSpore and no docs mirror needed."""

from __future__ import annotations

import importlib.util
import json
import struct
import sys
from pathlib import Path

import numpy as np

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))
from msdoc.compare import classify_blocks  # noqa: E402
from msdoc.tutorials import markdown_blocks, notebook_blocks  # noqa: E402

PAGE = """# A page

```python
x = 1
print(x)
```

```text
1
```

1. A step:

    ```python
    def f():
    \u00a0 \u00a0return 2
    ```

```bash
pip install something
```

``` python
!pip install other
y = f()
```
"""


def test_markdown_blocks_in_order_with_their_outputs():
    blocks = markdown_blocks(PAGE)
    assert [b["want"] for b in blocks] == ["1", "", ""]
    assert blocks[0]["source"] == "x = 1\nprint(x)\n"
    # An indented fence is dedented, and non-breaking spaces become spaces, so the block compiles.
    compile(blocks[1]["source"], "b1", "exec")
    # A shell escape becomes a comment and keeps the line numbers.
    assert blocks[2]["source"] == "# !pip install other\ny = f()\n"
    assert len(blocks) == 3  # the bash block is not Python


def test_notebook_code_cells():
    nb = {"cells": [{"cell_type": "markdown", "source": ["# t"]},
                    {"cell_type": "code", "source": ["a = 2\n", "a"], "outputs": [{"data": {"text/plain": ["2"]}}]},
                    {"cell_type": "code", "source": "", "outputs": []}]}
    assert notebook_blocks(json.dumps(nb)) == [{"source": "a = 2\na\n", "want": "2"}]


def _st(out="", exc=None):
    return {"out": out, "exc": exc}


def test_each_block_is_classified_on_its_own():
    prog = {"stmts": [{"source": s} for s in ("a", "b", "c", "d", "e")]}
    err = {"type": "ValueError", "msg": "bad"}
    ms = {"stmts": [_st("[1. 2.]"), _st("3"), _st(exc=err), _st("x"), _st("0.5")]}
    ob = {"stmts": [_st("[1. 2.]"), _st(exc={"type": "TypeError", "msg": "no"}), _st(exc=err), _st("y"),
                    _st("0.7")]}
    ms2 = {"stmts": [_st("[1. 2.]"), _st("3"), _st(exc=err), _st("x"), _st("0.9")]}
    rows = classify_blocks(prog, ms, ob, ms2)
    assert [r["status"] for r in rows] == ["equal", "error", "left out", "value differs", "equal"]
    assert rows[1]["cause"] == "TypeError: no"
    assert rows[2]["same error"] is True
    assert rows[4]["random"] is True  # MindSpore printed another number on its second run


def test_a_stopped_program_keeps_its_earlier_blocks():
    prog = {"stmts": [{"source": s} for s in ("a", "b", "c")]}
    ms = {"stmts": [_st("1"), _st("2"), _st("3")]}
    ob = {"stmts": [_st("1")], "fail": "timeout"}
    rows = classify_blocks(prog, ms, ob)
    assert [r["status"] for r in rows] == ["equal", "error", "error"]
    assert rows[1]["cause"] == "opbuild timeout"
    rows = classify_blocks(prog, {"stmts": [_st("1")], "fail": "crash (exit 1)"}, ob)
    assert [r["status"] for r in rows] == ["equal", "left out", "left out"]


def _offline_download():
    """The harness's stand-in ``download`` module, loaded from its file: its folder (which also holds a no-op
    ``matplotlib``) goes on the path of the harness's own processes only, never on this test process's."""
    spec = importlib.util.spec_from_file_location("_offline_download", SCRIPTS / "msdoc" / "offline" / "download.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.download


def test_offline_stand_ins_stay_off_this_process_path():
    assert not any(Path(p).name == "offline" for p in sys.path)
    if "matplotlib" in sys.modules:
        assert "offline" not in str(getattr(sys.modules["matplotlib"], "__file__", ""))


def test_offline_mnist_has_the_idx_layout(tmp_path):
    download = _offline_download()
    download("https://host/notebook/datasets/MNIST_Data.zip", str(tmp_path), kind="zip", replace=True)
    raw = (tmp_path / "MNIST_Data" / "train" / "train-images-idx3-ubyte").read_bytes()
    magic, n, h, w = struct.unpack(">IIII", raw[:16])
    assert (magic, h, w) == (2051, 28, 28) and len(raw) == 16 + n * 784
    labels = (tmp_path / "MNIST_Data" / "test" / "t10k-labels-idx1-ubyte").read_bytes()
    assert struct.unpack(">II", labels[:8])[0] == 2049
    assert np.frombuffer(labels[8:], np.uint8).max() < 10
