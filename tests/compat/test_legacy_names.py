"""The older ``mindspore.ops`` names model zoos call (``tensor_add``, ``reduce_sum``, ``scalar_add``,
``tuple_getitem``, ``top_k``, ``ops.all_reduce``, ...): each program of tests/compat/legacy_names_cases.py against
MindSpore 2.10's recorded ``str(result)`` (scripts/record_legacy_names.py), in PyNative and, for the Tensor
functions, inside a GRAPH_MODE Cell. What MindSpore's CPU cannot run (``quantile``, ``nanquantile``, ``gamma``,
``poisson``, ``fills``, ``accumulate_n``; the graph-only helpers ``scalar_ne``, ``bool_*``, ``string_*``,
``make_dict``, ``dict_setitem``) is checked against NumPy, PyTorch or Python."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from opbuild import nn, ops
from tests.compat._util import same_printed
from tests.compat.legacy_names_cases import BINARY, CASES, REDUCE, UNARY

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "legacy_names.json")
                     .read_text())
# Refused by MindSpore's CPU for want of a kernel; opbuild computes them (checked below).
_NO_CPU_KERNEL = {"gamma_shape", "poisson_shape"}


def _run(name: str) -> object:
    env = {"ms": ms, "np": np}
    exec(CASES[name], env)  # noqa: S102 - the repository's own programs
    return env["result"]


@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" not in FIXTURE[n]))
def test_program_matches_mindspore(name, pynative_mode):
    got = str(_run(name))
    assert same_printed(got, FIXTURE[name]["str"]), f"{name}: opbuild {got!r}, MindSpore {FIXTURE[name]['str']!r}"


def test_every_case_is_recorded():
    assert sorted(set(CASES) - set(FIXTURE)) == []


def test_inexact_tuple_div_is_refused():
    assert FIXTURE["tuple_div_inexact"]["error"].startswith("RuntimeError: The inputs of 'tuple_div'")
    with pytest.raises(ValueError, match="5 is not divisible by 2"):
        _run("tuple_div_inexact")


class _Legacy(nn.Cell):
    def construct(self, x, y):
        return (ops.tensor_add(x, y), ops.tensor_floordiv(x, y), ops.reduce_sum(x, 1), ops.reduce_max(x),
                ops.top_k(x, 1)[0], ops.expand_as(ops.reduce_mean(x, 1), x.T), ops.identity(y),
                ops.tensor_slice(x, (0, 1), (2, 1)), ops.reshape_(x, (ops.shape_mul(ops.shape_(x)),)))


def test_graph_mode_matches_pynative(graph_mode):
    x = np.array([[1.5, -2.0], [3.0, 0.5]], np.float32)
    y = np.array([[0.5, 4.0], [-1.0, 2.0]], np.float32)
    got = _Legacy()(ms.Tensor(x), ms.Tensor(y))
    want = (x + y, np.floor_divide(x, y), x.sum(1), x.max(), np.sort(x, 1)[:, -1:],
            np.broadcast_to(x.mean(1), (2, 2)), y, x[:, 1:2], x.reshape(4))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)


def test_every_name_is_in_both_namespaces():
    for n in (*BINARY, *UNARY, *REDUCE, "tensor_slice", "top_k", "tuple_getitem", "scalar_add", "make_range"):
        assert getattr(ops, n) is getattr(ops.functional, n), n
    assert ops.all_reduce is ops.communication.all_reduce and ops.TCPStore is ops.communication.TCPStore
    assert ops.gather is ops.functional.gather  # the array gather, not the collective


# ---- what MindSpore's CPU does not run: against PyTorch, NumPy or Python ----------------------------------------

@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize(("q", "axis", "keepdims"), [(0.5, None, False), (0.25, 1, True), ([0.1, 0.9], 0, False),
                                                     ([0.0, 0.5, 1.0], -1, True), (0.75, None, True)])
def test_quantile_and_nanquantile_match_torch(q, axis, keepdims, nan):
    torch = pytest.importorskip("torch", reason="torch (CPU) is the reference of quantile")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    if nan:
        a[1, 2] = a[3, 0] = np.nan
        a[2, :] = np.nan
    qa = np.array(q, np.float32)
    qt = ms.Tensor(qa) if isinstance(q, list) else q
    for ours, theirs in ((ops.quantile, torch.quantile), (ops.nanquantile, torch.nanquantile)):
        got = ours(ms.Tensor(a), qt, axis=axis, keepdims=keepdims).asnumpy()
        want = theirs(torch.from_numpy(a), torch.from_numpy(qa) if isinstance(q, list) else q, dim=axis,
                      keepdim=keepdims).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)


def test_quantile_refusals():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"q must lie in \[0, 1\]"):
        ops.quantile(x, 1.5)
    with pytest.raises(TypeError, match="float32 or float64"):
        ops.quantile(ms.Tensor([1, 2]), 0.5)
    with pytest.raises(ValueError, match="axis must be None or an int"):
        ops.nanquantile(x, 0.5, axis=2)


def test_gamma_and_poisson_shapes_and_moments():
    alpha = ms.Tensor(np.array([[3.0, 4.0], [5.0, 6.0]], np.float32))
    assert ops.gamma((3, 1, 2), alpha, ms.Tensor([1.0]), seed=5).shape == (3, 2, 2)  # MindSpore's documented shape
    assert ops.poisson((4, 1), ms.Tensor(np.array([5.0, 10.0], np.float32)), seed=5).shape == (4, 2)
    g = ops.gamma((20000,), ms.Tensor([2.0]), ms.Tensor([4.0]), seed=1).asnumpy()
    assert abs(g.mean() - 0.5) < 0.02 and abs(g.var() - 0.125) < 0.01  # Gamma(2, rate 4)
    p = ops.poisson((20000,), ms.Tensor([3.0]), seed=1)
    assert p.dtype == ms.float32 and abs(p.asnumpy().mean() - 3.0) < 0.05
    draws = []
    for _ in range(2):  # set_seed restarts the sequence of a seeded call
        ms.set_seed(11)
        draws.append([ops.gamma((5,), ms.Tensor([2.0]), ms.Tensor([1.0]), seed=7).asnumpy() for _ in range(2)])
    np.testing.assert_array_equal(draws[0], draws[1])
    assert not np.array_equal(draws[0][0], draws[0][1])  # successive calls draw anew
    with pytest.raises(TypeError, match="float32 Tensor"):
        ops.poisson((2,), ms.Tensor([1, 2]))


def test_fills_and_accumulate_n():
    x = ms.Tensor(np.array([[1, 2], [3, 4]], np.int32))
    r = ops.fills(x, 2.0)
    assert r.dtype == ms.int32 and r.asnumpy().tolist() == [[2, 2], [2, 2]]
    a, b = ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([4.0, 5.0, 6.0])
    assert ops.accumulate_n([a, b, a, b]).asnumpy().tolist() == [10.0, 14.0, 18.0]  # MindSpore's documented result


def test_graph_only_helpers_follow_python():
    assert ops.scalar_ne(7, 2) is True and ops.scalar_ne(2, 2) is False
    assert (ops.bool_and(True, False), ops.bool_or(True, False), ops.bool_eq(True, True), ops.bool_not(True)) == \
        (False, True, True, False)
    assert ops.string_concat("ab", "cd") == "abcd" and ops.string_eq("ab", "ab")
    d = {"a": 1}
    assert ops.dict_setitem(d, "b", 2) == {"a": 1, "b": 2} and d == {"a": 1}
    assert ops.make_dict(("a", "b"), (1, 2)) == {"a": 1, "b": 2}
    with pytest.raises(TypeError, match="Python bools"):
        ops.bool_and(1, 0)
    with pytest.raises(IndexError, match="index 3 out of range"):
        ops.tuple_getitem((1, 2, 3), 3)
    with pytest.raises(KeyError, match="its keys"):
        ops.dict_getitem(d, "z")


def test_module_level_aliases():
    assert ops.functional.P is ops.operations and ops.functional.Primitive is ops.Primitive
    assert ops.functional.print_ is ops.print_ and ops.ms_kernel is ops.kernel
    assert ops.composite.clip_by_global_norm is ops.clip_by_global_norm
    x = ms.Tensor(np.array([[4.0, 3.0, 5.0], [6.0, 7.0, 8.0]], np.float32))
    assert ops.take(x, ms.Tensor([0, 1, 4])).asnumpy().tolist() == [4.0, 3.0, 7.0]
    for name in ("Roll", "Median", "AdaptiveMaxPool2D", "UniqueConsecutive", "matrix_exp"):
        assert getattr(ops.functional, name) is getattr(ops, name), name
    nilpotent = ms.Tensor(np.array([[0.0, 2.0], [0.0, 0.0]], np.float32))  # exp = I + N exactly
    assert ops.matrix_exp(nilpotent).asnumpy().tolist() == [[1.0, 2.0], [0.0, 1.0]]
