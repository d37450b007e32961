"""``opbuild.train.loss_scale_manager`` (MindSpore's ``mindspore.train.loss_scale_manager``): the loss scale
managers, defined in ``opbuild/loss_scale.py`` (also ``opbuild.amp.*`` and ``opbuild.*``)."""

from __future__ import annotations

from ..loss_scale import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager

__all__ = ["LossScaleManager", "FixedLossScaleManager", "DynamicLossScaleManager"]
