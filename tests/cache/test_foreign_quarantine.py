"""Whatever stands in the place of kernel_meta/quarantine (a regular file, a symbolic link to a folder
elsewhere) never stops a repair and is never written through (issue 23, point 6): it is moved into a fresh
quarantine folder first, where the user can still look at it."""

from __future__ import annotations

import pytest

from opbuild.builder import Builder
from opbuild.cache import quarantine
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from tests.cache._util import committed, kernel_meta


def _plant(km, kind: str, outside) -> None:
    q = km / "quarantine"
    if kind == "file":
        q.write_text("mine\n")
    else:
        outside.mkdir()
        q.symlink_to(outside, target_is_directory=True)


@pytest.mark.parametrize("kind", ["file", "symlink"])
def test_a_move_displaces_a_foreign_quarantine(tmp_path, kind) -> None:
    km = tmp_path / "kernel_meta"
    km.mkdir()
    _plant(km, kind, tmp_path / "outside")
    (km / "stray").write_text("stray\n")
    dest = quarantine.move(km, km / "stray", "test")
    q = km / "quarantine"
    assert dest is not None and dest.parent == q and q.is_dir() and not q.is_symlink()
    assert sorted(p.name.split(".")[0] for p in q.iterdir()) == ["quarantine", "stray", "stray"]  # + .reason
    if kind == "symlink":
        assert list((tmp_path / "outside").iterdir()) == []


@pytest.mark.parametrize("kind", ["file", "symlink"])
def test_a_damaged_entry_is_repaired_with_a_foreign_quarantine_in_place(tmp_path, monkeypatch, kind) -> None:
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "root"))
    spec = REGISTRY["Square"].spec({}, [TensorType((5,), "float32")])
    _, first = Builder().build([spec])
    assert [k.status for k in first.kernels] == ["built"]
    km = kernel_meta(tmp_path / "root")
    (name,) = committed(km)
    with open(km / f"{name}.so", "ab") as f:
        f.write(b"damage")
    _plant(km, kind, tmp_path / "outside")
    _, second = Builder().build([spec])
    assert [k.status for k in second.kernels] == ["repaired"]
    q = km / "quarantine"
    assert q.is_dir() and not q.is_symlink()
    held = sorted(p.name for p in q.iterdir())
    assert any(n.startswith("quarantine.") for n in held) and any(n.startswith(f"{name}.so.") for n in held)
    if kind == "symlink":
        assert list((tmp_path / "outside").iterdir()) == []
