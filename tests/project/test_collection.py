"""The README's test command collects every test file, and no folder has a name that tools skip.

pytest's default ``norecursedirs`` skips folders named ``build``, ``dist``, ``*.egg`` and ``venv`` (and
packaging tools treat such names as output): a test folder so named silently never runs. This test runs the
README's test command with ``--collect-only`` and compares the files it lists with every
``tests/**/test_*.py`` on disk.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SKIPPED_NAMES = {"build", "dist", "venv", ".venv", "node_modules"}


def readme_test_command() -> list[str]:
    """The pytest arguments of the README's second command (the one that sets up and runs the tests)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"-m pytest([^\n&`]*)\n", text)
    assert m, "README.md has no `python -m pytest ...` command"
    return m.group(1).split()


def test_readme_and_ci_run_the_same_command():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    args = readme_test_command()
    assert ("-m pytest " + " ".join(args)).strip() in ci, "CI must run exactly the README's test command"


def test_every_test_file_is_collected():
    args = [a for a in readme_test_command() if a != "-q"]
    proc = subprocess.run([sys.executable, "-m", "pytest", *args, "--collect-only", "-q", "-p", "no:cacheprovider"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    collected = {line.split("::", 1)[0] for line in proc.stdout.splitlines() if "::" in line}
    on_disk = {p.relative_to(REPO).as_posix() for p in (REPO / "tests").rglob("test_*.py")}
    missing = sorted(on_disk - collected)
    assert not missing, f"test files the README's command never collects: {missing}"


@pytest.mark.parametrize("top", ["src", "tests"])
def test_no_folder_named_like_build_output(top):
    bad = [p.relative_to(REPO).as_posix() for p in (REPO / top).rglob("*")
           if p.is_dir() and p.name in SKIPPED_NAMES]
    assert not bad, f"folders that pytest or packaging tools skip: {bad}"
