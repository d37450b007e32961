"""`opbuild cache explain`, OPBUILD_EXPLAIN_MISSES, `opbuild cache export/import` and `opbuild run`."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from opbuild.cache.key import canonical_bytes, kernel_name, kernel_symbol

from .conftest import NET, SECRET, kernel_meta, names, run_cli, run_json, run_net

pytestmark = pytest.mark.slow


def _info(root: Path, name: str) -> dict:
    return json.loads((kernel_meta(root) / f"{name}.info").read_text())


def _find(root: Path, op: str, shape: int, dtype: str = "float32") -> str:
    found = []
    for n in names(root):
        info = _info(root, n)
        if info["op"] == op and info["inputs"][0]["shape"] == [shape] and info["inputs"][0]["dtype"] == dtype:
            found.append(n)
    (name,) = found
    return name


def test_explain_names_closest_entry_and_differing_fields(warm_root):
    sq4 = _find(warm_root, "Square", 4)
    sq3 = _find(warm_root, "Square", 3)
    proc = run_cli("cache", "explain", sq4, root=warm_root)
    assert proc.returncode == 0, proc.stderr
    assert f"closest  {sq3}" in proc.stdout  # float32 [3]: 2 fields differ; float64 [5]: 4 fields
    assert "  input[0].shape [3] -> [4]" in proc.stdout.splitlines()
    assert "  output[0].shape [3] -> [4]" in proc.stdout.splitlines()
    assert "differs in 2 fields" in proc.stdout

    data = run_json("cache", "explain", sq4[:12], root=warm_root)  # a unique prefix is enough
    assert data["closest"] == sq3 and data["candidates"] == 2
    assert [(c["field"], c["old"], c["new"]) for c in data["changes"]] == [
        ("input[0].shape", [3], [4]), ("output[0].shape", [3], [4])]

    sq64 = _find(warm_root, "Square", 5, "float64")
    fields = {c["field"] for c in run_json("cache", "explain", sq64, root=warm_root)["changes"]}
    assert fields == {"input[0].dtype", "input[0].shape", "output[0].dtype", "output[0].shape"}

    assert run_cli("cache", "explain", "square_", root=warm_root).returncode == 2  # ambiguous
    assert run_cli("cache", "explain", "conv2d_0000", root=warm_root).returncode == 2  # unknown
    for empty in ("", ".", ".info"):  # as a prefix of every name they would pick a kernel at random
        proc = run_cli("cache", "explain", empty, root=warm_root)
        assert proc.returncode == 2 and "names no kernel" in proc.stderr


def test_explain_an_info_file_from_another_toolchain(warm_root, tmp_path):
    sq3 = _find(warm_root, "Square", 3)
    desc = _info(warm_root, sq3)
    old_version = desc["compiler"]["version"]
    desc["compiler"]["version"] = "gcc (GCC) 13.1.0"
    path = tmp_path / "elsewhere.info"
    path.write_bytes(canonical_bytes(desc))
    proc = run_cli("cache", "explain", str(path), root=warm_root)
    assert proc.returncode == 0, proc.stderr
    assert f"closest  {sq3}" in proc.stdout
    assert f"  compiler.version {old_version} -> gcc (GCC) 13.1.0" in proc.stdout.splitlines()
    assert "differs in 1 field " in proc.stdout

    # a different CPU: long ISA lists are shown as what was added and removed
    desc = _info(warm_root, sq3)
    desc["target"]["isa"] = [f for f in desc["target"]["isa"] if f != "sse2"] + ["zz_new"]
    path.write_bytes(canonical_bytes(desc))
    (change,) = run_json("cache", "explain", str(path), root=warm_root)["changes"]
    assert change["field"] == "target.isa" and "+zz_new" in change["text"] and "-sse2" in change["text"]

    # the .info of an existing entry, given by path: compared with the others, not with itself
    same = run_json("cache", "explain", str(kernel_meta(warm_root) / f"{sq3}.json"), root=warm_root)
    assert same["kernel"] == sq3 and same["closest"] != sq3


def test_explain_misses_logs_a_warning_per_miss(cache):
    proc = run_net(cache, 9, "float32", "--log", env={"OPBUILD_EXPLAIN_MISSES": "1"})
    lines = [line for line in proc.stderr.splitlines() if "cache miss" in line]
    assert len(lines) == 3, proc.stderr
    assert all(line.startswith("WARNING opbuild: cache miss ") for line in lines)
    square = next(line for line in lines if "(Square)" in line)
    assert "closest entry square_" in square and "input[0].shape [4] -> [9]" in square
    # a hit is not explained, and without the variable nothing is logged
    again = run_net(cache, 9, "float32", "--log", env={"OPBUILD_EXPLAIN_MISSES": "1"})
    assert "cache miss" not in again.stderr
    quiet = run_net(cache, 10, "float32", "--log")
    assert "cache miss" not in quiet.stderr
    # a miss on a broken entry says what was broken (and the entry is repaired)
    exp3 = _find(cache, "Exp", 3)
    (kernel_meta(cache) / f"{exp3}.so").write_bytes(b"\0" * 64)
    broken = run_net(cache, 3, "float32", "--log", env={"OPBUILD_EXPLAIN_MISSES": "1"})
    (line,) = [line for line in broken.stderr.splitlines() if "cache miss" in line]
    assert f"cache miss {exp3} (Exp): the entry exists but is broken (binary size 64 != " in line


def test_export_import_moves_a_warm_cache(warm_root, tmp_path):
    archive = tmp_path / "warm.tar.gz"
    out = run_json("cache", "export", str(archive), root=warm_root, env=SECRET)
    assert out["entries"] == 9 and out["skipped"] == [] and out["signed"] is True
    with tarfile.open(archive) as tar:
        members = tar.getnames()
    assert members[0] == "opbuild-cache.json" and len(members) == 1 + 27 + 1
    assert all(m.startswith("kernel_meta/") for m in members[1:-1]) and members[-1] == "opbuild-cache.sig"

    fresh = tmp_path / "fresh"
    imported = run_cli("cache", "import", str(archive), root=fresh, env=SECRET)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "imported 9 entries" in imported.stdout and "signature checked" in imported.stdout
    assert names(fresh) == names(warm_root)
    for n in names(fresh):
        for s in (".info", ".so"):
            theirs = (kernel_meta(warm_root) / f"{n}{s}").read_bytes()
            assert (kernel_meta(fresh) / f"{n}{s}").read_bytes() == theirs
    assert run_cli("cache", "verify", root=fresh).returncode == 0
    # a run on the importing machine reuses every kernel
    run = run_cli("run", str(NET), "4", root=fresh)
    assert run.returncode == 0, run.stderr
    assert "3 kernels: 3 reused, 0 built" in run.stderr
    again = run_json("cache", "import", str(archive), root=fresh, env=SECRET)
    assert len(again["present"]) == 9 and again["imported"] == [] and again["signed"] is True


def _entry_bytes(root: Path, name: str) -> dict[str, bytes]:
    return {s: (kernel_meta(root) / f"{name}{s}").read_bytes() for s in (".info", ".json", ".so")}


def _retarget(parts: dict[str, bytes], edit) -> tuple[str, dict[str, bytes]]:
    """A consistent entry whose descriptor was changed by ``edit`` (new name, the binary exporting the new
    name's symbol: same length, renamed in place, so it still passes the ELF check)."""
    desc = json.loads(parts[".info"])
    edit(desc)
    info = canonical_bytes(desc)
    name = kernel_name(desc["op"], info)
    meta = json.loads(parts[".json"])
    binary = parts[".so"].replace(meta["symbol"].encode(), kernel_symbol(name).encode())
    meta.update(binary=name + ".so", kernel=name, symbol=kernel_symbol(name),
                sha256=hashlib.sha256(binary).hexdigest(), size=len(binary))
    return name, {".info": info, ".json": json.dumps(meta).encode(), ".so": binary}


def _tar(path: Path, members: list[tuple[str, bytes]], links: list[tuple[str, str]] = ()) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            tar.addfile(ti, io.BytesIO(data))
        for name, target in links:
            ti = tarfile.TarInfo(name)
            ti.type = tarfile.SYMTYPE
            ti.linkname = target
            tar.addfile(ti)


def test_import_skips_foreign_and_damaged_entries_and_refuses_unsafe_members(cache, tmp_path):
    sq3, exp4 = _find(cache, "Square", 3), _find(cache, "Exp", 4)
    good_local = _entry_bytes(cache, sq3)
    # a damaged copy of an entry this cache has intact: must never replace it
    damaged = dict(good_local, **{".so": good_local[".so"][:-1] + bytes([good_local[".so"][-1] ^ 1])})

    def other_compiler(d):
        d["compiler"]["version"] = "gcc (GCC) 13.1.0"

    def other_cpu(d):
        d["target"]["arch"] = "aarch64"

    foreign_cc, foreign_cc_parts = _retarget(_entry_bytes(cache, exp4), other_compiler)
    foreign_cpu, foreign_cpu_parts = _retarget(_entry_bytes(cache, exp4), other_cpu)
    members = [(f"kernel_meta/{sq3}{s}", b) for s, b in damaged.items()]
    members += [(f"kernel_meta/{foreign_cc}{s}", b) for s, b in foreign_cc_parts.items()]
    members += [(f"kernel_meta/{foreign_cpu}{s}", b) for s, b in foreign_cpu_parts.items()]
    members += [("../escape.so", b"x"), ("/abs/evil.info", b"x"), ("kernel_meta/README", b"hi")]
    archive = tmp_path / "mixed.tar.gz"
    _tar(archive, members, links=[(f"kernel_meta/{exp4}.so", "/etc/passwd")])

    refused = run_cli("cache", "import", str(archive), root=cache)  # no index, no signature
    assert refused.returncode == 1 and "has no index opbuild-cache.sig" in refused.stderr
    assert "--trust" in refused.stderr and refused.stdout == ""
    proc = run_cli("cache", "import", "--trust", str(archive), root=cache)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert ("skipped 1 entry built by a different compiler: archive -> here: "
            "compiler.version gcc (GCC) 13.1.0 ->") in proc.stdout
    assert ("skipped 1 entry built for a different CPU target: archive -> here: "
            "target.arch aarch64 ->") in proc.stdout
    assert "skipped 1 entry damaged" in proc.stdout and "binary sha256 does not match .json" in proc.stdout
    assert "refused archive member '../escape.so': path escapes the archive" in proc.stdout
    assert "refused archive member '/abs/evil.info'" in proc.stdout
    assert f"refused archive member 'kernel_meta/{exp4}.so': link to '/etc/passwd'" in proc.stdout
    assert "refused archive member 'kernel_meta/README': not a kernel cache file" in proc.stdout
    assert _entry_bytes(cache, sq3) == good_local  # the good entry was not touched
    assert foreign_cc not in names(cache) and foreign_cpu not in names(cache)
    assert not (tmp_path / "escape.so").exists() and not (kernel_meta(cache).parent / "escape.so").exists()
    assert run_cli("cache", "verify", root=cache).returncode == 0

    data = run_json("cache", "import", "--trust", str(archive), root=cache, expect=1)
    cats = sorted(c["category"] for c in data["skipped"])
    assert cats == ["compiler", "damaged", "target"]


def test_import_replaces_a_broken_local_entry_with_a_good_one(cache, tmp_path):
    archive = tmp_path / "good.tar.gz"
    run_json("cache", "export", str(archive), root=cache, env=SECRET)
    sq4 = _find(cache, "Square", 4)
    so = kernel_meta(cache) / f"{sq4}.so"
    good = so.read_bytes()
    so.write_bytes(b"\0" * len(good))
    data = run_json("cache", "import", str(archive), root=cache, env=SECRET)
    assert data["replaced"] == [sq4] and len(data["present"]) == 8
    assert so.read_bytes() == good
    assert any(p.name.startswith(f"{sq4}.so.") for p in (kernel_meta(cache) / "quarantine").iterdir())


def test_import_of_a_truncated_archive_keeps_what_was_sound(warm_root, tmp_path):
    archive = tmp_path / "warm.tar.gz"
    run_json("cache", "export", str(archive), root=warm_root, env=SECRET)
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    dest = tmp_path / "dest"
    proc = run_cli("cache", "import", str(cut), root=dest, env=SECRET)  # verified first: nothing written
    assert proc.returncode == 1 and "damaged" in proc.stderr and proc.stdout == ""
    assert names(dest) == set()
    proc = run_cli("cache", "import", "--trust", str(cut), root=dest)  # on trust: the sound entries before the cut
    assert proc.returncode == 1 and "damaged" in proc.stderr + proc.stdout
    assert run_cli("cache", "verify", root=dest).returncode == 0  # whatever was imported is whole
    assert names(dest) < names(warm_root)


def test_export_leaves_out_broken_entries(cache, tmp_path):
    exp3 = _find(cache, "Exp", 3)
    (kernel_meta(cache) / f"{exp3}.json").write_text("{}")
    archive = tmp_path / "x.tar.gz"
    proc = run_cli("cache", "export", str(archive), root=cache)
    assert proc.returncode == 1 and f"left out broken entry {exp3}" in proc.stdout
    with tarfile.open(archive) as tar:
        assert not [m for m in tar.getnames() if exp3 in m]
        assert len(tar.getnames()) == 1 + 8 * 3 + 1
    assert run_cli("cache", "export", str(tmp_path / "y.tar.gz"), root=tmp_path / "none").returncode == 2


def test_run_prints_the_build_report_and_keeps_the_exit_code(cache, tmp_path):
    proc = run_cli("run", str(NET), "11", root=cache)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok float32 (11,)"  # the script's own output is untouched
    assert "opbuild: 3 kernels: 0 reused, 3 built" in proc.stderr
    assert str(kernel_meta(cache)) in proc.stderr

    report = tmp_path / "report.json"
    proc = run_cli("run", "-v", "--report", str(report), str(NET), "11", root=cache)
    assert "3 kernels: 3 reused, 0 built" in proc.stderr
    assert "Square" in proc.stderr and "REUSED" in proc.stderr  # per-op table with -v
    data = json.loads(report.read_text())
    assert (data["kernels"], data["reused"], data["built"]) == (3, 3, 0)
    assert data["ops"]["Exp"] == {"built": 0, "reused": 1, "repaired": 0}

    script = tmp_path / "fails.py"
    script.write_text("import sys\nimport opbuild.ops as ops, opbuild as ms, numpy as np\n"
                      "ms.set_context(mode=ms.PYNATIVE_MODE)\n"
                      "print(ops.Square()(ms.Tensor(np.ones(3, np.float32))).asnumpy().sum(), sys.argv[1:])\n"
                      "sys.exit(3)\n")
    proc = run_cli("run", str(script), "--flag", "value", root=cache)
    assert proc.returncode == 3
    assert proc.stdout.strip() == "3.0 ['--flag', 'value']"
    assert "1 kernel: 1 reused, 0 built" in proc.stderr

    script.write_text("raise RuntimeError('boom')\n")
    proc = run_cli("run", str(script), root=cache)
    assert proc.returncode == 1 and "RuntimeError: boom" in proc.stderr
    assert "0 kernels" in proc.stderr
    assert run_cli("run", str(tmp_path / "missing.py"), root=cache).returncode == 2


def test_json_outputs_are_valid_for_every_command(cache, tmp_path):
    archive = tmp_path / "a.tar.gz"
    for args in (["cache", "ls"], ["cache", "stats"], ["cache", "verify"],
                 ["cache", "prune", "--older-than", "1w"],
                 ["cache", "explain", _find(cache, "Add", 3)], ["cache", "export", str(archive)],
                 ["cache", "import", "--trust", str(archive)], ["info"], ["cache", "clear", "--yes"]):
        data = run_json(*args, root=cache)
        assert isinstance(data, dict) and data, args


def test_an_archive_cut_anywhere_is_refused_as_damaged(warm_root, tmp_path):
    """Wherever the cut falls (inside a member's data or its header), the archive is damaged, not unindexed."""
    import io

    from opbuild.cache.admin.sealing import ArchiveRefused, verify_archive

    archive = tmp_path / "warm.tar.gz"
    run_json("cache", "export", str(archive), root=warm_root, env=SECRET)
    data = archive.read_bytes()
    for i in range(1, 32):
        with pytest.raises(ArchiveRefused, match="damaged"):
            verify_archive(io.BytesIO(data[: len(data) * i // 32]), None, trust=True)


def test_export_never_replaces_a_file_that_is_not_an_archive(cache, tmp_path):
    # A mistyped destination (the checkpoint next to the archive) was replaced by the archive without a word.
    precious = tmp_path / "model.ckpt"
    precious.write_bytes(b"weights")
    proc = run_cli("cache", "export", str(precious), root=cache)
    assert proc.returncode == 2 and "is not a .tar.gz archive" in proc.stderr
    assert precious.read_bytes() == b"weights"
    # An earlier export is replaced, as before.
    archive = tmp_path / "c.tar.gz"
    assert run_cli("cache", "export", str(archive), root=cache).returncode == 0
    assert run_cli("cache", "export", str(archive), root=cache).returncode == 0


def test_export_into_the_cache_it_archives_is_refused(cache):
    inside = kernel_meta(cache) / "backup.tar.gz"
    proc = run_cli("cache", "export", str(inside), root=cache)
    assert proc.returncode == 2 and "inside the cache it would archive" in proc.stderr
    assert not inside.exists()
