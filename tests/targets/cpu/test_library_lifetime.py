"""How long a kernel's shared object stays mapped (targets/cpu/loader.py, builder/memory.py).

The process keeps the OPBUILD_LOADED_KERNELS most recently used kernels; a kernel dropped from that table and
held by no compiled graph has its shared object closed. Each open object costs ~5 memory mappings, and Linux
refuses mappings past vm.max_map_count (65530): a process that kept every kernel it ever loaded (a long
training run over changing shapes, a test suite) ended with dlopen failing "failed to map segment". The
thread-pool runtimes kernels bring in (libgomp) are never unloaded with them. Each case runs in a fresh
interpreter: what it maps is the subject."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_python

pytestmark = pytest.mark.slow

PRELUDE = r"""
import ctypes, gc, json, sys
import numpy as np
from opbuild.builder import Builder
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY


def spec(op, rows):
    return REGISTRY[op].spec({}, [TensorType((rows, 3), "float32")])


def mapped(path):
    return any(line.rstrip().endswith(path) for line in open("/proc/self/maps"))


def kernel_objects():
    return {line.split()[-1] for line in open("/proc/self/maps") if "kernel_meta" in line and ".so" in line}


def run(kernel, rows):
    x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
    out = np.empty_like(x)
    kernel.fn((ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data))
    return out, x
"""

HELD = PRELUDE + r"""
b = Builder()
(square,), _ = b.build([spec("Square", 4)])
path = square.lib.path
(neg,), _ = b.build([spec("Neg", 4)])  # the table holds one kernel: Square is dropped from it
evicted = list(b.memory.kernels.values()) == [neg]
gc.collect()
held_mapped = mapped(path)
out, x = run(square, 4)  # still callable: this reference holds it
fn = square.fn
del square
gc.collect()
fn_mapped = mapped(path)  # a graph holds function pointers, not LoadedKernels: they hold the object too
out2, _ = run(type("K", (), {"fn": fn})(), 4)
del fn
gc.collect()
print(json.dumps({"evicted": evicted, "held": held_mapped, "fn_held": fn_mapped, "released": not mapped(path),
                  "ok": bool(np.array_equal(out, x * x) and np.array_equal(out2, x * x))}))
"""


def test_a_kernel_stays_mapped_while_held_and_is_closed_when_dropped(tmp_path):
    got = _run(HELD, tmp_path, OPBUILD_LOADED_KERNELS="1")
    assert got == {"evicted": True, "held": True, "fn_held": True, "released": True, "ok": True}


MANY = PRELUDE + r"""
b = Builder()
peak = 0
for rows in range(1, 41):  # 40 distinct kernels, one build (one shared object) each, none kept
    (k,), report = b.build([spec("Square", rows)])
    out, x = run(k, rows)
    assert np.array_equal(out, x * x)
    del k
    gc.collect()
    peak = max(peak, len(kernel_objects()))
table = len(b.memory.kernels)
(again,), report = b.build([spec("Square", 40)])  # still in the table: served from memory
(old,), report2 = b.build([spec("Square", 1)])  # dropped long ago: loaded again from disk, not rebuilt
print(json.dumps({"peak": peak, "table": table, "libs": len(b.memory.libs),
                  "recent": [(r.status, r.source) for r in report.kernels],
                  "old": [(r.status, r.source) for r in report2.kernels], "built": report2.built}))
"""


def test_a_long_process_keeps_a_bounded_number_of_objects_open(tmp_path):
    got = _run(MANY, tmp_path, OPBUILD_LOADED_KERNELS="5")
    assert got["table"] == 5 and got["libs"] <= 6
    assert got["peak"] <= 6  # without closing: 40 objects mapped at the end
    assert got["recent"] == [["reused", "memory"]]
    assert got["old"] == [["reused", "local"]] and got["built"] == 0


def test_by_default_the_process_keeps_every_kernel_it_used_recently(tmp_path):
    got = _run(MANY, tmp_path)
    assert got["table"] == 40 and got["peak"] == 40
    assert got["old"] == [["reused", "memory"]]


OPENMP = r"""
import ctypes, gc, json, os, subprocess, sys, tempfile
from opbuild.targets.cpu import loader

