"""Order statistics of inputs holding NaN: the median of a lane with a NaN is NaN at the index of its first NaN,
and a NaN searched into a sorted sequence goes after every element. torch is the reference; MindSpore 2.10's
CPU gives the same answers here (median([3, nan, 1, -inf, nan, 2]) is (nan, 1), searchsorted([1, 2, 3], nan)
is 3, bucketize(nan, [0, 1, 2]) is 3), where opbuild gave a number from the non-NaN elements and 0."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, mint, ops
from tests.helpers import TORCH_MISSING, run_op

torch = pytest.importorskip("torch", reason=TORCH_MISSING)
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]
nan, inf = np.nan, np.inf
LANES = np.array([[3, nan, 1, -inf, nan, 2], [nan, 1, nan, nan, 0, 5], [1, 1, nan, 5, nan, 7],
                  [4, 3, 2, 1, 0, -1], [nan, nan, nan, nan, nan, nan]], np.float32)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [0, 1])
def test_median_of_a_lane_with_nan_is_nan_at_its_first_nan(mode, dtype, axis) -> None:
    x = LANES.astype(dtype)
    want = torch.median(torch.from_numpy(x), axis)
    for i in (0, 1):
        got = run_op(lambda t, i=i: ops.median(t, axis)[i], x, mode=mode)
        np.testing.assert_array_equal(got, (want.values if i == 0 else want.indices).numpy())
    keep = run_op(lambda t: ops.median(t, axis, keepdims=True)[0], x, mode=mode)
    np.testing.assert_array_equal(keep, torch.median(torch.from_numpy(x), axis, keepdim=True).values.numpy())


def test_median_through_tensor_primitive_and_mint() -> None:
    want = torch.median(torch.from_numpy(LANES), 1)
    for values, index in (Tensor(LANES).median(axis=1), ops.Median(axis=1)(Tensor(LANES)),
                          mint.median(Tensor(LANES), 1)):
        np.testing.assert_array_equal(values.asnumpy(), want.values.numpy())
        np.testing.assert_array_equal(index.asnumpy(), want.indices.numpy())
    np.testing.assert_array_equal(mint.median(Tensor(LANES)).asnumpy(), torch.median(torch.from_numpy(LANES)))
    # ignore_nan keeps its own rule: the median of the numbers (NaN only for a lane of NaNs).
    values, _ = ops.Median(axis=1, ignore_nan=True)(Tensor(LANES))
    np.testing.assert_array_equal(values.asnumpy(), torch.nanmedian(torch.from_numpy(LANES), 1).values.numpy())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("right", [False, True])
def test_a_nan_searched_into_a_sorted_sequence_goes_last(mode, right) -> None:
    seq = np.array([[-inf, 0, 1, 2, 2, 3], [1, 2, 3, 4, 5, inf]], np.float32)
    values = np.array([[nan, 2, -inf, inf], [nan, 0, 6, nan]], np.float32)
    want = torch.searchsorted(torch.from_numpy(seq), torch.from_numpy(values), right=right).numpy()
    got = run_op(lambda s, v: ops.searchsorted(s, v, right=right), seq, values, mode=mode)
    np.testing.assert_array_equal(got, want)
    flat = run_op(lambda s, v: ops.searchsorted(s, v, right=right), seq[0], values, mode=mode)
    np.testing.assert_array_equal(flat, torch.searchsorted(torch.from_numpy(seq[0]), torch.from_numpy(values),
                                                            right=right).numpy())
    np.testing.assert_array_equal(Tensor(seq[1]).searchsorted(Tensor(values[1]), side="right" if right else "left")
                                  .asnumpy(), want[1])
    bounds = [0.0, 1.0, 2.0]
    got = run_op(lambda v: ops.bucketize(v, bounds, right=right), values, mode=mode)
    np.testing.assert_array_equal(got, torch.bucketize(torch.from_numpy(values), torch.tensor(bounds),
                                                       right=right).numpy())


@pytest.mark.parametrize("right", [False, True])
def test_msnumpy_searchsorted_and_digitize_put_a_nan_last(right) -> None:
    """``mindspore.numpy``'s searchsorted and digitize against NumPy (MindSpore 2.10 gives 3 and 2 for the
    NaNs of the first two cases too): increasing and decreasing bins, a NaN among the values."""
    from opbuild import numpy as mnp

    seq, values = np.array([1, 2, 2, 3], np.float32), np.array([nan, 2, -inf, inf, 0.5], np.float32)
    side = "right" if right else "left"
    np.testing.assert_array_equal(mnp.searchsorted(Tensor(seq), Tensor(values), side=side).asnumpy(),
                                  np.searchsorted(seq, values, side=side))
    for bins in (np.array([0, 1, 2], np.float32), np.array([2, 1, 0], np.float32)):
        np.testing.assert_array_equal(mnp.digitize(Tensor(values), Tensor(bins), right=right).asnumpy(),
                                      np.digitize(values, bins, right=right))
