""":class:`Layout`: a device matrix with named axes, and the tensor maps it describes (MindSpore 2.10's
``mindspore.parallel.Layout``)."""

from __future__ import annotations

import copy
import math
from typing import Any

# The alias that splits a tensor into copies on one device rather than across devices.
INTERLEAVED = "interleaved_parallel"


class Layout:
    """A device arrangement ``device_matrix`` (a tuple of ints) whose axes are named by ``alias_name`` (a tuple
    of distinct, non-empty strings other than ``"None"``), placed on the devices of ``rank_list`` (default
    ``0 .. prod(device_matrix) - 1``).

    Calling it with one entry per tensor dimension -- an alias name, ``"None"`` (not sharded) or a tuple of
    alias names -- records that dimension-to-axis map and returns a copy holding it; :meth:`to_dict` gives
    MindSpore's dictionary, where each axis is numbered from the right of the device matrix (the last axis is
    0) and ``"None"`` is -1. Each alias may shard one tensor dimension only.
    """

    def __init__(self, device_matrix: tuple, alias_name: tuple, rank_list: list | None = None):
        if not isinstance(device_matrix, tuple):
            raise TypeError(f"device_matrix must be tuple type, but got:{type(device_matrix)}")
        if not isinstance(alias_name, tuple):
            raise TypeError(f"alias_name must be tuple type, but got:{type(alias_name)}")
        if len(device_matrix) != len(alias_name):
            raise ValueError("device_matrix length should be equal to alias_name length")
        for d in device_matrix:
            if not isinstance(d, int) or isinstance(d, bool):
                raise TypeError(f"The element of device_matrix must be int type, but got:{type(d)}")
        for name in alias_name:
            if not isinstance(name, str):
                raise TypeError(f"The element of alias_name must be str type, but got:{type(name)}")
            if not name:
                raise ValueError("The element of alias_name can not be empty.")
            if name == "None":
                raise ValueError("The element of alias_name can not set 'None', because 'None' means no sharding.")
        if len(set(alias_name)) != len(alias_name):
            raise ValueError(f"Each element of alias_name {alias_name} should be different")
        devices = math.prod(device_matrix)
        if rank_list is None:
            rank_list = list(range(devices))
        elif not isinstance(rank_list, list):
            raise TypeError(f"The rank_list should be a list, but got {type(rank_list).__name__}.")
        else:
            for r in rank_list:
                if not isinstance(r, int) or isinstance(r, bool):
                    raise TypeError(f"The element of rank_list should be int, but got {type(r).__name__}.")
            if len(rank_list) != devices:
                raise ValueError(f"The length of rank_list should be equal to the product of device_matrix, but "
                                 f"got {len(rank_list)} and {devices}.")
        self._device_matrix = device_matrix
        self._alias_name = alias_name
        self._rank_list = list(rank_list)
        self._tensor_map: tuple | None = None

    def __call__(self, *tensor_map: Any) -> Layout:
        """Map each tensor dimension to an alias, ``"None"`` or a tuple of aliases; returns a copy holding
        the map (this layout keeps it too, as MindSpore's does)."""
        self._tensor_map = ()
        used: set[str] = set()
        mapped = []
        for entry in tensor_map:
            if isinstance(entry, tuple):
                mapped.append(tuple(self._axis(name, used) for name in entry))
            else:
                mapped.append(self._axis(entry, used))
        self._tensor_map = tuple(mapped)
        return copy.deepcopy(self)

    def _axis(self, name: Any, used: set[str]) -> int:
        if name == "None":
            return -1
        if name not in self._alias_name:
            raise ValueError(f"The axis {name} is not found in {self._alias_name}")
        if name in used:
            raise ValueError(f"The axis {name} has been set more than one in {self._alias_name}")
        used.add(name)
        return len(self._alias_name) - 1 - self._alias_name.index(name)

    def to_dict(self) -> dict:
        """``device_matrix``, ``tensor_map``, ``interleaved_parallel`` (whether the device matrix has that axis),
        ``alias_name`` and ``rank_list``; ValueError before the layout is called with a tensor map."""
        if self._tensor_map is None:
            raise ValueError("The tensor_map of layout is None")
        return {"device_matrix": self._device_matrix, "tensor_map": self._tensor_map,
                "interleaved_parallel": INTERLEAVED in self._alias_name, "alias_name": self._alias_name,
                "rank_list": self._rank_list}
