"""Mixed precision, MindSpore's ``mindspore.amp``: ``auto_mixed_precision(network, amp_level, dtype)``.

Built on ``Cell.to_float`` (nn/cell.py): inside a cell with a compute dtype every op's float inputs and
Parameters are cast to it (ops/primitive.py); Parameters stay float32 master weights and receive float32
gradients through Cast's gradient. The levels, as MindSpore defines them:

- ``O0``: unchanged.
- ``O1``: the white list (Dense, Conv1d/2d, Conv2dTranspose cells) computes in ``dtype``.
- ``O2``: everything computes in ``dtype`` except the black list (BatchNorm1d/2d, LayerNorm), kept in float32.
- ``O3``: everything in ``dtype``.

For O1-O3 the network's float outputs are cast back to float32, so a loss applied to them (``Model``,
``WithLossCell``) computes in float32.
"""

from __future__ import annotations

from .dtypes import dtype_of
from .nn.cell import Cell, outputs_to_float32

AMP_LEVELS = ("O0", "O1", "O2", "O3")


def get_white_list() -> list[type]:
    """The cells O1 runs in low precision."""
    from .nn.layers.basic import Dense
    from .nn.layers.conv import Conv1d, Conv2d, Conv2dTranspose

    return [Dense, Conv1d, Conv2d, Conv2dTranspose]


def get_black_list() -> list[type]:
    """The cells O2 keeps in float32."""
    from .nn.layers.normalization import BatchNorm1d, BatchNorm2d, LayerNorm

    return [BatchNorm1d, BatchNorm2d, LayerNorm]


class _OutputTo32(Cell):
    """Runs ``network`` and casts its float outputs to float32 (MindSpore's _OutputTo32)."""

    def __init__(self, network: Cell) -> None:
        super().__init__()
        self._backbone = network

    def construct(self, *args):
        return outputs_to_float32(self._backbone(*args))


def auto_mixed_precision(network: Cell, amp_level: str = "O0", dtype=None) -> Cell:
    """Return ``network`` set up for mixed precision at ``amp_level`` (see the module docstring); ``dtype``
    is float16 (default) or bfloat16. ValueError for another level."""
    if amp_level not in AMP_LEVELS:
        raise ValueError(f"auto_mixed_precision: amp_level must be one of {', '.join(AMP_LEVELS)}, got {amp_level!r}")
    low = dtype_of(dtype if dtype is not None else "float16").name
    if low not in ("float16", "bfloat16"):
        raise ValueError(f"auto_mixed_precision: dtype must be float16 or bfloat16, got {low}")
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        white = tuple(get_white_list())
        for _, cell in network.cells_and_names():
            if isinstance(cell, white):  # computed in low precision, results back in float32 (MindSpore O1)
                cell.to_float(low)
                object.__setattr__(cell, "_amp_output_float32", True)
    else:
        network.to_float(low)
        if amp_level == "O2":
            black = tuple(get_black_list())
            for _, cell in network.cells_and_names():
                if isinstance(cell, black):
                    cell.to_float("float32")
    return _OutputTo32(network)
