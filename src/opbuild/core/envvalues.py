"""Validators of the environment values that name programs, flags and paths (CC, OPBUILD_CFLAGS,
OPBUILD_CACHE_PATH): each turns a value the system would choke on later (a traceback from shlex, pathlib or
dlopen) into a ConfigError that names the variable, the value and the fix. Used by :mod:`.config`.
"""

from __future__ import annotations

import functools
import os
import shlex
from collections.abc import Callable
from pathlib import Path

from .errors import ConfigError

# Sanitizers whose runtime must be the first library of the process (ASan) or needs static TLS that a library
# loaded late cannot get (TSan, LSan, MSan): a kernel built with one kills the process inside dlopen.
# UBSan's runtime loads late, so -fsanitize=undefined is accepted.
_UNLOADABLE_SANITIZERS = frozenset({"address", "kernel-address", "hwaddress", "kernel-hwaddress", "thread",
                                    "leak", "memory", "memtag"})


def check_cflags(variable: str, raw: str, flags) -> None:
    """ConfigError naming ``variable`` when ``flags`` ask for a sanitizer whose kernels could not be loaded
    into a running Python (the process would die inside dlopen)."""
    for flag in flags:
        if flag.startswith("-fsanitize="):
            bad = sorted(set(flag.partition("=")[2].split(",")) & _UNLOADABLE_SANITIZERS)
            if bad:
                raise ConfigError(
                    variable, raw, f"asks for the {', '.join(bad)} sanitizer ({flag}), whose runtime cannot be "
                    "loaded after Python has started: every kernel would kill the process in dlopen",
                    "flags without it (-fsanitize=undefined loads; for ASan, run Python itself under it: "
                    "LD_PRELOAD=$(gcc -print-file-name=libasan.so) with the flag)")


NAME_MAX = 255  # bytes of one path component on Linux file systems
# The longest name opbuild puts under the root (rank_<n>/kernel_meta/<entry>.<suffix>, temporaries) stays far
# below PATH_MAX minus this.
_ROOT_PATH_MAX = 4096 - 512


@functools.lru_cache(maxsize=16)
def cache_path(variable: str, raw: str) -> Path:
    """The cache root ``raw`` names, ``~`` expanded; ConfigError naming ``variable`` and the fix when ``~user``
    names no user, or a component or the whole path is longer than the file system allows."""
    expect = "a directory path whose components are at most 255 bytes (the cache goes under it)"
    if "\0" in raw:
        raise ConfigError(variable, raw, "contains a NUL byte", expect)
    try:
        path = Path(raw).expanduser()
    except RuntimeError:  # pathlib: "Could not determine home directory."
        raise ConfigError(variable, raw, f"starts with {raw.split('/')[0]}, whose home directory is unknown",
                          "an absolute path, or ~/... for your own home directory") from None
    for part in path.parts:
        if len(os.fsencode(part)) > NAME_MAX:
            raise ConfigError(variable, raw, f"has a component of {len(os.fsencode(part))} bytes "
                              f"({part[:24]}...), longer than the file system allows", expect)
    if len(os.fsencode(str(path))) > _ROOT_PATH_MAX:
        raise ConfigError(variable, raw, "is too long to hold the cache's files below it",
                          f"a path of at most {_ROOT_PATH_MAX} bytes")
    return path


@functools.lru_cache(maxsize=16)
def split_cc(raw: str) -> tuple[str, ...]:
    """CC split like a shell would; ConfigError naming CC when it cannot be split, names no program, or asks
    for a sanitizer that cannot be loaded."""
    default = "cc, gcc or clang on PATH"
    try:
        parts = tuple(shlex.split(raw))
    except ValueError as e:
        raise ConfigError("CC", raw, f"cannot be split into a command ({e})",
                          "a compiler and its flags, quoted as in a shell (e.g. CC=gcc or CC='ccache gcc')",
                          default) from None
    if not parts or not parts[0]:
        raise ConfigError("CC", raw, "names no program", "a compiler such as gcc or /usr/bin/clang", default)
    check_cflags("CC", raw, parts[1:])
    return parts


#: The shortest OPBUILD_CACHE_SECRET accepted, in bytes: a key that short is guessed, and signs nothing.
MIN_SECRET_BYTES = 16
_SECRET_HINT = (f"at least {MIN_SECRET_BYTES} bytes, the same on every process sharing the cache (e.g. the "
                "output of `python -c 'import secrets; print(secrets.token_hex(32))'`); unset the variable to run "
                "without signing")


def signing_key(name: str, raw: str) -> bytes:
    """The bytes of a signing secret. Set but empty (``$SECRET`` of an unset variable) or shorter than
    :data:`MIN_SECRET_BYTES` is a ConfigError: signing silently turned off, or done with a guessable key, would
    look like protection it is not. The message never shows the value."""
    secret = os.fsencode(raw)
    if len(secret) < MIN_SECRET_BYTES:
        problem = "is set but empty" if not secret else f"is {len(secret)} bytes long, too short for a signing key"
        raise ConfigError(name, "***", problem, _SECRET_HINT)
    return secret

def environment_reader(names: tuple[str, ...]) -> Callable[[], tuple]:
    """A function returning the raw values of ``names`` in the environment (in os.environ's own encoding, bytes on
    POSIX; None where unset), cheaply: a memo key, decoded by whoever needs the text.

    os.environ.get goes through MutableMapping.get and re-encodes the key on every call, which made reading the
    memo key of config.validate_environment cost as much as a small warm build's bookkeeping (docs/cache.md).
    CPython's os.environ keeps the process environment in ``_data`` (a dict keyed by the encoded name, kept in
    step by setenv/putenv, monkeypatch included), so the values are read from there with the names encoded
    once; any other mapping standing in for os.environ falls back to the public API."""
    encoded = tuple(map(os.environ.encodekey, names)) if hasattr(os.environ, "encodekey") else ()

    def read() -> tuple:
        data = getattr(os.environ, "_data", None)
        if encoded and isinstance(data, dict):
            return tuple(map(data.get, encoded))
        return tuple(map(os.environ.get, names))

    return read


def environment_text_reader(names: tuple[str, ...]) -> Callable[[], tuple[str, ...]]:
    """Like :func:`environment_reader`, but the values as text ("" where unset), decoded once per distinct
    setting (a bounded table keyed by the raw values)."""
    encoded = tuple(map(os.environ.encodekey, names)) if hasattr(os.environ, "encodekey") else ()
    decoded: dict[tuple, tuple[str, ...]] = {}
    decode = getattr(os.environ, "decodevalue", None)
    last: list = [(None, ())]  # (raw values as a list, their text) of the last call: the pair replaced whole

    def text() -> tuple[str, ...]:
        # environment_reader's read, inlined, into a list (half the cost of tuple(map(...)) here): every PyNative
        # op reads the toolchain's settings (builder/memory.py), and they rarely change.
        data = getattr(os.environ, "_data", None)
        raw = [*map(data.get, encoded)] if encoded and isinstance(data, dict) else [*map(os.environ.get, names)]
        seen = last[0]
        if raw == seen[0]:
            return seen[1]
        key = tuple(raw)
        values = decoded.get(key)
        if values is None:
            values = tuple("" if v is None else decode(v) if decode and isinstance(v, bytes) else str(v) for v in raw)
            if len(decoded) < 64:
                decoded[key] = values
        last[0] = (raw, values)
        return values

    return text
