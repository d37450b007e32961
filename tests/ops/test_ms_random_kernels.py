"""The compiled kernels of MindSpore's random streams (ops/ms_random_ops.py, run in GRAPH_MODE): each kernel,
run on a generator state, must give bit for bit the values and the advanced state of the host generator
(core/ms_random_streams.py, itself checked against MindSpore's recorded streams), across mt19937 twists,
rejected words and several calls in a row. tests/compat/test_random_graph.py checks whole graphs against
MindSpore's recorded draws."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn, ops
from opbuild.core import ms_random_discrete as msd
from opbuild.core.ir import TensorType
from opbuild.core.ms_random_streams import KernelStream
from opbuild.ops import ms_random_ops as R
from opbuild.ops.primitive import apply
from opbuild.ops.registry import get as get_op
from tests.targets.cuda.host_emulation import HostKernels, gxx
from tests.targets.cuda.nvrtc_check import compile_specs


def _run(op: str, stream: KernelStream, shape: tuple, bounds=()) -> tuple[np.ndarray, np.ndarray]:
    values, state = apply(op, {"shape": shape}, [Tensor(stream.state()), *[Tensor(np.asarray(b, np.int32))
                                                                            for b in bounds]])
    return values.asnumpy(), state.asnumpy()


@pytest.mark.parametrize("shape", [(0,), (3,), (312, 2), (1000,)])
def test_uniform_real_kernel_is_the_host_generator(shape):
    kernel_state = KernelStream(7, 533697028).state()
    host = KernelStream(7, 533697028)
    for _ in range(3):  # several calls continue the generator (1000 values cross mt19937's 624-word twists)
        got, kernel_state = _run("MsUniformReal", KernelStream.from_state(kernel_state), shape)
        want = host.uniform_real(int(np.prod(shape))).reshape(shape)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(kernel_state, host.state())


@pytest.mark.parametrize("bounds", [(0, 10), (-5, 1000000), (0, 3), (0, 1500000000), (-2**31, 2**31 - 1), (5, 6)])
def test_uniform_int_kernel_is_the_host_generator(bounds):
    kernel_state = KernelStream(0, 9).state()
    host = KernelStream(0, 9)
    for _ in range(2):  # a span near 2**31 rejects about half the words: the state must count every one
        got, kernel_state = _run("MsUniformInt", KernelStream.from_state(kernel_state), (700,), bounds)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, host.uniform_int(700, *bounds))
        np.testing.assert_array_equal(kernel_state, host.state())


def test_uniform_int_kernel_with_empty_bounds_draws_nothing():
    """minval >= maxval inside a graph (MindSpore refuses it; a compiled graph cannot raise): minval, no draw."""
    stream = KernelStream(0, 9)
    got, state = _run("MsUniformInt", stream, (4,), (3, 3))
    np.testing.assert_array_equal(got, np.full(4, 3, np.int32))
    np.testing.assert_array_equal(state, stream.state())


@pytest.mark.parametrize("n", [0, 1, 5, 20001])
def test_standard_normal_kernel_is_the_host_generator(n):
    """20001 values run through the polar method's rejections and glibc's logf (the kernel calls the same
    scalar logf as the host's ctypes call); an odd count loses the pair's second value, as MindSpore."""
    kernel_state = KernelStream(1, 2, normal=True).state()
    host = KernelStream(1, 2, normal=True)
    for _ in range(2):
        got, kernel_state = _run("MsStandardNormal", KernelStream.from_state(kernel_state), (n,))
        np.testing.assert_array_equal(got, host.standard_normal(n))
        np.testing.assert_array_equal(kernel_state, host.state())


def test_state_round_trips():
    for normal in (False, True):
        stream = KernelStream(123, 456, normal=normal)
        (stream.standard_normal if normal else stream.uniform_real)(700)
        again = KernelStream.from_state(stream.state())
        np.testing.assert_array_equal(again.state(), stream.state())


def test_bad_state_is_refused():
    with pytest.raises(Exception, match=r"state must be an int64 generator state of shape \(625,\)"):
        apply("MsUniformReal", {"shape": (2,)}, [Tensor(np.zeros(2, np.int64))])
    with pytest.raises(Exception, match=r"shape \(1,\)"):
        apply("MsStandardNormal", {"shape": (2,)}, [Tensor(np.zeros(625, np.int64))])


class _Both(nn.Cell):
    def __init__(self):
        super().__init__()
        self.n = ops.StandardNormal(seed=4, seed2=5)

    def construct(self, x):
        return x + ops.rand(3), self.n((3,))


def test_a_graphs_state_parameter_is_advanced_in_place(graph_mode):
    """The same program in GRAPH_MODE: the first call draws what PyNative's first call draws, later calls
    continue the graph's generators (PyNative's functional calls take new seeds instead); the Dropout-style
    ops keep working beside them (a Dropout layer in training draws a fresh mask per call)."""
    ms.set_seed(3)
    net = _Both()
    zero = Tensor(np.zeros(3, np.float32))
    first, second = [[o.asnumpy() for o in net(zero)] for _ in range(2)]
    rand_stream, normal_stream = KernelStream(3, 0), KernelStream(4, 5, normal=True)
    for got, want in zip((first, second), [(rand_stream.uniform_real(3), normal_stream.standard_normal(3))
                                            for _ in range(2)]):
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
    drop = nn.Dropout(p=0.5)
    drop.set_train(True)
    ones = Tensor(np.ones(4000, np.float32))
    m1, m2 = (drop(ones).asnumpy() for _ in range(2))
    assert not np.array_equal(m1, m2) and 0.4 < (m1 > 0).mean() < 0.6


@pytest.mark.skipif(gxx() is None, reason="no host C++ compiler to run the GPU kernels' text")
@pytest.mark.parametrize("op,inputs", [("MsUniformReal", ()), ("MsUniformInt", ((-3, 1500000000),)),
                                       ("MsStandardNormal", ())])
def test_gpu_kernels_text_is_the_host_generator(op, inputs, tmp_path):
    """The GPU target's text of the three kernels (one thread), compiled for the host as C++: the host
    generator's values and state (glibc's logf here; a GPU's logf may differ in the last bit)."""
    normal = op == "MsStandardNormal"
    stream = KernelStream(5, 6, normal=normal)
    arrays = [stream.state()] + [np.asarray(b, np.int32) for bounds in inputs for b in bounds]
    spec = get_op(op).spec({"shape": (1001,)}, [TensorType(a.shape, str(a.dtype)) for a in arrays])
    got, state = HostKernels([spec], tmp_path).run(0, spec, arrays)
    want = stream.standard_normal(1001) if normal else (
        stream.uniform_int(1001, *inputs[0]) if inputs else stream.uniform_real(1001))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(state, stream.state())


