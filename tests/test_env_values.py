"""Environment values that name programs, flags and paths (core/envvalues.py) fail every build up front with a
one-line ConfigError naming the variable, the value and the fix, where they used to end in a traceback from
shlex, pathlib, the file system or dlopen (issue 23, point 6)."""

from __future__ import annotations

import pytest

from opbuild.builder import Builder
from opbuild.core import config
from opbuild.core.errors import ConfigError
from opbuild.core.ir import TensorType
from opbuild.ops import REGISTRY
from tests.cache._util import kernel_meta

LONG = "a" * 300
BAD = [
    ("RANK_SIZE", "²", "is not an integer"),
    ("RANK_SIZE", "-2", "must be >= 0"),
    ("CC", "'unclosed", "cannot be split into a command"),
    ("CC", "''", "names no program"),
    ("CC", "gcc -fsanitize=thread", "asks for the thread sanitizer"),
    ("OPBUILD_CFLAGS", "-fsanitize=address", "asks for the address sanitizer"),
    ("OPBUILD_CFLAGS", "-O2 -fsanitize=undefined,leak", "asks for the leak sanitizer"),
    ("OPBUILD_CACHE_PATH", f"/tmp/{LONG}/x", "has a component of 300 bytes"),
    ("OPBUILD_CACHE_PATH", "~nouser-opbuild-test/x", "starts with ~nouser-opbuild-test, whose home directory is"),
    ("MS_COMPILER_CACHE_PATH", "~nouser-opbuild-test/x", "starts with ~nouser-opbuild-test"),
    ("OPBUILD_CACHE_PATH", "/tmp/" + "/".join(["b" * 200] * 20), "is too long"),
]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for name in config._CHECKED_NAMES:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("var, raw, why", BAD, ids=[f"{v}={r[:30]}" for v, r, _ in BAD])
def test_a_bad_value_fails_the_build_up_front(tmp_path, monkeypatch, var, raw, why) -> None:
    monkeypatch.chdir(tmp_path)  # the default cache root, should the variable under test be a cache root
    monkeypatch.setenv(var, raw)
    with pytest.raises(ConfigError) as info:
        Builder().build([REGISTRY["Square"].spec({}, [TensorType((3,), "float32")])])
    err = info.value
    assert (err.variable, err.value) == (var, raw)
    message = str(err)
    assert message.startswith(f"{var}={raw!r} {why}"), message
    assert "\n" not in message and "expected " in message
    assert not kernel_meta(tmp_path).exists()  # failed before anything was written


@pytest.mark.parametrize("var, raw, value", [
    ("RANK_SIZE", "8", 8), ("RANK_SIZE", "", 0),
    ("CC", "ccache 'gcc'", ["ccache", "gcc"]),
    ("OPBUILD_CFLAGS", "-fsanitize=undefined -O2", ["-fsanitize=undefined", "-O2"]),
])
def test_good_values_are_accepted(monkeypatch, var, raw, value) -> None:
    monkeypatch.setenv(var, raw)
    config.validate_environment()
    got = {"RANK_SIZE": config.rank_size, "CC": config.compiler_argv, "OPBUILD_CFLAGS": config.extra_cflags}[var]()
    assert got == value


def test_a_cache_path_under_the_own_home_expands(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OPBUILD_CACHE_PATH", "~/opbuild-cache")
    assert config.cache_root() == tmp_path / "opbuild-cache"
