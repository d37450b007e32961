"""Bad environments give one clear error: no C compiler (CC wrong, or nothing on PATH), a compiler that fails
(CompileError with the command, the compiler's output and the kept source), malformed OPBUILD_CFLAGS."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild.builder import Builder
from opbuild.core.errors import CompileError, CompilerNotFoundError, OpbuildError
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get

from .conftest import REPO, run_python

EXAMPLE = str(REPO / "examples" / "test_square.py")


def _kernel_files(root: Path) -> list[Path]:
    """Files of kernel entries (the compiler-version memo .compilers.json is not an entry)."""
    return sorted(p for p in root.rglob("*") if p.suffix in (".so", ".json", ".info") and not p.name.startswith("."))


@pytest.mark.parametrize("how", ["CC=/nonexistent", "PATH emptied"])
def test_missing_compiler_gives_one_message_saying_how_to_set_cc(how, tmp_path):
    cache = tmp_path / "cache"
    # An empty CC counts as unset; with PATH empty no cc, gcc or clang can be found.
    env = {"OPBUILD_CACHE_PATH": str(cache), **({"CC": "/nonexistent"} if how.startswith("CC") else
                                                 {"CC": "", "PATH": ""})}
    proc = run_python(EXAMPLE, env=env, check=False, cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == ""
    messages = [line for line in proc.stderr.splitlines() if line.startswith("opbuild.core.errors.")]
    assert len(messages) == 1, proc.stderr  # one error, not one per kernel or a cascade
    assert proc.stderr.count("no C compiler found") == 1
    (msg,) = messages
    assert msg.startswith("opbuild.core.errors.CompilerNotFoundError: no C compiler found")
    assert "set the CC environment variable" in msg and "export CC=" in msg
    assert ("'/nonexistent'" in msg) if how.startswith("CC") else ("tried: cc, gcc, clang" in msg)
    assert _kernel_files(tmp_path) == []


def _square_spec(n: int = 5):
    t = TensorType((n,), "float32")
    return get("Square").spec({}, [t])


def test_missing_compiler_error_type_in_process(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent")
    with pytest.raises(CompilerNotFoundError) as info:
        Builder().build([_square_spec()])
    err = info.value
    assert isinstance(err, OpbuildError) and isinstance(err, RuntimeError)
    assert err.tried == ["CC='/nonexistent' (not found or not executable)"]


_COMPILE_FAILURE = """
import json, numpy as np, opbuild as ms, opbuild.ops as ops
ms.set_context(mode=ms.PYNATIVE_MODE)
try:
    ops.Square()(ms.Tensor(np.ones(7, np.float32)))
except ms.CompileError as e:
    print(json.dumps({"cmd": e.cmd, "stderr": e.stderr, "source_path": e.source_path, "kernel": e.kernel,
                      "message": str(e)}))
"""
BAD_FLAG = "-fopbuild-no-such-flag"


def test_compiler_failure_raises_compile_error_with_command_output_and_source(tmp_path):
    cache = tmp_path / "cache"
    proc = run_python(_COMPILE_FAILURE, env={"OPBUILD_CACHE_PATH": str(cache), "OPBUILD_CFLAGS": BAD_FLAG})
    err = json.loads(proc.stdout)
    assert BAD_FLAG in err["cmd"] and Path(err["cmd"][0]).is_absolute()
    assert BAD_FLAG in err["stderr"]  # the compiler's own complaint
    source = Path(err["source_path"])
    assert source.is_file() and source.suffix == ".c"  # kept after the process is gone
    text = source.read_text()
    assert "OB_EXPORT void ob_" in text and "in0[o]" in text
    assert err["kernel"].startswith("square_") and source.name.startswith(err["kernel"] + ".")
    msg = err["message"]
    assert f"compiling kernel {err['kernel']} failed" in msg and BAD_FLAG in msg
    assert f"source: {source}" in msg and "compiler output:" in msg
    assert _kernel_files(cache) == []  # nothing half-written into the cache

    # Uncaught, the same information reaches the user in one traceback; fixing the flags then just works.
    env = {"OPBUILD_CACHE_PATH": str(cache), "OPBUILD_CFLAGS": BAD_FLAG}
    proc = run_python(EXAMPLE, env=env, check=False)
    assert proc.returncode == 1
    assert proc.stderr.count("opbuild.core.errors.CompileError: compiling kernel square_") == 1
    proc = run_python(EXAMPLE, env={"OPBUILD_CACHE_PATH": str(cache), "OPBUILD_CFLAGS": ""})
    assert proc.stdout.splitlines()[-1] == "output:  [ 1. 16. 81.]"


def test_compile_error_in_process(monkeypatch, tmp_path):
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    monkeypatch.setenv("OPBUILD_CFLAGS", BAD_FLAG)
    with pytest.raises(CompileError) as info:
        Builder().build([_square_spec(9)])
    err = info.value
    assert BAD_FLAG in err.cmd and BAD_FLAG in err.stderr and Path(err.source_path).is_file()


def test_malformed_cflags_name_the_variable(monkeypatch):
    monkeypatch.setenv("OPBUILD_CFLAGS", '-DX="unterminated')
    with pytest.raises(ValueError, match="OPBUILD_CFLAGS=.*No closing quotation"):
        Builder().build([_square_spec()])


def test_shape_errors_happen_before_any_c(pynative_mode, monkeypatch):
    """Bad shapes are reported while the op is applied, even with no compiler at all."""
    monkeypatch.setenv("CC", "/nonexistent")
    with pytest.raises(ms.ShapeError, match=r"Maximum: shapes cannot be broadcast"):
        ms.ops.Maximum()(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((2,), np.float32)))
