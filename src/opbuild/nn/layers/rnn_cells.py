"""Single-step recurrent cells of ``mindspore.nn``: RNNCell, LSTMCell and GRUCell. One step is two MatMuls (input
and hidden projections of every gate at once) and the gate arithmetic; the parameters are MindSpore's
``weight_ih`` (G H, I), ``weight_hh`` (G H, H), ``bias_ih`` and ``bias_hh`` (G H,), drawn from
U(-1/sqrt(H), 1/sqrt(H)) as MindSpore draws them (its values after set_seed), gates stacked (i, f, g, o) for
the LSTM and (r, z, n) for the GRU, as nn.LSTM/GRU (nn/layers/rnns.py) have them."""

from __future__ import annotations

import math

from ...common.initializer import Uniform, init_array
from ...core.dtypes import float32
from ...core.init_values import seed_source
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ...ops.api import array as A
from ...ops.api import math as M
from ..cell import Cell
from ._checks import positive_int


class _CellBase(Cell):
    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=float32) -> None:
        super().__init__()
        layer = type(self).__name__
        self.input_size = positive_int(layer, "input_size", input_size)
        self.hidden_size = positive_int(layer, "hidden_size", hidden_size)
        if not isinstance(has_bias, bool):
            raise TypeError(f"{layer}: has_bias must be a bool, got {has_bias!r}")
        self.has_bias = has_bias
        g = self._gates * hidden_size
        init = Uniform(1.0 / math.sqrt(hidden_size))
        # MindSpore first fills the four parameters with np.random.randn, then redraws each from the Uniform
        # initializer: the first draws are discarded but move NumPy's generator, which later seeds depend on.
        rng = seed_source()
        for shape in ((g, input_size), (g, hidden_size), (g,), (g,))[:4 if has_bias else 2]:
            rng.standard_normal(shape)
        self.weight_ih = Parameter(init_array(init, (g, input_size), dtype), name="weight_ih")
        self.weight_hh = Parameter(init_array(init, (g, hidden_size), dtype), name="weight_hh")
        if has_bias:
            self.bias_ih = Parameter(init_array(init, (g,), dtype), name="bias_ih")
            self.bias_hh = Parameter(init_array(init, (g,), dtype), name="bias_hh")
        else:
            self.bias_ih = self.bias_hh = None

    def _check(self, x: Tensor, h: Tensor, name: str = "hx") -> None:
        layer = type(self).__name__
        if x.ndim not in (1, 2) or x.shape[-1] != self.input_size:
            raise ValueError(f"{layer}: x must be (batch, {self.input_size}) or ({self.input_size},), got shape "
                             f"{x.shape}")
        want = (*x.shape[:-1], self.hidden_size)
        if tuple(h.shape) != want:
            raise ValueError(f"{layer}: {name} must have shape {want}, got {h.shape}")

    def _projections(self, x: Tensor, h: Tensor) -> tuple[Tensor, Tensor]:
        """``x W_ih^T + b_ih`` and ``h W_hh^T + b_hh`` (all gates stacked on the last axis)."""
        gi = A.matmul(x, A.transpose(self.weight_ih, (1, 0)))
        gh = A.matmul(h, A.transpose(self.weight_hh, (1, 0)))
        if self.has_bias:
            gi, gh = M.add(gi, self.bias_ih), M.add(gh, self.bias_hh)
        return gi, gh


class RNNCell(_CellBase):
    """``RNNCell(input_size, hidden_size, has_bias=True, nonlinearity='tanh', dtype=float32)(x, hx)``:
    ``h' = act(x W_ih^T + b_ih + hx W_hh^T + b_hh)``, ``act`` tanh or relu."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, nonlinearity: str = "tanh",
                 dtype=float32) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNNCell: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity

    def construct(self, x: Tensor, hx: Tensor) -> Tensor:
        self._check(x, hx)
        gi, gh = self._projections(x, hx)
        pre = M.add(gi, gh)
        return M.tanh(pre) if self.nonlinearity == "tanh" else M.relu(pre)


class LSTMCell(_CellBase):
    """``LSTMCell(input_size, hidden_size, has_bias=True, dtype=float32)(x, hx)`` with ``hx = (h, c)``:
    gates (i, f, g, o), ``c' = sigmoid(f) c + sigmoid(i) tanh(g)``, ``h' = sigmoid(o) tanh(c')``; returns
    ``(h', c')``."""

    _gates = 4

    def construct(self, x: Tensor, hx: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise TypeError("LSTMCell: hx must be a tuple (h, c) of two Tensors")
        h, c = hx
        self._check(x, h, "h")
        self._check(x, c, "c")
        gi, gh = self._projections(x, h)
        i, f, g, o = A.split(M.add(gi, gh), self.hidden_size, -1)
        c2 = M.add(M.mul(M.sigmoid(f), c), M.mul(M.sigmoid(i), M.tanh(g)))
        return M.mul(M.sigmoid(o), M.tanh(c2)), c2


class GRUCell(_CellBase):
    """``GRUCell(input_size, hidden_size, has_bias=True, dtype=float32)(x, hx)``: gates (r, z, n),
    ``n = tanh(x_n + r (h_n))`` with ``h_n`` the hidden projection (bias included), ``h' = (1 - z) n + z hx``."""

    _gates = 3

    def construct(self, x: Tensor, hx: Tensor) -> Tensor:
        self._check(x, hx)
        gi, gh = self._projections(x, hx)
        i_r, i_z, i_n = A.split(gi, self.hidden_size, -1)
        h_r, h_z, h_n = A.split(gh, self.hidden_size, -1)
        r = M.sigmoid(M.add(i_r, h_r))
        z = M.sigmoid(M.add(i_z, h_z))
        n = M.tanh(M.add(i_n, M.mul(r, h_n)))
        return M.add(M.mul(M.sub(1.0, z), n), M.mul(z, hx))


__all__ = ["RNNCell", "LSTMCell", "GRUCell"]
