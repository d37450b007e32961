"""``mindspore.dataset.Schema``: a list of named, typed columns (with optional shapes), written and read as
MindSpore's JSON (``{"columns": [{"name", "rank", "shape", "type"}, ...]}``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

_TYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
          "float32", "float64", "string", "bytes"}


def _type_name(de_type: Any) -> str:
    name = getattr(de_type, "name", None) or str(de_type)
    name = name.lower().replace("mindspore.", "")
    if name == "bool_":
        name = "bool"
    if name not in _TYPES:
        raise TypeError(f"Schema: unknown column type {de_type!r}; use a MindSpore dtype or one of "
                        f"{', '.join(sorted(_TYPES))}")
    return name


class Schema:
    """``Schema(schema_file=None)``: columns added with :meth:`add_column` or :meth:`parse_columns` (or read
    from a JSON file)."""

    def __init__(self, schema_file: str | None = None) -> None:
        self.columns: list[dict[str, Any]] = []
        if schema_file is not None:
            with open(schema_file, encoding="utf-8") as f:
                self.from_json(json.load(f))

    def add_column(self, name: str, de_type: Any, shape: Sequence[int] | None = None) -> None:
        """Append a column ``name`` of type ``de_type`` and optional ``shape``."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"Schema.add_column: name must be a non-empty string, got {name!r}")
        # No shape: rank 1 of unknown length; an empty shape: a scalar (rank 0), as MindSpore writes them.
        col: dict[str, Any] = {"name": name, "rank": 1 if shape is None else len(shape)}
        if shape is not None:
            col["shape"] = [int(d) for d in shape]
        col["type"] = _type_name(de_type)
        self.columns.append(col)

    def parse_columns(self, columns: list | dict) -> None:
        """Replace the columns by ``columns``: a list of ``{'name', 'type', 'shape'}`` dicts, or a dict of
        name -> ``{'type', 'shape'}``."""
        items = [dict(c) for c in columns] if isinstance(columns, list) else \
            [dict(v, name=k) for k, v in columns.items()]
        self.columns = []
        for c in items:
            if "name" not in c or "type" not in c:
                raise RuntimeError(f"Schema.parse_columns: each column needs 'name' and 'type', got {c}")
            self.add_column(c["name"], c["type"], c.get("shape", []))

    def from_json(self, json_obj: dict) -> None:
        """Read columns from a parsed JSON object with a ``columns`` list or dict."""
        if "columns" not in json_obj:
            raise RuntimeError("Schema.from_json: the JSON object has no 'columns'")
        self.parse_columns(json_obj["columns"])

    def to_json(self) -> str:
        """The schema as MindSpore's JSON text."""
        return json.dumps({"columns": self.columns}, indent=2, sort_keys=True)

    def __str__(self) -> str:
        return self.to_json()
