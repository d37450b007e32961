"""The README's and the docs' shell examples, run where practical (issue 23, point 13): the commands are taken
from the documents themselves, run in fresh processes against a private cache, and what the documents show of
their output (kernel counts, the model summary, the JSON keys) must be what the code prints today. Timings
are machine-dependent and not compared."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
CLI = (REPO / "docs" / "cli.md").read_text()


def _env(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPBUILD_") and k not in ("RANK_ID", "CC")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])
    env["OPBUILD_CACHE_PATH"] = str(root)
    return {**env, **extra}


def _shell_blocks(text: str) -> list[str]:
    return re.findall(r"```(?:bash)?\n(.*?)```", text, re.S)


def _run(argv: list[str], root: Path, cwd: Path = REPO, **extra: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, env=_env(root, **extra), cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{argv}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_readme_main_job_and_its_build_report_lines(tmp_path) -> None:
    """README step 1 (without its venv set-up): the tutorial program, then examples/resnet.py twice; the build
    report lines the README shows for resnet.py (kernel counts) are what it prints."""
    setup = next(b for b in _shell_blocks(README) if "examples/test_square.py" in b)
    scripts = re.findall(r"\.venv/bin/python (examples/\S+\.py)", setup)
    assert scripts == ["examples/test_square.py", "examples/resnet.py", "examples/resnet.py"]
    shown = re.findall(r"build report: (\d+) kernels?: (\d+) reused, (\d+) built", README)
    assert len(shown) == 2, shown
    reports = []
    for script in scripts:
        out = _run([sys.executable, script], tmp_path / "cache").stdout
        if script.endswith("resnet.py"):
            reports.append(re.findall(r"build report: (\d+) kernels?: (\d+) reused, (\d+) built", out)[0])
        else:
            assert "[ 1. 16. 81.]" in out  # the output the README's tutorial shows
    assert reports[0] == shown[0] and reports[1] == shown[1], (reports, shown)


def test_cli_md_onnx_run_example(tmp_path) -> None:
    """docs/cli.md's `opbuild run tests/fixtures/onnx/resnet.onnx --output-dir out`: the model line, the outputs
    and the kernel count it shows."""
    block = next(b for b in _shell_blocks(CLI) if "$ opbuild run tests/fixtures/onnx/resnet.onnx" in b)
    command, *shown = block.strip().splitlines()
    argv = shlex.split(command.removeprefix("$ "))
    assert argv[:2] == ["opbuild", "run"]
    proc = _run([sys.executable, "-m", "opbuild", *argv[1:-1], str(tmp_path / "out")], tmp_path / "cache")
    printed = proc.stdout + proc.stderr
    assert shown[0] in printed  # "<model>: opset 20, 27 nodes, 13 parameters"
    for line in shown:
        if line.startswith("output"):
            name = line.split()[1]
            assert (tmp_path / "out" / f"{name}.npy").is_file()
    want = re.search(r"opbuild: (\d+) kernels?: (\d+) reused, (\d+) built", block).groups()
    got = re.search(r"opbuild: (\d+) kernels?: (\d+) reused, (\d+) built", printed).groups()
    assert got == want, (got, want)


def test_cli_md_ls_json_example_has_the_keys_the_command_prints(tmp_path) -> None:
    block = next(b for b in _shell_blocks(CLI) if "$ opbuild cache ls --op square --sort size --json" in b)
    shown = set(re.findall(r'^\s*"(\w+)":', block, re.M))
    net = REPO / "tests" / "cli" / "elementwise_net.py"
    _run([sys.executable, str(net), "4"], tmp_path / "cache", cwd=tmp_path, OPBUILD_FUSION="0")  # a Square entry
    proc = _run([sys.executable, "-m", "opbuild", "cache", "ls", "--op", "square", "--sort", "size", "--json"],
                tmp_path / "cache")
    assert proc.stdout.count("\n") > 5  # indented over several lines, as the docs show it
    data = json.loads(proc.stdout)
    assert data["entries"]
    printed = set(data) | {k for e in data["entries"] for k in e}
    assert shown == printed, (shown ^ printed)


def test_docs_point_to_files_that_exist() -> None:
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = doc.read_text()
        for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", text):
            if "://" not in target:
                assert (doc.parent / target).is_file(), f"{doc.name} links to missing {target}"
        assert "DESIGN.md" not in text, f"{doc.name} names DESIGN.md, which is not part of the repository"
        assert not re.search(r"\bissues? #\d+", text, re.I), f"{doc.name} cites an issue number users cannot follow"
