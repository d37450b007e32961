"""``ops.LSTM``, MindSpore's LSTM primitive: ``LSTM(input_size, hidden_size, num_layers, has_bias,
bidirectional, dropout, proj_size=0)`` called as ``(x, h, c, w)`` -> ``(output, h_n, c_n, reserve, state)``.

``w`` is one flat float tensor (its shape does not matter, only its length), read in the layout MindSpore's
CPU kernel reads: first every input weight ``w_ih`` (4 * hidden, in) of layer 0 direction 0, layer 0 direction
1, layer 1 ..., then every hidden weight ``w_hh`` (4 * hidden, hidden) in the same order, then with
``has_bias`` one bias (4 * hidden) per layer and direction (the sum of ``nn.LSTM``'s ``b_ih`` and ``b_hh``).
Gates are stacked (i, f, g, o), as ``nn.LSTM``'s. A longer ``w`` is accepted and its tail unread, as
MindSpore's CPU kernel does (so the GPU layout's size, two biases per layer, runs; the second bias is then
not read); a shorter one is refused (MindSpore reads past its end). The recurrence is unrolled at trace time
like ``nn.LSTM``'s (nn/layers/rnns.py), one MatMul per layer and direction for the input projection.

``reserve`` and ``state`` are the backend's workspace in MindSpore (their contents differ by backend): opbuild
returns zeros of shape (1, 1). ``dropout`` between layers applies in training only and opbuild's primitive
runs as inference (MindSpore's CPU kernel takes it as an attribute); ``proj_size`` other than 0 is refused.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..core.tensor import Tensor, as_tensor
from . import functional as F
from .primitive import Primitive


def _positive(name: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
        raise ValueError(f"LSTM: {name} must be a positive int, got {v!r}")
    return int(v)


class LSTM(Primitive):
    """``ops.LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout, proj_size=0)``: a
    multi-layer (optionally bidirectional) LSTM over a flat weight (see the module docstring)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int, has_bias: bool, bidirectional: bool,
                 dropout: float, proj_size: int = 0) -> None:
        input_size = _positive("input_size", input_size)
        hidden_size = _positive("hidden_size", hidden_size)
        num_layers = _positive("num_layers", num_layers)
        for name, v in (("has_bias", has_bias), ("bidirectional", bidirectional)):
            if not isinstance(v, bool):
                raise TypeError(f"LSTM: {name} must be a bool, got {type(v).__name__}")
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Real) or not 0.0 <= dropout <= 1.0:
            raise ValueError(f"LSTM: dropout must be a float in [0, 1], got {dropout!r}")
        if proj_size != 0:
            raise ValueError(f"LSTM: proj_size must be 0 (opbuild's LSTM has no projection), got {proj_size!r}")
        super().__init__(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers, has_bias=has_bias,
                         bidirectional=bidirectional, dropout=float(dropout), proj_size=0)
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.bidirectional, self.dropout, self.proj_size = has_bias, bidirectional, float(dropout), 0
        self.num_directions = 2 if bidirectional else 1

    def _widths(self) -> list[int]:
        return [self.input_size if k == 0 else self.hidden_size * self.num_directions
                for k in range(self.num_layers) for _ in range(self.num_directions)]

    def weight_size(self) -> int:
        """How many values of ``w`` the layout reads."""
        g = 4 * self.hidden_size
        n = sum(g * w for w in self._widths()) + len(self._widths()) * g * self.hidden_size
        return n + (len(self._widths()) * g if self.has_bias else 0)

    def _check(self, x: Tensor, h: Tensor, c: Tensor, w: Tensor) -> None:
        if x.ndim != 3 or x.shape[2] != self.input_size:
            raise ValueError(f"LSTM: x must have shape (seq_len, batch, {self.input_size}), got {tuple(x.shape)}")
        if not x.dtype.is_float:
            raise TypeError(f"LSTM: x must be a float tensor, got {x.dtype}")
        want = (self.num_layers * self.num_directions, x.shape[1], self.hidden_size)
        for name, s in (("h", h), ("c", c)):
            if tuple(s.shape) != want:
                raise ValueError(f"LSTM: {name} must have shape {want} (num_layers * num_directions, batch, "
                                 f"hidden_size), got {tuple(s.shape)}")
        for name, t in (("h", h), ("c", c), ("w", w)):
            if t.dtype != x.dtype:
                raise TypeError(f"LSTM: {name} must have x's dtype {x.dtype}, got {t.dtype}")
        if w.size < self.weight_size():
            raise ValueError(f"LSTM: w holds {w.size} values, the layout needs {self.weight_size()} (w_ih and "
                             f"w_hh of every layer and direction{', then one bias each' if self.has_bias else ''})")

    def _weights(self, w: Tensor) -> list[tuple[Tensor, Tensor, Tensor | None]]:
        """(w_ih, w_hh, bias) per layer and direction, cut out of the flat weight by one Split."""
        g, hs, widths = 4 * self.hidden_size, self.hidden_size, self._widths()
        sizes = [g * wd for wd in widths] + [g * hs] * len(widths) + ([g] * len(widths) if self.has_bias else [])
        flat = F.reshape(w, (w.size,))
        rest = w.size - sum(sizes)
        parts = F.split(flat, sizes + ([rest] if rest else []), axis=0)
        n = len(widths)
        return [(F.reshape(parts[i], (g, widths[i])), F.reshape(parts[n + i], (g, hs)),
                 parts[2 * n + i] if self.has_bias else None) for i in range(n)]

    def _direction(self, x: Tensor, weights: tuple, reverse: bool, h: Tensor,
                   c: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        steps, batch, width = x.shape
        w_ih, w_hh, bias = weights
        gi = F.matmul(F.reshape(x, (steps * batch, width)), F.transpose(w_ih, (1, 0)))
        if bias is not None:
            gi = gi + bias
        gi = F.reshape(gi, (steps, batch, 4 * self.hidden_size))
        w_hh_t = F.transpose(w_hh, (1, 0))
        outs: list[Any] = [None] * steps
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            i, f, g, o = F.split(gi[t] + F.matmul(h, w_hh_t), self.hidden_size, axis=1)
            c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
            h = F.sigmoid(o) * F.tanh(c)
            outs[t] = h
        return F.stack(outs, axis=0), h, c

    def __call__(self, x: Any, h: Any, c: Any, w: Any) -> tuple[Tensor, ...]:
        x, h, c, w = (as_tensor(t) for t in (x, h, c, w))
        self._check(x, h, c, w)
        weights = self._weights(w)
        h_n, c_n = [], []
        for k in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                idx = k * self.num_directions + d
                out, hk, ck = self._direction(x, weights[idx], d == 1, h[idx], c[idx])
                outs.append(out)
                h_n.append(hk)
                c_n.append(ck)
            x = outs[0] if len(outs) == 1 else F.cat(outs, axis=2)
        workspace = Tensor(np.zeros((1, 1), x.dtype.np_dtype))
        return x, F.stack(h_n, axis=0), F.stack(c_n, axis=0), workspace, Tensor(np.zeros((1, 1),
                                                                                         x.dtype.np_dtype))


PRIMITIVES: dict[str, type[Primitive]] = {"LSTM": LSTM}
