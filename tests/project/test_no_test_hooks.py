"""The package reads no test hook: ``OPBUILD_TEST_*`` variables are interpreted by tests/hooks/ alone, which a
test's subprocess installs from outside (tests/helpers.py: with_test_hooks); the hooks themselves work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ..helpers import with_test_hooks

REPO = Path(__file__).resolve().parents[2]


def test_no_opbuild_test_variable_under_src() -> None:
    found = [p.relative_to(REPO).as_posix() for p in (REPO / "src").rglob("*")
             if p.is_file() and p.suffix in (".py", ".c", ".h", ".txt", ".toml", ".cfg", ".json", ".md")
             and "OPBUILD_TEST_" in p.read_text(encoding="utf-8", errors="replace")]
    assert not found, f"the package reads test hooks (move them to tests/hooks/): {found}"


SCRIPT = """
import numpy as np, time, opbuild as ms
from opbuild.builder.compile import BatchCompiler
from opbuild.cache import fsio
t0 = time.perf_counter()
y = ms.ops.square(ms.Tensor(np.arange(4, dtype=np.float32)))
print(round(time.perf_counter() - t0, 3), hasattr(BatchCompiler.compile_batch, "__wrapped__"),
      hasattr(fsio.atomic_write, "__wrapped__"))
"""


def _run(tmp_path: Path, **hooks: object) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPBUILD_")}
    env.update(PYTHONPATH=os.pathsep.join([str(REPO / "src"), *filter(None, [os.environ.get("PYTHONPATH")])]),
               OPBUILD_CACHE_PATH=str(tmp_path / "cache"), OPBUILD_PROGRESS="0")
    env["RANK_ID"] = "0"
    return subprocess.run([sys.executable, "-c", "import opbuild as ms; ms.set_context(mode=ms.PYNATIVE_MODE)\n"
                           + SCRIPT], env=with_test_hooks(env, **hooks), capture_output=True, text=True, timeout=300)


def test_hooks_are_installed_from_outside_the_package(tmp_path: Path) -> None:
    log = tmp_path / "hook.log"
    proc = _run(tmp_path, OPBUILD_TEST_COMMIT_HOOK=f"0:{log}", OPBUILD_TEST_COMPILE_DELAY="0.5")
    assert proc.returncode == 0, proc.stderr
    seconds, compile_patched, writer_patched = proc.stdout.split()
    assert float(seconds) >= 0.5 and compile_patched == writer_patched == "True"
    stages = [line.split()[1:] for line in log.read_text().splitlines()]
    assert [s for s, _ in stages] == ["binary", "info"]  # inside the commit window: before the .json
    assert stages[0][1].startswith("square_")
    # Without the variables the folder on PYTHONPATH changes nothing.
    plain = _run(tmp_path / "plain")
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.split()[1:] == ["False", "False"]


def test_a_bad_hook_setting_is_refused_clearly(tmp_path: Path) -> None:
    proc = _run(tmp_path, OPBUILD_TEST_COMMIT_HOOK="soon")
    assert proc.returncode != 0 and "OPBUILD_TEST_COMMIT_HOOK='soon': expected <seconds>:<file>" in proc.stderr
