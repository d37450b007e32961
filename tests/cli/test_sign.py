"""`opbuild cache sign --trust` (cache/admin/adopt.py): entries written without OPBUILD_CACHE_SECRET (or under
another one) signed under it, so that setting a secret rebuilds nothing; damaged or tampered entries refused
and left as they were."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from opbuild.cache.signing import FIELD_BYTES

from .conftest import child_env, kernel_meta, names, run_cli, run_json

pytestmark = pytest.mark.slow

NEW = {"OPBUILD_CACHE_SECRET": "the secret set after the fact"}
OLD = {"OPBUILD_CACHE_SECRET": "the secret the cache was built under"}

# Six unfused kernels: enough for a graph manifest (builder/manifests.py MANIFEST_MIN_KERNELS).
NET = r"""
import json
import numpy as np
import opbuild as ms
from opbuild import nn, ops

ms.set_context(mode=ms.GRAPH_MODE)


class Net(nn.Cell):
    def construct(self, x):
        return ops.exp(ops.square(x) + x) - ops.neg(x) * x


x = np.arange(6, dtype=np.float32) / 10
out = Net()(ms.Tensor(x)).asnumpy()
r = ms.build_report()
print(json.dumps({"built": r.built, "reused": r.reused, "repaired": r.repaired,
                  "ok": bool(np.allclose(out, np.exp(x * x + x) + x * x, rtol=1e-6))}))
"""


def _net(root: Path, env: dict | None = None) -> dict:
    proc = subprocess.run([sys.executable, "-c", NET], env=child_env(root, OPBUILD_FUSION="0", **(env or {})),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["ok"]
    return got


def _manifests(root: Path) -> list[str]:
    gdir = kernel_meta(root) / ".graphs"
    return sorted(p.name for p in gdir.glob("*.json")) if gdir.is_dir() else []


def _files(root: Path) -> dict[str, bytes]:
    km = kernel_meta(root)
    return {p.name: p.read_bytes() for p in km.iterdir() if p.is_file() and not p.name.startswith(".")}


def test_signing_an_unsigned_cache_lets_a_build_with_the_secret_reuse_every_kernel(tmp_path):
    assert _net(tmp_path)["built"] == 6  # written without a secret
    assert len(_manifests(tmp_path)) == 1
    before = _files(tmp_path)
    got = run_json("cache", "sign", "--trust", root=tmp_path, env=NEW)
    assert sorted(got["signed"]) == sorted(names(tmp_path)) and len(got["signed"]) == 6
    assert got["already_signed"] == 0 and got["refused"] == [] and got["ok"]
    assert got["manifests_dropped"] == 1 and _manifests(tmp_path) == []  # it recorded the old .json digests
    after = _files(tmp_path)
    changed = sorted(n for n in after if after[n] != before[n])
    assert changed == sorted(f"{n}.json" for n in got["signed"])  # only the .json files, binaries untouched
    # The build with the secret: everything reused (nothing quarantined and rebuilt), the manifest written again.
    assert _net(tmp_path, NEW) == {"built": 0, "reused": 6, "repaired": 0, "ok": True}
    assert len(_manifests(tmp_path)) == 1
    assert run_json("cache", "verify", root=tmp_path, env=NEW)["problems"] == []
    # Idempotent: a second run signs nothing.
    again = run_json("cache", "sign", "--trust", root=tmp_path, env=NEW)
    assert again["signed"] == [] and again["already_signed"] == 6


def test_without_signing_the_same_build_rebuilds_every_kernel(tmp_path):
    """What the command saves (and proof the test above would fail without it)."""
    _net(tmp_path)
    assert _net(tmp_path, NEW) == {"built": 0, "reused": 0, "repaired": 6, "ok": True}


def test_entries_of_another_secret_are_signed_under_this_one(tmp_path):
    _net(tmp_path, OLD)
    got = run_json("cache", "sign", "--trust", root=tmp_path, env=NEW)
    assert len(got["signed"]) == 6 and set(got["resigned_from"]) == set(got["signed"])
    assert len(set(got["resigned_from"].values())) == 1 and got["key_id"] not in got["resigned_from"].values()
    assert _net(tmp_path, NEW)["reused"] == 6


def test_damaged_and_tampered_entries_are_refused_and_left_as_they_are(tmp_path):
    _net(tmp_path, NEW)  # signed under the secret
    km = kernel_meta(tmp_path)
    square, exp, neg = (next(n for n in sorted(names(tmp_path)) if n.startswith(op + "_"))
                        for op in ("square", "exp", "neg"))
    # A signed entry changed afterwards: its MAC under this very secret no longer matches.
    signed = (km / f"{square}.json").read_bytes()
    end = signed.rindex(b"}")
    (km / f"{square}.json").write_bytes(signed[:end] + b" " + signed[end:])  # still the same JSON object
    # An unsigned entry with a damaged binary (size kept): the checksum fails.
    (km / f"{exp}.json").write_bytes(b"{" + (km / f"{exp}.json").read_bytes()[FIELD_BYTES:])
    blob = bytearray((km / f"{exp}.so").read_bytes())
    blob[200] ^= 0xFF
    (km / f"{exp}.so").write_bytes(bytes(blob))
    # An unsigned sound entry: signed.
    (km / f"{neg}.json").write_bytes(b"{" + (km / f"{neg}.json").read_bytes()[FIELD_BYTES:])
    before = _files(tmp_path)
    got = run_json("cache", "sign", "--trust", root=tmp_path, env=NEW, expect=1)
    why = {r["name"]: r["why"] for r in got["refused"]}
    assert set(why) == {square, exp}
    assert why[square].startswith("bad MAC") and "binary sha256 does not match" in why[exp]
    assert got["signed"] == [neg] and got["already_signed"] == 3 and not got["ok"]
    after = _files(tmp_path)
    assert {n for n in after if after[n] != before[n]} == {f"{neg}.json"}


def test_it_needs_the_secret_and_the_users_word(tmp_path):
    _net(tmp_path)
    before = _files(tmp_path)
    proc = run_cli("cache", "sign", root=tmp_path, env=NEW)
    assert proc.returncode == 2 and "--trust" in proc.stderr and "planted" in proc.stderr
    proc = run_cli("cache", "sign", "--trust", root=tmp_path)
    assert proc.returncode == 2 and "OPBUILD_CACHE_SECRET, which is not set" in proc.stderr
    assert _files(tmp_path) == before


def test_human_output(tmp_path):
    _net(tmp_path, OLD)
    proc = run_cli("cache", "sign", "--trust", root=tmp_path, env=NEW)
    assert proc.returncode == 0, proc.stderr
    assert "signed 6 entries" in proc.stdout and "(6 had been signed under another secret)" in proc.stdout
    assert "removed 1 graph manifest" in proc.stdout
    proc = run_cli("cache", "sign", "--trust", root=tmp_path / "nowhere", env=NEW)
    assert proc.returncode == 0 and "nothing to sign" in proc.stdout
