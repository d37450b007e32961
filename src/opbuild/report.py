"""The build report: what a graph build (or a run of PyNative builds) built, reused and repaired."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class KernelRecord:
    """One distinct kernel of a build. ``status`` is "built", "reused" or "repaired"; ``source`` says where
    the kernel came from: "memory" (this process), "local" (kernel_meta), "remote" (the shared tier, counted
    as reused) or "compiled"."""

    name: str
    op: str
    status: str
    seconds: float
    source: str = ""


@dataclass
class BuildReport:
    """Totals of one build and one record per distinct kernel (see :func:`opbuild.build_report`)."""

    kernels: list[KernelRecord] = field(default_factory=list)
    seconds: float = 0.0
    # The graph's memory plan (passes/memplan.py MemoryPlan.summary): arena_bytes against intermediate_bytes
    # (the sum of all intermediates), views, reused_inputs. None for PyNative builds.
    memory: dict | None = None
    # True for the report of a compiled graph that ran again without any build (every kernel "reused" from
    # memory, 0 s): build_report() then describes the graph that ran, not the last graph that was built.
    rerun: bool = False
    # Where control flow over tensor values broke the graph on the call that built (core/graph_breaks.py):
    # one line per break, "file:line (function): code: reason -> value".
    graph_breaks: list[str] = field(default_factory=list)

    def _count(self, status: str) -> int:
        return sum(1 for k in self.kernels if k.status == status)

    @property
    def built(self) -> int:
        return self._count("built")

    @property
    def reused(self) -> int:
        return self._count("reused")

    @property
    def repaired(self) -> int:
        return self._count("repaired")

    @property
    def fetched(self) -> int:
        """Kernels fetched from the shared tier (OPBUILD_REMOTE_CACHE); they are also counted as reused."""
        return sum(1 for k in self.kernels if k.source == "remote")

    def extend(self, other: BuildReport) -> None:
        self.kernels.extend(other.kernels)
        self.seconds += other.seconds

    def summary(self) -> str:
        parts = [f"{self.reused} reused" + (f" ({self.fetched} from the shared cache)" if self.fetched else ""),
                 f"{self.built} built"]
        if self.repaired:
            parts.append(f"{self.repaired} repaired")
        n = len(self.kernels)
        return f"{n} kernel{'' if n == 1 else 's'}: {', '.join(parts)} ({self.seconds:.2f} s)"

    def as_dict(self, sources: bool = False) -> dict:
        """JSON-able form: totals plus the kernel records. With ``sources``, also ``fetched`` and each kernel's
        ``source`` (left out by default, so the default form stays what it has always been)."""
        kernels = [asdict(k) for k in self.kernels]
        if not sources:
            for k in kernels:
                del k["source"]
        out = {"built": self.built, "reused": self.reused, "repaired": self.repaired, "seconds": self.seconds,
               "kernels": kernels}
        if sources:
            out["fetched"] = self.fetched
        if self.memory is not None:
            out["memory"] = dict(self.memory)
        if self.graph_breaks:
            out["graph_breaks"] = list(self.graph_breaks)
        return out

    def __repr__(self) -> str:
        return f"BuildReport({self.summary()})"
