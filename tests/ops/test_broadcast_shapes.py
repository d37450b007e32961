"""ops/registry.py broadcast_shapes (written out for speed) agrees with NumPy's broadcasting on every shape."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opbuild.core.errors import ShapeError
from opbuild.core.ir import TensorType
from opbuild.ops.registry import broadcast_shapes

SHAPES = st.lists(st.lists(st.integers(0, 3), max_size=4).map(tuple), min_size=1, max_size=4)


@settings(max_examples=500, deadline=None)
@given(SHAPES)
def test_matches_numpy(shapes):
    types = [TensorType(s, "float32") for s in shapes]
    try:
        expected = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        with pytest.raises(ShapeError, match="cannot be broadcast"):
            broadcast_shapes("Add", types)
        return
    assert broadcast_shapes("Add", types) == expected
