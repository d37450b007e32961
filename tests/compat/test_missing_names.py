"""The MindSpore 2.10 names opbuild lacked (``mint``, ``Tensor.mH``, ``ops.cond``, ``ops.function``'s family
modules and ``*_ext`` names, ``floor_divide_``/``remainder_``, ``random_``/``uniform_``, ``ops.LSTM``,
``prim_arg_register``, ``get_vm_impl_fn``) give what MindSpore 2.10 gives: ``str(result)`` of each program of
tests/compat/missing_names_cases.py against scripts/record_missing_names.py's fixture.

Where MindSpore's CPU backend has no kernel for a program (many ``mint`` functions, ``random_``/``uniform_``:
Ascend only; ``mint.nn.Dropout2d`` in training; a multi-layer ``ops.LSTM`` whose input width differs from the
hidden width), opbuild computes it and the result is checked against NumPy, or by range, distribution and
seeding for the random fills. Where MindSpore refuses the input, opbuild must refuse it with the same exception
type."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opbuild as ms
from tests.compat._util import close_literals, printed_literal, same_printed
from tests.compat.missing_names_cases import BINARY, BINARY_INT, CASES, NUMPY_TWINS, UNARY, UNARY_BIG

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" / "missing_names.json")
                     .read_text())

# MindSpore's CPU backend has no kernel for these programs (its message says so): opbuild computes them.
_NO_CPU_KERNEL = ("unregistered", "Create kernelmod", "Not implement exception", "only supports Ascend",
                  "could not create a primitive descriptor")

# Where opbuild deliberately differs: MindSpore accepts the input and computes from memory it should not read.
OPBUILD_REFUSES = {
    "mint_dropout2d_bad_p": ValueError,  # MindSpore builds Dropout2dExt(p=1.5)
    "lstm_bad_weight": ValueError,  # MindSpore's CPU kernel reads past the end of a too-short weight
    "mint_nn_dropout_bad_p": ValueError,  # MindSpore builds mint.nn.Dropout(p=2.0)
    "mint_nn_mse_bad_reduction": ValueError,  # and MSELoss(reduction='avg'), refusing them only when called
}


def _run(name: str) -> object:
    env = {"ms": ms, "np": np}
    exec(CASES[name], env)  # noqa: S102 - the repository's own programs
    return env["result"]


def _kind(name: str) -> str:
    want = FIXTURE[name]
    if name in OPBUILD_REFUSES:
        return "refused"
    if "error" not in want:
        return "value"
    return "computed" if any(s in want["error"] for s in _NO_CPU_KERNEL) else "error"


@pytest.mark.parametrize("name", sorted(n for n in CASES if _kind(n) == "value"))
def test_program_matches_mindspore(name, pynative_mode):
    got = str(_run(name))
    assert same_printed(got, FIXTURE[name]["str"]), f"{name}: opbuild {got!r}, MindSpore {FIXTURE[name]['str']!r}"


@pytest.mark.parametrize("name", sorted(n for n in CASES if _kind(n) == "error"))
def test_mindspore_refusals_are_refused(name, pynative_mode):
    with pytest.raises(Exception) as info:  # noqa: B017 - MindSpore raises here; so must opbuild
        _run(name)
    assert type(info.value).__name__ == FIXTURE[name]["error"].split(":")[0]


@pytest.mark.parametrize("name", sorted(OPBUILD_REFUSES))
def test_inputs_mindspore_misreads_are_refused(name, pynative_mode):
    with pytest.raises(OPBUILD_REFUSES[name]):
        _run(name)


def test_every_case_is_recorded():
    assert sorted(set(CASES) - set(FIXTURE)) == []


# ---- what MindSpore's CPU cannot run: checked against NumPy -------------------------------------------------

_X = np.array([[0.25, 0.5, 0.75], [0.125, 0.375, 0.625]], np.float32)
_Y = np.array([[0.5, 0.25, 0.75], [0.875, 0.375, 0.125]], np.float32)
_A = np.array([12, 7, -6, 9], np.int32)
_B = np.array([8, 3, 4, -6], np.int32)
_M3 = np.array([[4.0, 1.0, -2.0], [0.5, 3.0, 1.0], [1.0, -1.0, 5.0]], np.float32)

_NP_UNARY = {"abs": np.abs, "acos": np.arccos, "arccos": np.arccos, "arcsinh": np.arcsinh, "arctan": np.arctan,
             "arctanh": np.arctanh, "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh,
             "ceil": np.ceil, "cos": np.cos, "cosh": np.cosh, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1,
             "floor": np.floor, "frac": lambda v: v - np.trunc(v), "isfinite": np.isfinite, "isinf": np.isinf,
             "isneginf": np.isneginf, "log": np.log, "log10": np.log10, "log1p": np.log1p, "log2": np.log2,
             "logical_not": np.logical_not, "neg": np.negative, "negative": np.negative,
             "reciprocal": np.reciprocal, "rsqrt": lambda v: 1 / np.sqrt(v), "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
             "sign": np.sign, "sin": np.sin, "sinh": np.sinh, "square": np.square, "tan": np.tan, "tanh": np.tanh,
             "trunc": np.trunc, "ravel": np.ravel, "acosh": np.arccosh, "arccosh": np.arccosh}
_NP_BINARY = {"arctan2": np.arctan2, "atan2": np.arctan2, "greater": np.greater, "gt": np.greater,
              "le": np.less_equal, "less_equal": np.less_equal, "logaddexp": np.logaddexp,
              "logaddexp2": np.logaddexp2, "logical_and": np.logical_and, "logical_or": np.logical_or,
              "logical_xor": np.logical_xor, "maximum": np.maximum, "minimum": np.minimum, "ne": np.not_equal,
              "not_equal": np.not_equal, "float_power": lambda a, b: np.power(a.astype(np.float64), b),
              "pow": np.power, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
              "bitwise_xor": np.bitwise_xor, "gcd": np.gcd}


def _elementwise_reference(fn_name: str) -> np.ndarray:
    if fn_name in UNARY:
        with np.errstate(all="ignore"):
            return np.asarray(_NP_UNARY[fn_name](_X - np.float32(0.3)))
    if fn_name in UNARY_BIG:
        return np.asarray(_NP_UNARY[fn_name](_X + np.float32(1.0)))
    if fn_name in BINARY_INT:
        return _NP_BINARY[fn_name](_A, _B)
    return _NP_BINARY[fn_name](_X, _Y)


_ELEMENTWISE = [n for n in (*UNARY, *UNARY_BIG, *BINARY, *BINARY_INT) if _kind(f"mint_{n}") == "computed"]


def test_the_numpy_checks_cover_what_mindspore_cpu_cannot_run():
    # Everything MindSpore's CPU refuses for want of a kernel is checked below, none silently dropped.
    computed = sorted(n for n in CASES if _kind(n) == "computed")
    checked = ({f"mint_{n}" for n in _ELEMENTWISE} | set(_OTHER_COMPUTED) | set(_RANDOM) | set(NUMPY_TWINS)
               | set(_MINT_RANDOM))
    assert sorted(set(computed) - checked) == []


@pytest.mark.parametrize("fn_name", _ELEMENTWISE)
def test_mint_elementwise_without_a_mindspore_cpu_kernel(fn_name, pynative_mode):
    dtype, values = _run(f"mint_{fn_name}")
    want = _elementwise_reference(fn_name)
    assert dtype.name == {"b": "bool", "i": "int32"}.get(want.dtype.kind, dtype.name)
    got = np.asarray(values, np.float64)
    np.testing.assert_allclose(got, want.astype(np.float64).round(4), atol=2e-4, equal_nan=True)


def _moments(fn, axis=None, ddof=1, keepdims=False):
    return fn(_X.astype(np.float64), axis=axis, ddof=ddof, keepdims=keepdims).round(4).tolist()


_OTHER_COMPUTED = {
    "mint_mm": lambda: (_X @ _Y.T).round(4).tolist(),
    "mint_dot": lambda: 1.0 * 0.5 + 2.0 * 0.25 + 3.0 * 2.0,
    "mint_outer": lambda: np.outer([1.0, 2.0], [0.5, 0.25, 2.0]).round(4).tolist(),
    "mint_inverse": lambda: np.linalg.inv(_M3).round(4).tolist(),
    "mint_trace": lambda: round(float(np.trace(_M3)), 4),
    "mint_addmm": lambda: (0.5 * _M3[:2, :2] + 2 * (_X @ _Y.T)).round(4).tolist(),
    "mint_addmv": lambda: (2 * np.array([1.0, 2.0, 3.0]) + 0.5 * _M3 @ np.array([1.0, 0.0, -1.0])).round(4).tolist(),
    "mint_baddbmm": lambda: (0.5 + 1.5 * np.stack([_X, _Y]) @ np.stack([_Y.T, _X.T])).round(4).tolist(),
    "mint_einsum": lambda: np.einsum("ij,kj->ik", _X, _Y).round(4).tolist(),
    "mint_roll": lambda: np.roll(_X, 1, 1).round(4).tolist(),
    "mint_swapaxes": lambda: _X.T.round(4).tolist(),
    "mint_equal": lambda: (False, True, False),
    "mint_std": lambda: _moments(np.std),
    "mint_std_dim": lambda: _moments(np.std, 1, 0, True),
    "mint_std_dims": lambda: _moments(np.std, (0, 1), 2),
    "mint_var": lambda: _moments(np.var, 0),
    "mint_var_keep": lambda: _moments(np.var, -1, 0, True),
    "mint_std_mean": lambda: (_moments(np.std, 1), _X.astype(np.float64).mean(1).round(4).tolist()),
    "mint_var_mean": lambda: (_moments(np.var, 0, 0, True), _X.astype(np.float64).mean(0, keepdims=True)
                              .round(4).tolist(), (1, 3)),
    "mint_std_dtype": lambda: (ms.float32, (2,)),
    "mint_dropout2d_p1": lambda: [[[[0.0, 0.0]], [[0.0, 0.0]]]],
    "lstm_two_layers": None,  # checked by test_lstm_layers_mindspore_cpu_cannot_run
    "lstm_two_layers_bidir": None,
    "lstm_three_layers_bidir_square": None,
}
_RANDOM = ("random_func_random_", "random_func_uniform_", "uniform_seeded_repeats", "random_seeded_repeats",
           "random_default_to_int8", "random_float", "random_only_from", "uniform_mean", "mint_dropout2d_train",
           "random_bad_range", "uniform_bad_range", "mint_nn_dropout_train", "mint_randint_bad_range")


@pytest.mark.parametrize("name", sorted(k for k, v in _OTHER_COMPUTED.items() if v is not None))
def test_mint_functions_without_a_mindspore_cpu_kernel(name, pynative_mode):
    got = _run(name)
    assert close_literals(printed_literal(str(got)), printed_literal(str(_OTHER_COMPUTED[name]()))), f"{name}: {got}"


@pytest.mark.parametrize("name", sorted(NUMPY_TWINS))
def test_mint_torch_style_functions_match_numpy(name, pynative_mode):
    # Every one, whether or not MindSpore's CPU runs it (those it runs are compared with it above too).
    env: dict = {"np": np}
    exec(NUMPY_TWINS[name], env)  # noqa: S102 - the repository's own programs
    got = _run(name)
    want = env["result"]
    assert close_literals(printed_literal(str(got)), printed_literal(str(want))), f"{name}: {got} != {want}"


def test_mint_torch_style_refusals(pynative_mode):
    x = ms.Tensor(_X)
    with pytest.raises(TypeError, match="mint.sum: dim must be None, an int or a tuple of ints"):
        ms.mint.sum(x, 1.0)
    with pytest.raises(TypeError, match="mint.max: input must be a Tensor"):
        ms.mint.max([1, 2])
    with pytest.raises(TypeError, match="mint.max: dim must be an int"):
        ms.mint.max(x, 0.5)
    with pytest.raises(IndexError, match="mint.select: index 3 is out of range for axis 1 of size 3"):
        ms.mint.select(x, 1, 3)


def test_mint_reductions_refuse_what_mindspore_refuses(pynative_mode):
    x = ms.Tensor(_X)
    with pytest.raises(TypeError, match="mint.std: input must be float16, float32 or bfloat16"):
        ms.mint.std(ms.Tensor(_A))
    with pytest.raises(TypeError, match="mint.var: dim must be None, an int or a tuple of ints"):
        ms.mint.var(x, dim=1.5)
    with pytest.raises(TypeError, match="correction must be an int"):
        ms.mint.std_mean(x, correction=0.5)
    with pytest.raises(TypeError, match="mint.equal: other must be a Tensor"):
        ms.mint.equal(x, 1.0)


def test_random_fills_without_a_mindspore_cpu_kernel(pynative_mode):
    assert _run("random_func_random_") == ((2, 3), ms.int64, True, True)
    assert _run("random_func_uniform_") == ((4, 2), ms.float32, True, True)
    # A Generator seeded again repeats its draw; the next draw (offset advanced) is another one.
    assert _run("uniform_seeded_repeats") == (True, False)
    assert _run("random_seeded_repeats") is True
    assert _run("random_default_to_int8") == (True, True, True)
    assert _run("random_float") == (True, np.float32)
    assert _run("random_only_from") == (True, True, True)
    assert _run("uniform_mean") == (1.0, True, True)
    with pytest.raises(ValueError, match=r"random_: from_ \(5\) must be less than to \(2\)"):
        _run("random_bad_range")
    with pytest.raises(ValueError, match=r"uniform_: from_ \(2.0\) must not exceed to \(1.0\)"):
        _run("uniform_bad_range")


def test_random_fills_follow_the_default_generator_and_refuse_bad_arguments(pynative_mode):
    ms.manual_seed(11)
    a = ms.ops.random_(ms.Tensor(np.zeros(64, np.int32)), 0, 100).asnumpy().copy()
    ms.manual_seed(11)
    b = ms.Tensor(np.zeros(64, np.int32)).random_(0, 100).asnumpy()
    np.testing.assert_array_equal(a, b)
    counts = np.bincount(ms.Tensor(np.zeros(40000, np.int64)).random_(0, 4).asnumpy(), minlength=4)
    assert counts.min() > 9400 and counts.max() < 10600  # uniform over the four values
    with pytest.raises(TypeError, match="random_: to must be an int, got float"):
        ms.Tensor(np.zeros(2, np.int64)).random_(0, 2.5)
    with pytest.raises(ValueError, match=r"random_: \[0, 299\] does not fit int8"):
        ms.Tensor(np.zeros(2, np.int8)).random_(0, 300)
    with pytest.raises(TypeError, match="uniform_: input must be a float tensor, got int32"):
        ms.ops.uniform_(ms.Tensor(np.zeros(2, np.int32)))
    with pytest.raises(TypeError, match="generator must be a mindspore.Generator"):
        ms.ops.uniform_(ms.ops.zeros((2,)), generator=3)


# mint's random creation functions where MindSpore's CPU has no kernel: dtype, shape, range, distribution and
# seeding (a generator seeded again repeats its draw, the next draw differs).
_MINT_RANDOM = {
    "mint_rand": "(float32, (200, 3), True, True, True)",
    "mint_rand_seeded": "(True, False)",
    "mint_randn": "(float32, (5000,), True, True)",
    "mint_randint": "(int64, (500,), [3, 4, 5, 6, 7, 8])",
    "mint_randint_high": "(int64, [0, 1, 2, 3])",
    "mint_normal": "(float32, (4000,), True, True)",
    "mint_normal_tensor": "(float32, (2,), [0.0, 100.0])",
    "mint_randperm": "(int64, (6,), [0, 1, 2, 3, 4, 5])",
}


@pytest.mark.parametrize("name", sorted(_MINT_RANDOM))
def test_mint_random_functions_without_a_mindspore_cpu_kernel(name, pynative_mode):
    assert str(_run(name)).replace("mindspore.", "") == _MINT_RANDOM[name]


def test_mint_random_functions_refuse_bad_arguments(pynative_mode):
    with pytest.raises(ValueError, match=r"mint.randint: low \(5\) must be less than high \(5\)"):
        _run("mint_randint_bad_range")
    with pytest.raises(TypeError, match="mint.rand: size must be non-negative ints"):
        ms.mint.rand(2, -1)
    with pytest.raises(TypeError, match="mint.randn: dtype must be a float dtype, got int32"):
        ms.mint.randn(2, dtype=ms.int32)
    with pytest.raises(TypeError, match="mint.normal: give size, or mean or std as a Tensor"):
        ms.mint.normal(0.0, 1.0)
    ms.manual_seed(21)
    a = ms.mint.randn(6).asnumpy()
    ms.manual_seed(21)
    np.testing.assert_array_equal(a, ms.mint.randn(6).asnumpy())  # the default generator is seeded too


def test_mint_nn_dropout_in_training(pynative_mode):
    values, about_half_dropped = _run("mint_nn_dropout_train")
    assert values == [0.0, 2.0] and about_half_dropped


def test_dropout2d_in_training_drops_whole_channels(pynative_mode):
    shape, values, whole_channels = _run("mint_dropout2d_train")
    assert shape == (4, 8, 2, 3) and set(values) <= {0.0, 2.0} and whole_channels


def test_inplace_floor_divide_and_remainder_change_the_tensor(pynative_mode):
    # MindSpore's CPU returns the result and leaves x as it was; its documentation (and Ascend) writes x, and
    # so does opbuild, as it does for add_/mul_.
    x = ms.Tensor(np.array([2, 4, -1]), ms.int32)
    assert x.floor_divide_(ms.Tensor(np.array([3, 3, 3]), ms.int32)) is x
    assert x.asnumpy().tolist() == [0, 1, -1] and x.dtype == ms.int32
    y = ms.Tensor(np.array([2, 4, -1]), ms.int32)
    assert y.remainder_(ms.Tensor(np.array([3, -6, -2]), ms.int32)) is y
    assert y.asnumpy().tolist() == [2, -2, -1]


def test_cond_refuses_bad_orders_and_shapes(pynative_mode):
    a = ms.Tensor(_M3)
    with pytest.raises(ValueError, match="cond: p must be one of 2, -2, 1, -1, inf, -inf, 'fro', 'nuc' or None"):
        ms.ops.cond(a, 3)
    with pytest.raises(ValueError, match=r"cond: A must be square matrices .* got shape \(2, 3\)"):
        ms.ops.cond(ms.Tensor(_X))
    # The 2-norm condition number is the ratio of the extreme singular values.
    s = np.linalg.svd(_M3.astype(np.float64), compute_uv=False)
    assert abs(float(ms.ops.cond(a).asnumpy()) - s[0] / s[-1]) < 1e-4


def test_tensor_std_and_var_take_both_mindspore_overloads(pynative_mode):
    x = ms.Tensor(_X)
    np.testing.assert_allclose(x.std().asnumpy(), _X.std(), rtol=1e-5)  # (axis, ddof=0, keepdims)
    np.testing.assert_allclose(x.var(dim=1).asnumpy(), _X.var(1, ddof=1), rtol=1e-5)  # (dim, *, correction=1)
    assert x.var(dim=0, correction=0, keepdim=True).shape == (1, 3)
    with pytest.raises(TypeError, match="Tensor.std: pass either axis/ddof/keepdims or dim/correction/keepdim"):
        x.std(1, dim=1)


def test_float_power_ext_and_isnan_ext_refuse_non_tensors():
    with pytest.raises(TypeError, match="float_power_ext: input or exponent must be a Tensor"):
        ms.ops.float_power_ext(2, 3)
    with pytest.raises(TypeError, match="isnan_ext: tensor must be a Tensor"):
        ms.ops.isnan_ext([1.0])


def _lstm_reference(x, h0, c0, w, input_size, hidden, layers, bias, bidir):
    """NumPy LSTM over MindSpore's CPU flat-weight layout (every w_ih, every w_hh, every bias)."""
    d_n = 2 if bidir else 1
    flat, off = w.reshape(-1), 0
    keys = [(k, d) for k in range(layers) for d in range(d_n)]
    wih, whh, bs = {}, {}, {}
    for k, d in keys:
        width = input_size if k == 0 else hidden * d_n
        wih[k, d], off = flat[off:off + 4 * hidden * width].reshape(4 * hidden, width), off + 4 * hidden * width
    for k, d in keys:
        whh[k, d], off = flat[off:off + 4 * hidden * hidden].reshape(4 * hidden, hidden), off + 4 * hidden * hidden
    for k, d in keys:
        bs[k, d], off = (flat[off:off + 4 * hidden], off + 4 * hidden) if bias else (np.zeros(4 * hidden), off)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    inp, hn, cn = x.astype(np.float64), [], []
    for k in range(layers):
        outs = []
        for d in range(d_n):
            h, c, seq = h0[k * d_n + d], c0[k * d_n + d], [None] * x.shape[0]
            for t in (range(x.shape[0] - 1, -1, -1) if d else range(x.shape[0])):
                i, f, g, o = np.split(inp[t] @ wih[k, d].T + h @ whh[k, d].T + bs[k, d], 4, axis=1)
                c = sig(f) * c + sig(i) * np.tanh(g)
                h = sig(o) * np.tanh(c)
                seq[t] = h
            outs.append(np.stack(seq))
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, axis=2)
    return inp, np.stack(hn), np.stack(cn)


