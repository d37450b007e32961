"""Cell containers with MindSpore 2.x's interface: CellList (an indexable list of cells) and CellDict (a
string-keyed dict of cells). Neither runs anything itself; they register their cells so that parameters are
found and named by their path (``layers.0.weight``, ``heads.cls.bias``)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import ItemsView, Iterable, Iterator, KeysView, ValuesView
from typing import Any

from ..cell import Cell
from ..container import list_prefix


def _check_cell(owner: str, where: object, cell: object) -> Cell:
    if not isinstance(cell, Cell):
        raise TypeError(f"{owner}: items must be Cells, got {type(cell).__name__} at {where!r}")
    return cell


class _CellContainer(Cell):
    """Shared plumbing: replace the registered cells in one step, keeping parameter names in sync."""

    def _reset(self, items: Iterable[tuple[str, Cell]]) -> None:
        """Register exactly ``items`` (in order). A cell that moved to another key has the old key's prefix
        of its parameter names replaced, so ``net.parameters_and_names`` and ``Parameter.name`` agree."""
        old = {id(c): k for k, c in self._cells.items()}
        for key in list(self._cells):
            object.__delattr__(self, key)
        self._cells.clear()
        for key, cell in items:
            prev = old.get(id(cell))
            if prev is None:
                setattr(self, key, cell)  # Cell.__setattr__ adds the "key." prefix to the parameter names
                continue
            if prev != key:
                for _, p in cell.parameters_and_names():
                    if p.name.startswith(f"{prev}."):
                        p.name = f"{key}.{p.name[len(prev) + 1:]}"
            self._cells[key] = cell
            object.__setattr__(self, key, cell)
        self._structure_changed()

    def __len__(self) -> int:
        return len(self._cells)


class CellList(_CellContainer):
    """A list of cells, as MindSpore's ``nn.CellList(args=None, auto_prefix=True)``.

    Supports ``append``, ``extend``, ``insert``, indexing (a slice gives a new CellList), assignment,
    deletion, ``len`` and iteration. Cells are registered under their index ("0", "1", ...), so their
    parameters are named ``<index>.<name>``. Calling a CellList is an error: iterate over it in a
    ``construct`` instead.
    """

    def __init__(self, args: Iterable[Cell] | None = None, auto_prefix: bool = True) -> None:
        super().__init__(auto_prefix)
        if args is not None:
            if isinstance(args, Cell) or not isinstance(args, Iterable):
                raise TypeError(f"CellList: args must be a list of Cells, got {type(args).__name__}")
            self.extend(args)

    def _index(self, i: int) -> int:
        if not isinstance(i, int) or isinstance(i, bool):
            raise TypeError(f"CellList indices must be ints or slices, got {type(i).__name__}")
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"CellList index {i} out of range for length {n}")
        return i % n

    def __getitem__(self, i: int | slice) -> Cell | CellList:
        cells = list(self._cells.values())
        if isinstance(i, slice):
            return CellList(cells[i])
        return cells[self._index(i)]

    # Parameter names follow MindSpore's CellList (container.list_prefix): a cell added after construction is
    # named <prefix><index>.<path>, and cells that move (insert, delete) have their index part renamed.
    def _register(self, cells: list[Cell]) -> None:
        for key in list(self._cells):
            object.__delattr__(self, key)
        self._cells.clear()
        for k, cell in enumerate(cells):
            self._cells[str(k)] = cell
            object.__setattr__(self, str(k), cell)
        self._structure_changed()

    def _move(self, cell: Cell, prefix: str, position: int, index: int) -> None:
        """Rename ``cell``'s parameters for its new ``index``: the part at ``position`` is the old index."""
        if self._auto_prefix:
            for _, p in cell.parameters_and_names():
                p.name = f"{prefix}{index}." + ".".join(p.name.split(".")[position + 1:])

    def __setitem__(self, i: int, cell: Cell) -> None:
        i = self._index(i)
        _check_cell("CellList", i, cell)
        if self._auto_prefix:
            prefix, _ = list_prefix(self._cells)
            cell.update_parameters_name(f"{prefix}{i}.")
        cells = list(self._cells.values())
        cells[i] = cell
        self._register(cells)

    def __delitem__(self, i: int | slice) -> None:
        keep = dict(self._cells)
        for key in list(keep)[i] if isinstance(i, slice) else [list(keep)[self._index(i)]]:
            del keep[key]
        prefix, position = list_prefix(keep)
        for k, cell in enumerate(keep.values()):
            self._move(cell, prefix, position, k)
        self._register(list(keep.values()))

    def __iter__(self) -> Iterator[Cell]:
        return iter(list(self._cells.values()))

    def append(self, cell: Cell) -> None:
        """Add ``cell`` at the end (returns None, as MindSpore's does; ``extend`` returns the list)."""
        self.extend([cell])

    def extend(self, cells: Iterable[Cell]) -> CellList:
        """Append every cell of ``cells``."""
        prefix, _ = list_prefix(self._cells)
        current = list(self._cells.values())
        for cell in cells:
            _check_cell("CellList", len(current), cell)
            if self._auto_prefix:
                cell.update_parameters_name(f"{prefix}{len(current)}.")
            current.append(cell)
        self._register(current)
        return self

    def insert(self, index: int, cell: Cell) -> None:
        """Insert ``cell`` before ``index`` (list semantics: any int is clamped into range)."""
        _check_cell("CellList", index, cell)
        cells = list(self._cells.values())
        at = max(0, min(len(cells), index + len(cells) if index < 0 else index))
        prefix, position = list_prefix(self._cells)
        for k in range(len(cells) - 1, at - 1, -1):
            self._move(cells[k], prefix, position, k + 1)
        if self._auto_prefix:
            cell.update_parameters_name(f"{prefix}{at}.")
        cells.insert(at, cell)
        self._register(cells)

    def construct(self, *inputs: Any) -> Any:
        raise TypeError("CellList is a container and cannot be called: iterate over it in construct()")


