"""Cell methods of MindSpore 2.x for reaching into a network by path and for its state as one mapping:
``get_sub_cell``, ``get_buffer``, ``get_parameter``, ``state_dict``/``load_state_dict``,
``init_parameters_data``, ``update_cell_prefix``/``param_prefix``. A mixin of :class:`~opbuild.nn.cell.Cell`."""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Any

import numpy as np


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` did not match: names the cell has that the mapping lacks, and the reverse."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


class CellState:
    """Path access and state mappings of a Cell."""

    def get_sub_cell(self, target: str):
        """The cell at the dotted path ``target`` ('' is the cell itself)."""
        cell = self
        for part in target.split(".") if target else []:
            child = cell._cells.get(part)
            if child is None:
                raise AttributeError(f"get_sub_cell: {type(cell).__name__} has no sub-cell {part!r} "
                                     f"(path {target!r})")
            cell = child
        return cell

    def _owner(self, target: str, what: str):
        path, _, name = target.rpartition(".")
        return self.get_sub_cell(path), name

    def get_buffer(self, target: str):
        """The buffer registered at the dotted path ``target``."""
        cell, name = self._owner(target, "buffer")
        buffers = cell.__dict__.get("_buffers", {})
        if name not in buffers:
            raise AttributeError(f"get_buffer: {type(cell).__name__} has no buffer {name!r} (path {target!r})")
        return buffers[name][0]

    def get_parameter(self, target: str):
        """The parameter at the dotted path ``target``."""
        cell, name = self._owner(target, "parameter")
        if name not in cell._params:
            raise AttributeError(f"get_parameter: {type(cell).__name__} has no parameter {name!r} "
                                 f"(path {target!r})")
        return cell._params[name]

    def register_state_dict_pre_hook(self, hook: Any):
        """``hook(cell, prefix, keep_vars)`` runs before this cell's entries are collected by
        :meth:`state_dict` (it may add parameters); returns a handle whose ``remove()`` unregisters it."""
        return self._add_hook("_state_dict_pre_hooks", hook)

    def register_state_dict_post_hook(self, hook: Any):
        """``hook(cell, state_dict, prefix, local_metadata)`` runs after this cell's entries are collected."""
        return self._add_hook("_state_dict_post_hooks", hook)

    def state_dict(self, destination: OrderedDict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict:
        """Each cell's parameters, then its persistent buffers, then its sub-cells' (depth first), by path."""
        for hook in list(self.__dict__.get("_state_dict_pre_hooks", {}).values()):
            hook(self, prefix, keep_vars)
        out = OrderedDict() if destination is None else destination
        for name, param in self._params.items():
            if param is not None:
                out[prefix + name] = param
        for name, (tensor, persistent) in self.__dict__.get("_buffers", {}).items():
            if persistent and tensor is not None:
                out[prefix + name] = tensor
        for name, cell in self._cells.items():
            if cell is not None:
                cell.state_dict(out, f"{prefix}{name}.")
        for hook in list(self.__dict__.get("_state_dict_post_hooks", {}).values()):
            hook(self, out, prefix, {})
        return out

    def load_state_dict(self, state_dict: dict, strict: bool = True) -> IncompatibleKeys:
        """Copy the values of ``state_dict`` into the parameters and buffers of the same paths. ``strict``:
        raise naming every path that does not match (else return them)."""
        own = self.state_dict()
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise RuntimeError(f"load_state_dict: missing keys {missing}, unexpected keys {unexpected}")
        for key, value in state_dict.items():
            if key not in own:
                continue
            data = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
            target = own[key]
            if tuple(data.shape) != tuple(target.shape):
                raise ValueError(f"load_state_dict: {key} has shape {tuple(data.shape)} in the mapping, "
                                 f"{tuple(target.shape)} in the cell")
            if hasattr(target, "set_data"):
                target.set_data(data)
            else:
                target.asnumpy()[...] = data
        return IncompatibleKeys(missing, unexpected)

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> dict:
        """Each parameter mapped to itself (opbuild's parameters hold their data from creation)."""
        return {p: p for p in self.get_parameters()}

    def set_data_parallel(self) -> None:
        """Ask for data-parallel strategies for the cell's operators (MindSpore's auto-parallel hint). One
        opbuild process runs every operator whole, which is what a data-parallel strategy does per rank, so
        nothing changes."""

    def update_cell_prefix(self) -> None:
        """Set every sub-cell's ``param_prefix`` to its path from this cell."""
        for path, cell in self.cells_and_names():
            cell.__dict__["_param_prefix"] = path

    @property
    def param_prefix(self) -> str:
        """The path prefix of the cell's parameter names ('' until :meth:`update_cell_prefix`)."""
        return self.__dict__.get("_param_prefix", "")
