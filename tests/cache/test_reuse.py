"""Reuse and invalidation: loaded, not compiled; one changed layer rebuilds only its kernels; a changed
compiler, OPBUILD_CFLAGS or code generator gives new keys; the build report and its log line."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import textwrap
from pathlib import Path

import pytest

from tests.cache import _net
from tests.cache._util import committed, env_for, kernel_meta, run_worker, statuses, verify_cache
from tests.conftest import REPO, run_python

pytestmark = pytest.mark.slow

NET = _net.branches([3, 4, 5, 6])  # 20 distinct kernels
SUMMARY = re.compile(
    r"^opbuild: (\d+) kernels?: (\d+) reused, (\d+) built(?:, (\d+) repaired)? \((\d+\.\d\d) s\)$")


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A cache root holding NET's kernels (built once for this module)."""
    root = tmp_path_factory.mktemp("reuse")
    res = run_worker({"net": NET}, env_for(root))
    assert res["report"]["built"] == 20
    return root


def _snapshot(km: Path) -> dict[str, tuple[int, str]]:
    """Inode and content of every entry file (dot files such as the statistics are not entries, and a .json's
    mtime records when the entry was last used)."""
    return {p.name: (p.stat().st_ino, hashlib.sha256(p.read_bytes()).hexdigest()) for p in km.iterdir()
            if p.is_file() and not p.name.startswith(".")}


def _ops(res: dict, status: str) -> list[str]:
    return sorted(k["op"] for k in res["report"]["kernels"] if k["status"] == status)


def test_warm_run_loads_every_kernel_and_logs_the_totals(warm):
    km = kernel_meta(warm)
    before = _snapshot(km)
    res = run_worker({"net": NET}, env_for(warm))
    rep = res["report"]
    assert (rep["built"], rep["reused"], rep["repaired"]) == (0, 20, 0)
    assert _snapshot(km) == before  # nothing rewritten: every entry was loaded as it was
    assert res["warnings"] == []
    (line,) = [m for m in res["info"] if m.startswith("opbuild:")]
    m = SUMMARY.match(line)
    assert m and m.groups()[:4] == ("20", "20", "0", None), line
    assert abs(float(m.group(5)) - rep["seconds"]) < 0.006


@pytest.mark.parametrize("change", ["width", "dtype", "attribute"])
def test_changing_one_layer_rebuilds_only_its_kernels(warm, tmp_path, change):
    root = tmp_path / "root"
    shutil.copytree(warm, root)
    base = NET + _net.branches([9], cast="float64")
    run_worker({"net": base}, env_for(root))
    new = [dict(b) for b in base]
    if change == "width":
        new[1]["w"] = 11
    elif change == "dtype":
        new[1]["dtype"] = "float64"
    else:
        new[4]["cast"] = "int32"
    res = run_worker({"net": new}, env_for(root))
    changed = _net.expected_kernels(new) - _net.expected_kernels(base)
    rep = res["report"]
    assert rep["built"] == len(changed) == (1 if change == "attribute" else 5)
    assert rep["reused"] == len(_net.expected_kernels(new)) - len(changed) and rep["repaired"] == 0
    assert _ops(res, "built") == sorted(op for op, *_ in changed)


def _cc_wrapper(tmp_path: Path) -> str:
    """A different compiler driver (a wrapper around the system one): a new compiler identity."""
    real = shutil.which("cc") or shutil.which("gcc")
    wrapper = tmp_path / "my-cc"
    wrapper.write_text(f'#!/bin/sh\nexec {real} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return str(wrapper)


@pytest.mark.parametrize("what", ["CC", "OPBUILD_CFLAGS"])
def test_new_compiler_or_flags_give_new_keys(warm, tmp_path, what):
    root = tmp_path / "root"
    shutil.copytree(warm, root)
    km = kernel_meta(root)
    old = set(committed(km))
    value = _cc_wrapper(tmp_path) if what == "CC" else "-DOB_TEST_FLAG=1 -fno-tree-vectorize"
    res = run_worker({"net": NET}, env_for(root, **{what: value}))
    assert res["report"]["built"] == 20 and res["report"]["reused"] == 0
    new = set(statuses(res))
    assert not new & old
    for name in new:
        info = json.loads((km / f"{name}.info").read_bytes())
        meta = json.loads((km / f"{name}.json").read_bytes())
        if what == "CC":
            assert info["compiler"]["path"] == value and meta["compile_command"][0] == value
        else:
            assert info["compiler"]["cflags"] == value.split()
            assert set(value.split()) <= set(meta["compile_command"])
    # The old toolchain's entries are still valid for the old toolchain.
    again = run_worker({"net": NET}, env_for(root))
    assert again["report"]["reused"] == 20 and set(statuses(again)) == old


IN_PROCESS = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, {here!r})
    import numpy as np
    import opbuild as ms
    import _net
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _net.branches([3, 4])
    xs = _net.make_inputs(net)
    out = []
    for flags in ["", "-DOB_IN_PROCESS=1", ""]:
        os.environ["OPBUILD_CFLAGS"] = flags
        ys = _net.make_net(net)(*[ms.Tensor(x) for x in xs])   # a new Cell: traced and built again
        _net.check_outputs(net, [y.asnumpy() for y in ys], xs)
        out.append(ms.build_report().as_dict())
    print(json.dumps(out))
