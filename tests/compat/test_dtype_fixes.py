"""``ops.inv``/``lgamma``/``sinc``/``addbmm``/``searchsorted``/``cholesky_inverse``, their primitive classes and
Tensor methods over integer, bool, float16 and edge-value inputs: every call of tests/compat/dtype_fix_cases.py
gives MindSpore 2.10's values, dtype and shape (or raises where MindSpore raises), in PyNative and in a
GRAPH_MODE Cell (fixture recorded by scripts/record_dtype_fixes.py). The few places opbuild keeps a sane result
instead (docs/mindspore-compat.md) are checked against NumPy below."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from tests.compat import dtype_fix_cases as C
from tests.helpers import FnCell

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "dtype_fixes.json").read_text())

# MindSpore's CPU Sinc of a bool tensor gives NaN for False (it divides sin(0) by 0); opbuild gives sinc(0) = 1,
# as MindSpore itself does for an integer 0.
SINC_OF_FALSE = {"ops.sinc(T('bool'))", "ops.Sinc()(T('bool'))", "T('bool').sinc()",
                 C.graph_key("ops.sinc", ["T('bool')"]), C.graph_key("ops.Sinc()", ["T('bool')"])}
# MindSpore's CPU has no SearchSorted kernel for these dtypes (or mixed dtypes: "Unknown Error"), and fails its own
# output-size check for float32 with out_int32=True, right=True; opbuild answers as NumPy does.
SEARCHSORTED_REFUSED = {
    "ops.searchsorted(S('uint8'), V('uint8'))": ("uint8", "uint8", "left", "int64"),
    "ops.searchsorted(S('float16'), V('float16'))": ("float16", "float16", "left", "int64"),
    "ops.SearchSorted()(S('float16'), V('float16'))": ("float16", "float16", "left", "int64"),
    "ops.searchsorted(S('int64'), V('int32'))": ("int64", "int32", "left", "int64"),
    "ops.searchsorted(S('float32'), V('int64'))": ("float32", "int64", "left", "int64"),
    "ops.searchsorted(S('int32'), V('float32'))": ("int32", "float32", "left", "int64"),
    "ops.searchsorted(S('float32'), V('float32'), out_int32=True, right=True)": ("float32", "float32", "right",
                                                                                 "int32"),
}
KEPT = SINC_OF_FALSE | set(SEARCHSORTED_REFUSED)


def _env(setup: str = C.SETUP) -> dict:
    """The names a case list's ``setup`` code defines (ms and np included)."""
    env: dict = {"ms": ms, "np": np}
    exec(setup, env)  # noqa: S102 - the repository's own case lists
    return env


def _check(got, want: dict, key: str) -> None:
    assert str(got.dtype) == want["dtype"] and list(got.shape) == want["shape"], (key, got.dtype, got.shape)
    # float16: MindSpore computes sin(pi x) in half precision (sinc(2) = 3e-4, not 0), within float16's epsilon
    atol = 1e-3 if want["dtype"] == "Float16" else 1e-6
    np.testing.assert_allclose(np.asarray(got.asnumpy(), np.float64), np.asarray(want["value"], np.float64),
                               rtol=1e-3, atol=atol, err_msg=key)


def _compare(key: str, call) -> None:
    want = FIXTURE[key]
    if "error" in want:
        with pytest.raises((TypeError, ValueError)):  # MindSpore refuses the dtype; so must opbuild
            call()
        return
    _check(call(), want, key)


CALLS = [(e, e, None) for e in C.CASES if e not in KEPT] + \
    [(C.graph_key(f, a), f, a) for f, a in C.GRAPH if C.graph_key(f, a) not in KEPT]


@pytest.mark.parametrize("key,expr,args", CALLS, ids=[c[0] for c in CALLS])
def test_matches_mindspore(key, expr, args, pynative_mode):
    env = _env()
    if args is None:
        _compare(key, lambda: eval(expr, env))  # noqa: S307
        return
    ms.set_context(mode=ms.GRAPH_MODE)
    _compare(key, lambda: FnCell(eval(expr, env))(*[eval(a, env) for a in args]))  # noqa: S307


def test_every_case_is_recorded():
    keys = set(C.CASES) | {C.graph_key(f, a) for f, a in C.GRAPH}
    assert sorted(keys - set(FIXTURE)) == [] and keys >= KEPT


@pytest.mark.parametrize("key", sorted(SINC_OF_FALSE))
def test_sinc_of_false_is_one(key, pynative_mode):
    want = FIXTURE[key]
    assert np.isnan(want["value"][1])  # MindSpore's NaN: if a later MindSpore fixes it, compare as above instead
    env = _env()
    if key.startswith("graph: "):
        ms.set_context(mode=ms.GRAPH_MODE)
        got = FnCell(eval(key[len("graph: "):].split("(T(")[0], env))(env["T"]("bool"))  # noqa: S307
    else:
        got = eval(key, env)  # noqa: S307
    assert str(got.dtype) == "Float32"
    np.testing.assert_allclose(got.asnumpy(), [want["value"][0], 1.0, want["value"][2]], rtol=1e-6)


@pytest.mark.parametrize("key", sorted(SEARCHSORTED_REFUSED))
def test_searchsorted_where_mindspore_has_no_kernel(key, pynative_mode):
    assert "error" in FIXTURE[key]
    seq_dt, val_dt, side, out_dt = SEARCHSORTED_REFUSED[key]
    got = eval(key, _env())  # noqa: S307
    seq = np.array([0, 1, 1, 3, 5], seq_dt)
    want = np.searchsorted(seq, np.array([1, 0, 4, 6, 3], val_dt).astype(seq_dt), side=side)
    assert str(got.dtype).lower() == out_dt
    np.testing.assert_array_equal(got.asnumpy(), want)
