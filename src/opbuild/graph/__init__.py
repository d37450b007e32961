"""MindSpore's ``mindspore.graph`` package: graph-compilation hints (``lazy_inline``)."""

from .lazy_inline import lazy_inline

__all__ = ["lazy_inline"]
