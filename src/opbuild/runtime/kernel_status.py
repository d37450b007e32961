"""The status words of a graph's kernels that report bad input (``OpDef.status``: an index out of range;
kernel ABI 3 of targets/cpu/codegen.py, ABI 2 of targets/cuda/codegen.py), shared by the graph executors
(executor.py, batch_graph.py; device_graph.py and device_eager.py keep theirs in device memory and read them
back with :func:`raise_reported`).

Each such kernel gets its own three int64 words (flag, value, position) outside the arena. After the graph's
kernels have run, a set flag raises the op's error for the first such node in graph order; the words are
cleared first, so the next call starts clean and no output of the failed call is returned.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence

from ..core.ir import Node
from ..ops.registry import STATUS_WORDS, OpDef


class KernelStatus:
    """The status words of ``checked`` (the nodes whose kernels report, in graph order, with their ops)."""

    def __init__(self, checked: Sequence[tuple[Node, OpDef]]):
        self.checked = list(checked)
        # A ctypes array: its flags are read after each call without NumPy's per-call cost.
        self.words = (ctypes.c_int64 * (STATUS_WORDS * max(len(self.checked), 1)))()

    def address(self, k: int) -> int:
        """The address of the ``k``-th checked node's words (the pointer after its workspace)."""
        return ctypes.addressof(self.words) + ctypes.sizeof(ctypes.c_int64) * STATUS_WORDS * k

    def run(self, calls: Sequence[tuple[Callable[[ctypes.Array], object], ctypes.Array]]) -> None:
        """Call each ``(fn, pointers)`` in order, then raise what the first kernel that reported stands for."""
        try:
            for fn, ptrs in calls:
                fn(ptrs)
        finally:
            if any(self.words[0::STATUS_WORDS]):
                report = self.words[:]
                ctypes.memset(self.words, 0, ctypes.sizeof(self.words))
                raise_reported(self.checked, report)


def raise_reported(checked: Sequence[tuple[Node, OpDef]], words: Sequence[int]) -> None:
    """Raise the error of the first of ``checked`` whose status (``STATUS_WORDS`` of ``words`` each, in the
    same order) has its flag set; nothing if none has."""
    for k, (node, op) in enumerate(checked):
        report = words[STATUS_WORDS * k:STATUS_WORDS * (k + 1)]
        if report[0]:
            raise op.status_error(node.attrs, [v.type for v in node.inputs], report)


def checked_nodes(nodes: Sequence[Node], ops: Sequence[OpDef]) -> list[tuple[Node, OpDef]]:
    """The nodes among ``nodes`` (with their ``ops``) whose kernels take status words."""
    return [(n, op) for n, op in zip(nodes, ops, strict=True) if op.host is None and op.status is not None]


__all__ = ["KernelStatus", "checked_nodes", "raise_reported"]
