"""Recurrent layers with MindSpore 2.x's interface: RNN, GRU and LSTM (multi-layer, bidirectional,
``batch_first``, initial states, variable lengths through ``seq_length``).

The recurrence is unrolled at trace time over the static sequence length: each layer and direction does one
MatMul for the input projection of every time step at once, then per step one MatMul with the hidden state
and the gate arithmetic (elementwise kernels). Steps have equal shapes, so a whole network needs only a
handful of distinct kernels, each built once and reused from the cache.

Parameter names and gate order follow MindSpore 2.x (which follows torch): ``weight_ih_l{k}``,
``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}``, with a ``_reverse`` suffix for the backward direction;
gates are stacked (i, f, g, o) for the LSTM and (r, z, n) for the GRU.
"""

from __future__ import annotations

import math

import numpy as np

from ... import ops
from ...common.initializer import init_array
from ...core.dtypes import float32
from ...core.errors import ShapeError
from ...core.init_values import seed_source
from ...core.parameter import Parameter
from ...core.tensor import Tensor
from ..cell import Cell
from ._checks import positive_int
from .basic import Dropout

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class _RNNBase(Cell):
    """Parameters, argument checks and the unrolled recurrence shared by RNN, GRU and LSTM."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, has_bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype=float32) -> None:
        super().__init__()
        layer = type(self).__name__
        self.mode = mode
        self.input_size = positive_int(layer, "input_size", input_size)
        self.hidden_size = positive_int(layer, "hidden_size", hidden_size)
        self.num_layers = positive_int(layer, "num_layers", num_layers)
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"{layer}: dropout must be a float in [0, 1), got {dropout!r}")
        self.has_bias = bool(has_bias)
        self.batch_first = bool(batch_first)
        self.bidirectional = bool(bidirectional)
        self.dropout = float(dropout)
        self.num_directions = 2 if self.bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        # MindSpore's (and torch's) default: every weight and bias drawn from U(-1/sqrt(H), 1/sqrt(H)); MindSpore
        # draws them with np.random.uniform in float64, then float32 (so its values after set_seed are these).
        stdv = 1 / math.sqrt(hidden_size)

        def init(shape):
            return init_array(seed_source().uniform(-stdv, stdv, shape).astype(np.float32), shape, dtype)
        self._names: list[tuple[str, str, str | None, str | None]] = []
        for k in range(self.num_layers):
            width = input_size if k == 0 else hidden_size * self.num_directions
            for sfx in ("", "_reverse")[:self.num_directions]:
                names = (f"weight_ih_l{k}{sfx}", f"weight_hh_l{k}{sfx}",
                         f"bias_ih_l{k}{sfx}" if self.has_bias else None,
                         f"bias_hh_l{k}{sfx}" if self.has_bias else None)
                setattr(self, names[0], Parameter(init((gate_size, width)), name=names[0]))
                setattr(self, names[1], Parameter(init((gate_size, hidden_size)),
                                                  name=names[1]))
                for bname in names[2:]:
                    if bname is not None:
                        setattr(self, bname, Parameter(init((gate_size,)), name=bname))
                self._names.append(names)
        self.drop = Dropout(p=self.dropout)
        self.matmul = ops.MatMul(transpose_b=True)

    # ---- checks -------------------------------------------------------------------------------------
    def _check_x(self, x: Tensor) -> None:
        layer = type(self).__name__
        if x.ndim != 3:
            raise ShapeError(layer, "expects a rank-3 input (seq_len, batch, input_size), or (batch, seq_len, "
                                    "input_size) with batch_first=True", [x._type])
        if x.shape[2] != self.input_size:
            raise ShapeError(layer, f"expects input_size {self.input_size} on axis 2, got {x.shape[2]}",
                             [x._type])

    def _check_state(self, name: str, h: Tensor, batch: int) -> None:
        want = (self.num_layers * self.num_directions, batch, self.hidden_size)
        if not isinstance(h, Tensor):
            raise TypeError(f"{type(self).__name__}: {name} must be a Tensor, got {type(h).__name__}")
        if tuple(h.shape) != want:
            raise ShapeError(type(self).__name__, f"{name} must have shape {want} (num_layers * num_directions, "
                                                  "batch, hidden_size)", [h._type])

    def _step_masks(self, seq_length: Tensor | None, steps: int, batch: int) -> list[Tensor] | None:
        """Per step a (batch, 1) bool mask "this step is inside the sequence", from ``seq_length``."""
        if seq_length is None:
            return None
        if not isinstance(seq_length, Tensor) or tuple(seq_length.shape) != (batch,):
            got = seq_length._type if isinstance(seq_length, Tensor) else type(seq_length).__name__
            raise ShapeError(type(self).__name__, f"seq_length must be a Tensor of shape ({batch},)",
                             [got] if isinstance(seq_length, Tensor) else [])
        t = Tensor(np.arange(steps, dtype=np.float32).reshape(steps, 1, 1))
        lengths = ops.reshape(ops.cast(seq_length, float32), (1, batch, 1))
        return [ops.reshape(m, (batch, 1)) for m in ops.split(t < lengths, 1, axis=0)]

    # ---- the recurrence -----------------------------------------------------------------------------
    def _cell(self, gi: Tensor, gh: Tensor, h: Tensor, c: Tensor | None) -> tuple[Tensor, Tensor | None]:
        """One time step: input projection ``gi`` and hidden projection ``gh`` (biases added) -> new state."""
        hs = self.hidden_size
        if self.mode == "LSTM":
            i, f, g, o = ops.split(gi + gh, hs, axis=1)
            c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
            return ops.sigmoid(o) * ops.tanh(c), c
        if self.mode == "GRU":
            i_r, i_z, i_n = ops.split(gi, hs, axis=1)
            h_r, h_z, h_n = ops.split(gh, hs, axis=1)
            r = ops.sigmoid(i_r + h_r)
            z = ops.sigmoid(i_z + h_z)
            n = ops.tanh(i_n + r * h_n)
            return n + z * (h - n), None
        pre = gi + gh
        return (ops.tanh(pre) if self.mode == "RNN_TANH" else ops.relu(pre)), None

    def _direction(self, x: Tensor, names: tuple, reverse: bool, h: Tensor, c: Tensor | None,
                   masks: list[Tensor] | None) -> tuple[Tensor, Tensor, Tensor | None]:
        steps, batch, width = x.shape
        w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
        gate_size = w_ih.shape[0]
        # Input projection of every step in one MatMul: (T * B, in) x (G * H, in)^T.
        gi_all = self.matmul(ops.reshape(x, (steps * batch, width)), w_ih)
        if self.has_bias:
            gi_all = gi_all + getattr(self, names[2])
        gis = [ops.reshape(g, (batch, gate_size)) for g in ops.split(ops.reshape(
            gi_all, (steps, batch * gate_size)), 1, axis=0)] if steps > 1 else [ops.reshape(gi_all, (batch,
                                                                                                     gate_size))]
        outs: list[Tensor | None] = [None] * steps
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            gh = self.matmul(h, w_hh)
            if self.has_bias:
                gh = gh + getattr(self, names[3])
            h_new, c_new = self._cell(gis[t], gh, h, c)
            if masks is None:
                h, c, outs[t] = h_new, c_new, h_new
            else:
                # Past a sequence's end the state stays as it was and the output is zero (MindSpore's
                # seq_length semantics); the reverse direction thus starts at each sequence's last step.
                m = masks[t]
                h = ops.where(m, h_new, h)
                c = ops.where(m, c_new, c) if c is not None else None
                outs[t] = ops.where(m, h_new, 0.0)
        return ops.stack(outs, axis=0), h, c

    def _run(self, x: Tensor, h0: Tensor | None, c0: Tensor | None,
             seq_length: Tensor | None) -> tuple[Tensor, Tensor, Tensor | None]:
        self._check_x(x)
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        steps, batch, _ = x.shape
        n_states = self.num_layers * self.num_directions
        zeros = Tensor(np.zeros((n_states, batch, self.hidden_size), x.dtype.np_dtype))
        for name, s in (("hx", h0), ("cx", c0)):
            if s is not None:
                self._check_state(name, s, batch)
        h0 = zeros if h0 is None else h0
        lstm = self.mode == "LSTM"
        c0 = (zeros if c0 is None else c0) if lstm else None
        h_init = ops.split(h0, 1, axis=0) if n_states > 1 else (h0,)
        c_init = (ops.split(c0, 1, axis=0) if n_states > 1 else (c0,)) if lstm else None
        masks = self._step_masks(seq_length, steps, batch)
        h_n: list[Tensor] = []
        c_n: list[Tensor] = []
        for k in range(self.num_layers):
            if k > 0 and self.dropout > 0.0:
                x = self.drop(x)  # between layers only, as MindSpore: identity outside training
            outs = []
            for d in range(self.num_directions):
                idx = k * self.num_directions + d
                h = ops.reshape(h_init[idx], (batch, self.hidden_size))
                c = ops.reshape(c_init[idx], (batch, self.hidden_size)) if lstm else None
                out, h, c = self._direction(x, self._names[idx], d == 1, h, c, masks)
                outs.append(out)
                h_n.append(h)
                if lstm:
                    c_n.append(c)
            x = outs[0] if len(outs) == 1 else ops.cat(outs, axis=2)
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        return x, ops.stack(h_n, axis=0), (ops.stack(c_n, axis=0) if lstm else None)


class RNN(_RNNBase):
    """Elman RNN: ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``, ``act`` tanh or relu.

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', has_bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, dtype=mstype.float32)``; ``construct(x, hx=None, seq_length=None)``
    returns ``(output, h_n)``: output (seq_len, batch, num_directions * hidden_size) (batch first with
    ``batch_first``), h_n (num_layers * num_directions, batch, hidden_size).
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 has_bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, dtype=float32) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"RNN: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         has_bias, batch_first, dropout, bidirectional, dtype)
        self.nonlinearity = nonlinearity

    def construct(self, x: Tensor, hx: Tensor | None = None,
                  seq_length: Tensor | None = None) -> tuple[Tensor, Tensor]:
        out, h_n, _ = self._run(x, hx, None, seq_length)
        return out, h_n


