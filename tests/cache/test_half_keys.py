"""float16 and float32 versions of one network are distinct cache entries: different keys (the dtype is in
every descriptor), both built on a cold cache, both reused on a warm run, and neither served for the other."""

from __future__ import annotations

import json

import pytest

from tests.cache import _net
from tests.cache._util import committed, env_for, kernel_meta, run_worker, statuses, verify_cache

pytestmark = pytest.mark.slow

WIDTHS = [3, 4, 5]  # 5 kernels per branch, 15 per network
NET32 = _net.branches(WIDTHS, "float32")
NET16 = _net.branches(WIDTHS, "float16")


def test_float16_and_float32_networks_have_distinct_entries(tmp_path):
    km = kernel_meta(tmp_path)
    first32 = run_worker({"net": NET32}, env_for(tmp_path))  # the worker checks outputs against NumPy
    assert (first32["report"]["built"], first32["report"]["reused"]) == (15, 0)
    first16 = run_worker({"net": NET16}, env_for(tmp_path))
    rep = first16["report"]
    assert (rep["built"], rep["reused"]) == (15, 0)  # nothing of the float32 network serves the float16 one
    names32, names16 = set(statuses(first32)), set(statuses(first16))
    assert len(names16) == 15 and not names16 & names32
    assert set(committed(km)) == names32 | names16
    # The same ops, distinguished by the dtype recorded in the descriptor.
    ops16 = sorted(k["op"] for k in rep["kernels"])
    assert ops16 == sorted(k["op"] for k in first32["report"]["kernels"])
    for name in names16:
        info = json.loads((km / f"{name}.info").read_bytes())
        assert "float16" in json.dumps(info) and "float32" not in json.dumps(info["inputs"] + info["outputs"])
    # Warm: each network loads its own 15 entries and builds nothing, in either order and together.
    for net, names in ((NET16, names16), (NET32, names32)):
        warm = run_worker({"net": net}, env_for(tmp_path))
        assert (warm["report"]["built"], warm["report"]["reused"]) == (0, 15)
        assert set(statuses(warm)) == names and set(statuses(warm).values()) == {"reused"}
    both = run_worker({"net": NET32 + NET16}, env_for(tmp_path))
    assert (both["report"]["built"], both["report"]["reused"]) == (0, 30)
    assert verify_cache(km) == []
