"""``mindspore.numpy`` as a MindSpore program meets it: its functions trace inside ``@jit`` functions and Cells
(a GRAPH_MODE build, cached like any other), Python data gets its 32-bit defaults, and every name of MindSpore
2.10's ``mindspore.numpy.__all__`` exists (the import alias: test_msnumpy_alias.py)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
import opbuild.numpy as mnp
from opbuild import nn

# MindSpore 2.10's mindspore.numpy.__all__ (250 names; ``not_equal`` is listed twice there).
MS_NAMES = """abs absolute add amax amin append apply_along_axis apply_over_axes arange arccos arccosh arcsin arcsinh
arctan arctan2 arctanh argmax argmin argwhere array array_equal array_equiv array_split array_str asarray asfarray
atleast_1d atleast_2d atleast_3d average bartlett bincount bitwise_and bitwise_not bitwise_or bitwise_xor blackman
bool_ broadcast_arrays broadcast_to cbrt ceil choose clip column_stack concatenate convolve copysign corrcoef
correlate cos cosh count_nonzero cov cross cumprod cumsum deg2rad diag diag_indices diagflat diagonal diff digitize
divide divmod dot dsplit dstack ediff1d empty empty_like equal exp exp2 expand_dims expm1 eye fabs fix flip fliplr
flipud float16 float32 float64 float_ float_power floor floor_divide fmod full full_like gcd geomspace gradient
greater greater_equal hamming hanning heaviside histogram histogram2d histogram_bin_edges histogramdd hsplit hstack
hypot identity in1d indices inner int16 int32 int64 int8 int_ interp intersect1d invert isclose isfinite isin isinf
isnan isneginf isposinf isscalar ix_ kron lcm less less_equal linspace log log10 log1p log2 logaddexp logaddexp2
logical_and logical_not logical_or logical_xor logspace matmul max maximum mean meshgrid mgrid min minimum mod
moveaxis multi_dot multiply nancumsum nanmax nanmean nanmin nanstd nansum nanvar negative norm not_equal ogrid ones
ones_like outer pad piecewise polyadd polyder polyint polymul polysub polyval positive power promote_types ptp
rad2deg radians rand randint randn ravel ravel_multi_index reciprocal remainder repeat reshape result_type rint roll
rollaxis rot90 searchsorted select setdiff1d sign signbit sin sinh size sometrue split sqrt square squeeze stack std
subtract sum swapaxes take take_along_axis tan tanh tensordot tile trace transpose trapz tri tril tril_indices
tril_indices_from triu triu_indices triu_indices_from true_divide trunc uint16 uint32 uint64 uint8 unique
unravel_index unwrap vander var vsplit vstack where zeros zeros_like""".split()  # noqa: SIM905 - a word list


def test_every_mindspore_name_exists_and_nothing_more():
    assert sorted(set(mnp.__all__)) == sorted(set(MS_NAMES))
    assert all(hasattr(mnp, n) for n in MS_NAMES)


def test_jit_function_traces_numpy_calls(pynative_mode):
    @ms.jit
    def standardize(x):
        mu = mnp.mean(x, axis=0, keepdims=True)
        sd = mnp.std(x, axis=0, keepdims=True)
        return mnp.where(sd > 0, (x - mu) / sd, mnp.zeros_like(x))

    x = np.arange(12, dtype=np.float32).reshape(4, 3) ** 2
    got = standardize(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, (x - x.mean(0)) / x.std(0), rtol=1e-5)


def test_graph_mode_cell_is_built_once_and_reused(graph_mode):
    class Net(nn.Cell):
        def construct(self, x, y):
            z = mnp.concatenate((mnp.tril(x), mnp.flip(y, 0)), axis=1)
            return mnp.cumsum(mnp.clip(z, -1.0, 1.0), axis=1)

    net = Net()
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 3)).astype(np.float32), rng.standard_normal((3, 2)).astype(np.float32)
    np.testing.assert_allclose(net(ms.Tensor(a), ms.Tensor(b)).asnumpy(),
                               np.cumsum(np.clip(np.concatenate([np.tril(a), b[::-1]], 1), -1, 1), 1), rtol=1e-6)
    first = ms.build_report()
    assert first.kernels and not first.rerun and not first.graph_breaks  # one graph, no break
    a2 = a * 0.5
    np.testing.assert_allclose(net(ms.Tensor(a2), ms.Tensor(b)).asnumpy(),
                               np.cumsum(np.clip(np.concatenate([np.tril(a2), b[::-1]], 1), -1, 1), 1), rtol=1e-6)
    again = ms.build_report()
    assert again.rerun and again.built == 0  # the same inputs' types: the compiled graph ran again


@pytest.mark.parametrize("mode_name", ["pynative", "graph"])
def test_python_data_is_narrowed_to_32_bits(mode_name):
    from ..conftest import execution_mode

    with execution_mode(mode_name):
        assert mnp.array([1, 2]).dtype == ms.int32
        assert mnp.array([1.5]).dtype == ms.float32
        assert mnp.asarray(np.array([1, 2], np.int16)).dtype == ms.int16  # NumPy arrays keep their dtype
        assert mnp.arange(3).dtype == ms.int32 and mnp.arange(0.0, 1.0, 0.5).dtype == ms.float32
