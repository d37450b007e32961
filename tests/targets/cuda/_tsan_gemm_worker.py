"""Subprocess of test_gemm_tiles.py, started with ThreadSanitizer's runtime preloaded: the tiled GEMMs of
suite_gpugemm.py (float32 and float16 products, two convolutions and an input gradient) built with
``-fsanitize=thread`` and run with 4 threads in each of 2 blocks; ThreadSanitizer reports any data race on
the staged tiles on stderr. Prints ``ran <n>`` at the end."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root: tests.targets.cuda

from tests.targets.cuda.host_threads import ThreadedHostKernels  # noqa: E402
from tests.targets.cuda.suite_gpugemm import cases  # noqa: E402


def main() -> None:
    picked = [c for c in cases() if c.spec.inputs[0].dtype in ("float32", "float16")]
    suite = ([c for c in picked if "Conv" not in c.spec.op][:6]
             + [c for c in picked if c.spec.op == "Conv2D"][:2]
             + [c for c in picked if c.spec.op == "Conv2DBackpropInput"][:1])
    with tempfile.TemporaryDirectory() as tmp:
        host = ThreadedHostKernels([c.spec for c in suite], Path(tmp), threads=4, blocks=2,
                                   flags=("-fsanitize=thread", "-g"))
        for i, case in enumerate(suite):
            host.run(i, case.spec, case.inputs())
    print(f"ran {len(suite)}")


if __name__ == "__main__":
    main()
