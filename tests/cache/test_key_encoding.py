"""The fast descriptor encoder must produce exactly the canonical bytes of the descriptor it stands for."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from opbuild.cache import key
from opbuild.core.ir import TensorType

shapes = st.lists(st.integers(0, 9), max_size=4).map(tuple)
dtypes = st.sampled_from(["float32", "float64", "int32", "int64", "bool"])
ttypes = st.builds(TensorType, shapes, dtypes)
attrs = st.dictionaries(st.text(min_size=1, max_size=5), st.one_of(st.integers(), st.booleans(), st.text(max_size=4),
                                                                   st.lists(st.integers(), max_size=3)), max_size=3)


@settings(max_examples=200, deadline=None)
@given(op=st.text(min_size=1, max_size=8), attrs=attrs, ins=st.lists(ttypes, max_size=3),
       outs=st.lists(ttypes, min_size=1, max_size=2), cg=st.text(max_size=8))
def test_info_encoder_matches_canonical_descriptor(op, attrs, ins, outs, cg):
    compiler = {"path": "/usr/bin/gcc", "version": "gcc 12", "flags": ["-O3"], "cflags": [], "blas": {"x": 1}}
    target = {"arch": "x86_64", "isa": ["avx2", "fma"]}
    enc = key.InfoEncoder(abi=1, compiler=compiler, target=target, version="0.1.0")
    slow = key.canonical_bytes(key.descriptor(op, attrs, ins, outs, codegen_hash=cg, abi=1, compiler=compiler,
                                              target=target, version="0.1.0"))
    assert enc.encode(op, attrs, ins, outs, cg) == slow
    assert json.loads(slow)["inputs"] == [{"dtype": t.dtype, "shape": list(t.shape), "format": key.FORMAT} for t in ins]


def test_kernel_name_is_lowercase_op_and_sha256_prefix():
    info = b'{"op":"Square"}\n'
    name = key.kernel_name("Square", info)
    assert name == "square_" + hashlib.sha256(info).hexdigest()[: key.HASH_CHARS]


def test_diff_names_changed_fields():
    a = {"op": "Square", "inputs": [{"shape": [3], "dtype": "float32"}], "compiler": {"version": "12.2"}}
    b = {"op": "Square", "inputs": [{"shape": [4], "dtype": "float32"}], "compiler": {"version": "13.1"}}
    assert key.diff(a, b) == [("compiler.version", "12.2", "13.1"), ("input[0].shape", [3], [4])]
