"""Running a dynamic batch: :func:`run` is the entry point of every call with a free batch dimension.

A row-wise function (nn/dynamic_batch.py decides) runs on one graph of run-time-batch kernels
(nn/batch_runtime.py, the default); where that is not possible, or under ``OPBUILD_DYNAMIC_BATCH=chunks``, on
graphs compiled at fixed batch sizes (the chunks), as follows. The function
is compiled, on its first call, at each chunk size (:func:`chunk_sizes`: 16, 4 and 1 by default). A batch of
n rows then runs as calls of those graphs on consecutive slices: ``n // 16`` calls of the largest, and for
the remaining rows the cheapest cover by the chunks, where a chunk larger than the rows left runs on them
padded with zero rows (their results dropped: rows are independent). The cost of a cover is estimated from
the chunk graphs' own call times, measured once when they are compiled (a per-call overhead plus a cost per
row), so a GEMM-bound network pads a remainder of 13 to one batch-16 call while a convolutional one runs
4 + 4 + 4 + 1 rows. The chosen cover per remainder is kept, so a given batch size always runs the same calls.
"""

from __future__ import annotations

import dataclasses
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import config, graph_breaks, trace
from ..core.errors import ConfigError
from ..core.tensor import Tensor
from . import batch_runtime
from .dynamic_batch import Verdict, analyse, row_args

# The batch sizes a row-wise graph is compiled at (docs/dynamic-batch.md: the per-call cost against a static
# build per size, and why these sizes).
DEFAULT_CHUNKS = (16, 4, 1)
CHUNKS_VARIABLE = "OPBUILD_DYNAMIC_BATCH_CHUNKS"
# Calls of each chunk graph timed (on zeros) when it is compiled; the fastest is its cost.
_TIMED_CALLS = 3


def chunk_sizes() -> tuple[int, ...]:
    """The batch sizes a row-wise graph is compiled at, largest first (``OPBUILD_DYNAMIC_BATCH_CHUNKS``, a
    comma-separated list; 1 is always included so that every batch size decomposes)."""
    raw = os.environ.get(CHUNKS_VARIABLE, "")
    if not raw.strip():
        return DEFAULT_CHUNKS
    try:
        sizes = {int(p) for p in raw.split(",") if p.strip()}
    except ValueError:
        sizes = {0}
    if not sizes or min(sizes) < 1 or max(sizes) > 4096:
        raise ConfigError(CHUNKS_VARIABLE, raw, "is not a list of batch sizes",
                          "comma-separated batch sizes from 1 to 4096, such as 1,4,16",
                          default=",".join(map(str, DEFAULT_CHUNKS)))
    return tuple(sorted(sizes | {1}, reverse=True))


@dataclass
class Chunk:
    """The function compiled at batch ``size``: its CompiledGraph, where its graph inputs come from
    (``("arg", i)``), the output structure, and the measured seconds of one call."""

    size: int
    compiled: Any
    sources: list[tuple]
    rebuild: Callable[[list], Any]
    seconds: float = 0.0


def _compile_chunks(graphs: dict, state: Any, fn: Callable[..., Any], args: Sequence[Any],
                    dynamic: Sequence[bool], who: str) -> tuple[list[Chunk], Any]:
    """Compile (or find) the function at every chunk size and time its calls on zeros; returns the chunks
    and the sum of their build reports (what this first call built)."""
    eng = trace.engine()
    chunks, reports = [], []
    for c in chunk_sizes():
        row = row_args(args, dynamic, c)
        key = (state, trace.arg_signature(row, who))
        graph_breaks.run_compiled(graphs, key, fn, row)
        report = getattr(eng, "build_report", lambda: None)()
        if report is not None:
            reports.append(dataclasses.replace(report, kernels=list(report.kernels)))
        piece = graphs[key].root
        chunk = Chunk(c, piece.compiled, list(piece.sources), piece.rebuild)
        inputs = [row[s[1]].asnumpy() for s in chunk.sources]
        times = []
        for _ in range(_TIMED_CALLS):
            t0 = time.perf_counter()
            chunk.compiled(inputs)
            times.append(time.perf_counter() - t0)
        chunk.seconds = min(times)
        chunks.append(chunk)
    total = reports[0] if reports else None
    for r in reports[1:]:
        total.extend(r)
    return chunks, total


def cover(rows: int, chunks: Sequence[Chunk]) -> list[Chunk]:
    """The cheapest sequence of chunk calls covering ``rows`` rows (a chunk larger than the rows left runs
    padded), by the chunks' measured seconds; ties go to fewer padded rows."""
    best: list[tuple[float, int, list[Chunk]]] = [(0.0, 0, [])]
    for r in range(1, rows + 1):
        options = []
        for c in chunks:
            cost, waste, calls = best[max(r - c.size, 0)]
            options.append((cost + c.seconds, waste + max(c.size - r, 0), [c, *calls]))
        best.append(min(options, key=lambda o: (o[0], o[1])))
    return best[rows][2]


