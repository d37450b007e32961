"""How far the road from a Cell to its kernels reaches: profile the first call of the README's ResNet.

    python benchmarks/road_profile.py            # a cold first call: a fresh cache, every kernel compiled
    python benchmarks/road_profile.py --warm     # a first call in a new process over a filled cache
    python benchmarks/road_profile.py --json out.json

Runs ``examples/resnet.py``'s network (``resnet_small``, its default arguments) under ``sys.setprofile`` (and
``threading.setprofile``, so the build's worker threads count too) and prints, for the calls made by the first
``net(x)`` only (imports of the package before it are not counted; a module body run by a lazy import during the
call is not a function call and is not counted either):

* ``files``: the distinct source files of opbuild in which a function was entered,
* ``max_depth``: the largest number of opbuild frames on one thread's stack at once (tracing counts the
  user's nesting of cells: each level adds ``Cell.__call__`` and ``construct``),
* ``build_depth``: the same, over the stacks outside the trace (compiling the graph, building, running),
* ``calls``: the number of opbuild function calls.

The figures describe the code's structure, not its speed; docs/architecture.md records them ("The road,
measured"). Each run takes one cold build of the network (a few seconds of compiling per kernel batch).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def profile_first_call() -> dict:
    """Import opbuild, build the example's network and profile its first call (in this process)."""
    import opbuild as ms
    from opbuild.models import resnet_input, resnet_small

    package = os.path.dirname(ms.__file__) + os.sep
    ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
    net = resnet_small(10, 8, seed=0)
    x = resnet_input(2, 16)
    files: Counter[str] = Counter()
    depth = {"max": 0, "build": 0, "calls": 0}
    trace_file = os.path.join(package, "core", "trace.py")
    lock = threading.Lock()

    def ours(frame) -> bool:
        return frame.f_code.co_filename.startswith(package)

    def profiler(frame, event, arg):
        if event != "call" or not ours(frame) or frame.f_code.co_name == "<module>":
            return
        n, f, tracing = 0, frame, False
        while f is not None:
            n += ours(f)
            tracing = tracing or (f.f_code.co_name == "trace" and f.f_code.co_filename == trace_file)
            f = f.f_back
        with lock:
            files[frame.f_code.co_filename[len(package):]] += 1
            depth["calls"] += 1
            depth["max"] = max(depth["max"], n)
            if not tracing:
                depth["build"] = max(depth["build"], n)

    threading.setprofile(profiler)
    sys.setprofile(profiler)
    try:
        net(x)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    report = ms.build_report()
    return {"files": len(files), "max_depth": depth["max"], "build_depth": depth["build"], "calls": depth["calls"],
            "built": report.built, "reused": report.reused, "file_list": sorted(files)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", action="store_true", help="fill the cache first, then profile a new process")
    parser.add_argument("--json", metavar="FILE", help="also write the figures (and the file list) as JSON")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(profile_first_call()))
        return 0
    with tempfile.TemporaryDirectory(prefix="road-profile-") as cache:
        env = dict(os.environ, OPBUILD_CACHE_PATH=cache, OPBUILD_PROGRESS="0", RANK_ID="0")
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
        cmd = [sys.executable, __file__, "--worker"]
        runs = 2 if args.warm else 1  # the warm profile is the second process's
        for _ in range(runs):
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
            if proc.returncode:
                sys.stderr.write(proc.stdout + proc.stderr)
                return 1
    result = json.loads(proc.stdout.splitlines()[-1])
    kind = "warm" if args.warm else "cold"
    print(f"{kind} first call of examples/resnet.py's network: {result['files']} files of opbuild entered, "
          f"max depth {result['max_depth']} opbuild frames ({result['build_depth']} outside the trace), "
          f"{result['calls']} calls "
          f"(built {result['built']}, reused {result['reused']})")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
