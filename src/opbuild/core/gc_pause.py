"""``gc_paused()``: Python's cyclic garbage collector held off while a graph is traced and compiled.

Tracing and the passes allocate several objects per node (nodes, values, types, specs, dict entries) and free
almost none of them until the graph is compiled, so the collector's generation counts keep overflowing and
every full collection walks the whole growing graph: SentimentNet's unrolled LSTM train step (150k nodes)
spent two thirds of its 15 s build in collections that found nothing to free. The pause ends (and the
collector's state is restored) when the compile ends, raised or not; cycles made meanwhile are collected
afterwards as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic garbage collector for the ``with`` block, then restore it if it was enabled."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
