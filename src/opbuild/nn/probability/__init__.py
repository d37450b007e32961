"""``mindspore.nn.probability``: ``distribution``, ``bijector`` and ``bnn_layers`` (MindSpore 2.10 ships no
other submodule of it)."""

from . import bijector, bnn_layers, distribution

__all__ = ["bijector", "bnn_layers", "distribution"]
