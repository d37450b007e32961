"""The cache is trusted code: nothing outside kernel_meta is ever loaded (names in .json are not paths), and a
binary is loaded only once its size and sha256 match its .json.

Each test plants an "evil" shared library whose constructor writes a marker file the moment it is dlopen'ed,
so "never loaded" is observed directly rather than inferred from the outputs.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cache import _net
from tests.cache._util import copy_cache, env_for, run_worker, statuses, verify_cache

NET = _net.branches([3])  # 5 kernels

EVIL_C = r"""
#include <stdio.h>
__attribute__((constructor)) static void evil(void) {
    FILE *f = fopen(MARKER, "w");
    if (f) { fputs("loaded\n", f); fclose(f); }
}
__attribute__((visibility("default"))) void SYMBOL(void **args) { (void)args; }
"""


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
    root = tmp_path_factory.mktemp("safety")
    res = run_worker({"net": NET}, env_for(root))
    assert res["report"]["built"] == 5
    return root, sorted(statuses(res))


def _evil_so(dest: Path, marker: Path, symbol: str) -> bytes:
    """Compile the evil library to ``dest`` (exporting the victim's kernel symbol); returns its bytes."""
    src = dest.with_suffix(".c")
    src.write_text(EVIL_C)
    cc = shutil.which("cc") or shutil.which("gcc")
    subprocess.run([cc, "-shared", "-fPIC", f'-DMARKER="{marker}"', f"-DSYMBOL={symbol}", "-o", str(dest),
                    str(src)], check=True)
    return dest.read_bytes()


def _point_json_at(km: Path, name: str, binary: str, data: bytes) -> None:
    """Make the .json name ``binary`` with its true size and checksum (only the path can give it away)."""
    js = km / f"{name}.json"
    meta = json.loads(js.read_text())
    meta.update(binary=binary, size=len(data), sha256=hashlib.sha256(data).hexdigest())
    js.write_text(json.dumps(meta))


ATTACKS = ["json binary ../../evil.so", "json binary absolute path", "binary swapped for another library",
           "binary is a symlink out of the cache"]


@pytest.mark.parametrize("attack", ATTACKS)
def test_nothing_outside_the_cache_or_unverified_is_loaded(golden, tmp_path, attack):
    root, names = golden
    km = copy_cache(root, tmp_path / "root")
    victim = next(n for n in names if n.startswith("tanh_"))
    symbol = json.loads((km / f"{victim}.json").read_text())["symbol"]
    marker = tmp_path / "EVIL_WAS_LOADED"
    evil = tmp_path / "root" / "evil.so"  # == kernel_meta/../../evil.so
    data = _evil_so(evil, marker, symbol)
    if attack == "json binary ../../evil.so":
        _point_json_at(km, victim, "../../evil.so", data)
    elif attack == "json binary absolute path":
        _point_json_at(km, victim, str(evil), data)
    elif attack == "binary swapped for another library":
        shutil.copyfile(evil, km / f"{victim}.so")
    else:
        (km / f"{victim}.so").unlink()
        (km / f"{victim}.so").symlink_to(evil)
        _point_json_at(km, victim, f"{victim}.so", data)

    res = run_worker({"net": NET}, env_for(tmp_path / "root"))  # outputs are checked against NumPy

    assert not marker.exists(), "a binary that should have been rejected was loaded"
    assert statuses(res)[victim] == "repaired" and res["report"]["repaired"] == 1
    assert len(res["warnings"]) == 1 and victim in res["warnings"][0]
    assert verify_cache(km) == [] and not (km / f"{victim}.so").is_symlink()
    assert any(q.name.startswith(victim) for q in (km / "quarantine").iterdir())
