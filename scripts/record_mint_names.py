#!/usr/bin/env python3
"""Record the public names of MindSpore 2.10's ``mint``, ``mint.nn``, ``mint.nn.functional``, ``mint.linalg``,
``mint.special``, ``mint.optim`` and ``mint.distributed``, and of ``ops.communication``, ``communication``,
``log``, ``device_manager`` and ``utils`` (those of each ``__all__`` that the module really has: ``mint.__all__``
also lists names of its submodules that are not attributes) with their signatures, into
tests/fixtures/mindspore/mint_names.json; tests/compat/test_mint_extras.py checks opbuild's ``mint`` against it.

    /tmp/ms/bin/python scripts/record_mint_names.py
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys

from ms_case_recorder import REPO

OUT = REPO / "tests" / "fixtures" / "mindspore" / "mint_names.json"
MODULES = ("mint", "mint.nn", "mint.nn.functional", "mint.linalg", "mint.special", "mint.optim", "mint.distributed",
           "ops.communication", "communication", "log", "device_manager", "utils")


def _signature(obj) -> str:
    try:
        return str(inspect.signature(obj.__init__ if isinstance(obj, type) else obj))
    except (TypeError, ValueError):
        return "?"


def main() -> int:
    import mindspore

    data: dict = {"_meta": {"mindspore": mindspore.__version__}}
    for name in MODULES:
        mod = importlib.import_module(f"mindspore.{name}")
        data[name] = {n: _signature(getattr(mod, n)) for n in sorted(set(mod.__all__)) if hasattr(mod, n)}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {', '.join(f'{m} {len(data[m])}' for m in MODULES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