@pytest.mark.parametrize("args", [(3, 4, 2, True, False), (2, 3, 2, True, True), (5, 3, 1, True, False),
                                  (3, 2, 3, False, True)])
def test_lstm_layers_mindspore_cpu_cannot_run(args, pynative_mode):
    input_size, hidden, layers, bias, bidir = args
    net = ms.ops.LSTM(input_size, hidden, layers, bias, bidir, 0.0)
    rng = np.random.default_rng(0)
    d_n = 2 if bidir else 1
    w = rng.uniform(-0.4, 0.4, (net.weight_size(), 1, 1)).astype(np.float32)
    x = rng.standard_normal((4, 2, input_size)).astype(np.float32)
    h0 = rng.standard_normal((layers * d_n, 2, hidden)).astype(np.float32)
    c0 = rng.standard_normal((layers * d_n, 2, hidden)).astype(np.float32)
    out = net(ms.Tensor(x), ms.Tensor(h0), ms.Tensor(c0), ms.Tensor(w))
    want = _lstm_reference(x, h0, c0, w, input_size, hidden, layers, bias, bidir)
    assert len(out) == 5
    for got, ref in zip(out[:3], want):
        np.testing.assert_allclose(got.asnumpy(), ref, atol=1e-5)
    assert out[0].shape == (4, 2, hidden * d_n)


