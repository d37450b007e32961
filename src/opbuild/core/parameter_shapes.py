"""A counter of Parameter shape changes (``Parameter.set_data(..., slice_shape=True)`` with a new shape).

Compiled graphs bake their Parameters' shapes into their kernels, so every graph key (``trace.arg_signature``)
carries this counter: after a reshape each Cell and ``@jit`` function traces again instead of running kernels
built for the old shape. Reshaping is rare (adapting a checkpoint's classifier), so one global count is enough."""

from __future__ import annotations

_generation = [0]


def generation() -> int:
    """How many times a Parameter has changed shape in this process."""
    return _generation[0]


def changed() -> None:
    """Record that a Parameter changed shape."""
    _generation[0] += 1
