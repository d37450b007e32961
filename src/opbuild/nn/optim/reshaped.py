"""Parameters given a new shape (``Parameter.set_data(..., slice_shape=True)``) after their optimizer was
created: the optimizer's state for them (``moment1.<name>``, ``accum.<name>``...) keeps the old shape, and the
update kernel refused the mismatch with an error about its input numbers. The optimizer checks, once per
reshape anywhere in the process (a counter compare per step otherwise), and names the parameter, its old and
new shapes and the state to rebuild."""

from __future__ import annotations

from typing import Any

from ...core import parameter_shapes

Snapshot = tuple[int, dict[int, tuple[int, ...]]]


def snapshot(params: Any) -> Snapshot:
    """The shapes of ``params`` now, with the reshape counter they belong to."""
    return parameter_shapes.generation(), {id(p): tuple(p.shape) for p in params}


def check(optimizer: Any, taken: Snapshot) -> Snapshot:
    """``taken`` when no parameter has been reshaped since; otherwise a RuntimeError if a reshaped parameter
    of ``optimizer`` has state of its old shape, else a fresh snapshot."""
    generation, shapes = taken
    if parameter_shapes.generation() == generation:
        return taken
    params = list(optimizer._parameters)
    mine = {id(p) for p in params}
    state = [(n, q) for n, q in optimizer.parameters_and_names() if id(q) not in mine]
    for p in params:
        old = shapes.get(id(p))
        if old is None or tuple(p.shape) == old:
            continue
        stale = [n for n, q in state if n.endswith("." + p.name) and tuple(q.shape) == old]
        if stale:
            raise RuntimeError(f"{type(optimizer).__name__}: the parameter {p.name!r} has shape {tuple(p.shape)} but "
                               f"had {old} when the optimizer was created, and its state {stale} keeps the old "
                               "shape; create the optimizer after reshaping parameters with "
                               "set_data(..., slice_shape=True)")
    return snapshot(params)


__all__ = ["snapshot", "check"]