def _batch_size(args: Sequence[Any], dynamic: Sequence[bool]) -> int | None:
    """The batch size the dynamic inputs share, None when they differ (free dims of different meaning)."""
    sizes = {a.shape[0] for a, d in zip(args, dynamic) if d}
    return sizes.pop() if len(sizes) == 1 else None


def dynamic_key(args: Sequence[Any], dynamic: Sequence[bool], who: str) -> tuple:
    """The input signature with each dynamic input's dim 0 as -1 (the same for every batch size), and the
    device target, as ``trace.arg_signature`` ends with it (a Cell called again after ``set_device`` runs
    graphs built for the new target)."""
    sig = []
    for a, d in zip(args, dynamic):
        if isinstance(a, Tensor) and a._data is not None:  # read from the array: this runs at every call
            shape = a._data.shape
            sig.append(("T", (-1, *shape[1:]) if d else shape, a._data.dtype))
        else:
            sig.append(trace.arg_signature([a], who)[0])
    return ("dynamic-batch", tuple(sig), config.device_target())


def _slice(array: np.ndarray, start: int, rows: int, size: int) -> np.ndarray:
    """Rows ``start:start+rows`` of ``array``, padded with zero rows to ``size``."""
    part = array[start:start + rows]
    if rows == size:
        return part
    padded = np.zeros((size, *array.shape[1:]), array.dtype)
    padded[:rows] = part
    return padded


def _calls(verdict: Verdict, n: int) -> list[tuple[Chunk, int]]:
    """(chunk, real rows) per call for a batch of ``n``: full calls of the largest chunk, then the remainder's
    cover (chosen once per remainder)."""
    largest = verdict.chunks[0]
    full, rest = divmod(n, largest.size)
    plan = verdict.plans.get(rest)
    if plan is None:
        plan = verdict.plans[rest] = cover(rest, verdict.chunks)
    out, left = [(largest, largest.size)] * full, rest
    for c in plan:
        out.append((c, min(c.size, left)))
        left -= min(c.size, left)
    return out


def runtime_graphs(graphs: dict) -> list[Any]:
    """The graphs built with run-time-batch kernels in a graph table (``Cell._graphs``)."""
    return [v.runtime.compiled for v in graphs.values()
            if isinstance(v, Verdict) and isinstance(v.runtime, batch_runtime.RuntimeBatch)]


def run(graphs: dict, state: Any, fn: Callable[..., Any], args: Sequence[Any], dynamic: Sequence[bool],
        who: str) -> Any:
    """Run ``fn(*args)`` with a dynamic batch dimension on the ``dynamic`` Tensor arguments: on the chunk
    graphs when the graph is row-wise (nn/dynamic_batch.py), else as a static graph for this batch size.
    ``graphs`` is the caller's graph table (``Cell._graphs``), ``state`` its state signature."""
    n = _batch_size(args, dynamic)
    if n is None:  # not one batch: a static graph for these sizes
        return graph_breaks.run_compiled(graphs, (state, trace.arg_signature(args, who)), fn, args)
    key = (state, dynamic_key(args, dynamic, who))
    verdict = graphs.get(key)
    if verdict is None:
        verdict = graphs[key] = analyse(fn, args, dynamic, chunk_sizes())
    if not verdict.rowwise or n == 0:
        if not verdict.rowwise and not verdict.warned:
            verdict.warned = True
            warnings.warn(f"{who}: the dynamic batch dimension falls back to one build per batch size: "
                          f"{verdict.reason}", stacklevel=3)
        return graph_breaks.run_compiled(graphs, (state, trace.arg_signature(args, who)), fn, args)
    if verdict.runtime is None and not verdict.chunks:
        verdict.runtime = batch_runtime.compile(fn, args, dynamic) if batch_runtime.mode() == "runtime" \
            else f"{batch_runtime.MODE_VARIABLE}=chunks"
    if isinstance(verdict.runtime, batch_runtime.RuntimeBatch):
        return verdict.runtime.run(args)
    eng = trace.engine()
    first_report = None
    if not verdict.chunks:
        verdict.chunks, first_report = _compile_chunks(graphs, state, fn, args, dynamic, who)
    arrays = [a.asnumpy() if isinstance(a, Tensor) else None for a in args]
    calls = _calls(verdict, n)
    outs: list[np.ndarray] | None = None
    start = 0
    for chunk, rows in calls:
        got = chunk.compiled([_slice(arrays[s[1]], start, rows, chunk.size) if dynamic[s[1]] else arrays[s[1]]
                              for s in chunk.sources])
        if len(calls) == 1 and rows == chunk.size:  # one unpadded call: its outputs (copies) are the results
            outs = got
            break
        if outs is None:
            outs = [np.empty((n, *o.shape[1:]), o.dtype) if b else o for o, b in zip(got, verdict.batched_outputs)]
        for o, g, b in zip(outs, got, verdict.batched_outputs):
            if b:
                o[start:start + rows] = g[:rows]
        start += rows
    used = calls[0][0]
    if first_report is not None:
        getattr(eng, "adopt_report", lambda r: None)(first_report)
    else:
        eng.graph_reused(used.compiled)
    return used.rebuild([Tensor(o) for o in outs])
