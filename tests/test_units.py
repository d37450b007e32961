"""Human units: sizes and ages as the CLI and OPBUILD_CACHE_MAX_SIZE read and print them."""

from __future__ import annotations

import pytest

from opbuild.core import config
from opbuild.core.units import format_ago, format_duration, format_size, format_time, parse_age, parse_size


@pytest.mark.parametrize("text,expected", [
    ("0", 0), ("100", 100), ("1K", 1024), ("1.5k", 1536), ("500M", 500 * 2**20), ("500MB", 500 * 2**20),
    ("10MiB", 10 * 2**20), ("2G", 2 * 2**30), ("1T", 2**40), (" 3 m ", 3 * 2**20), ("42B", 42),
])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "M", "-5M", "five", "1X", "1.2.3K"])
def test_parse_size_rejects(text):
    with pytest.raises(ValueError, match="invalid size"):
        parse_size(text)


@pytest.mark.parametrize("text,expected", [
    ("90s", 90), ("15m", 900), ("12h", 43200), ("30d", 30 * 86400), ("2w", 14 * 86400), ("1.5d", 1.5 * 86400),
])
def test_parse_age(text, expected):
    assert parse_age(text) == expected


@pytest.mark.parametrize("text", ["30", "d", "", "3 days", "-1d"])
def test_parse_age_needs_a_unit(text):
    with pytest.raises(ValueError, match="invalid age"):
        parse_age(text)


def test_formatting():
    assert format_size(0) == "0 B"
    assert format_size(1023) == "1023 B"
    assert format_size(1536) == "1.5 KiB"
    assert format_size(5 * 2**30) == "5.0 GiB"
    assert format_duration(59) == "59s" and format_duration(3600 * 5 + 7) == "5h"
    assert format_ago(1000.0, now=1000.0 + 3 * 86400 + 5) == "3d ago"
    assert format_ago(None) == "-"


def test_cache_max_size_variable(monkeypatch):
    monkeypatch.delenv("OPBUILD_CACHE_MAX_SIZE", raising=False)
    assert config.cache_max_size() is None
    monkeypatch.setenv("OPBUILD_CACHE_MAX_SIZE", "0")
    assert config.cache_max_size() is None
    monkeypatch.setenv("OPBUILD_CACHE_MAX_SIZE", "500M")
    assert config.cache_max_size() == 500 * 2**20
    monkeypatch.setenv("OPBUILD_CACHE_MAX_SIZE", "lots")
    with pytest.raises(ValueError, match="OPBUILD_CACHE_MAX_SIZE"):
        config.cache_max_size()
    monkeypatch.setenv("OPBUILD_EXPLAIN_MISSES", "maybe")
    with pytest.raises(ValueError, match="OPBUILD_EXPLAIN_MISSES"):
        config.explain_misses()


def test_format_time_of_a_time_beyond_the_platform_range_is_a_placeholder():
    # A hand-edited .stats.json ("since": 1e300) or an entry's .json: `cache stats` and `cache ls` must print,
    # not stop on time.localtime's OverflowError.
    assert format_time(1e300) == "?"
    assert format_time(-1e300) == "?"
    assert format_time(0.0) == "-"
    assert format_time(86400.0 * 365).startswith("1971-")
