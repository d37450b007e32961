"""``mindspore.nn.utils``: the module path MindSpore's documentation imports ``no_init_parameters`` from."""

from __future__ import annotations

from .init_context import no_init_parameters

__all__ = ["no_init_parameters"]