def test_lstm_refuses_bad_arguments():
    with pytest.raises(ValueError, match="LSTM: hidden_size must be a positive int"):
        ms.ops.LSTM(3, 0, 1, True, False, 0.0)
    with pytest.raises(TypeError, match="LSTM: has_bias must be a bool"):
        ms.ops.LSTM(3, 2, 1, 1, False, 0.0)
    with pytest.raises(ValueError, match="LSTM: proj_size must be 0"):
        ms.ops.LSTM(3, 2, 1, True, False, 0.0, proj_size=1)
    net = ms.ops.LSTM(3, 2, 1, True, False, 0.0)
    h = ms.Tensor(np.zeros((1, 2, 2), np.float32))
    with pytest.raises(ValueError, match=r"LSTM: x must have shape \(seq_len, batch, 3\)"):
        net(ms.Tensor(np.zeros((4, 2, 5), np.float32)), h, h, ms.Tensor(np.zeros(48, np.float32)))
    with pytest.raises(ValueError, match="w holds 10 values, the layout needs 48"):
        net(ms.Tensor(np.zeros((4, 2, 3), np.float32)), h, h, ms.Tensor(np.zeros(10, np.float32)))
    with pytest.raises(TypeError, match="LSTM: h must have x's dtype"):
        net(ms.Tensor(np.zeros((4, 2, 3), np.float32)), ms.Tensor(np.zeros((1, 2, 2))), h,
            ms.Tensor(np.zeros(48, np.float32)))


