"""kernel_meta/.memo.json: values derived from files (compiler --version, generator source digests), memoised
by path, size and mtime, and derived again whenever the file changes or the memo is unusable."""

from __future__ import annotations

import json
import os

import pytest

from opbuild.cache.layout import MEMO_FILE
from opbuild.cache.statmemo import StatMemo
from opbuild.targets.cpu import kernels
from opbuild.targets.cpu.kernels.registry import _source_digest
from tests.cache._util import env_for, kernel_meta
from tests.conftest import run_python


def _counting(value: str, calls: list[str]):
    def derive() -> str:
        calls.append(value)
        return value

    return derive


def test_value_is_memoised_across_processes_and_rederived_when_the_file_changes(tmp_path):
    f = tmp_path / "tool"
    f.write_text("v1")
    calls: list[str] = []
    assert StatMemo(tmp_path).get("k", str(f), _counting("one", calls)) == "one"
    assert StatMemo(tmp_path).get("k", str(f), _counting("two", calls)) == "one"  # a new process: memoised
    assert calls == ["one"]

    f.write_text("v22")  # new size
    assert StatMemo(tmp_path).get("k", str(f), _counting("three", calls)) == "three"
    st = f.stat()
    f.write_text("v33")  # same size, new mtime
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert StatMemo(tmp_path).get("k", str(f), _counting("four", calls)) == "four"
    assert StatMemo(tmp_path).get("other", str(f), _counting("five", calls)) == "five"  # kinds are separate
    assert calls == ["one", "three", "four", "five"]


@pytest.mark.parametrize("damage", [b"", b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_damaged_memo_is_rederived_and_rewritten(tmp_path, damage):
    f = tmp_path / "tool"
    f.write_text("x")
    (tmp_path / MEMO_FILE).write_bytes(damage)
    calls: list[str] = []
    assert StatMemo(tmp_path).get("k", str(f), _counting("v", calls)) == "v"
    assert calls == ["v"]
    assert list(json.loads((tmp_path / MEMO_FILE).read_text()).values()) == ["v"]


@pytest.mark.parametrize("damage", ["directory", "fifo", "symlink", "nested"])
def test_damaged_memo_is_moved_aside_and_works_again(tmp_path, damage):
    """Whatever is in the memo's place (a directory, which a rename cannot replace, a FIFO, which must not
    block the reader, a symlink, which must not be written through, JSON nested past the parser's recursion
    limit) costs one derivation: it is moved to quarantine (a directory, FIFO or symlink) or overwritten, and
    the next process finds the value memoised."""
    f = tmp_path / "tool"
    f.write_text("x")
    memo = tmp_path / MEMO_FILE
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    if damage == "directory":
        memo.mkdir()
        (memo / "x").write_text("keep me")
    elif damage == "fifo":
        os.mkfifo(memo)
    elif damage == "symlink":
        memo.symlink_to(outside)
    else:
        memo.write_text("[" * 100_000)
    calls: list[str] = []
    assert StatMemo(tmp_path).get("k", str(f), _counting("v", calls)) == "v"
    assert StatMemo(tmp_path).get("k", str(f), _counting("v", calls)) == "v"
    assert calls == ["v"]  # derived once, then read back from the repaired memo
    assert memo.is_file() and not memo.is_symlink() and list(json.loads(memo.read_text()).values()) == ["v"]
    assert outside.read_text() == "{}"  # never written through the symlink
    moved = sorted(p.name for p in (tmp_path / "quarantine").iterdir()) if damage != "nested" else []
    if damage != "nested":
        assert len(moved) == 2 and moved[1].endswith(".reason")  # the damaged thing and why it was moved
    if damage == "directory":
        assert (tmp_path / "quarantine" / moved[0] / "x").read_text() == "keep me"  # nothing deleted
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp.")] == []  # no temporary left


def test_missing_file_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        StatMemo(tmp_path).get("k", str(tmp_path / "absent"), lambda: "v")


def test_memoised_source_digest_is_the_digest(tmp_path):
    path = kernels.emitter("Conv2D").fn.__code__.co_filename
    assert StatMemo(tmp_path).file_digest(path) == _source_digest(path)
    assert StatMemo(tmp_path).file_digest(path) == _source_digest(path)  # now from the memo file


def test_build_memoises_compiler_version_and_generator_digests(tmp_path):
    """In a fresh process (codegen hashes are computed once per process), a build writes both kinds."""
    code = ("from opbuild.builder import Builder\nfrom opbuild.core.ir import TensorType\n"
            "from opbuild.ops import REGISTRY\n"
            "Builder().build([REGISTRY['Square'].spec({}, [TensorType((4,), 'float32')])])\n"
            "print(Builder().compiler().identity()['path'])\n")
    exe = run_python(code, env=env_for(tmp_path)).stdout.split()[-1]
    memo = json.loads((kernel_meta(tmp_path) / MEMO_FILE).read_text())
    kinds = {k.split("|", 2)[0]: k.split("|", 2)[1] for k in memo}
    assert kinds["version"] == exe
    files = {k.split("|")[1] for k in memo if k.startswith("sha256|")}
    assert kernels.emitter("Square").fn.__code__.co_filename in files
    assert any(f.endswith(os.path.join("targets", "cpu", "codegen.py")) for f in files)
    assert all(len(memo[k]) == 64 for k in memo if k.startswith("sha256|"))


def _fake_cc(tmp_path, log):
    """A compiler wrapper that logs every --version probe."""
    real = "/usr/bin/cc" if os.path.exists("/usr/bin/cc") else "gcc"
    cc = tmp_path / "cc-wrapper"
    cc.write_text(f'#!/bin/sh\ncase " $* " in *" --version "*) echo probe >> {log};; esac\nexec {real} "$@"\n')
    cc.chmod(0o755)
    return cc


def test_compiler_is_probed_once_and_again_after_an_upgrade(tmp_path):
    log = tmp_path / "probes"
    cc = _fake_cc(tmp_path, log)
    env = env_for(tmp_path / "root", CC=str(cc))
    code = ("from opbuild.builder import Builder\nfrom opbuild.core.ir import TensorType\n"
            "from opbuild.ops import REGISTRY\n"
            "Builder().build([REGISTRY['Square'].spec({}, [TensorType((4,), 'float32')])])\n")
    run_python(code, env=env)
    run_python(code, env=env)
    assert log.read_text().count("probe") == 1  # the second process used the memo
    cc.write_text(cc.read_text() + "# upgraded\n")
    run_python(code, env=env)
    assert log.read_text().count("probe") == 2

