"""Environment variables are validated up front, by one validator per kind (config.EnvNumber, EnvFlag): every bad
value of every variable fails every build, warm (all kernels cached, or all in this process's memory) or cold,
before anything is compiled, loaded or written, with a ConfigError naming the variable, the value and the
accepted form. Good values parse as documented, and parsing is memoised on the raw text."""

from __future__ import annotations

from pathlib import Path

import pytest

from opbuild.builder import Builder
from opbuild.core import config
from opbuild.core.errors import ConfigError
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from tests.cache._util import committed, kernel_meta

SECONDS = ("OPBUILD_REMOTE_TIMEOUT", "OPBUILD_REMOTE_LEASE_TTL", "OPBUILD_LOCK_TIMEOUT")  # > 0
SECONDS_OR_ZERO = ("OPBUILD_REMOTE_TTL",)  # >= 0
COUNTS = ("OPBUILD_BUILD_JOBS", "OPBUILD_BATCH_SIZE", "OPBUILD_BATCH_MIN",  # whole numbers >= 1
          "OPBUILD_LOADED_KERNELS")
FLAGS = ("OPBUILD_CACHE", "OPBUILD_CACHE_FSYNC", "OPBUILD_PRELOAD", "OPBUILD_OPENMP", "OPBUILD_EXPLAIN_MISSES",
         "OPBUILD_PROGRESS", "OPBUILD_GPU_WRITEBACK")

# (variable, bad value, what the message says is wrong)
BAD = [
    *[(v, raw, why) for v in (*SECONDS, *SECONDS_OR_ZERO) for raw, why in [
        ("nan", "is not a finite number"), ("inf", "is not a finite number"), ("-inf", "is not a finite number"),
        ("-5", "must be"), ("abc", "is not a number"), ("2s", "is not a number"), ("1e10", "must be <= 1e+09")]],
    *[(v, "0", "must be > 0") for v in SECONDS],
    *[(v, raw, why) for v in COUNTS for raw, why in [
        ("abc", "is not an integer"), ("0", "must be >= 1"), ("-1", "must be >= 1"), ("2.5", "is not an integer"),
        ("nan", "is not an integer"), ("99999999", "must be <=")]],
    ("RANK_ID", "-1", "must be >= 0"), ("RANK_ID", "one", "is not an integer"),
    *[(v, raw, "is not a boolean") for v in FLAGS for raw in ("maybe", "2", "-1")],
    *[("OPBUILD_CACHE_MAX_SIZE", raw, "is not a size") for raw in ("lots", "-1", "nan", "inf", "5X")],
    ("OPBUILD_BLAS", "mkl", "is not a BLAS opbuild can link"),
    ("OPBUILD_CFLAGS", '"-O2', "cannot be split into compiler flags"),
]
IDS = [f"{v}={raw}" for v, raw, _ in BAD]


def _specs() -> list:
    return [REGISTRY["Square"].spec({}, [TensorType((i + 1, 3), "float32")]) for i in range(4)]


def _entries(root: Path) -> dict[str, int]:
    """Committed entries of rank 0 with their binaries' modification times (to see nothing was rewritten)."""
    km = kernel_meta(root)
    return {n: (km / f"{n}.so").stat().st_mtime_ns for n in committed(km)} if km.is_dir() else {}


@pytest.fixture(scope="module")
def warm_root(tmp_path_factory) -> Path:
    """A cache root holding the kernels of _specs(), built once with a valid environment."""
    root = tmp_path_factory.mktemp("warm")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPBUILD_CACHE_PATH", str(root))
        for name in (*SECONDS, *SECONDS_OR_ZERO, *COUNTS, *FLAGS, "RANK_ID", "OPBUILD_CACHE_MAX_SIZE",
                     "OPBUILD_BLAS", "OPBUILD_CFLAGS"):
            mp.delenv(name, raising=False)
        _, report = Builder().build(_specs())
    assert [k.status for k in report.kernels] == ["built"] * 4
    return root


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    """Every test starts from the documented defaults (whatever the developer's shell sets)."""
    for name in config._CHECKED_NAMES:
        monkeypatch.delenv(name, raising=False)


def _assert_names(err: ConfigError, var: str, raw: str, why: str) -> None:
    assert err.variable == var and err.value == raw
    message = str(err)
    assert message.startswith(f"{var}={raw!r} {why}"), message
    assert "expected " in message and err.expected in message  # the accepted form is always stated


@pytest.mark.parametrize("var, raw, why", BAD, ids=IDS)
def test_a_bad_value_fails_a_cold_build_before_anything_is_built(tmp_path, monkeypatch, var, raw, why) -> None:
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(tmp_path))
    monkeypatch.setenv(var, raw)
    with pytest.raises(ConfigError) as info:
        Builder().build(_specs())
    _assert_names(info.value, var, raw, why)
    assert not kernel_meta(tmp_path).exists()  # failed before the store was even opened


@pytest.mark.parametrize("var, raw, why", BAD, ids=IDS)
def test_a_bad_value_fails_a_warm_build_too(warm_root, monkeypatch, var, raw, why) -> None:
    before = _entries(warm_root)
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(warm_root))
    monkeypatch.setenv(var, raw)
    with pytest.raises(ConfigError) as info:
        Builder().build(_specs())  # every kernel is cached: a build that would read none of these settings
    _assert_names(info.value, var, raw, why)
    assert _entries(warm_root) == before  # nothing quarantined, rebuilt or lost


