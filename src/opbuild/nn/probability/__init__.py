"""``mindspore.nn.probability``: ``distribution`` and ``bijector``. MindSpore's ``bnn_layers``, ``dpn``,
``infer`` and ``toolbox`` are not provided."""

from . import bijector, distribution

__all__ = ["bijector", "distribution"]
