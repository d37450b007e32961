"""The tensor element types opbuild supports, with their NumPy and C spellings."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    """An element type: ``name`` is the canonical spelling used in descriptors (NumPy's name)."""

    name: str
    np_dtype: np.dtype
    c_type: str
    is_float: bool
    is_int: bool

    def __repr__(self) -> str:
        return f"opbuild.{self.name}"

    def __str__(self) -> str:
        return self.name.capitalize() if self.name != "bool" else "Bool"


float32 = DType("float32", np.dtype(np.float32), "float", True, False)
float64 = DType("float64", np.dtype(np.float64), "double", True, False)
int32 = DType("int32", np.dtype(np.int32), "int32_t", False, True)
int64 = DType("int64", np.dtype(np.int64), "int64_t", False, True)
bool_ = DType("bool", np.dtype(np.bool_), "bool", False, False)

ALL: tuple[DType, ...] = (float32, float64, int32, int64, bool_)
BY_NAME: dict[str, DType] = {d.name: d for d in ALL}
FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
NUMERIC = FLOATS + INTS
ANY = NUMERIC + ("bool",)


def dtype_of(x) -> DType:
    """Return the opbuild DType for a DType, a dtype name, a NumPy dtype or a NumPy scalar type.

    Raises TypeError naming the supported types when ``x`` has no opbuild equivalent.
    """
    if isinstance(x, DType):
        return x
    if isinstance(x, str) and x in BY_NAME:
        return BY_NAME[x]
    try:
        name = np.dtype(x).name
    except TypeError:
        name = None
    if name in BY_NAME:
        return BY_NAME[name]
    raise TypeError(f"unsupported dtype {x!r}; opbuild supports {', '.join(BY_NAME)}")
