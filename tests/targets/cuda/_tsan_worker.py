"""Subprocess of test_math_kernels.py, started with ThreadSanitizer's runtime preloaded: the block-cooperative
gpumath kernels (linear algebra) and the one-thread permutations built with ``-fsanitize=thread`` and run with
4 threads in each of 2 blocks on their suite inputs; ThreadSanitizer reports any data race on stderr. Prints
``ran <n>`` at the end."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root: tests.targets.cuda

from opbuild.targets.cuda.kernels.linalg import OPS as LU_OPS  # noqa: E402
from opbuild.targets.cuda.kernels.linalg_qr import OPS as QR_OPS  # noqa: E402
from opbuild.targets.cuda.kernels.linalg_svd import OPS as SVD_OPS  # noqa: E402
from tests.targets.cuda.host_threads import ThreadedHostKernels  # noqa: E402
from tests.targets.cuda.suite_gpumath import cases  # noqa: E402


def main() -> None:
    ops = (*LU_OPS, *QR_OPS, *SVD_OPS, "Multinomial", "RandpermV2", "RandomShuffle")
    suite = [c for c in cases() if c.spec.op in ops]
    with tempfile.TemporaryDirectory() as tmp:
        host = ThreadedHostKernels([c.spec for c in suite], Path(tmp), threads=4, blocks=2,
                                   flags=("-fsanitize=thread", "-g"))
        for i, case in enumerate(suite):
            host.run(i, case.spec, case.inputs())
    print(f"ran {len(suite)}")


if __name__ == "__main__":
    main()
