"""``Symbol``: MindSpore's description of a dynamic dimension in an input declaration
(``Tensor(shape=(None, Symbol(divisor=8)), dtype=...)`` given to ``Cell.set_inputs``): its bounds, the
divisor and remainder its values have, and whether it is unique (no other dimension shares its value).

In a declaration a Symbol is a free dimension (-1, as None). :func:`check_dims` holds the values of a call's
inputs to the declared symbols; a value outside them raises ValueError naming the dimension.
"""

from __future__ import annotations

import weakref
from typing import Any

# id(declaration tensor) -> (a weak reference to it, its dims with the Symbols in place). Tensor has __slots__
# and an elementwise __eq__, so neither an attribute nor a WeakKeyDictionary can hold them.
_DECLARED: dict[int, tuple[weakref.ref, tuple]] = {}


class Symbol:
    """``Symbol(max=0, min=1, divisor=1, remainder=0, unique=False)``: a dynamic dimension whose values lie in
    ``[min, max]`` (``max=0``: no upper bound) and leave ``remainder`` when divided by ``divisor``."""

    def __init__(self, max: int = 0, min: int = 1, divisor: int = 1, remainder: int = 0,  # noqa: A002
                 unique: bool = False, **kwargs: Any) -> None:
        for name, v in (("max", max), ("min", min), ("divisor", divisor), ("remainder", remainder)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"Symbol: {name} must be an int, got {type(v).__name__}")
        if min <= 0:
            raise ValueError(f"Symbol: min must be positive, got {min}")
        if max != 0 and max < min:
            raise ValueError(f"Symbol: max ({max}) must be 0 (no bound) or at least min ({min})")
        if divisor <= 0:
            raise ValueError(f"Symbol: divisor must be positive, got {divisor}")
        if not isinstance(unique, bool):
            raise TypeError(f"Symbol: unique must be a bool, got {type(unique).__name__}")
        self.max, self.min, self.divisor, self.remainder, self.unique = max, min, divisor, remainder, unique

    def accepts(self, value: int) -> bool:
        """Whether a dimension of size ``value`` fits this symbol."""
        return (value >= self.min and (self.max == 0 or value <= self.max)
                and value % self.divisor == self.remainder % self.divisor)

    def __repr__(self) -> str:
        return (f"Symbol(max={self.max}, min={self.min}, divisor={self.divisor}, remainder={self.remainder}, "
                f"unique={self.unique})")


def remember(declaration: Any, shape: Any) -> None:
    """Keep the Symbols of ``shape`` for the declaration tensor (nothing when it has none)."""
    if any(isinstance(d, Symbol) for d in shape):
        key = id(declaration)
        _DECLARED[key] = (weakref.ref(declaration, lambda _: _DECLARED.pop(key, None)), tuple(shape))


def check_dims(who: str, declarations: tuple, args: tuple) -> None:
    """Raise ValueError when a dimension of ``args`` does not fit the Symbol declared for it."""
    for i, (decl, arg) in enumerate(zip(declarations, args)):
        entry = _DECLARED.get(id(decl))
        if entry is None or entry[0]() is not decl or not hasattr(arg, "shape"):
            continue
        dims = entry[1]
        for axis, (sym, got) in enumerate(zip(dims, arg.shape)):
            if isinstance(sym, Symbol) and not sym.accepts(int(got)):
                raise ValueError(f"{who}: dimension {axis} of input {i} is {got}, outside the declared {sym!r}")
