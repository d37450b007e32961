"""GPU entries are signed under OPBUILD_CACHE_SECRET like CPU ones (one entry format, one verifier): a cubin
whose code was changed, with its ``.json`` checksum recomputed, still passes every check but the MAC, and a
build with the secret quarantines and rebuilds it. Needs the ``cuda`` extra (NVRTC), no GPU."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from opbuild.cache import entry, signing
from opbuild.targets.cuda.errors import NvrtcNotFoundError
from opbuild.targets.cuda.nvrtc import Nvrtc

pytestmark = pytest.mark.slow

try:
    Nvrtc("sm_90")
except NvrtcNotFoundError as e:  # only when the cuda extra is not installed
    pytest.skip(f"NVRTC is not installed (pip install 'opbuild[cuda]'): {e}", allow_module_level=True)

WORKER = Path(__file__).with_name("_build_worker.py")
SECRET = "the GPU tests' cache secret"


def _build(root: Path) -> dict:
    env = dict(os.environ, OPBUILD_CACHE_PATH=str(root), OPBUILD_PROGRESS="0", OPBUILD_CACHE_SECRET=SECRET)
    env.setdefault("OPBUILD_CUDA_ARCH", "sm_90")
    proc = subprocess.run([sys.executable, str(WORKER)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_a_changed_cubin_with_a_recomputed_json_is_refused_under_the_secret(tmp_path):
    cold = _build(tmp_path)
    km = tmp_path / "rank_0" / "kernel_meta"
    key = signing.key_id(SECRET.encode())
    assert all(signing.signed_key((km / f"{n}.json").read_bytes()) == key for n in cold["names"])

    victim = cold["names"][0]
    cubin, js = km / f"{victim}.cubin", km / f"{victim}.json"
    data, meta = cubin.read_bytes(), json.loads(js.read_bytes())
    info = (km / f"{victim}.info").read_bytes()
    for at in range(len(data) // 2, len(data)):  # a byte of code: the ELF structure still checks out
        changed = data[:at] + bytes([data[at] ^ 0x40]) + data[at + 1:]
        result = dict(meta, sha256=hashlib.sha256(changed).hexdigest())
        if entry.verify(victim, info, result, entry.BinaryBytes(changed, ".cubin"), binary_suffix=".cubin").reason \
                is None:
            break
    else:
        pytest.fail("no byte of the cubin could be changed without failing its structural check")
    raw = js.read_bytes().replace(meta["sha256"].encode(), hashlib.sha256(changed).hexdigest().encode())
    js.write_bytes(raw)
    cubin.unlink()  # the batch's other entries keep the original
    cubin.write_bytes(changed)
    signer = signing.EntrySigner(SECRET.encode())
    assert signer.problem(victim, info, raw).startswith("bad MAC")

    again = _build(tmp_path)
    assert (again["repaired"], again["reused"], again["built"]) == (1, len(cold["names"]) - 1, 0)
    assert cubin.read_bytes() != changed  # rebuilt (on its own: not the batch's cubin), and signed again
    assert signer.problem(victim, info, js.read_bytes()) is None
    (note,) = (km / "quarantine").glob(f"{victim}.*.reason")
    assert note.read_text().startswith("bad MAC")
