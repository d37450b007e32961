"""``mindspore.log``: the log settings MindSpore reads from ``GLOG_v`` and ``GLOG_logtostderr``
(opbuild's own messages go through Python's ``opbuild`` logger)."""

from __future__ import annotations

from .api_extras import get_level, get_log_config

__all__ = ["get_level", "get_log_config"]
