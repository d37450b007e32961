"""What signed local entries (OPBUILD_CACHE_SECRET) cost a warm start, per kernel.

Runnable as it is (about 20 s)::

    PYTHONPATH=src python benchmarks/bench_signing.py [--kernels N] [--repeat R]

Builds N Square kernels of distinct shapes twice into two caches, one unsigned and one under a secret, then
times, in this process:

* ``lookup``: ``KernelStore.lookup`` of every kernel (what a warm start does per kernel before ``dlopen``:
  read ``.json`` and ``.info``, compare, and verify; the binary's sha256 is memoised per inode after the first
  pass, as in a process that builds more than one graph) without and with the secret;
* ``manifest check``: ``KernelStore.check`` against recorded digests (a graph manifest's warm start);
* ``mac``: the MAC check alone (:meth:`opbuild.cache.signing.EntrySigner.problem`) on one entry's bytes;
* ``cold lookup``: a first lookup per kernel in a fresh store (binary hashed and ELF-checked too).

Prints the median per-kernel figures and writes benchmarks/results/signing.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "signing.json"
SECRET = "benchmark secret, 32 bytes long!"


def _build(root: Path, n: int, secret: str | None) -> list[tuple[str, bytes]]:
    from opbuild.builder import Builder
    from opbuild.core.ir import TensorType
    from opbuild.ops import REGISTRY

    os.environ["OPBUILD_CACHE_PATH"] = str(root)
    os.environ.pop("RANK_ID", None)
    if secret is None:
        os.environ.pop("OPBUILD_CACHE_SECRET", None)
    else:
        os.environ["OPBUILD_CACHE_SECRET"] = secret
    specs = [REGISTRY["Square"].spec({}, [TensorType((i + 2, 3), "float32")]) for i in range(n)]
    kernels, report = Builder().build(specs)
    assert report.built == n, report
    km = root / "rank_0" / "kernel_meta"
    return [(k.name, (km / f"{k.name}.info").read_bytes()) for k in kernels]


def _per_kernel_us(fn, items, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for item in items:
            fn(*item)
        times.append((time.perf_counter() - t0) / len(items) * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    from opbuild.cache import fsio, signing
    from opbuild.cache.local import KernelStore

    out: dict = {"kernels": args.kernels, "repeat": args.repeat, "python": sys.version.split()[0],
                 "machine": platform.machine()}
    with tempfile.TemporaryDirectory() as tmp:
        items = {}
        for label, secret in (("unsigned", None), ("signed", SECRET)):
            items[label] = _build(Path(tmp) / label, args.kernels, secret)
        stores, rows = {}, {}
        for label, secret in (("unsigned", None), ("signed", SECRET.encode())):
            km = Path(tmp) / label / "rank_0" / "kernel_meta"
            stores[label] = store = KernelStore(km, create=False, secret=secret)
            rows[label] = []
            for name, info in items[label]:
                found = store.lookup(name, info)
                assert found.status == "hit", found.reason
                js = fsio.read_small(str(km / f"{name}.json"))
                rows[label].append((name, hashlib.sha256(info).hexdigest(), hashlib.sha256(js).hexdigest(),
                                    found.result["sha256"], found.result["size"]))
            out[f"lookup_us_{label}"] = _per_kernel_us(store.lookup, items[label], args.repeat)
            out[f"check_us_{label}"] = _per_kernel_us(store.check, rows[label], args.repeat)
            colds = []
            for _ in range(args.repeat):  # a fresh store each pass: its binaries hashed and ELF-checked again
                cold = KernelStore(km, create=False, secret=secret)
                t0 = time.perf_counter()
                for name, info in items[label]:
                    cold.lookup(name, info)
                colds.append((time.perf_counter() - t0) / args.kernels * 1e6)
            out[f"cold_lookup_us_{label}"] = statistics.median(colds)
        km = Path(tmp) / "signed" / "rank_0" / "kernel_meta"
        name, info = items["signed"][0]
        raw = fsio.read_small(str(km / f"{name}.json"))
        signer = signing.EntrySigner(SECRET.encode())
        out["mac_us"] = _per_kernel_us(signer.problem, [(name, info, raw)] * 200, args.repeat)
        out["info_bytes"], out["json_bytes"] = len(info), len(raw)
    out["lookup_extra_us"] = out["lookup_us_signed"] - out["lookup_us_unsigned"]
    out["check_extra_us"] = out["check_us_signed"] - out["check_us_unsigned"]
    print(f"{args.kernels} kernels, median of {args.repeat} passes, .info {out['info_bytes']} B, "
          f".json {out['json_bytes']} B")
    print(f"{'per kernel':<28}{'unsigned':>10}{'signed':>10}")
    for key, label in (("lookup_us", "lookup (warm, memoised)"), ("check_us", "manifest check"),
                       ("cold_lookup_us", "first lookup (hash+ELF)")):
        print(f"{label:<28}{out[key + '_unsigned']:>8.1f}us{out[key + '_signed']:>8.1f}us")
    print(f"{'MAC check alone':<28}{'':>10}{out['mac_us']:>8.1f}us")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
