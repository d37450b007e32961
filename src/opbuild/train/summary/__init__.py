"""``train.summary``: :class:`SummaryRecord`, writing MindInsight summary files (see summary_record.py), and
:func:`read_events` to read one back."""

from ._events import read_events
from .summary_record import SummaryRecord

__all__ = ["SummaryRecord", "read_events"]
