"""``mindspore.scipy.optimize.linear_sum_assignment``: the rectangular linear sum assignment problem by shortest
augmenting paths (Crouse, "On implementing 2D rectangular assignment algorithms", 2016), on the host: one
augmentation per row, Dijkstra over reduced costs with dual variables. Ties are broken as SciPy's and
MindSpore's solvers break them (prefer an unassigned column among the equally short), so the same assignment
comes out, not just one of equal cost.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...core.tensor import Tensor, as_tensor

_NUMERIC = "biuf"
_NO_LIMIT = Tensor(sys.maxsize)  # MindSpore's default: every column


def _augment(cost: np.ndarray, cur: int, u: np.ndarray, v: np.ndarray, row4col: np.ndarray,
             col4row: np.ndarray) -> None:
    """Assign row ``cur`` along the shortest augmenting path, updating the duals and the assignment."""
    nr, nc = cost.shape
    shortest = np.full(nc, np.inf)
    path = np.full(nc, -1)
    seen_rows, seen_cols = np.zeros(nr, bool), np.zeros(nc, bool)
    remaining = list(range(nc - 1, -1, -1))
    min_val, i, sink = 0.0, cur, -1
    while sink == -1:
        seen_rows[i] = True
        rem = np.asarray(remaining)
        reduced = min_val + cost[i, rem] - u[i] - v[rem]
        better = reduced < shortest[rem]
        path[rem[better]] = i
        shortest[rem[better]] = reduced[better]
        vals = shortest[rem]
        lowest = vals.min()
        if not np.isfinite(lowest):
            raise ValueError("scipy.optimize.linear_sum_assignment: the cost matrix is infeasible (a row can reach "
                             "only +inf costs); give every row at least one finite cost")
        ties = np.flatnonzero(vals == lowest)
        free = ties[row4col[rem[ties]] == -1]
        index = int(free[-1]) if free.size else int(ties[0])
        min_val = float(lowest)
        j = remaining[index]
        if row4col[j] == -1:
            sink = j
        else:
            i = row4col[j]
        seen_cols[j] = True
        remaining[index] = remaining[-1]
        remaining.pop()
    u[cur] += min_val
    others = seen_rows.copy()
    others[cur] = False
    u[others] += min_val - shortest[col4row[others]]
    v[seen_cols] -= min_val - shortest[seen_cols]
    j = sink
    while True:
        i = path[j]
        row4col[j] = i
        col4row[i], j = j, col4row[i]
        if i == cur:
            break


def solve(cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of a minimum-cost assignment of the finite (or +inf) matrix ``cost``."""
    transposed = cost.shape[0] > cost.shape[1]
    if transposed:
        cost = cost.T
    nr, nc = cost.shape
    u, v = np.zeros(nr), np.zeros(nc)
    row4col, col4row = np.full(nc, -1), np.full(nr, -1)
    for cur in range(nr):
        _augment(cost, cur, u, v, row4col, col4row)
    if transposed:
        order = np.argsort(col4row, kind="stable")
        return col4row[order], np.arange(nr)[order]
    return np.arange(nr), col4row


def linear_sum_assignment(cost_matrix: Any, maximize: bool,
                          dimension_limit: Any = _NO_LIMIT) -> tuple[Tensor, Tensor]:
    """``(row_idx, col_idx)`` (int64) of a minimum (``maximize=False``) or maximum weight assignment of the 2-D
    ``cost_matrix`` restricted to its first ``dimension_limit`` columns; both have min(M, N) entries, the
    ones past the assignment -1. NaN and -inf costs are refused, +inf means "never assign"."""
    t = as_tensor(cost_matrix)
    if t.ndim != 2:
        raise ValueError(f"scipy.optimize.linear_sum_assignment: cost_matrix must be 2-D (M, N), got {t.ndim}-D")
    if not isinstance(maximize, bool):
        raise TypeError(f"scipy.optimize.linear_sum_assignment: maximize must be a bool, got "
                        f"{type(maximize).__name__}")
    limit = dimension_limit.asnumpy() if isinstance(dimension_limit, Tensor) else np.asarray(dimension_limit)
    if limit.ndim != 0 or limit.dtype.kind not in "iu" or isinstance(dimension_limit, bool):
        raise TypeError(f"scipy.optimize.linear_sum_assignment: dimension_limit must be a 0-D int64 Tensor, got "
                        f"{dimension_limit!r}")
    cost = t.asnumpy()
    if cost.dtype.kind not in _NUMERIC:
        raise TypeError(f"scipy.optimize.linear_sum_assignment: cost_matrix must be numeric or bool, got {t.dtype}")
    cost = cost.astype(np.float64)
    if maximize:
        cost = -cost
    if np.isnan(cost).any() or np.isneginf(cost).any():
        raise ValueError("scipy.optimize.linear_sum_assignment: the cost matrix has NaN or "
                         f"{'+inf' if maximize else '-inf'} entries; they cannot be assigned")
    size = min(cost.shape)
    cost = cost[:, :max(int(limit), 0)]
    rows, cols = solve(cost) if min(cost.shape) else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    pad = np.full(size - rows.size, -1, np.int64)
    return (Tensor(np.concatenate([rows.astype(np.int64), pad])), Tensor(np.concatenate([cols.astype(np.int64), pad])))
