"""``Dataset.save``: the rows of a pipeline written to MindRecord file(s) (readable with ``MindDataset``), with
MindSpore 2.x's implicit type casting: bool and integers up to 32 bits (and uint8/uint16) become int32,
uint32/int64/uint64 int64, float16/float32 float32, float64 stays; strings and bytes stay (scalars only)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..mindrecord.filewriter import FileWriter

_CAST = {"bool": "int32", "int8": "int32", "uint8": "int32", "int16": "int32", "uint16": "int32",
         "int32": "int32", "uint32": "int64", "int64": "int64", "uint64": "int64", "float16": "float32",
         "float32": "float32", "float64": "float64"}


def _field(name: str, values: list[np.ndarray]) -> tuple[dict[str, Any], str | None]:
    """The MindRecord schema entry of a column and the NumPy dtype its values are written in (None: as is)."""
    first = values[0]
    if first.dtype.kind in ("U", "S", "O"):
        if any(v.ndim for v in values):
            raise ValueError(f"save: column {name!r} holds string/bytes arrays; MindRecord keeps only scalar "
                             "strings and bytes")
        return {"type": "bytes" if first.dtype.kind == "S" else "string"}, None
    kind = _CAST.get(first.dtype.name)
    if kind is None:
        raise TypeError(f"save: column {name!r} has dtype {first.dtype}, which MindRecord cannot hold")
    if first.ndim == 0:
        return {"type": kind}, kind
    shapes = {v.shape for v in values}
    if len({s[1:] for s in shapes}) > 1 or len({len(s) for s in shapes}) > 1:
        raise ValueError(f"save: column {name!r} varies in shape beyond its first dimension ({sorted(shapes)}); "
                         "MindRecord takes a variable first dimension only")
    shape = list(first.shape) if len(shapes) == 1 else [-1, *first.shape[1:]]
    return {"type": kind, "shape": shape}, kind


def save_dataset(dataset: Any, file_name: str, num_files: int = 1, file_type: str = "mindrecord") -> None:
    """Write one epoch of ``dataset``'s rows to ``num_files`` MindRecord files named after ``file_name``."""
    if file_type != "mindrecord":
        raise ValueError(f"save: file_type must be 'mindrecord' (the only format MindSpore saves), got {file_type!r}")
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"save: file_name must be a non-empty str, got {file_name!r}")
    if isinstance(num_files, bool) or not isinstance(num_files, int) or not 1 <= num_files <= 1000:
        raise ValueError(f"save: num_files must be an int in [1, 1000], got {num_files!r}")
    names = dataset.get_col_names()
    columns: dict[str, list[np.ndarray]] = {n: [] for n in names}
    for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
        for n in names:
            if isinstance(row[n], dict):
                raise TypeError(f"save: column {n!r} holds Python dicts, which MindRecord cannot hold")
            columns[n].append(np.asarray(row[n]))
    if not columns or not columns[names[0]]:
        raise RuntimeError("save: the dataset has no rows to save")
    schema, casts = {}, {}
    for n in names:
        schema[n], casts[n] = _field(n, columns[n])
    writer = FileWriter(file_name, shard_num=num_files)
    writer.add_schema(schema, "dataset")
    rows = []
    for i in range(len(columns[names[0]])):
        row = {}
        for n in names:
            v = columns[n][i]
            if casts[n] is None:
                row[n] = v.item()
            else:
                v = v.astype(casts[n])
                row[n] = v.item() if v.ndim == 0 else v
        rows.append(row)
    writer.write_raw_data(rows)
    writer.commit()
