"""``mindspore.dataset.Schema``: column names, types and shapes of a dataset, in MindSpore's JSON layout
(``{"columns": [{"name": ..., "rank": ..., "shape": [...], "type": ...}, ...]}``; rank 1 when no shape
is given)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core.dtypes import dtype_of


def _type_name(de_type: Any) -> str:
    if isinstance(de_type, str):
        name = de_type
    else:
        try:
            name = dtype_of(de_type).np_dtype.name
        except (TypeError, ValueError, KeyError):
            name = np.dtype(de_type).name
    if name == "str":
        return "string"
    try:
        return name if name in ("string", "bytes") else np.dtype(name).name
    except TypeError:
        raise ValueError(f"Schema: unknown column type {de_type!r}") from None


class Schema:
    """``Schema(schema_file=None)``: an ordered set of columns; ``add_column``, ``parse_columns``,
    ``to_json``, ``from_json``."""

    def __init__(self, schema_file: str | None = None) -> None:
        self.columns: list[dict[str, Any]] = []
        self.num_rows: int | None = None
        self.dataset_type = ""
        if schema_file is not None:
            with open(schema_file, encoding="utf-8") as f:
                self.from_json(json.load(f))

    def add_column(self, name: str, de_type: Any, shape: Sequence[int] | None = None) -> None:
        """Add a column of type ``de_type`` (a MindSpore/NumPy dtype or its name) and optional ``shape``."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"Schema.add_column: name must be a non-empty string, got {name!r}")
        col: dict[str, Any] = {"name": name, "rank": 1, "type": _type_name(de_type)}
        if shape is not None:
            if not all(isinstance(d, int) and (d > 0 or d == -1) for d in shape):
                raise ValueError(f"Schema.add_column: shape must be positive ints (or -1), got {shape!r}")
            col["rank"], col["shape"] = len(shape), list(shape)
        self.columns.append(col)

    def parse_columns(self, columns: Sequence[Mapping[str, Any]] | Mapping[str, Mapping[str, Any]]) -> None:
        """Replace the columns by ``columns``: a list of ``{'name', 'type', 'shape'}`` dicts or a dict of
        name -> ``{'type', 'shape'}`` (``rank`` entries are recomputed)."""
        items = ([dict(c) for c in columns] if isinstance(columns, (list, tuple))
                 else [{"name": k, **dict(v)} for k, v in columns.items()])
        self.columns = []
        for c in items:
            if "name" not in c or "type" not in c:
                raise RuntimeError(f"Schema.parse_columns: every column needs 'name' and 'type', got {c!r}")
            # MindSpore: a parsed column without a shape is a scalar (rank 0, shape []), where add_column
            # without a shape leaves rank 1 and no shape.
            self.add_column(c["name"], c["type"], c.get("shape", []))

    def to_json(self) -> str:
        """The schema as MindSpore's JSON text."""
        out: dict[str, Any] = {"columns": [dict(c) for c in self.columns]}
        if self.num_rows is not None:
            out["numRows"] = self.num_rows
        if self.dataset_type:
            out["datasetType"] = self.dataset_type
        return json.dumps(out, indent=2, sort_keys=True)  # MindSpore writes the keys sorted

    def from_json(self, json_obj: Mapping[str, Any]) -> None:
        """Load columns (and ``numRows``/``datasetType``) from a parsed schema JSON object."""
        if "columns" not in json_obj:
            raise RuntimeError("Schema.from_json: the JSON object has no 'columns'")
        self.parse_columns(json_obj["columns"])
        self.num_rows = json_obj.get("numRows")
        self.dataset_type = json_obj.get("datasetType", "")

    def __str__(self) -> str:
        return self.to_json()


__all__ = ["Schema"]
