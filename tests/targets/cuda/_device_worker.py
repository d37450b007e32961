"""Subprocess of test_device_warm.py: with the emulated GPU (its host builds in argv[1]) and the cache at
$OPBUILD_CACHE_PATH, run the executor tests' network forward, its gradients, a Momentum train step and a
PyNative op on device_target GPU; print the build counts and the results as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the tests package (emulation, networks)

import opbuild as ms  # noqa: E402
from opbuild import ops  # noqa: E402
from tests.targets.cuda.emulated_device import install  # noqa: E402
from tests.targets.cuda.gpu_nets import Grads, Net, data, train_momentum, weights  # noqa: E402


def main() -> None:
    driver = install(Path(sys.argv[1]))
    ms.set_device("GPU")
    ms.set_context(mode=ms.GRAPH_MODE)
    built = reused = 0
    net = Net(weights())
    y, idx = data()
    results = [net(y, idx).asnumpy().tolist()]
    built, reused = built + ms.build_report().built, reused + ms.build_report().reused
    results += [g.asnumpy().tolist() for g in Grads(net)(y, idx)]
    built, reused = built + ms.build_report().built, reused + ms.build_report().reused
    losses, _ = train_momentum(2)
    built, reused = built + ms.build_report().built, reused + ms.build_report().reused
    ms.set_context(mode=ms.PYNATIVE_MODE)
    results += [losses, ops.softmax(y, axis=-1).asnumpy().tolist()]
    report = ms.build_report()
    built, reused = built + report.built, reused + report.reused
    print(json.dumps({"built": built, "reused": reused, "host_compiles": driver.cubins.compiled,
                      "launches": driver.launches, "results": results}))


if __name__ == "__main__":
    main()
