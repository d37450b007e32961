"""Recurrent layers (``nn.LSTM``, ``nn.GRU``, ``nn.RNN``) exported as ONNX ``LSTM``/``GRU``/``RNN`` nodes.

opbuild unrolls a recurrence at trace time (nn/layers/rnns.py), so a traced graph holds each time step as
MatMul/Split/Sigmoid/... nodes. For export, :func:`recording` watches every recurrent layer of the network while
it is traced and notes which nodes each call of the layer added (a contiguous range: nothing else is traced
during the call) with its input, initial states and outputs. :func:`emit` then writes one ONNX recurrent node
per layer and direction group in place of that range: weights reordered to ONNX's gate order, the two biases
concatenated, ``batch_first`` and the layer stacking done with Transpose/Reshape/Concat around them.

A call with ``seq_length`` is left unrolled (ONNX's ``sequence_lens`` does not promise MindSpore's zero outputs
past each sequence's end in every runtime), and so is any layer whose outputs are used other than as returned.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core import trace
from ..core.ir import Value
from ..core.tensor import Tensor
from ..nn.layers.rnns import _RNNBase

if TYPE_CHECKING:
    from .onnx_export_ops import Ctx

# Row blocks of MindSpore's stacked gate weights in ONNX's order: LSTM (i, f, g, o) -> (i, o, f, c),
# GRU (r, z, n) -> (z, r, h), RNN one gate.
_GATE_ORDER = {"LSTM": (0, 3, 1, 2), "GRU": (1, 0, 2), "RNN_TANH": (0,), "RNN_RELU": (0,)}
_ONNX_OP = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}


@dataclass
class Region:
    """One traced call of a recurrent layer: the nodes ``[start, end)`` of the graph it added, its input,
    initial states (None where the layer made zeros) and outputs (``c_n`` None but for the LSTM)."""

    layer: Any
    start: int
    end: int
    x: Value
    h0: Value | None
    c0: Value | None
    out: Value
    h_n: Value
    c_n: Value | None

    @property
    def inputs(self) -> list[Value]:
        return [v for v in (self.x, self.h0, self.c0) if v is not None]

    @property
    def outputs(self) -> list[Value]:
        return [v for v in (self.out, self.h_n, self.c_n) if v is not None]


@contextlib.contextmanager
def recording(net: Any) -> Iterator[list[Region]]:
    """While the block traces ``net``, note every call of its recurrent layers (see the module docstring)."""
    regions: list[Region] = []
    layers = [c for _, c in net.cells_and_names()] if hasattr(net, "cells_and_names") else []
    layers = list({id(c): c for c in layers if isinstance(c, _RNNBase)}.values())  # a shared layer once
    for layer in layers:
        object.__setattr__(layer, "_run", _recorder(layer, layer._run, regions))
    try:
        yield regions
    finally:
        for layer in layers:
            vars(layer).pop("_run", None)


def _recorder(layer: Any, run: Any, regions: list[Region]) -> Any:
    def recorded(x: Tensor, h0: Tensor | None, c0: Tensor | None, seq_length: Tensor | None):
        tracer = trace.current()
        if tracer is None or seq_length is not None:
            return run(x, h0, c0, seq_length)
        start = len(tracer.graph.nodes)
        ins = [tracer.value_of(t) if isinstance(t, Tensor) else None for t in (x, h0, c0)]
        out, h_n, c_n = run(x, h0, c0, seq_length)
        values = [t._value if isinstance(t, Tensor) else None for t in (out, h_n, c_n)]
        if all(v is not None for v in values[:2]):
            regions.append(Region(layer, start, len(tracer.graph.nodes), *ins, *values))
        return out, h_n, c_n

    return recorded


def self_contained(region: Region, nodes: list, graph_outputs: list[Value]) -> bool:
    """Whether nothing outside ``region`` (no other node, no graph output) reads a value made inside it, other
    than the region's outputs."""
    inside = {id(o) for n in nodes[region.start:region.end] for o in n.outputs}
    allowed = {id(v) for v in region.outputs}
    readers = [v for n in nodes[:region.start] + nodes[region.end:] for v in n.inputs] + list(graph_outputs)
    return not any(id(v) in inside and id(v) not in allowed for v in readers)