def test_lstm_traces_into_a_graph(graph_mode):
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.lstm = ms.ops.LSTM(3, 2, 1, True, True, 0.0)

        def construct(self, x, h, c, w):
            return self.lstm(x, h, c, w)[0]

    rng = np.random.default_rng(1)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((3, 2, 3), (2, 2, 2), (2, 2, 2), (96,))]
    got = Net()(*[ms.Tensor(a) for a in args]).asnumpy()
    np.testing.assert_allclose(got, _lstm_reference(*args, 3, 2, 1, True, True)[0], atol=1e-5)


def test_mint_and_ops_function_are_importable_modules():
    import importlib

    assert importlib.import_module("opbuild.mint").std is ms.mint.std
    assert importlib.import_module("opbuild.mint.nn").Linear is ms.nn.Linear
    fn = importlib.import_module("opbuild.ops.function.math_func")
    assert fn.float_power_ext is ms.ops.float_power_ext and fn.grad is ms.ops.grad
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = ms.mint.nope


def test_the_import_alias_reaches_the_new_modules():
    from opbuild.alias import counterpart

    assert counterpart("mindspore.mint") == "opbuild.mint"
    assert counterpart("mindspore.mint.nn") == "opbuild.mint.nn"
    assert counterpart("mindspore.ops.function.math_func") == "opbuild.ops.function.math_func"


