"""``--path`` naming a file, or a path through one: a usage error (exit 2) that names the file, not the
stats of an empty cache that "does not exist yet" (one never can exist there) and an advice to reset
counters."""

from __future__ import annotations

import pytest

from opbuild.cli import main


@pytest.mark.parametrize("command", ["stats", "ls", "verify", "prune"])
@pytest.mark.parametrize("below", ["", "sub/dir"])
def test_a_file_as_the_cache_path_is_a_usage_error(tmp_path, capsys, command, below) -> None:
    plain = tmp_path / "notes.txt"
    plain.write_text("a file, not a cache\n")
    given = plain / below if below else plain
    with pytest.raises(SystemExit) as info:
        main(["cache", command, "--path", str(given)])
    assert info.value.code == 2
    out = capsys.readouterr()
    assert f"{plain} is a file, not a directory" in out.err and "does not exist yet" not in out.out
    assert plain.read_text() == "a file, not a cache\n"


def test_a_missing_cache_path_still_reports_an_empty_cache(tmp_path, capsys) -> None:
    assert main(["cache", "stats", "--path", str(tmp_path / "new")]) in (0, None)
    assert "(does not exist yet)" in capsys.readouterr().out


@pytest.mark.parametrize("archive", ["folder", "/dev/null"])
def test_importing_what_is_not_a_file_says_so(tmp_path, capsys, archive) -> None:
    if archive == "folder":
        archive = str(tmp_path / "folder")
        (tmp_path / "folder").mkdir()
    with pytest.raises(SystemExit) as info:
        main(["cache", "import", "--path", str(tmp_path / "cache"), archive])
    assert info.value.code == 2
    assert f"{archive} is not a regular file; give the .tar.gz" in capsys.readouterr().err
