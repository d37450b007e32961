"""``nn.DistributedGradReducer``: averages (or sums) gradients over the ranks of a data-parallel job.

Inside a compiled train step it adds one ``AllReduce`` node per *bucket*: consecutive gradients of one dtype,
up to ``bucket_bytes`` together. The runtime packs a bucket into one flat buffer and reduces it in one MPI call
(ops/collective.py), so a network of a hundred parameters pays a few latencies per step, not a hundred. The
mean's ``1/degree`` is applied to the flat buffer in the same pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..communication import auto_parallel
from ..communication.collective import broadcast_arrays
from ..communication.management import get_group_size, is_initialized
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..ops.primitive import apply
from .cell import Cell


def buckets(sizes: Sequence[tuple[str, int]], bucket_bytes: int) -> list[list[int]]:
    """Group positions ``0..len(sizes)-1`` (each ``(dtype, nbytes)``) into buckets of consecutive positions of
    one dtype holding at most ``bucket_bytes`` (a larger tensor is a bucket of its own). Deterministic: every
    rank computes the same buckets from the same parameters, so the collectives match."""
    out: list[list[int]] = []
    dtype, used = None, 0
    for i, (dt, n) in enumerate(sizes):
        if not out or dt != dtype or used + n > bucket_bytes:
            out.append([])
            dtype, used = dt, 0
        out[-1].append(i)
        used += n
    return out


class DistributedGradReducer(Cell):
    """``DistributedGradReducer(parameters, mean=None, degree=None)``: ``construct(grads)`` returns the
    gradients reduced over the job (``mean``: divided by ``degree``), in the order of ``parameters``.

    ``mean`` None takes ``gradients_mean`` of the parallel context; ``degree`` None is the job's group size.
    ``bucket_bytes`` None takes ``grad_bucket_bytes`` of the parallel context."""

    def __init__(self, parameters: Iterable[Parameter], mean: bool | None = None, degree: int | None = None,
                 fusion_type: int = 1, group: str = "world_group", bucket_bytes: int | None = None):
        super().__init__(auto_prefix=False)
        self.parameters = tuple(parameters)
        self.mean = auto_parallel.get_auto_parallel_context("gradients_mean") if mean is None else bool(mean)
        if degree is None:
            degree = get_group_size() if is_initialized() else 1
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"DistributedGradReducer: degree must be an int >= 1, got {degree!r}")
        self.degree = degree
        limit = auto_parallel.get_auto_parallel_context("grad_bucket_bytes") if bucket_bytes is None else bucket_bytes
        sizes = [(p.asnumpy().dtype.name, p.asnumpy().nbytes) for p in self.parameters]
        self.buckets = buckets(sizes, int(limit))

    def construct(self, grads: Sequence[Tensor]) -> tuple[Tensor, ...]:
        grads = tuple(grads)
        if len(grads) != len(self.parameters):
            raise ValueError(f"DistributedGradReducer: {len(grads)} gradients for {len(self.parameters)} parameters")
        scale = 1.0 / self.degree if self.mean else 1.0
        reduced: list[Any] = [None] * len(grads)
        for bucket in self.buckets:
            out = apply("AllReduce", {"op": "sum", "scale": scale}, [grads[i] for i in bucket])
            for i, g in zip(bucket, out if isinstance(out, tuple) else (out,)):
                reduced[i] = g
        return tuple(reduced)


def broadcast_parameters(parameters: Iterable[Parameter], root_rank: int = 0) -> None:
    """Overwrite every parameter's data with rank ``root_rank``'s (in place, one MPI call per dtype): the start
    of a data-parallel job, so that ranks initialised with different seeds still train one model."""
    arrays = []
    for p in parameters:
        data = p.asnumpy()
        if not data.flags.c_contiguous:
            p.set_data(np.ascontiguousarray(data))
            data = p.asnumpy()
        arrays.append(data)
    broadcast_arrays(arrays, root_rank)