def test_lstm_gradients_flow_through_the_flat_weight(pynative_mode):
    net = ms.ops.LSTM(2, 2, 1, True, False, 0.0)
    rng = np.random.default_rng(2)
    x, h, c = (ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in ((3, 1, 2), (1, 1, 2), (1, 1, 2)))
    w0 = rng.uniform(-0.5, 0.5, net.weight_size()).astype(np.float32)

    def loss(w):
        return net(x, h, c, w)[0].sum()

    grad = ms.grad(loss)(ms.Tensor(w0)).asnumpy()
    eps, i = 1e-2, 5
    up, down = w0.copy(), w0.copy()
    up[i] += eps
    down[i] -= eps
    numeric = (float(loss(ms.Tensor(up)).asnumpy()) - float(loss(ms.Tensor(down)).asnumpy())) / (2 * eps)
    assert grad.shape == w0.shape and abs(grad[i] - numeric) < 1e-3


def test_mint_and_cond_trace_into_a_graph(graph_mode):
    class Net(ms.nn.Cell):
        def construct(self, x, a):
            values, index = ms.mint.max(x, 1)
            s = ms.mint.std(x, dim=0, keepdim=True)
            y = ms.mint.nn.functional.softmax(ms.mint.cat((x, s), 0), dim=1)
            return values, index, ms.mint.sum(y, 1), ms.ops.cond(a, 1), a.mH

    x, a = ms.Tensor(_X), ms.Tensor(_M3)
    got = [t.asnumpy() for t in Net()(x, a)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = [t.asnumpy() for t in Net().construct(x, a)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5)
    assert got[1].dtype == np.int64 and got[4].shape == (3, 3)
