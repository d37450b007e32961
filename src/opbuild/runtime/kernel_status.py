"""The status words of a graph's kernels that report bad input (``OpDef.status``: an index out of range;
kernel ABI 3 of targets/cpu/codegen.py, ABI 2 of targets/cuda/codegen.py), shared by the graph executors
(executor.py, batch_graph.py; device_graph.py and device_eager.py keep theirs in device memory and read them
back with :func:`raise_reported`).

Each such kernel gets its own three int64 words (flag, value, position) outside the arena. Its flag is read
right after it runs: a set flag stops the graph there (no kernel after it runs on what it computed: an
optimizer's in-place update never applies a step that failed) and raises the op's error; the words are cleared
first, so the next call starts clean, and no output of the failed call is returned.
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
        self._index = {id(n): k for k, (n, _) in enumerate(self.checked)}
        # A ctypes array: its flags are read after each call without NumPy's per-call cost.
        self.words = (ctypes.c_int64 * (STATUS_WORDS * max(len(self.checked), 1)))()

    def address(self, k: int) -> int:
        """The address of the ``k``-th checked node's words (the pointer after its workspace)."""
        return ctypes.addressof(self.words) + ctypes.sizeof(ctypes.c_int64) * STATUS_WORDS * k

    def steps(self, nodes: Sequence[Node], calls: Sequence[tuple[Callable[[ctypes.Array], object], ctypes.Array]]
              ) -> list[tuple[Callable[[ctypes.Array], object], ctypes.Array, int]]:
        """Each of ``calls`` (those of ``nodes``, in order) with the index of its flag word, -1 for a kernel
        that reports nothing: what :meth:`run` takes."""
        return [(fn, ptrs, STATUS_WORDS * self._index[id(n)] if id(n) in self._index else -1)
                for n, (fn, ptrs) in zip(nodes, calls, strict=True)]

    def run(self, steps: Sequence[tuple[Callable[[ctypes.Array], object], ctypes.Array, int]]) -> None:
        """Call each step's ``fn(pointers)`` in order; after a kernel that reported, stop (the kernels after it,
        optimizer updates among them, do not run on what it computed) and raise what the report stands for."""
        words = self.words
        for fn, ptrs, flag in steps:
            fn(ptrs)
            if flag >= 0 and words[flag]:
                report = words[:]
                ctypes.memset(words, 0, ctypes.sizeof(words))
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