""")


def test_changed_flags_in_the_same_process_are_not_served_from_memory(warm):
    """A process that changes OPBUILD_CFLAGS between builds gets kernels built with the new flags: the
    in-memory tier is keyed by the toolchain too, not only by the kernel."""
    code = IN_PROCESS.format(here=str(Path(__file__).parent))
    first, changed, back = json.loads(run_python(code, env=env_for(warm)).stdout.strip().splitlines()[-1])
    assert first["reused"] == 10
    assert changed["built"] == 10 and changed["reused"] == 0
    assert not {k["name"] for k in changed["kernels"]} & {k["name"] for k in first["kernels"]}
    assert back["reused"] == 10
    assert {k["name"] for k in back["kernels"]} == {k["name"] for k in first["kernels"]}


SQUARE = textwrap.dedent("""
    import numpy as np, opbuild as ms, opbuild.nn as nn, opbuild.ops as ops
    ms.set_context(mode=ms.GRAPH_MODE)
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.square = ops.Square()
        def construct(self, x):
            return self.square(x)
    y = Net()(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))).asnumpy()
    r = ms.build_report()
    print(y.tolist(), r.built, r.reused, r.kernels[0].name)
""")


def test_changed_code_generator_never_reuses_a_stale_binary(tmp_path):
    """Editing an op's code generator (here Square's C expression, in a copy of the source tree) gives new
    keys: the edited generator's kernel is compiled and used, and the original one still reused after."""
    root = tmp_path / "root"
    src = tmp_path / "src"
    shutil.copytree(REPO / "src" / "opbuild", src / "opbuild", ignore=shutil.ignore_patterns("__pycache__"))
    fam = src / "opbuild" / "ops" / "elementwise.py"
    text = fam.read_text()
    assert '"Square": Unary("x * x"' in text
    fam.write_text(text.replace('"Square": Unary("x * x"', '"Square": Unary("x * x + 1"'))

    def run(pythonpath: Path) -> list[str]:
        env = env_for(root, PYTHONPATH=str(pythonpath) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        return run_python(SQUARE, env=env).stdout.strip().splitlines()[-1].split("] ")

    vals, rest = run(REPO / "src")
    assert vals == "[1.0, 4.0, 9.0" and rest.split()[:2] == ["1", "0"]
    orig = rest.split()[2]
    vals, rest = run(src)
    assert vals == "[2.0, 5.0, 10.0" and rest.split()[:2] == ["1", "0"]
    assert rest.split()[2] != orig
    vals, rest = run(REPO / "src")
    assert vals == "[1.0, 4.0, 9.0" and rest.split() == ["0", "1", orig]
    assert verify_cache(kernel_meta(root)) == []


PYNATIVE = textwrap.dedent("""
    import json, numpy as np, opbuild as ms, opbuild.ops as ops
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(np.linspace(-2, 2, 7).astype(np.float32))
    ops.Exp()(x); ops.Tanh()(x); ops.Exp()(x)
    first = ms.build_report().as_dict()
    ops.Sigmoid()(x)
    second = ms.build_report().as_dict()
    print(json.dumps([first, second]))
""")


def test_report_of_pynative_builds_since_last_call(tmp_path):
    first, second = json.loads(run_python(PYNATIVE, env=env_for(tmp_path)).stdout.strip().splitlines()[-1])
    assert [k["op"] for k in first["kernels"]] == ["Exp", "Tanh"] and first["built"] == 2
    assert [k["op"] for k in second["kernels"]] == ["Sigmoid"] and second["built"] == 1
    for rep in (first, second):
        assert set(rep) == {"built", "reused", "repaired", "seconds", "kernels"}
        assert isinstance(rep["seconds"], float) and rep["seconds"] > 0
        for k in rep["kernels"]:
            assert set(k) == {"name", "op", "status", "seconds"} and k["status"] == "built"
            assert isinstance(k["seconds"], float)
