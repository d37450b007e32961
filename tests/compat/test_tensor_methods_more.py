"""The Tensor methods of core/tensor_methods_more.py and core/tensor_methods_inplace.py: each program of
tests/compat/tensor_methods_more_cases.py against MindSpore 2.10's recorded ``str(result)``
(scripts/record_tensor_methods_more.py). What MindSpore's CPU cannot run (no kernel for ``unique``,
``kthvalue``, ``bitwise_not``, the in-place ``index_*_``/``scatter_*``/``sign_``/``erfinv_``, ``quantile``, ...)
is checked against NumPy or PyTorch below."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from tests.compat._util import same_printed
from tests.compat.tensor_methods_more_cases import CASES, PRELUDE

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "tensor_methods_more.json")
                     .read_text())


def _run(name: str) -> object:
    env = {"ms": ms, "np": np}
    exec(CASES[name], env)  # noqa: S102 - the repository's own programs
    return env["result"]


def _env() -> dict:
    env = {"ms": ms, "np": np}
    exec(PRELUDE, env)  # noqa: S102 - the repository's own inputs
    return env


@pytest.mark.parametrize("name", sorted(n for n in CASES if "error" not in FIXTURE.get(n, {"error": ""})))
def test_program_matches_mindspore(name, pynative_mode):
    got = str(_run(name))
    assert same_printed(got, FIXTURE[name]["str"]), f"{name}: opbuild {got!r}, MindSpore {FIXTURE[name]['str']!r}"


def test_every_case_is_recorded():
    assert sorted(set(CASES) - set(FIXTURE)) == []


def test_recorded_refusals_are_the_kernels_mindspores_cpu_lacks():
    # Every case MindSpore refused is checked below; a refusal other than a missing CPU kernel (or the known
    # bugs: Tensor.eigvals calls ops.eigvals without its argument, fill_diagonal_/kthvalue reach a branch
    # MindSpore's CPU lacks) would be a behaviour to match instead.
    refused = {n for n in CASES if "error" in FIXTURE[n]}
    assert refused <= set(_TORCH) | set(_OTHER), sorted(refused - set(_TORCH) - set(_OTHER))


# ---- what MindSpore's CPU cannot run: the same program in PyTorch ------------------------------------------------

def _out(r) -> list[np.ndarray]:
    if isinstance(r, (tuple, list)):
        return [a for i in r for a in _out(i)]
    return [np.asarray(r.numpy() if hasattr(r, "numpy") else r)]


# name: fn(T, x, y, a, v, i) -> result, run once with opbuild's Tensors and once with torch's (T makes a tensor
# of an array; integer arrays are int64 as both want for indices); in-place calls return the tensor they changed.
_TORCH = {
    "addmm_": lambda T, x, y, a, v, i: x.addmm_(y, a, beta=0.5, alpha=2),
    "sign_": lambda T, x, y, a, v, i: y.sign_(),
    "erfinv_": lambda T, x, y, a, v, i: x.erfinv_(),
    "fill_diagonal_": lambda T, x, y, a, v, i: y.fill_diagonal_(7.0),
    "fill_diagonal_wrap": lambda T, x, y, a, v, i: T(np.zeros((7, 2), np.float32)).fill_diagonal_(1.0, wrap=True),
    "index_add_": lambda T, x, y, a, v, i: y.index_add_(0, T(np.array([1, 0])), x, alpha=2),
    "index_copy_": lambda T, x, y, a, v, i: y.index_copy_(1, T(np.array([1])), T(np.array([[9.0], [8.0]], np.float32))),
    "index_fill_": lambda T, x, y, a, v, i: y.index_fill_(0, T(np.array([1])), -1.0),
    "index_put_": lambda T, x, y, a, v, i: y.index_put_((T(np.array([0, 1])), T(np.array([1, 1]))),
                                                        T(np.array([5.0, 6.0], np.float32))),
    "index_put_accumulate": lambda T, x, y, a, v, i: y.index_put_([T(np.array([0, 0]))],
                                                                  T(np.array([1.0, 1.0], np.float32)), True),
    "masked_scatter_": lambda T, x, y, a, v, i: y.masked_scatter_(y > 0, T(np.array([7.0, 8.0, 9.0], np.float32))),
    "put_": lambda T, x, y, a, v, i: y.put_(T(np.array([3, 0])), T(np.array([1.0, 2.0], np.float32))),
    "scatter_": lambda T, x, y, a, v, i: y.scatter_(1, T(np.array([[1], [0]])),
                                                    T(np.array([[5.0], [6.0]], np.float32))),
    "scatter_value": lambda T, x, y, a, v, i: y.scatter_(0, T(np.array([[1, 0]])), 4.0),
    "scatter_reduce": lambda T, x, y, a, v, i: y.scatter_(1, T(np.array([[1], [0]])),
                                                          T(np.array([[5.0], [6.0]], np.float32)), reduce="add"),
    "scatter_add": lambda T, x, y, a, v, i: y.scatter_add(1, T(np.array([[1, 1], [0, 1]])), x),
    "scatter_add_small_index": lambda T, x, y, a, v, i: y.scatter_add(1, T(np.array([[1], [0]])), x),
    "scatter_small_index": lambda T, x, y, a, v, i: y.scatter_(0, T(np.array([[1]])), x),
    "index_fill_int64": lambda T, x, y, a, v, i: y.index_fill(1, T(np.array([0])), 5.0),
    "scatter_add_": lambda T, x, y, a, v, i: y.scatter_add_(0, T(np.array([[1, 0]])), x),
    "bitwise_not": lambda T, x, y, a, v, i: i.bitwise_not(),
    "bitwise_not_bool": lambda T, x, y, a, v, i: T(np.array([True, False])).bitwise_not(),
    "kthvalue": lambda T, x, y, a, v, i: y.kthvalue(1),
    "kthvalue_dim": lambda T, x, y, a, v, i: y.kthvalue(2, dim=0, keepdim=True),
    "unique": lambda T, x, y, a, v, i: v.unique(),
    "unique_all": lambda T, x, y, a, v, i: v.unique(return_inverse=True, return_counts=True),
    "unique_dim": lambda T, x, y, a, v, i: T(np.array([[1, 2], [1, 2], [0, 3]])).unique(dim=0, return_inverse=True,
                                                                                     return_counts=True),
    "triangular_solve": lambda T, x, y, a, v, i: y.triangular_solve(a.triu()),
    "triangular_solve_lower_t": lambda T, x, y, a, v, i: y.triangular_solve(a.tril(), upper=False, transpose=True),
}
# The dtype torch gives where MindSpore's method documents another (unique's inverse and counts: int64 both).


@pytest.mark.parametrize("name", sorted(_TORCH))
def test_method_matches_torch(name, pynative_mode):
    torch = pytest.importorskip("torch", reason="torch (CPU) is the reference where MindSpore's CPU has no kernel")
    env = _env()
    ours = [env[k] for k in ("x", "y", "a", "v", "i")]
    theirs = [torch.from_numpy(t.asnumpy().copy()) for t in ours]
    got = _TORCH[name](ms.Tensor, *ours)
    want = _TORCH[name](lambda arr: torch.from_numpy(np.ascontiguousarray(arr)), *theirs)
    if name.endswith("_") or name in ("fill_diagonal_wrap", "index_put_accumulate", "scatter_value",
                                      "scatter_reduce"):
        assert isinstance(got, ms.Tensor) and (got is ours[0] or got is ours[1] or name == "fill_diagonal_wrap")
    g, w = _out(got), _out(want)
    assert len(g) == len(w), name
    for gi, wi in zip(g, w):
        assert gi.shape == wi.shape and gi.dtype == wi.dtype, (name, gi.dtype, wi.dtype, gi.shape, wi.shape)
        np.testing.assert_allclose(gi, wi, rtol=1e-5, atol=1e-6)


def test_quantile_methods_match_torch():
    torch = pytest.importorskip("torch", reason="torch (CPU) is the reference of quantile")
    v = np.array([3.0, 1.0, 2.0, np.nan, 5.0, 4.0], np.float32)
    y = np.array([[1.5, 2.0], [-3.0, 0.5]], np.float32)
    np.testing.assert_allclose(ms.Tensor(v[[0, 1, 2, 4, 5]]).quantile(0.25).asnumpy(),
                               torch.from_numpy(v[[0, 1, 2, 4, 5]]).quantile(0.25).numpy())
    np.testing.assert_allclose(ms.Tensor(v).nanquantile(0.5).asnumpy(), torch.from_numpy(v).nanquantile(0.5).numpy())
    got = ms.Tensor(y).nanquantile(0.5, axis=1, keepdims=True).asnumpy()
    np.testing.assert_allclose(got, torch.from_numpy(y).nanquantile(0.5, dim=1, keepdim=True).numpy())


def test_eigvals_fills_and_pin_memory():
    env = _env()
    a, i, x = env["a"], env["i"], env["x"]
    got = a.eigvals().asnumpy()
    assert got.dtype == np.complex64
    np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(np.linalg.eigvals(a.asnumpy())), rtol=1e-5)
    f = i.fills(2.0)
    assert f.dtype == ms.int32 and f.asnumpy().tolist() == [[2, 2], [2, 2]]
    p = x.pin_memory()
    assert p is not x and not np.shares_memory(p.asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(p.asnumpy(), x.asnumpy())


def test_random_methods_draw_in_place():
    ms.set_seed(3)
    big = ms.Tensor(np.zeros((20000,), np.float32))
    assert big.normal_(1.0, 0.5) is big
    assert abs(big.asnumpy().mean() - 1.0) < 0.02 and abs(big.asnumpy().std() - 0.5) < 0.02
    assert big.exponential_(2.0) is big
    assert big.asnumpy().min() >= 0 and abs(big.asnumpy().mean() - 0.5) < 0.02
    assert big.bernoulli_(0.25) is big
    assert set(np.unique(big.asnumpy())) <= {0.0, 1.0} and abs(big.asnumpy().mean() - 0.25) < 0.02
    probs = ms.Tensor(np.full((20000,), 0.75, np.float32))
    b = probs.bernoulli()
    assert b.shape == probs.shape and b.dtype == ms.float32 and abs(b.asnumpy().mean() - 0.75) < 0.02
    u = probs.uniform(1.0, 2.0)
    assert u.shape == probs.shape and u.dtype == ms.float32 and probs.asnumpy()[0] == 0.75  # a new tensor
    assert u.asnumpy().min() >= 1.0 and u.asnumpy().max() < 2.0 and abs(u.asnumpy().mean() - 1.5) < 0.02


_OTHER = {*(n for n in CASES if n.startswith(("int_", "int64_", "uint8_"))),  # dtypes refused: checked below
          "ormqr", "quantile", "nanquantile", "eigvals", "fills", "pin_memory", "normal_shape", "exponential_shape",
          "bernoulli_", "bernoulli_shape", "uniform_shape"}


def test_refusals_say_what_is_wrong():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="from_.*must not be larger"):
        x.uniform(2.0, 1.0)
    with pytest.raises(TypeError, match=r"\(dim, index, src\) or \(indices, updates\)"):
        x.scatter_add(0, ms.Tensor([0]))
    with pytest.raises(TypeError, match="tuple or list of Tensors"):
        x.index_put_(ms.Tensor([0]), ms.Tensor([1.0]))
    with pytest.raises(ValueError, match="CPU only"):
        x.to_("Ascend")
    assert x.to_("CPU") is x
    with pytest.raises(ValueError, match="dim 2 is out of range"):
        x.unique(dim=2)
    with pytest.raises(ValueError, match="at least index's size"):
        x.scatter_add_(0, ms.Tensor(np.zeros((3, 3), np.int64)), x)


def test_dlpack_round_trip_shares_memory():
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    y = ms.Tensor.from_dlpack(x.to_dlpack())
    x.asnumpy()[0] = 9.0
    assert y.asnumpy()[0] == 9.0


def test_signatures_are_mindspores():
    # MindSpore 2.10's argument names (inspect.signature of mindspore.Tensor.<name>, or its docstring's first line)
    want = {"histc": "(self, bins=100, min=0, max=0)", "kthvalue": "(self, k, dim=-1, keepdim=False)",
            "unique": "(self, sorted=True, return_inverse=False, return_counts=False, dim=None)",
            "searchsorted": "(self, v, side='left', sorter=None)",
            "index_add_": "(self, dim, index, source, *, alpha=1)",
            "normal_": "(self, mean=0, std=1, *, generator=None)",
            "uniform": "(self, from_=0.0, to=1.0, generator=None)",
            "triangular_solve": "(self, A, upper=True, transpose=False, unitriangular=False)",
            "slice_scatter": "(self, src, axis=0, start=None, end=None, step=1)",
            "cov": "(self, *, correction=1, fweights=None, aweights=None)",
            "multinomial": "(self, num_samples, replacement=True, seed=None)"}
    for name, sig in want.items():
        params = [p.replace(annotation=inspect.Parameter.empty) for p in
                  inspect.signature(getattr(ms.Tensor, name)).parameters.values()]
        assert str(inspect.Signature(params)) == sig, name


def test_hooks_on_parameters_are_refused_and_hooks_must_be_callable():
    w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
    with pytest.raises(NotImplementedError, match="InsertGradientOf"):
        w.register_hook(lambda g: g)
    with pytest.raises(TypeError, match="hook must be a Python function"):
        ms.Tensor([1.0]).register_hook(3)
    with pytest.raises(TypeError, match="handle_id must be an int"):
        ms.Tensor([1.0]).remove_hook("1")


class _Hooked(ms.nn.Cell):
    def construct(self, x):
        u = x * 3
        u.register_hook(lambda g: g * 10)
        return (u * u).sum()


def test_hook_on_an_intermediate_in_graph_mode(graph_mode):
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(ms.grad(_Hooked())(x).asnumpy(), [180.0, 360.0])  # 10 * d(9 x^2)/dx
    np.testing.assert_allclose(_Hooked()(x).asnumpy(), 45.0)


@pytest.mark.parametrize(("shape", "left", "transpose"), [((3, 2), True, False), ((3, 2), False, True),
                                                          ((2, 3, 3), True, True), ((2, 4), False, False)])
def test_ormqr_matches_torch(shape, left, transpose):
    torch = pytest.importorskip("torch", reason="torch (CPU) is the reference of ormqr")
    rng = np.random.default_rng(1)
    h, tau = torch.geqrf(torch.from_numpy(rng.standard_normal(shape).astype(np.float32)))
    m = shape[-2]
    c = rng.standard_normal((*shape[:-2], m, 2) if left else (*shape[:-2], 2, m)).astype(np.float32)
    want = torch.ormqr(h, tau, torch.from_numpy(c), left=left, transpose=transpose).numpy()
    got = ms.Tensor(h.numpy()).ormqr(ms.Tensor(tau.numpy()), ms.Tensor(c), left, transpose).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="input3 .* must have"):
        ms.Tensor(h.numpy()).ormqr(ms.Tensor(tau.numpy()), ms.Tensor(np.ones((m + 1, m + 1), np.float32)))


class _Methods(ms.nn.Cell):
    def construct(self, x, y, idx):
        z = y * 1
        z.index_add_(0, idx, x, alpha=2)
        w = y * 1
        w.sign_()
        return (x.acos(), y.cummax(1)[0], y.atan2(x), z, w, y.scatter_add(1, idx.reshape(2, 1), x),
                y.hardshrink(1.0), y.logcumsumexp(0), x.matrix_power(2))


def test_graph_mode_matches_pynative(graph_mode):
    env = _env()
    x, y = env["x"], env["y"]
    idx = ms.Tensor(np.array([1, 0], np.int32))
    y0 = y.asnumpy().copy()
    got = _Methods()(x, y, idx)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = _Methods()(x, y, idx)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(y.asnumpy(), y0)  # the in-place calls changed copies only
    assert not np.array_equal(got[3].asnumpy(), y0) and not np.array_equal(got[4].asnumpy(), y0)


@pytest.mark.parametrize("name", sorted(n for n in CASES if n.startswith(("int_", "int64_", "uint8_"))
                                        and "error" in FIXTURE[n]))
def test_dtypes_mindspore_refuses_are_refused(name, pynative_mode):
    with pytest.raises((TypeError, ValueError), match=r"dtype|supported|float|[Ii]nt32|[Ii]nt64|[Uu][Ii]nt8"):
        _run(name)
