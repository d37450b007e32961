"""nn.TimeDistributed called as a Cell runs its construct: the layer is applied per time step (or to the steps
merged into the batch axis), not once to the whole input. A layer that is not shape-agnostic (Flatten) shows
the difference; the expected values are the input reshaped per step with NumPy (MindSpore 2.10 gives the
shape (2, 3, 20) for both calls below: checked by hand on the oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import opbuild as ms
from opbuild import Tensor, nn


@pytest.mark.parametrize("reshape_with_axis", [None, 0])
def test_time_distributed_flattens_each_step(reshape_with_axis):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    out = nn.TimeDistributed(nn.Flatten(), time_axis=1, reshape_with_axis=reshape_with_axis)(Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), x.reshape(2, 3, 20))
