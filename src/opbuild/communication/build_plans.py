"""Who builds what in a multi-rank job: the ranks exchange their build plans before compiling a graph that
holds collectives, and every rank logs them.

Without a shared tier each rank builds the kernels missing from its own ``rank_<r>/kernel_meta``; a rank whose
cache is warm runs ahead and waits in the graph's first collective (MPI waits: nothing times out). From the
outside such a wait looks like a hang, so every rank logs, at INFO on the ``opbuild`` logger, which ranks build
which kernels and which ranks wait for them. The exchange is one ``allgather`` of kernel names per compiled
graph with collectives, over the group of the graph's first collective: every rank of that group compiles the
graph (it could not run that collective otherwise), so the exchange pairs up across the group (a graph of a
sub-group's collectives may be compiled by its ranks alone); a graph without collectives compiles with no
exchange at all.
"""

from __future__ import annotations

import logging

from ..core import config
from .groups import WORLD_NAMES, resolve
from .management import is_initialized

log = logging.getLogger("opbuild")


def exchange(names: list[str], group: str | None = None) -> list[list[str]]:
    """Share this rank's plan (the kernels it is about to compile or fetch) with every rank of ``group`` (None:
    the world), log the group's plans on this rank, and return them (one list per rank of the group). A group
    of one rank exchanges and logs nothing."""
    if (group is None or group in WORLD_NAMES) and not is_initialized():
        return [list(names)]
    g = resolve(group)
    if g.size <= 1:
        return [list(names)]
    plans: list[list[str]] = g.comm.allgather(list(names))
    busy = [r for r, plan in enumerate(plans) if plan]
    if not busy:
        return plans
    verb = "fetches or builds" if config.remote_cache_url() else "builds"
    for r in busy:
        who = " (this rank)" if r == g.rank else ""
        log.info("opbuild: rank %d of %d%s %s %d kernel(s) before its first collective: %s", g.ranks[r], g.size,
                 who, verb, len(plans[r]), ", ".join(plans[r]))
    idle = [g.ranks[r] for r, plan in enumerate(plans) if not plan]
    if idle:
        log.info("opbuild: rank(s) %s have every kernel and wait in the first collective for rank(s) %s "
                 "(MPI waits; nothing times out)", ", ".join(map(str, idle)),
                 ", ".join(str(g.ranks[r]) for r in busy))
    return plans
