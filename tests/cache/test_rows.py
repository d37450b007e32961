"""The kernel digest a manifest row records (cache/rows.py) is the same whether computed from the graph's
kernel spec or read back from the entry's ``.info``: otherwise every warm start would miss its manifest."""

from __future__ import annotations

import pytest

from opbuild.builder import Builder
from opbuild.cache import rows
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY


def _specs():
    f32 = "float32"
    yield REGISTRY["ReLU"].spec({}, [TensorType((3, 4), f32)])
    yield REGISTRY["Conv2D"].spec({"stride": (2, 2), "pad_mode": "same", "out_channel": 4, "kernel_size": 3},
                                  [TensorType((1, 2, 8, 8), f32), TensorType((4, 2, 3, 3), f32)])
    yield REGISTRY["Cast"].spec({"dtype": "float16"}, [TensorType((5,), f32)])
    yield REGISTRY["ReduceSum"].spec({"axis": (1,), "keep_dims": True}, [TensorType((2, 3), "float64")])


@pytest.mark.parametrize("spec", list(_specs()), ids=lambda s: s.op)
def test_spec_and_info_give_the_same_kernel_digest(spec):
    req = Builder().request(spec)
    assert rows.info_digest(req.info) == rows.spec_digest(spec)
    assert rows.describes(req.info, rows.spec_digest(spec)) is None
    assert rows.info_problem(req.info, spec) is None


def test_other_kernels_and_non_descriptors_do_not_match():
    a, b = (REGISTRY["ReLU"].spec({}, [TensorType((n,), "float32")]) for n in (3, 4))
    info = Builder().request(a).info
    assert rows.describes(info, rows.spec_digest(b))
    assert rows.info_problem(info, b) and rows.info_problem(info, a) is None
    c = REGISTRY["Sigmoid"].spec({}, [TensorType((3,), "float32")])  # same types, another op
    assert rows.info_problem(info, c)
    assert rows.info_problem(info.replace(b'{"abi":', b'{"abi": '), a)
    for bad in (b"", b"[]", b"{\"op\": 1}", b"\xff", b"[" * 100000):
        assert rows.info_digest(bad) is None
        assert rows.info_problem(bad, a)


@pytest.mark.parametrize("position, digest", [(1, "0" * 64), ("0", "0" * 64), (True, "0" * 64), (0, "0" * 63),
                                              (0, None)])
def test_malformed_rows(position, digest):
    assert rows.row_problem(position, 0, "relu_x", digest)
    assert rows.row_problem(0, 0, "relu_x", "0" * 64) is None
