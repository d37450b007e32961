"""Subprocess of the GPU cache tests: build a few GPU kernels (device_target GPU) into the cache at
$OPBUILD_CACHE_PATH and print the build report's counts as JSON. With ``run`` as argument it then asks to run
one kernel eagerly (the no-GPU error)."""

from __future__ import annotations

import json
import sys

import numpy as np

import opbuild as ms
from opbuild.core.ir import TensorType
from opbuild.ops.registry import get as get_op
from opbuild.runtime.session import session


def specs():
    f32 = "float32"
    return [get_op("Add").spec({}, [TensorType((3, 1, 5), f32), TensorType((4, 1), f32)]),
            get_op("Exp").spec({}, [TensorType((4, 33), f32)]),
            get_op("ReduceSum").spec({"axis": (1,), "keep_dims": False}, [TensorType((6, 300), f32)]),
            get_op("Softmax").spec({"axis": -1}, [TensorType((8, 130), f32)])]


def main() -> None:
    ms.set_device("GPU")
    kernels, report = session().builder.build(specs())
    print(json.dumps({"built": report.built, "reused": report.reused, "repaired": report.repaired,
                      "names": sorted(k.name for k in kernels)}))
    if sys.argv[1:] == ["run"]:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        ms.ops.exp(ms.Tensor(np.ones((4, 33), np.float32)))


if __name__ == "__main__":
    main()