class GRU(_RNNBase):
    """Gated recurrent unit, gates (r, z, n):
    ``r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)``, ``z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)``,
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``.

    Same arguments as :class:`RNN` without ``nonlinearity``; returns ``(output, h_n)``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, has_bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype=float32) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, has_bias, batch_first, dropout,
                         bidirectional, dtype)

    def construct(self, x: Tensor, hx: Tensor | None = None,
                  seq_length: Tensor | None = None) -> tuple[Tensor, Tensor]:
        out, h_n, _ = self._run(x, hx, None, seq_length)
        return out, h_n


class LSTM(_RNNBase):
    """Long short-term memory, gates (i, f, g, o): ``c' = f * c + i * g``, ``h' = o * tanh(c')`` with
    i, f, o sigmoids and g a tanh of ``W_i* x + b_i* + W_h* h + b_h*``.

    Same arguments as :class:`GRU`. ``construct(x, hx=None, seq_length=None)`` takes ``hx = (h_0, c_0)``
    (each (num_layers * num_directions, batch, hidden_size); zeros when None) and returns MindSpore's
    ``(output, (h_n, c_n))``.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, has_bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype=float32) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, has_bias, batch_first, dropout,
                         bidirectional, dtype)

    def construct(self, x: Tensor, hx: tuple[Tensor, Tensor] | None = None,
                  seq_length: Tensor | None = None) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError(f"LSTM: hx must be a tuple (h_0, c_0), got {type(hx).__name__}")
        h0, c0 = (None, None) if hx is None else hx
        out, h_n, c_n = self._run(x, h0, c0, seq_length)
        return out, (h_n, c_n)
