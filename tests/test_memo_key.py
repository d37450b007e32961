"""KernelSpec.memo_key: the in-process identity of a kernel, also what graph manifests hash. Equal specs must
give equal keys in every process; specs that differ in any attribute value or type, shape or dtype must not."""

from __future__ import annotations

import marshal

import numpy as np

from opbuild.core.ir import KernelSpec, TensorType
from tests.conftest import run_python

F32 = TensorType((2, 3), "float32")


def _spec(attrs: dict, inputs=(F32,), outputs=(F32,), op: str = "Fill") -> KernelSpec:
    return KernelSpec(op, attrs, tuple(inputs), tuple(outputs))


def test_equal_specs_have_equal_keys():
    a = _spec({"pad": (1, 1), "mode": "same", "scale": 0.5})
    b = _spec({"pad": (1, 1), "mode": "same", "scale": 0.5})
    assert a.memo_key() == b.memo_key() and isinstance(a.memo_key(), bytes)


def test_values_that_compare_equal_in_python_still_differ():
    keys = {_spec({"v": v}).memo_key() for v in (1, True, 1.0, "1", (1,), [1], None, 0, -0.0, 0.0)}
    assert len(keys) == 10


def test_types_op_and_attr_names_are_in_the_key():
    base = _spec({"axis": 1})
    others = [
        _spec({"axis": 1}, op="Square"),
        _spec({"axes": 1}),
        _spec({"axis": 1}, inputs=(TensorType((3, 2), "float32"),)),
        _spec({"axis": 1}, inputs=(TensorType((2, 3), "float64"),)),
        _spec({"axis": 1}, outputs=(TensorType((2, 3), "int32"),)),
        _spec({"axis": 1}, inputs=(F32, F32)),
    ]
    assert len({base.memo_key(), *(s.memo_key() for s in others)}) == 1 + len(others)


def test_attrs_marshal_cannot_write_fall_back_to_repr():
    a = _spec({"value": np.float32(2.5)})
    assert a.memo_key() == _spec({"value": np.float32(2.5)}).memo_key()
    assert a.memo_key() != _spec({"value": np.float32(3.5)}).memo_key()
    assert a.memo_key() != _spec({"value": 2.5}).memo_key()


def test_keys_are_the_same_bytes_in_every_process():
    code = ("from opbuild.core.ir import TensorType\nfrom opbuild.core.ir import KernelSpec\n"
            "t = TensorType((1, 64, 56, 56), 'float32')\n"
            "a = {'pad_mode': 'pad', 'pad': (1, 1, 1, 1), 'group': 1, 'w': [0.5, 'x']}\n"
            "s = KernelSpec('Conv2D', a, (t, t), (t,))\n"
            "print(s.memo_key().hex())\n")
    outs = {run_python(code, env={"PYTHONHASHSEED": seed}).stdout.strip() for seed in ("0", "1", "4242")}
    assert len(outs) == 1


def test_buffer_attributes_never_share_a_key():
    """marshal writes a NumPy scalar or array (and bytes) as its raw buffer: one key for np.float32(1.0) and
    np.int32(1065353216), or for an array and its reshape, would hand one kernel to both specs."""
    t = (TensorType((2,), "float32"),)

    def key(attrs):
        return KernelSpec("Fill", attrs, t, t).memo_key()

    assert key({"value": np.float32(1.0)}) != key({"value": np.int32(1065353216)})
    assert key({"v": np.array([1, 2])}) != key({"v": np.array([[1, 2]])})
    assert key({"v": b"\x00\x00\x80?"}) != key({"v": np.float32(1.0)})
    assert key({"v": (np.float64(0.5),)}) != key({"v": (0.5,)})
    assert key({"value": np.float32(1.0)}) == key({"value": np.float32(1.0)})  # still a stable identity
    plain = {"axis": (1, 2), "keep": True, "eps": 1e-5, "mode": "same", "none": None, "list": [1, 2.0]}
    shapes = [((2,), "float32")]
    assert key(plain) == marshal.dumps(("Fill", plain, shapes, shapes), 0)  # plain attrs: the keys of before
