"""The Markdown report both harnesses write (``report --md FILE``): a title, when and how it was made, the
summary table and the differences by cause."""

from __future__ import annotations

import time
from pathlib import Path


def write(path: str | Path, title: str, script: str, argv: list[str], table: str, causes: str) -> None:
    """Write the report of ``script`` run with ``argv`` to ``path``."""
    Path(path).write_text(f"# {title}\n\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
                          f"`python scripts/{script} {' '.join(argv)}`\n\n{table}\n{causes}")
