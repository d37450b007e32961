"""An axis out of range is refused, as MindSpore 2.10 refuses it (a ValueError: checked on its CPU build for
every call below), where most of these functions took it modulo the rank and returned another shape without a
word (``expand_dims(x, 4)`` of a 3-D x gave (1, 2, 3, 4), ``flatten(x, start_dim=4)`` (2, 12), ``stack``
and ``split`` joined or split along another axis) and the others raised a bare IndexError. In-range negative
axes still count from the end (compared with NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

from opbuild import Tensor, ops

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

BAD = {
    "expand_dims": [lambda t: ops.expand_dims(t, 4), lambda t: ops.expand_dims(t, -5), lambda t: ops.unsqueeze(t, 7),
                    lambda t: t.expand_dims(4), lambda t: t.unsqueeze(2**40)],
    "flatten": [lambda t: ops.flatten(t, start_dim=4), lambda t: ops.flatten(t, start_dim=0, end_dim=5)],
    "diff": [lambda t: ops.diff(t, 1, 3)],
    "diagonal": [lambda t: ops.diagonal(t, 0, 3, 1), lambda t: ops.diagonal(t, 0, 0, -4)],
    "moveaxis": [lambda t: ops.moveaxis(t, 3, 0), lambda t: ops.moveaxis(t, (0, 1), (1, -4))],
    "unstack": [lambda t: ops.unstack(t, 3)],
    "repeat_elements": [lambda t: ops.repeat_elements(t, 2, 3)],
    "stack": [lambda t: ops.stack([t, t], 4), lambda t: ops.stack([t, t], -5)],
    "split": [lambda t: ops.split(t, 1, 3), lambda t: ops.split(t, 1, -4)],
    "one_hot": [lambda t: ops.one_hot(Tensor(np.array([0, 1], np.int32)), 3, Tensor(1.0), Tensor(0.0), 2),
                lambda t: ops.one_hot(Tensor(np.array([0, 1], np.int32)), 3, Tensor(1.0), Tensor(0.0), -2)],
    "select": [lambda t: t.select(3, 0), lambda t: t.select(-4, 0)],
    # These raised a bare IndexError ("tuple index out of range"):
    "chunk": [lambda t: ops.chunk(t, 2, 3)],
    "narrow": [lambda t: ops.narrow(t, 3, 0, 1)],
    "roll": [lambda t: ops.roll(t, 1, 3)],
    "flip": [lambda t: ops.flip(t, (3,))],
    "swapaxes": [lambda t: ops.swapaxes(t, 0, 3)],
}


@pytest.mark.parametrize("name,call", [(n, c) for n, calls in BAD.items() for c in calls])
def test_an_axis_out_of_range_is_refused(name, call) -> None:
    with pytest.raises(ValueError, match=rf"{name}: axis -?\d+ is out of range"):
        call(Tensor(X))


def test_negative_axes_in_range_still_count_from_the_end() -> None:
    t = Tensor(X)
    assert ops.expand_dims(t, -4).shape == np.expand_dims(X, -4).shape
    assert ops.expand_dims(t, 3).shape == np.expand_dims(X, 3).shape
    assert ops.flatten(t, start_dim=-2).shape == (2, 12)
    np.testing.assert_array_equal(ops.diff(t, 1, -3).asnumpy(), np.diff(X, 1, -3))
    np.testing.assert_array_equal(ops.diagonal(t, 0, -1, -3).asnumpy(), np.diagonal(X, 0, -1, -3))
    np.testing.assert_array_equal(ops.moveaxis(t, -1, 0).asnumpy(), np.moveaxis(X, -1, 0))
    np.testing.assert_array_equal(ops.unstack(t, -1)[3].asnumpy(), X[..., 3])
    np.testing.assert_array_equal(ops.repeat_elements(t, 2, -1).asnumpy(), np.repeat(X, 2, -1))
    np.testing.assert_array_equal(ops.stack([t, t], -4).asnumpy(), np.stack([X, X], -4))
    np.testing.assert_array_equal(ops.split(t, 1, -3)[1].asnumpy(), X[1:])
    np.testing.assert_array_equal(t.select(-1, 2).asnumpy(), X[..., 2])
    hot = ops.one_hot(Tensor(np.array([0, 2], np.int32)), 3, Tensor(1.0), Tensor(0.0), 0).asnumpy()
    np.testing.assert_array_equal(hot, np.eye(3, dtype=np.float32)[[0, 2]].T)
    np.testing.assert_array_equal(ops.roll(t, 1, -1).asnumpy(), np.roll(X, 1, -1))
    np.testing.assert_array_equal(ops.flip(t, (-1,)).asnumpy(), np.flip(X, -1))
    np.testing.assert_array_equal(ops.swapaxes(t, 0, -1).asnumpy(), np.swapaxes(X, 0, -1))
    np.testing.assert_array_equal(ops.narrow(t, -1, 1, 2).asnumpy(), X[..., 1:3])