def _weights(layer: Any, names: tuple, mode: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W, R, B of one direction in ONNX's layout and gate order."""
    order = _GATE_ORDER[mode]
    hidden = layer.hidden_size

    def gates(a: np.ndarray) -> np.ndarray:
        return np.concatenate([a[g * hidden:(g + 1) * hidden] for g in order], axis=0)

    w = gates(getattr(layer, names[0]).asnumpy())
    r = gates(getattr(layer, names[1]).asnumpy())
    if layer.has_bias:
        b = np.concatenate([gates(getattr(layer, names[2]).asnumpy()), gates(getattr(layer, names[3]).asnumpy())])
    else:
        b = np.zeros(2 * len(order) * hidden, w.dtype)
    return w, r, b


def emit(ctx: Ctx, region: Region, names: dict[int, str]) -> None:
    """Write the ONNX nodes computing ``region``'s outputs from its inputs; the outputs get the names that
    ``names`` gives them (fresh ones for outputs nobody reads)."""
    layer, mode = region.layer, region.layer.mode
    dirs, hidden = layer.num_directions, layer.hidden_size
    x = names[id(region.x)]
    if layer.batch_first:
        x = ctx.add("Transpose", [x], perm=[1, 0, 2])
    steps, batch = region.out.type.shape[:2] if not layer.batch_first else region.out.type.shape[1::-1]
    h_last, c_last = [], []
    for k in range(layer.num_layers):
        ws, rs, bs = zip(*(_weights(layer, layer._names[k * dirs + d], mode) for d in range(dirs)))
        dtype = ws[0].dtype
        inputs = [x, ctx.const(np.stack(ws), dtype, "W"), ctx.const(np.stack(rs), dtype, "R"),
                  ctx.const(np.stack(bs), dtype, "B"), ""]
        for state in (region.h0, region.c0)[:2 if mode == "LSTM" else 1]:
            if state is None:
                inputs.append("")
            else:
                inputs.append(ctx.add("Slice", [names[id(state)], ctx.const([k * dirs]), ctx.const([(k + 1) * dirs]),
                                                ctx.const([0])]))
        while inputs[-1] == "":
            inputs.pop()
        outs = [ctx.fresh("y"), ctx.fresh("y_h")] + ([ctx.fresh("y_c")] if mode == "LSTM" else [])
        attrs: dict[str, Any] = {"hidden_size": hidden, "direction": "bidirectional" if dirs == 2 else "forward"}
        if mode == "GRU":
            attrs["linear_before_reset"] = 1  # r multiplies (W_hn h + b_hn), as nn.GRU computes it
        if mode.startswith("RNN"):
            attrs["activations"] = ["Tanh" if mode == "RNN_TANH" else "Relu"] * dirs
        ctx.add(_ONNX_OP[mode], inputs, outs, **attrs)
        h_last.append(outs[1])
        if mode == "LSTM":
            c_last.append(outs[2])
        # Y is (steps, dirs, batch, hidden): the next layer (and the output) wants (steps, batch, dirs * hidden).
        y = ctx.add("Transpose", [outs[0]], perm=[0, 2, 1, 3])
        x = ctx.add("Reshape", [y, ctx.const([steps, batch, dirs * hidden], hint="shape")])
    if layer.batch_first:
        ctx.add("Transpose", [x], [names[id(region.out)]], perm=[1, 0, 2])
    else:
        ctx.add("Identity", [x], [names[id(region.out)]])
    _concat(ctx, h_last, names[id(region.h_n)])
    if region.c_n is not None:
        _concat(ctx, c_last, names[id(region.c_n)])


def _concat(ctx: Ctx, parts: list[str], out: str) -> None:
    ctx.add("Concat" if len(parts) > 1 else "Identity", parts, [out], **({"axis": 0} if len(parts) > 1 else {}))


__all__ = ["Region", "emit", "recording", "self_contained"]