def test_a_bad_value_fails_a_build_served_from_memory(warm_root, monkeypatch) -> None:
    monkeypatch.setenv("OPBUILD_CACHE_PATH", str(warm_root))
    builder = Builder()
    _, report = builder.build(_specs())
    assert {k.status for k in report.kernels} == {"reused"}
    monkeypatch.setenv("OPBUILD_BUILD_JOBS", "abc")
    with pytest.raises(ConfigError, match="OPBUILD_BUILD_JOBS='abc' is not an integer"):
        builder.build(_specs())
    monkeypatch.setenv("OPBUILD_BUILD_JOBS", "2")  # fixed: the next build goes on (no stale failure memoised)
    _, report = builder.build(_specs())
    assert [k.source for k in report.kernels] == ["memory"] * 4


@pytest.mark.parametrize("var, raw, value", [
    ("OPBUILD_REMOTE_TIMEOUT", " 0.5 ", 0.5), ("OPBUILD_REMOTE_TIMEOUT", "1e3", 1000.0),
    ("OPBUILD_REMOTE_LEASE_TTL", "", 20.0), ("OPBUILD_LOCK_TIMEOUT", "", 600.0), ("OPBUILD_LOCK_TIMEOUT", "30", 30.0),
    ("OPBUILD_REMOTE_TTL", "0", 0.0), ("OPBUILD_REMOTE_TTL", "-0", 0.0), ("OPBUILD_REMOTE_TTL", "86400", 86400.0),
    ("OPBUILD_BUILD_JOBS", "3", 3), ("OPBUILD_BATCH_SIZE", "", 32), ("OPBUILD_BATCH_SIZE", "+8", 8),
    ("RANK_ID", "", 0), ("RANK_ID", "7", 7),
    ("OPBUILD_CACHE_MAX_SIZE", "0", None), ("OPBUILD_CACHE_MAX_SIZE", "2G", 2 * 2**30),
    ("OPBUILD_CACHE", "off", False), ("OPBUILD_CACHE", "TRUE", True), ("OPBUILD_CACHE_FSYNC", "yes", True),
    ("OPBUILD_PROGRESS", "0", False), ("OPBUILD_EXPLAIN_MISSES", "", False),
    ("OPBUILD_GPU_WRITEBACK", "", False), ("OPBUILD_GPU_WRITEBACK", "1", True),
])
def test_good_values_parse_as_documented(monkeypatch, var, raw, value) -> None:
    accessor = dict(config._CHECKS)[var]
    monkeypatch.setenv(var, raw)
    config.validate_environment()
    assert accessor() == value and type(accessor()) is type(value)


def test_parsing_is_memoised_on_the_raw_value(monkeypatch) -> None:
    monkeypatch.setenv("OPBUILD_LOCK_TIMEOUT", "41.5")
    config.validate_environment()
    before = config._parse_number.cache_info()
    for _ in range(5):
        config.validate_environment()
        assert config.lock_timeout() == 41.5
    after = config._parse_number.cache_info()
    assert after.misses == before.misses  # no value parsed again
    assert after.hits == before.hits + 5  # lock_timeout(); validate_environment itself hit its own memo
    monkeypatch.setenv("OPBUILD_LOCK_TIMEOUT", "42")  # a new value is parsed (and checked) at once
    config.validate_environment()
    assert config.lock_timeout() == 42.0


def test_a_new_variable_can_reuse_the_validator(monkeypatch) -> None:
    timeout = config.EnvNumber("OPBUILD_SOME_TIMEOUT", 600.0)
    assert timeout.get() == 600.0
    monkeypatch.setenv("OPBUILD_SOME_TIMEOUT", "nan")
    with pytest.raises(ConfigError, match=r"OPBUILD_SOME_TIMEOUT='nan' is not a finite number: expected a finite "
                                          r"number of seconds > 0 and <= 1e\+09; unset it for the default \(600\)"):
        timeout.get()
    monkeypatch.setenv("OPBUILD_SOME_TIMEOUT", "0")
    assert config._env_seconds("OPBUILD_SOME_TIMEOUT", 5.0, allow_zero=True) == 0.0
    with pytest.raises(ConfigError, match="must be > 0"):
        config._env_seconds("OPBUILD_SOME_TIMEOUT", 5.0)


def test_config_errors_are_value_errors_for_older_callers(monkeypatch) -> None:
    monkeypatch.setenv("OPBUILD_REMOTE_TIMEOUT", "inf")
    with pytest.raises(ValueError, match="OPBUILD_REMOTE_TIMEOUT='inf'"):
        config.remote_timeout()


def test_toolchain_env_is_the_settings_text_and_follows_changes(monkeypatch) -> None:
    # Read on every PyNative op through the environment's own table: the values must still be text ("" where
    # unset), and a change (monkeypatch, os.environ, putenv through os.environ) must show at once.
    for var in ("CC", "OPBUILD_CFLAGS", "OPBUILD_BLAS", "OPBUILD_OPENMP", "OPBUILD_BLAS_THREADS"):
        monkeypatch.delenv(var, raising=False)
    assert config.toolchain_env() == ("", "", "", "", "")
    monkeypatch.setenv("CC", "gcc-ü")
    monkeypatch.setenv("OPBUILD_CFLAGS", "-O2 -march=native")
    assert config.toolchain_env() == ("gcc-ü", "-O2 -march=native", "", "", "")
    monkeypatch.setenv("OPBUILD_OPENMP", "0")
    assert config.toolchain_env() == ("gcc-ü", "-O2 -march=native", "", "0", "")
    assert all(type(v) is str for v in config.toolchain_env())
