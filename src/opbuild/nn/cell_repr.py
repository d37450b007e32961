"""``repr(Cell)`` as MindSpore prints it: ``Name(extra)`` for a leaf, and for a cell with children the extra
line and one ``(name): child`` line each, indented by two spaces (``Net(\\n  (relu): ReLU()\\n)``).

The per-layer ``extra`` strings (what ``Cell.extra_repr`` returns) are MindSpore 2.10's, recorded by
scripts/record_cell_repr.py and compared in tests/nn/test_cell_repr.py; they live here, keyed by the layer
class's name, so the layer modules stay about computing. A layer without an entry prints ``Name()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _pair(v: Any) -> Any:
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


def _padding(p: Any) -> Any:
    if isinstance(p, (list, tuple)) and len(set(p)) == 1:
        return p[0]
    return tuple(p) if isinstance(p, list) else p


def _dense(c) -> str:
    act = c._cells.get("activation")
    tail = f"activation={act!r}" if act is not None else f"has_bias={c.has_bias}"
    return f"input_channels={c.in_channels}, output_channels={c.out_channels}, {tail}"


def _pool(c) -> str:
    k, s = c.kernel_size, c.stride
    k = k[0] if isinstance(k, tuple) and len(set(k)) == 1 else k
    s = s[0] if isinstance(s, tuple) and len(set(s)) == 1 else s
    return f"kernel_size={k}, stride={s}, pad_mode={str(c.pad_mode).upper()}"


def _batch_norm(c) -> str:
    return (f"num_features={c.num_features}, eps={c.eps}, momentum={c.momentum}, gamma={c.gamma!r}, "
            f"beta={c.beta!r}, moving_mean={c.moving_mean!r}, moving_variance={c.moving_variance!r}")


def _layer_norm(c) -> str:
    # MindSpore writes no '=' after gamma; kept, since printed cells are compared as text.
    return (f"normalized_shape={tuple(c.normalized_shape)}, begin_norm_axis={c.begin_norm_axis}, "
            f"begin_params_axis={c.begin_params_axis}, gamma{c.gamma!r}, beta={c.beta!r}")


def _embedding(c) -> str:
    return (f"vocab_size={c.vocab_size}, embedding_size={c.embedding_size}, use_one_hot={c.use_one_hot}, "
            f"embedding_table={c.embedding_table!r}, dtype={c.embedding_table.dtype}, "
            f"padding_idx={c.padding_idx}")


def _conv2d(c) -> str:
    pad = c.padding_arg
    pad = tuple(pad) if isinstance(pad, list) else pad
    return (f"input_channels={c.in_channels}, output_channels={c.out_channels}, kernel_size={c.kernel_size}, "
            f"stride={c.stride}, pad_mode={c.pad_mode}, padding={pad}, dilation={c.dilation}, group={c.group}, "
            f"has_bias={c.has_bias}, weight_init={c.weight_init}, bias_init={c.bias_init}, format=NCHW")


def _embedding_ext(c) -> str:
    return (f"num_embeddings={c.num_embeddings}, embedding_dim={c.embedding_dim}, padding_idx={c.padding_idx}, "
            f"max_norm={c.max_norm}, norm_type={c.norm_type}, scale_grad_by_freq={c.scale_grad_by_freq}, "
            f"dtype={c.weight.dtype}")


EXTRA: dict[str, Callable[[Any], str]] = {
    "Conv2d": _conv2d,
    "Dense": _dense,
    "MaxPool2d": _pool,
    "AvgPool2d": _pool,
    "BatchNorm1d": _batch_norm,
    "BatchNorm2d": _batch_norm,
    "SyncBatchNorm": _batch_norm,
    "LayerNorm": _layer_norm,
    "Embedding": _embedding,
    "EmbeddingExt": _embedding_ext,
    "Dropout": lambda c: f"p={c.p}",
}


def extra_repr(cell) -> str:
    """The ``extra`` part of a built-in layer's repr ('' for others)."""
    fn = EXTRA.get(type(cell).__name__)
    if fn is None or not type(cell).__module__.startswith("opbuild."):
        return ""
    try:
        return fn(cell)
    except AttributeError:  # a layer built differently from what the entry reads: print no extra
        return ""


def cell_repr(cell) -> str:
    """``Name(extra)`` or the multi-line form with one line per child cell."""
    extra = cell.extra_repr()
    children = [f"({name}): {child!r}" for name, child in cell._cells.items() if child is not None]
    name = type(cell).__name__
    if not children:
        return f"{name}({extra})"
    body = "\n".join(([extra] if extra else []) + children).replace("\n", "\n  ")
    return f"{name}(\n  {body}\n)"
