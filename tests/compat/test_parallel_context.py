"""The parallel context as MindSpore's model repository reads it (``GlobalComm``, ``auto_parallel_context()``,
``ConvertModelUtils``): opbuild observes what MindSpore 2.10 does (recorded by
scripts/record_parallel_context.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import opbuild
from tests.compat import parallel_context_program

FIXTURE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "mindspore" /
                      "parallel_context.json").read_text())


def test_program_observes_what_mindspore_does():
    opbuild.alias_mindspore()
    try:
        got = parallel_context_program.run()
    finally:
        opbuild.reset_auto_parallel_context()
    assert got == {k: v for k, v in FIXTURE.items() if k != "_meta"}


def test_unknown_getter_names_what_is_provided():
    from opbuild.parallel._auto_parallel_context import auto_parallel_context

    with pytest.raises(AttributeError, match="'get_pipeline_interleave' is not provided by opbuild .*get_device_num"):
        auto_parallel_context().get_pipeline_interleave()
