"""MindSpore 2.x's device helpers over the context (core/config.py): ``get_current_device``,
``set_deterministic``, ``set_recursion_limit``."""

from __future__ import annotations

from typing import NamedTuple

from . import config


class DeviceInfo(NamedTuple):
    """What :func:`get_current_device` returns: ``(device_target, device_id)`` with those attribute names."""

    device_target: str
    device_id: int


def get_current_device() -> DeviceInfo:
    """MindSpore 2.x's ``get_current_device()``: the target and device id builds use."""
    return DeviceInfo(config.get_context("device_target"), config.get_context("device_id"))


def set_deterministic(deterministic: bool) -> None:
    """MindSpore 2.x's ``set_deterministic(bool)``: recorded as ``get_context('deterministic')`` ("ON"/"OFF");
    opbuild's CPU kernels are deterministic already."""
    if not isinstance(deterministic, bool):
        raise TypeError(f"set_deterministic: deterministic must be a bool, got {type(deterministic).__name__}")
    config.set_context(deterministic="ON" if deterministic else "OFF")


def set_recursion_limit(recursion_limit: int = 1000) -> None:
    """MindSpore 2.x's ``set_recursion_limit``: ``set_context(max_call_depth=recursion_limit)``."""
    config.set_context(max_call_depth=recursion_limit)
