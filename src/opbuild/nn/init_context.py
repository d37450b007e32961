"""``nn.no_init_parameters()``: MindSpore's context manager that marks parameters as not yet initialised
(``Parameter.init_param`` reads False inside the block, True again after), so a checkpoint loaded afterwards
supplies their values. opbuild fills a parameter's array when it is created (cheaply, on the host), so the
values exist either way; the flag is what code written for MindSpore may read."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..core.parameter import Parameter


@contextmanager
def no_init_parameters() -> Iterator[None]:
    """Within the block every Parameter's ``init_param`` is False; it is True again on leaving."""
    Parameter.init_param = False
    try:
        yield
    finally:
        Parameter.init_param = True
