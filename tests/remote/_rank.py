"""One rank of a multi-rank job, run as a subprocess by the shared-tier tests.

``python _rank.py OUT.json``: builds and runs ChainNet (environment: RANK_ID, OPBUILD_CACHE_PATH,
OPBUILD_REMOTE_CACHE, ...), checks every output against the reference interpreter (NumPy, float32:
rtol 1e-5, atol 1e-6) and writes the build report, the check and the rank's shared-tier counters to OUT.json.
With RANK_BARRIER=<dir>, it touches <dir>/ready.<rank> once imported and starts building only when <dir>/go
exists, so that the test can start all ranks together.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path

logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")

import numpy as np  # noqa: E402

import opbuild as ms  # noqa: E402
from opbuild.cache.shared.stats import read_stats  # noqa: E402
from opbuild.core import config, trace  # noqa: E402
from opbuild.runtime.reference import run_reference  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _net import ChainNet, inputs  # noqa: E402


def main(out: Path) -> None:
    ms.set_context(mode=ms.GRAPH_MODE)  # one graph, its kernels built in one batch (PYNATIVE_MODE is the default)
    net = ChainNet()
    xs = inputs()
    barrier = os.environ.get("RANK_BARRIER")
    if barrier:
        (Path(barrier) / f"ready.{config.rank_id()}").touch()
        deadline = time.monotonic() + 120
        while not (Path(barrier) / "go").exists():
            if time.monotonic() > deadline:
                sys.exit("barrier: no go within 120 s")
            time.sleep(0.01)
    t0 = time.perf_counter()
    outs = net(*[ms.Tensor(x) for x in xs])
    wall = time.perf_counter() - t0
    report = ms.build_report().as_dict(sources=True)
    graph, _ = trace.trace(net.construct, [ms.Tensor(x) for x in xs])
    refs = run_reference(graph, xs)
    ok = all(np.allclose(o.asnumpy(), r, rtol=1e-5, atol=1e-6) for o, r in zip(outs, refs))
    result = {"rank": config.rank_id(), "ok": ok, "report": report, "wall": wall,
              "counters": read_stats(config.cache_dir())}
    out.write_text(json.dumps(result))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