def test_nvrtc_compiles_the_gpu_kernels(tmp_path):
    """NVRTC (the cuda extra; skipped without it) compiles the four GPU kernels for sm_90."""
    specs = [get_op("MsUniformReal").spec({"shape": (5,)}, [TensorType((625,), "int64")]),
             get_op("MsUniformInt").spec({"shape": (5,)}, [TensorType((625,), "int64"), TensorType((), "int32"),
                                                           TensorType((), "int32")]),
             get_op("MsStandardNormal").spec({"shape": (5,)}, [TensorType((1,), "int64")]),
             get_op("MsShufflePerm").spec({"n": 5}, [TensorType((625,), "int64")])]
    assert len(compile_specs(specs, tmp_path, "ms_random")) == 4


# ---- MsShufflePerm: RandpermV2's and RandomShuffle's std::shuffle, compiled for long permutations ----------------
# Lengths through both of libstdc++'s branches: two swap positions per draw while n * n fits the generator's
# range (mt19937: n <= 65535, minstd_rand0: n <= 46340), one per draw beyond; even and odd n.
_PERM_LENGTHS = [0, 1, 2, 3, 16, 17, 46340, 46341, 65535, 65536, 70001]


def _host_perm(stream: KernelStream, n: int) -> np.ndarray:
    return msd.shuffle_permutation(msd.stream_words(stream), n)


@pytest.mark.parametrize("n", _PERM_LENGTHS)
@pytest.mark.parametrize("minstd", [False, True])
def test_shuffle_perm_kernel_is_the_host_shuffle(n, minstd):
    """The compiled permutation and advanced state equal the host's word-by-word std::shuffle (itself checked
    against MindSpore's recorded RandpermV2 and RandomShuffle outputs), over two calls in a row."""
    host = KernelStream(11, 3, normal=True) if minstd else KernelStream.from_state(msd.mt_state(2**32 - 5))
    state = host.state()
    for _ in range(2):
        got, state = (a.asnumpy() for a in apply("MsShufflePerm", {"n": n}, [Tensor(state)]))
        want = _host_perm(host, n)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(state, host.state())


def test_long_randperm_and_shuffle_take_the_compiled_kernel(monkeypatch):
    """ops.randperm and a seeded RandomShuffle at COMPILED_PERM_MIN and beyond give the host path's values (the
    stream of a shuffle object continuing across calls) and run the kernel, not the Python loop."""
    n = R.COMPILED_PERM_MIN + 3
    want_perm = msd.randperm(n, 5, 9)
    rows = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    host = KernelStream(8, 1, normal=True)
    want_rows = [msd.random_shuffle(host, rows) for _ in range(2)]
    looped = []
    monkeypatch.setattr(msd, "shuffle_permutation", lambda *a: looped.append(a) or pytest.fail("Python loop"))
    np.testing.assert_array_equal(ops.randperm(n, seed=5, offset=9).asnumpy(), want_perm)
    shuffle = ops.RandomShuffle(seed=8, seed2=1)
    for want in want_rows:
        np.testing.assert_array_equal(shuffle(Tensor(rows)).asnumpy(), want)
    assert not looped


def test_shuffle_perm_refuses_bad_attributes_and_state():
    with pytest.raises(Exception, match="n, a non-negative int"):
        apply("MsShufflePerm", {"n": -1}, [Tensor(np.zeros(1, np.int64))])
    with pytest.raises(Exception, match=r"mt19937 \(625,\) or minstd_rand0 \(1,\)"):
        apply("MsShufflePerm", {"n": 3}, [Tensor(np.zeros(2, np.int64))])


@pytest.mark.skipif(gxx() is None, reason="no host C++ compiler to run the GPU kernels' text")
@pytest.mark.parametrize("minstd", [False, True])
def test_gpu_shuffle_perm_text_is_the_host_shuffle(minstd, tmp_path):
    stream = KernelStream(5, 6, normal=True) if minstd else KernelStream.from_state(msd.mt_state(77))
    state = stream.state()
    spec = get_op("MsShufflePerm").spec({"n": 1001}, [TensorType(state.shape, "int64")])
    got, new_state = HostKernels([spec], tmp_path).run(0, spec, [state])
    np.testing.assert_array_equal(got, _host_perm(stream, 1001))
    np.testing.assert_array_equal(new_state, stream.state())
