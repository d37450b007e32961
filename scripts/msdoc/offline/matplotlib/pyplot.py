"""No-op ``matplotlib.pyplot`` for the tutorials harness (see the package's docstring)."""

from __future__ import annotations

from . import _Anything


def subplots(*args, **kwargs):
    """A figure and its axes, both no-op objects (the tutorials unpack the pair)."""
    return _Anything(), _Anything()


def __getattr__(name: str) -> _Anything:
    return _Anything()
