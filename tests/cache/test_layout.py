"""Where the cache lives and what its entries contain (.info = the key, .json = the build result)."""

from __future__ import annotations

import ctypes
import hashlib
import json
import re
from pathlib import Path

import pytest

from tests.cache import _net
from tests.cache._util import env_for, kernel_meta, run_clean, run_worker, statuses
from tests.conftest import REPO

pytestmark = pytest.mark.slow

EXAMPLE = str(REPO / "examples" / "test_square.py")
CACHE_VARS = ("OPBUILD_CACHE_PATH", "MS_COMPILER_CACHE_PATH", "RANK_ID", "OPBUILD_CACHE", "CC",
              "OPBUILD_CFLAGS")
ENTRY = re.compile(r"^square_[0-9a-f]{32}$")


def _entries(km: Path) -> dict[str, set[str]]:
    """kernel name -> set of suffixes present (ignores dot files such as .locks and the compiler memo, and
    the quarantine folder)."""
    out: dict[str, set[str]] = {}
    for p in km.iterdir():
        if p.is_file() and not p.name.startswith("."):
            out.setdefault(p.stem, set()).add(p.suffix)
    return out


def _run_example(cwd: Path, **env: str):
    """Run examples/test_square.py with every cache variable unset except those given."""
    proc = run_clean([EXAMPLE], cwd=cwd, unset=CACHE_VARS, **env)
    assert "output:  [ 1. 16. 81.]" in proc.stdout, proc.stdout
    return proc


def _only_entry(km: Path) -> str:
    entries = _entries(km)
    assert len(entries) == 1, entries
    (name, suffixes), = entries.items()
    assert ENTRY.match(name), name
    assert suffixes == {".info", ".json", ".so"}
    return name


def test_example_defaults_to_cwd_rank_0(tmp_path):
    _run_example(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rank_0"]
    _only_entry(kernel_meta(tmp_path))


def test_example_with_rank_and_cache_path(tmp_path):
    root, cwd = tmp_path / "some" / "dir", tmp_path / "cwd"
    cwd.mkdir()
    _run_example(cwd, RANK_ID="3", OPBUILD_CACHE_PATH=str(root))
    assert list(cwd.iterdir()) == []
    assert sorted(p.name for p in root.iterdir()) == ["rank_3"]
    _only_entry(kernel_meta(root, 3))


def test_ms_compiler_cache_path_is_an_alias(tmp_path):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    _run_example(cwd, MS_COMPILER_CACHE_PATH=str(tmp_path / "ms"))
    _only_entry(kernel_meta(tmp_path / "ms"))
    # OPBUILD_CACHE_PATH wins when both are set.
    _run_example(cwd, MS_COMPILER_CACHE_PATH=str(tmp_path / "ms2"), OPBUILD_CACHE_PATH=str(tmp_path / "ob"))
    assert not (tmp_path / "ms2").exists() and list(cwd.iterdir()) == []
    _only_entry(kernel_meta(tmp_path / "ob"))


def test_empty_rank_id_means_rank_0(tmp_path):
    _run_example(tmp_path, RANK_ID="")
    _only_entry(kernel_meta(tmp_path))


def test_cache_off_still_builds_and_runs(tmp_path):
    """OPBUILD_CACHE=0: correct results, kernels built every run, nothing written under root or cwd."""
    net = _net.branches([3, 4])
    for _ in range(2):
        res = run_worker({"net": net}, env_for(tmp_path / "root", OPBUILD_CACHE="0"), cwd=tmp_path)
        assert res["report"]["built"] == 10 and res["report"]["reused"] == 0
        assert res["warnings"] == []
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    _run_example(tmp_path, OPBUILD_CACHE="0")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A cache holding the entries of a two-branch network (one with a Cast), plus the worker's result."""
    root = tmp_path_factory.mktemp("layout")
    net = _net.branches([3], cast="float64") + _net.branches([5], dtype="float64")
    res = run_worker({"net": net}, env_for(root))
    return kernel_meta(root), net, res


def test_info_is_the_full_canonical_descriptor(built):
    km, net, res = built
    names = list(statuses(res))
    assert len(names) == len(_net.expected_kernels(net)) == 11
    seen = set()
    for name in names:
        raw = (km / f"{name}.info").read_bytes()
        # The name is <op lower>_<first 32 hex digits of sha256(.info bytes)>.
        assert name == f"{json.loads(raw)['op'].lower()}_{hashlib.sha256(raw).hexdigest()[:32]}"
        info = json.loads(raw)
        # Canonical: sorted keys, no spaces, newline-terminated; re-serialising gives the same bytes.
        assert raw == (json.dumps(info, sort_keys=True, separators=(",", ":")) + "\n").encode()
        assert set(info) == {"op", "attrs", "inputs", "outputs", "codegen", "abi", "compiler", "target",
                             "opbuild_version", "opt_class"}
        for t in info["inputs"] + info["outputs"]:
            assert set(t) == {"dtype", "shape", "format"}
        assert re.fullmatch(r"[0-9a-f]{64}", info["codegen"])
        assert isinstance(info["abi"], int)
        assert {"path", "version", "flags", "cflags"} <= set(info["compiler"])
        assert Path(info["compiler"]["path"]).is_absolute() and info["compiler"]["version"]
        assert "-O3" in info["compiler"]["flags"] and info["compiler"]["cflags"] == []
        assert info["target"]["arch"] and isinstance(info["target"]["isa"], list)
        assert info["opbuild_version"]
        # Nothing that does not change the code: with the exact key sets above, node/value names, graph ids or
        # the rank could only hide in attrs, which hold the op's attributes alone.
        assert set(info["attrs"]) <= {"dtype"}
        seen.add((info["op"], tuple(info["inputs"][0]["shape"]), info["inputs"][0]["dtype"],
                  info["attrs"].get("dtype")))
    assert seen == _net.expected_kernels(net)


def test_json_is_the_build_result(built):
    km, _, res = built
    for name in statuses(res):
        meta = json.loads((km / f"{name}.json").read_bytes())
        binary = km / f"{name}.so"
        data = binary.read_bytes()
        assert meta["binary"] == binary.name and meta["suffix"] == ".so"
        assert meta["size"] == len(data) and meta["sha256"] == hashlib.sha256(data).hexdigest()
        assert isinstance(meta["build_seconds"], float) and meta["build_seconds"] > 0
        assert isinstance(meta["compile_command"], list) and "-O3" in meta["compile_command"]
        assert meta["opbuild_version"]
        lib = ctypes.CDLL(str(binary))
        assert getattr(lib, meta["symbol"])  # the recorded symbol is the kernel's entry point


def test_entries_are_shared_by_ranks_and_networks(built, tmp_path):
    """The same kernel has the same name and .info in every rank and every network that uses it."""
    km, net, res = built
    names = set(statuses(res))
    rank3 = run_worker({"net": net}, env_for(tmp_path, RANK_ID="3"))
    assert set(statuses(rank3)) == names
    for name in names:
        assert (kernel_meta(tmp_path, 3) / f"{name}.info").read_bytes() == (km / f"{name}.info").read_bytes()
    # A different network (other branch order and an extra branch) reuses the shared kernels from the cache.
    other = [net[1], *_net.branches([7]), net[0]]
    res2 = run_worker({"net": other}, env_for(km.parents[1]))
    st = statuses(res2)
    assert {n for n, s in st.items() if s == "reused"} == names
    assert res2["report"]["built"] == 5
