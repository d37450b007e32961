"""CPU kernels of the bit shifts (ops/bitshift.py): the elementwise family's broadcasting binary emitter over
their rows."""

from __future__ import annotations

from ....ops.bitshift import ROWS
from .elementwise import _binary_emit
from .registry import register

for _name, _row in ROWS.items():
    register(_name, _binary_emit(_row))