class CellDict(_CellContainer):
    """A dict of cells keyed by string, as MindSpore's ``nn.CellDict(*args, **kwargs)``.

    Built from a dict, an OrderedDict, an iterable of (key, cell) pairs, or keyword arguments; insertion
    order is kept. Keys must be non-empty strings without '.' that do not shadow a Cell attribute. Supports
    ``[]``, ``del``, ``in``, ``len``, iteration over keys, ``keys``/``values``/``items``, ``update``, ``pop``
    and ``clear``. Calling a CellDict is an error.
    """

    def __init__(self, *args: Any, **kwargs: Cell) -> None:
        super().__init__()
        if len(args) > 1:
            raise TypeError(f"CellDict expects at most 1 positional argument, got {len(args)}")
        if args and args[0] is not None:
            self.update(args[0])
        if kwargs:
            self.update(kwargs)

    def _check_key(self, key: object) -> str:
        if not isinstance(key, str) or not key or "." in key:
            raise KeyError(f"CellDict keys must be non-empty strings without '.', got {key!r}")
        if key not in self._cells and hasattr(self, key):
            raise KeyError(f"CellDict key {key!r} would shadow the attribute of the same name")
        return key

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        key = self._check_key(key)
        _check_cell("CellDict", key, cell)
        if key in self._cells:
            items = [(k, cell if k == key else c) for k, c in self._cells.items()]
            self._reset(items)
        else:
            setattr(self, key, cell)

    def __delitem__(self, key: str) -> None:
        if key not in self._cells:
            raise KeyError(key)
        delattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in self._cells

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._cells))

    # MindSpore returns the views of an OrderedDict (printed ``odict_keys([...])``); these are views of a
    # snapshot, so changing the CellDict while iterating over them is safe.
    def keys(self) -> KeysView[str]:
        """The keys, in insertion order (an ``odict_keys`` view, as MindSpore's)."""
        return OrderedDict(self._cells).keys()

    def values(self) -> ValuesView[Cell]:
        """The cells, in insertion order (an ``odict_values`` view)."""
        return OrderedDict(self._cells).values()

    def items(self) -> ItemsView[str, Cell]:
        """(key, cell) pairs, in insertion order (an ``odict_items`` view)."""
        return OrderedDict(self._cells).items()

    def update(self, cells: Any) -> None:
        """Add or replace cells from a mapping or an iterable of (key, cell) pairs."""
        if isinstance(cells, (dict, OrderedDict, CellDict)):
            pairs = list(cells.items())
        elif isinstance(cells, Iterable) and not isinstance(cells, (str, Cell)):
            pairs = []
            for i, pair in enumerate(cells):
                if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                    raise TypeError(f"CellDict.update: item {i} must be a (key, cell) pair, got {pair!r}")
                pairs.append(tuple(pair))
        else:
            raise TypeError(f"CellDict.update expects a dict or (key, cell) pairs, got {type(cells).__name__}")
        for key, cell in pairs:
            self[key] = cell

    def pop(self, key: str) -> Cell:
        """Remove ``key`` and return its cell (KeyError if absent)."""
        cell = self[key]
        del self[key]
        return cell

    def clear(self) -> None:
        """Remove every cell."""
        self._reset([])

    def construct(self, *inputs: Any) -> Any:
        raise TypeError("CellDict is a container and cannot be called: look its cells up in construct()")
