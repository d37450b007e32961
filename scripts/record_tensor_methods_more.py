#!/usr/bin/env python3
"""Record MindSpore 2.10's ``str(result)`` of the programs of tests/compat/tensor_methods_more_cases.py (the
Tensor methods ``acos``, ``kthvalue``, ``scatter_``, ``index_add_``, ...) into
tests/fixtures/mindspore/tensor_methods_more.json.

    /tmp/ms/bin/python scripts/record_tensor_methods_more.py
"""

from __future__ import annotations

import sys

from ms_case_recorder import REPO, record_programs

OUT = REPO / "tests" / "fixtures" / "mindspore" / "tensor_methods_more.json"

if __name__ == "__main__":
    record_programs("tensor_methods_more_cases", OUT)
    sys.exit(0)
