"""A binary is committed only once proven loadable, and one that cannot be loaded later is corrupt (issue #12,
point 2): the issue's three cases (a compiler that exits 0 after writing a truncated object, garbage, or an
object without the kernel symbol), both as a broken compiler (the build fails, nothing is committed) and as
entries planted with matching checksums (caught before dlopen, quarantined, rebuilt, counted repaired), plus
an object that is sound but that dlopen refuses (a library it needs is gone)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from opbuild.builder import Builder
from opbuild.cache import elf, manifest
from opbuild.cache.admin import verify
from opbuild.core import config
from opbuild.core.errors import CompileError, CompileTimeoutError, ConfigError
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from tests.cache import _net
from tests.cache._util import committed, env_for, kernel_meta, run_worker, statuses, verify_cache

pytestmark = pytest.mark.slow

REAL_CC = shutil.which("cc") or shutil.which("gcc")
NET = _net.branches([3])  # 5 kernels: enough for a graph manifest


def _mangle(data: bytes, how: str) -> bytes:
    if how == "truncate":
        return data[: len(data) // 2]
    if how == "garbage":
        return bytes(range(256)) * (len(data) // 256 + 1)
    raise ValueError(how)


@pytest.fixture(scope="module")
def good_so(tmp_path_factory) -> tuple[bytes, str]:
    """A shared object as the kernels are built (hidden visibility, one exported symbol)."""
    d = tmp_path_factory.mktemp("elf")
    (d / "k.c").write_text('__attribute__((visibility("default"))) void ob_abc(void *const *a) { (void)a; }\n'
                           "static int hidden(void) { return 1; }\nint (*keep)(void) = hidden;\n")
    subprocess.run([REAL_CC, "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-o", str(d / "k.so"), str(d / "k.c")],
                   check=True)
    return (d / "k.so").read_bytes(), "ob_abc"


# ---- the check itself ----------------------------------------------------------------------------------
def test_a_sound_object_passes_and_lists_only_what_dlsym_finds(good_so):
    data, symbol = good_so
    elf.check(data, [symbol])
    assert symbol in elf.exported_symbols(data) and "hidden" not in elf.exported_symbols(data)


@pytest.mark.parametrize("cut", [0.9, 0.5, 0.1, 100, 10])
def test_every_truncation_is_caught(good_so, cut):
    data, symbol = good_so
    n = int(len(data) * cut) if isinstance(cut, float) else cut
    with pytest.raises(elf.ElfError, match="truncated|past the end|only|bad magic"):
        elf.check(data[:n], [symbol])


def test_garbage_wrong_machine_and_missing_symbol_are_caught(good_so):
    data, symbol = good_so
    with pytest.raises(elf.ElfError, match="not an ELF file"):
        elf.check(_mangle(data, "garbage"), [symbol])
    other = bytearray(data)
    other[18:20] = (elf.HOST_MACHINE + 1).to_bytes(2, "little")  # e_machine
    with pytest.raises(elf.ElfError, match="machine"):
        elf.check(bytes(other), [symbol])
    with pytest.raises(elf.ElfError, match="does not export the kernel symbol ob_other"):
        elf.check(data, [symbol, "ob_other"])


# ---- a broken compiler: nothing is committed ----------------------------------------------------------------
@pytest.fixture
def breaking_cc(tmp_path, monkeypatch) -> Path:
    """A compiler wrapper that runs the real one, exits 0, and then spoils its output as OB_BREAK says:
    truncate, garbage or nosym (every symbol made local by a version script)."""
    cc = tmp_path / "cc-breaking"
    script = tmp_path / "local.map"
    script.write_text("{ local: *; };\n")
    cc.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" --version "*|*" -print-file-name="*) exec {REAL_CC} "$@";; esac\n'
        'out=""; prev=""; for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done\n'
        f'if [ "$OB_BREAK" = nosym ]; then {REAL_CC} "$@" -Wl,--version-script={script} || exit $?; exit 0; fi\n'
        f'{REAL_CC} "$@" || exit $?\n'
        'case "$OB_BREAK" in\n'
        '  truncate) head -c $(( $(wc -c < "$out") / 2 )) "$out" > "$out.t" && mv "$out.t" "$out";;\n'
        '  garbage) head -c 20000 /dev/urandom > "$out";;\n'
        "esac\n"
        "exit 0\n")
    cc.chmod(0o755)
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "root"))
    monkeypatch.setenv("CC", str(cc))
    monkeypatch.setenv("OPBUILD_BUILD_JOBS", "1")
    monkeypatch.delenv("RANK_ID", raising=False)
    monkeypatch.delenv("OPBUILD_CFLAGS", raising=False)
    return cc


def _specs(n: int) -> list:
    return [REGISTRY["Square"].spec({}, [TensorType((i + 1,), "float32")]) for i in range(n)]


@pytest.mark.parametrize("how, message", [("truncate", "truncated"), ("garbage", "not an ELF file"),
                                          ("nosym", "does not export the kernel symbol")])
def test_a_compiler_output_that_cannot_be_loaded_fails_the_build_and_commits_nothing(
        breaking_cc, monkeypatch, tmp_path, how, message):
    km = kernel_meta(tmp_path / "root")
    specs = _specs(3)
    names = [Builder().request(s).name for s in specs]
    monkeypatch.setenv("OB_BREAK", how)
    with pytest.raises(CompileError) as err:
        Builder().build(specs)
    assert err.value.kernel in names  # the batch failed, then each kernel alone: the error names one kernel
    assert "exited 0" in err.value.stderr and message in err.value.stderr
    assert committed(km) == [] and not list(km.glob("*.so")) and not list(km.glob("*.info"))

    monkeypatch.delenv("OB_BREAK")  # the compiler is fixed: the next build builds everything and runs
    kernels, report = Builder().build(specs)
    assert report.built == 3 and committed(km) == sorted(names)
    assert verify_cache(km) == []


# ---- entries planted with matching checksums: caught before dlopen, repaired --------------------------------
def _stub(tmp_path: Path, symbol: str, extra: list[str] | None = None) -> bytes:
    src = tmp_path / "stub.c"
    src.write_text(f'__attribute__((visibility("default"))) void {symbol}(void *const *a) {{ (void)a; }}\n')
    out = tmp_path / "stub.so"
    subprocess.run([REAL_CC, "-fPIC", "-shared", "-o", str(out), str(src), *(extra or [])], check=True)
    return out.read_bytes()


def _plant(km: Path, name: str, binary: bytes, in_manifest: bool) -> None:
    """Replace entry ``name``'s binary (a new file: the batch's other links keep the good one) and make the
    .json, and with ``in_manifest`` the graph manifest too, record its size and sha256, as a compiler that
    once wrote it would have."""
    so = km / f"{name}.so"
    so.unlink()
    so.write_bytes(binary)
    meta = json.loads((km / f"{name}.json").read_bytes())
    meta.update(size=len(binary), sha256=hashlib.sha256(binary).hexdigest())
    raw = (json.dumps(meta, indent=1, sort_keys=True) + "\n").encode()
    (km / f"{name}.json").write_bytes(raw)
    if in_manifest:
        (path,) = (km / manifest.MANIFEST_DIR).glob("*.json")
        data = json.loads(path.read_text())
        for item in data["kernels"]:
            if item[1] == name:  # [position, name, info, json, binary sha256, size, kernel digest]
                item[3:6] = [hashlib.sha256(raw).hexdigest(), meta["sha256"], meta["size"]]
        path.write_text(json.dumps(data))


@pytest.mark.parametrize("in_manifest", [False, True], ids=["lookup", "manifest"])
@pytest.mark.parametrize("how", ["truncate", "garbage", "nosym", "unloadable"])
def test_a_planted_unloadable_entry_is_quarantined_rebuilt_and_counted_repaired(tmp_path, how, in_manifest):
    root = tmp_path / "root"
    env = env_for(root)
    first = run_worker({"net": NET}, env)
    km = kernel_meta(root)
    assert first["report"]["built"] == 5 and len(list((km / manifest.MANIFEST_DIR).glob("*.json"))) == 1
    victim = sorted(statuses(first))[0]
    good = (km / f"{victim}.so").read_bytes()
    if how == "nosym":
        bad = _stub(tmp_path, "ob_not_the_kernel")
    elif how == "unloadable":  # structurally sound and exporting the symbol, but it needs a library now gone
        (tmp_path / "gone.c").write_text("int gone(void) { return 1; }\n")
        subprocess.run([REAL_CC, "-fPIC", "-shared", "-o", str(tmp_path / "libgone.so"), str(tmp_path / "gone.c")],
                       check=True)
        bad = _stub(tmp_path, "ob_" + victim.rsplit("_", 1)[1], ["-Wl,--no-as-needed", f"-L{tmp_path}", "-lgone"])
        (tmp_path / "libgone.so").unlink()
        elf.check(bad, ["ob_" + victim.rsplit("_", 1)[1]])  # passes the structural check: dlopen must catch it
    else:
        bad = _mangle(good, how)
    _plant(km, victim, bad, in_manifest)

    if how != "unloadable":  # verify sees everything the ELF check sees, before any process loads it
        # (the graph manifest naming the planted entry is reported too: verify checks manifests as well)
        (problem,) = [p for p in verify.verify(km).problems if p.kind == "entry"]
        assert problem.path == victim and "not a loadable shared object" in problem.detail
    second = run_worker({"net": NET}, env)  # the worker checks every output against NumPy
    assert statuses(second)[victim] == "repaired"
    assert [s for n, s in statuses(second).items() if n != victim] == ["reused"] * 4
    assert second["report"]["repaired"] == 1 and any(victim in w for w in second["warnings"])
    assert (km / f"{victim}.so").read_bytes() != bad
    assert any(p.name.startswith(f"{victim}.so.") for p in (km / "quarantine").iterdir())
    assert verify_cache(km) == []
    third = run_worker({"net": NET}, env)
    assert set(statuses(third).values()) == {"reused"}


def test_verify_repair_quarantines_an_entry_that_fails_the_elf_check(tmp_path):
    root = tmp_path / "root"
    first = run_worker({"net": NET}, env_for(root))
    km = kernel_meta(root)
    victim = sorted(statuses(first))[1]
    _plant(km, victim, _mangle((km / f"{victim}.so").read_bytes(), "truncate"), in_manifest=False)
    report = verify.verify(km, repair=True)
    assert [(p.path, p.action) for p in report.problems if p.kind == "entry"] == [(victim, "quarantined")]
    assert victim not in committed(km) and verify.verify(km).problems == []
    again = run_worker({"net": NET}, env_for(root))
    assert statuses(again)[victim] == "built"


# ---- OPBUILD_COMPILE_TIMEOUT -------------------------------------------------------------------------------
@pytest.fixture
def hanging_cc(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """(a compiler wrapper that starts a child which sleeps 60 s and waits for it, the file of their pids)."""
    pids = tmp_path / "pids"
    cc = tmp_path / "cc-hanging"
    cc.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" --version "*|*" -print-file-name="*) exec {REAL_CC} "$@";; esac\n'
        f"sleep 60 & echo $$ $! >> {pids}\n"
        "wait\n")
    cc.chmod(0o755)
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path / "root"))
    monkeypatch.setenv("CC", str(cc))
    monkeypatch.setenv("OPBUILD_BUILD_JOBS", "1")
    monkeypatch.delenv("RANK_ID", raising=False)
    monkeypatch.delenv("OPBUILD_CFLAGS", raising=False)
    return cc, pids


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead too (reaped by init later): only a running process counts.
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_a_hanging_compiler_is_killed_with_its_children_and_names_the_kernels(hanging_cc, monkeypatch, tmp_path):
    monkeypatch.setenv("OPBUILD_COMPILE_TIMEOUT", "1")
    specs = _specs(3)
    names = [Builder().request(s).name for s in specs]
    t0 = time.monotonic()
    with pytest.raises(CompileTimeoutError) as err:
        Builder().build(specs)
    elapsed = time.monotonic() - t0
    assert sorted(err.value.kernels) == sorted(names) and err.value.timeout == 1.0
    assert "OPBUILD_COMPILE_TIMEOUT=1 s" in str(err.value) and all(n in str(err.value) for n in names)
    assert elapsed < 30  # one call of one batch timed out, not one per kernel after it (3 x 1 s + compiles)
    lines = hanging_cc[1].read_text().split()
    assert len(lines) == 2  # one compiler call: the batch was not retried kernel by kernel
    # The driver and the child it started are both gone: SIGKILL went to the whole group; the child's death is
    # asynchronous (it is not ours to reap), so a loaded machine gets a moment to finish it.
    deadline = time.monotonic() + 10
    while any(_alive(int(pid)) for pid in lines) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(int(pid)) for pid in lines)
    assert committed(kernel_meta(tmp_path / "root")) == []


@pytest.mark.parametrize("raw", ["abc", "nan", "inf", "-inf", "0", "-5", "1e400"])
def test_bad_compile_timeouts_are_rejected_naming_the_variable(monkeypatch, raw):
    monkeypatch.setenv("OPBUILD_COMPILE_TIMEOUT", raw)
    with pytest.raises(ConfigError, match=f"OPBUILD_COMPILE_TIMEOUT={raw!r} .*unset it for the default \\(600\\)"):
        config.compile_timeout()
    monkeypatch.setenv("OPBUILD_COMPILE_TIMEOUT", "2.5")
    assert config.compile_timeout() == 2.5
    monkeypatch.delenv("OPBUILD_COMPILE_TIMEOUT")
    assert config.compile_timeout() == 600.0