src = '''
void k(void *const *a) {
  double *x = (double *)a[0];
  #pragma omp parallel for
  for (int i = 0; i < 4096; i++) x[i] = i * 0.5;
}
'''
d = tempfile.mkdtemp()
paths = []
for i in range(2):
    with open(f"{d}/k{i}.c", "w") as f:
        f.write(src)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-fopenmp", f"{d}/k{i}.c", "-o", f"{d}/k{i}.so"], check=True)
    paths.append(f"{d}/k{i}.so")

def gomp_mapped():
    return any("libgomp" in line for line in open("/proc/self/maps"))

before = gomp_mapped()
import numpy as np
x = np.zeros(4096)
k = loader.load_kernel(paths[0], "k", "k")
k.fn((ctypes.c_void_p * 1)(x.ctypes.data))  # starts libgomp's pool
first = bool(x[4095] == 2047.5)
del k
gc.collect()
closed = not any(line.rstrip().endswith(paths[0]) for line in open("/proc/self/maps"))
after = gomp_mapped()
x[:] = 0
k = loader.load_kernel(paths[1], "k", "k")  # the pool's threads are still there and still work
k.fn((ctypes.c_void_p * 1)(x.ctypes.data))
print(json.dumps({"before": before, "first": first, "closed": closed, "gomp_kept": after,
                  "second": bool(x[4095] == 2047.5)}))
"""


def test_the_openmp_runtime_outlives_the_kernels_that_loaded_it(tmp_path):
    got = _run(OPENMP, tmp_path, OMP_NUM_THREADS="2")
    assert got == {"before": False, "first": True, "closed": True, "gomp_kept": True, "second": True}


EXHAUSTED = PRELUDE + r"""
import mmap, os
square = spec("Square", 4)
if sys.argv[1] == "warm":  # the entry is in kernel_meta, not loaded in this process
    (k,), _ = Builder().build([square])
    del k
    gc.collect()
b = Builder()
b.build([spec("Neg", 4)])  # imports and first loads before the mappings run out
hog = []
try:
    while True:  # each shared anonymous mapping is its own (the kernel merges none of them)
        hog.append(mmap.mmap(-1, 4096))
except OSError:
    pass
for _ in range(3):  # enough for Python to go on, not for a shared object
    hog.pop().close()
try:
    b.build([square])
    out = {"raised": None}
except MemoryError as e:
    out = {"raised": type(e).__name__, "msg": str(e)}
del hog
gc.collect()
(k,), report = b.build([square])
out["after"] = [(r.status, r.source) for r in report.kernels]
from opbuild.cache.quarantine import QUARANTINE_DIR
quarantine = os.path.join(os.environ["OPBUILD_CACHE_PATH"], "rank_0", "kernel_meta", QUARANTINE_DIR)
out["quarantined"] = os.listdir(quarantine) if os.path.isdir(quarantine) else []
print(json.dumps(out))
"""


@pytest.mark.parametrize("warm", ["warm", "cold"])
def test_running_out_of_mappings_is_a_clear_error_that_keeps_the_entry(tmp_path, warm):
    """Before: dlopen's "failed to map segment" was taken for a damaged entry, quarantined, rebuilt, and the
    rebuilt binary failed the same way (a CompileError naming no cause)."""
    with open("/proc/sys/vm/max_map_count") as f:
        limit = int(f.read())
    if limit > 1_000_000:
        pytest.skip(f"vm.max_map_count is {limit}: too many mappings to exhaust in a test")
    proc = run_python(EXHAUSTED, warm, env={"OPBUILD_CACHE_PATH": str(tmp_path), "RANK_ID": "",
                                            "OPBUILD_PROGRESS": "0", "OPBUILD_LOADED_KERNELS": ""})
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["raised"] == "MappingsExhaustedError"
    assert "vm.max_map_count" in got["msg"] and "OPBUILD_LOADED_KERNELS" in got["msg"] and "intact" in got["msg"]
    assert got["after"] == [["reused", "local"]]  # the entry (built before, or by the failed call) serves as is
    assert got["quarantined"] == []


def _run(code: str, tmp_path, **env: str) -> dict:
    proc = run_python(code, env={"OPBUILD_CACHE_PATH": str(tmp_path), "RANK_ID": "", "OPBUILD_LOADED_KERNELS": "",
                                 "OPBUILD_PROGRESS": "0", **env})
    return json.loads(proc.stdout.strip().splitlines()[-1])
