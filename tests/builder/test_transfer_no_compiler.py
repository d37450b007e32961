"""A cache moved with ``opbuild cache export`` / ``opbuild cache import`` serves a process without a compiler,
as a plain copy of the folder does: the archive carries the toolchain identity recorded in ``.memo.json``
(cache/identity.py: the toolchain record), and the import records it in the destination."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from tests.builder.test_no_compiler import _no_compiler, _run
from tests.cache._util import env_for
from tests.conftest import run_python

pytestmark = pytest.mark.slow


def _cli(args: list[str], env: dict, check: bool = True) -> dict:
    proc = run_python(f"from opbuild.cli import main; raise SystemExit(main({args!r} + ['--json']))", env=env,
                      check=check)
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """An archive of a cache the network was built into (7 kernels) by a process with a compiler."""
    tmp = tmp_path_factory.mktemp("export")
    source = tmp / "source"
    out = _run(("same",), env_for(source)).stdout.split()
    assert out[:2] == ["REPORT", "7"], out  # built here, with the compiler found on this machine
    path = tmp / "cache.tar.gz"
    exported = _cli(["cache", "export", str(path)], env_for(source))
    assert exported["entries"] == 7 and not exported["skipped"]
    return path


def test_imported_without_a_compiler_it_serves_a_process_without_a_compiler(archive, tmp_path) -> None:
    fresh = tmp_path / "fresh"
    env = _no_compiler(fresh, tmp_path)  # the deployment image: neither the import nor the run finds gcc
    imported = _cli(["cache", "import", "--trust", str(archive)], env)
    assert len(imported["imported"]) == 7 and imported["ok"] and imported["skipped"] == []
    assert imported["compiler_from_archive"] and len(imported["toolchains"]) == 1
    out = _run(("same",), env).stdout.split()
    assert out[:3] == ["REPORT", "0", "7"], out  # every kernel reused, none built


def test_imported_with_a_compiler_it_serves_a_process_without_one(archive, tmp_path) -> None:
    fresh = tmp_path / "fresh"
    imported = _cli(["cache", "import", "--trust", str(archive)], env_for(fresh))
    assert len(imported["imported"]) == 7 and imported["ok"]
    out = _run(("same",), _no_compiler(fresh, tmp_path)).stdout.split()
    assert out[:3] == ["REPORT", "0", "7"], out


def test_an_archive_without_the_record_is_skipped_saying_why_without_a_compiler(archive, tmp_path) -> None:
    """An archive whose manifest records no toolchain (an older opbuild's): with no compiler here nothing can
    be matched, so every entry is skipped as another compiler's, and the detail says what is missing."""
    bare = tmp_path / "bare.tar.gz"
    with tarfile.open(archive) as src, tarfile.open(bare, "w:gz") as dst:
        for member in src:
            if member.name == "opbuild-cache.sig":  # its index covers the manifest rewritten below: an unsigned copy
                continue
            data = src.extractfile(member).read()
            if member.name == "opbuild-cache.json":
                manifest = json.loads(data)
                del manifest["toolchains"]
                data = json.dumps(manifest).encode()
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    env = _no_compiler(tmp_path / "fresh", tmp_path)
    imported = _cli(["cache", "import", "--trust", str(bare)], env)
    assert imported["imported"] == [] and imported["toolchains"] == []
    assert {s["category"] for s in imported["skipped"]} == {"compiler"} and len(imported["skipped"]) == 7
    assert "records no toolchain" in imported["skipped"][0]["detail"]
    assert _run(("same",), env, check=False).returncode == 3  # still no compiler and nothing recorded
