"""Who builds what in a multi-rank job: the ranks exchange their build plans before compiling a graph that
holds collectives, and every rank logs them.

Without a shared tier each rank builds the kernels missing from its own ``rank_<r>/kernel_meta``; a rank whose
cache is warm runs ahead and waits in the graph's first collective (MPI waits: nothing times out). From the
outside such a wait looks like a hang, so every rank logs, at INFO on the ``opbuild`` logger, which ranks build
which kernels and which ranks wait for them. The exchange is one ``allgather`` of kernel names per compiled
graph with collectives: every rank compiles that graph (it could not run its collectives otherwise), so the
exchange pairs up across the job; a graph without collectives compiles with no exchange at all.
"""

from __future__ import annotations

import logging

from ..core import config
from .management import group, is_initialized

log = logging.getLogger("opbuild")


def exchange(names: list[str]) -> list[list[str]]:
    """Share this rank's plan (the kernels it is about to compile or fetch) with every rank, log the job's plans
    on this rank, and return them (one list per rank). A job of one rank exchanges and logs nothing."""
    if not is_initialized() or group().size <= 1:
        return [list(names)]
    g = group()
    plans: list[list[str]] = g.comm.allgather(list(names))
    busy = [r for r, plan in enumerate(plans) if plan]
    if not busy:
        return plans
    verb = "fetches or builds" if config.remote_cache_url() else "builds"
    for r in busy:
        who = " (this rank)" if r == g.rank else ""
        log.info("opbuild: rank %d of %d%s %s %d kernel(s) before its first collective: %s", r, g.size, who,
                 verb, len(plans[r]), ", ".join(plans[r]))
    idle = [r for r, plan in enumerate(plans) if not plan]
    if idle:
        log.info("opbuild: rank(s) %s have every kernel and wait in the first collective for rank(s) %s "
                 "(MPI waits; nothing times out)", ", ".join(map(str, idle)), ", ".join(map(str, busy)))
    return plans
