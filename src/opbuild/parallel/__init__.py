"""``mindspore.parallel`` on opbuild: the descriptions of a parallel layout (:class:`Layout`).

opbuild runs data parallelism (docs/distributed.md): every rank holds the whole model. A :class:`Layout`
describes how MindSpore's semi-auto parallel mode would shard a tensor over a device matrix; opbuild builds and
validates it exactly as MindSpore does (the same tensor maps, dictionaries and errors), so code that prepares
sharding strategies runs, but no opbuild operator is sharded by one.
"""

from __future__ import annotations

from .layout import Layout

__all__ = ["Layout"]
