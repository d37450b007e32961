#!/usr/bin/env python3
"""Record the parameter names of every ``mindspore.nn`` Cell's ``construct`` (MindSpore 2.10) into
tests/fixtures/mindspore/nn_construct_params.json: a network that calls a layer by keyword
(``self.relu(input=x)``) needs opbuild's layer to use the same names (tests/compat/test_construct_params.py).

    /tmp/ms/bin/python scripts/record_construct_params.py
"""

from __future__ import annotations

import inspect
import json
import sys

from ms_case_recorder import REPO

OUT = REPO / "tests" / "fixtures" / "mindspore" / "nn_construct_params.json"


def main() -> int:
    import mindspore
    from mindspore import nn

    params = {}
    for name in sorted(dir(nn)):
        cls = getattr(nn, name)
        if inspect.isclass(cls) and issubclass(cls, nn.Cell) and "construct" in cls.__dict__:
            params[name] = list(inspect.signature(cls.construct).parameters)[1:]
    OUT.write_text(json.dumps({"_meta": {"mindspore": mindspore.__version__}, "construct": params}, indent=1) + "\n")
    print(f"{len(params)} Cells -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
